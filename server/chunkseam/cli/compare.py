"""``chunkseam compare``: the same documents under several strategies."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from chunkseam.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    SettingsCache,
    UsageError,
    check_tokenizer,
    open_output,
    split_codes,
)
from chunkseam.report.formats import (
    eprint,
    error_line,
    use_color,
)


def cmd_compare(args: argparse.Namespace) -> int:
    from chunkseam import chunkers as registry
    from chunkseam.config.discover import discover
    from chunkseam.engine import compare

    cache = SettingsCache(args)
    top = cache.settings(None)
    check_tokenizer(top)
    known = registry.names()
    if args.chunkers:
        strategies = split_codes(args.chunkers) or []
        unknown = [s for s in strategies if s not in known]
        if unknown:
            raise UsageError(f"error: unknown chunker {', '.join(unknown)}: expected one of {', '.join(known)}")
        for s in strategies:
            why = registry.unavailable(s)
            if why:
                raise UsageError(f"error: --chunkers {s}: {why}")
    else:
        strategies = [s for s in compare.DEFAULT_STRATEGIES if s in known]
        missing = [s for s in compare.DEFAULT_STRATEGIES if s not in known]
        if missing:
            eprint(f"note: {', '.join(missing)} not available in this installation; comparing {', '.join(strategies)}")
    disc = discover(args.paths, top.include, top.exclude)
    errors = 0
    for path, msg in disc.errors:
        eprint(error_line(path, msg))
        errors += 1
    if not disc.files and errors:  # `compare nope.md`: the error and nothing else
        return EXIT_ERROR
    stats = [compare.StrategyStats(s) for s in strategies]
    per_file: list[dict[str, Any]] = []
    html_files = []
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.notebook import NotebookError, open_document

    for f in disc.files:
        try:
            doc = open_document(read_source(f, keep_bom=True), str(f), cache.settings(f))
        except (SourceError, NotebookError) as exc:
            eprint(error_line(str(f), str(exc)))
            errors += 1
            continue
        settings = cache.settings(f)
        row: dict[str, Any] = {"path": str(f), "strategies": {}}
        columns = []
        for st in stats:
            try:
                chunks, issues = compare.run_strategy(doc, settings, st.strategy)
            except Exception as exc:
                eprint(error_line(str(f), f"{st.strategy}: {type(exc).__name__}: {exc}"))
                st.error = str(exc)
                errors += 1
                continue
            st.add(chunks, issues)
            one = compare.StrategyStats(st.strategy)
            one.add(chunks, issues)
            row["strategies"][st.strategy] = one.to_dict()
            columns.append((st.strategy, chunks, issues))
        per_file.append(row)
        if args.format == "html":
            html_files.append((doc, columns))
    out = open_output(args.output)
    try:
        if args.format == "json":
            compare.write_json(out, stats, per_file, top)
        elif args.format == "html":
            from chunkseam.report.preview import compare_page

            out.write(compare_page(html_files, settings=top, table_html=compare.table_html(stats, top.unit)))
        else:
            compare.write_text(out, stats, unit=top.unit, color=use_color(out, args.color), files=len(per_file))
    finally:
        if out is not sys.stdout:
            out.close()
    return EXIT_ERROR if errors else EXIT_OK
