"""``chunkseam audit``: the chunks of an existing index (a JSON-lines dump) judged against their sources."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from chunkseam.cli.common import (
    SettingsCache,
    UsageError,
    check_tokenizer,
    exit_code,
    finish,
    map_jobs,
)
from chunkseam.core.settings import Settings
from chunkseam.report.formats import (
    FileResult,
    eprint,
    error_line,
)


def cmd_audit(args: argparse.Namespace) -> int:
    from chunkseam.audit.dump import AuditJob, DumpError, audit_group, read_groups

    cache = SettingsCache(args)
    root = args.source_root
    settings = cache.settings(root or None)
    check_tokenizer(settings)
    if root and not Path(root).is_dir():
        raise UsageError(error_line(root, "--source-root is not a directory"))
    errors: list[dict[str, Any]] = []
    dump_name = "<stdin>" if args.dump == "-" else args.dump
    if args.dump != "-":
        from chunkseam.config.confine import refusal

        why = refusal(args.dump)
        if why is not None:  # a dump linked out of the repository is not read
            raise UsageError(error_line(args.dump, why))
    if args.scheduler:
        return _audit_on_cluster(args, settings, dump_name)

    def on_error(e: DumpError) -> None:
        msg = f"line {e.line}: {e.message}"
        eprint(f"{dump_name}:{e.line}: error: {e.message}")
        errors.append({"path": dump_name, "line": e.line, "message": msg})

    if args.dump == "-":
        stream: Any = sys.stdin
        total_bytes = None
    else:
        try:
            if not Path(args.dump).is_file():
                raise UsageError(error_line(args.dump, "No such file" if not Path(args.dump).exists()
                                            else "not a regular file"))
            stream = open(args.dump, encoding="utf-8", errors="surrogateescape", newline="")
            total_bytes = os.path.getsize(args.dump)
        except OSError as exc:
            raise UsageError(error_line(args.dump, exc.strerror or str(exc))) from None
    show_bar = sys.stderr.isatty() and not os.environ.get("CHUNKSEAM_NO_PROGRESS") and total_bytes
    bar = task = None
    if show_bar:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(TextColumn("auditing"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                       console=Console(file=sys.stderr), transient=True)
        bar.start()
        task = bar.add_task("audit", total=total_bytes)

    def on_progress(n: int) -> None:
        if bar is not None:
            bar.advance(task, n)

    modes = {"source-aware": 0, "text-only": 0}
    listed: list[FileResult] = []  # the first documents, for the text report
    text_only: list[FileResult] = []

    def on_result(r: FileResult) -> None:
        modes[r.mode or "text-only"] = modes.get(r.mode or "text-only", 0) + 1
        slim = FileResult(path=r.path, mode=r.mode, mode_reason=r.mode_reason, extra={"label": r.extra.get("label")})
        if len(listed) <= 50:
            listed.append(slim)
        if r.mode != "source-aware" and len(text_only) <= 50:
            text_only.append(slim)

    def extra_text() -> list[str]:
        total = sum(modes.values())
        shown = listed if total <= 50 else text_only
        lines = [f"{r.extra.get('label')}: {r.mode} ({r.mode_reason})" for r in shown[:50]]
        if total > 50:
            lines.append(f"(documents checked source-aware are not listed when there are more than 50; "
                         f"see --format json)")
        lines.append(f"{modes['source-aware']} document{'s' if modes['source-aware'] != 1 else ''} checked "
                     f"source-aware, {modes['text-only']} text-only")
        return lines

    collector = None
    if args.report:
        from chunkseam.audit.page import ReportCollector
        from chunkseam.tokens.models import model_limit

        if not Path(args.report).absolute().parent.is_dir():
            raise UsageError(error_line(args.report, "cannot write the report: its directory does not exist"))
        collector = ReportCollector(settings.size, settings.unit, model_limit(settings))
        counted = on_result

        def on_result(r: FileResult) -> None:
            collector.add(r)  # before finish drops the records of a streamed result
            counted(r)

    groups = read_groups(_dump_items(stream, on_error, dump_name), on_error, on_progress)
    jobs = (AuditJob(g, dump_name, root, settings, allow_outside_root=args.allow_outside_root,
                     sizes=collector is not None) for g in groups)
    try:
        code = finish(args, map_jobs(audit_group, jobs, args.jobs), errors, noun="document",
                       on_result=on_result, extra_text=extra_text, modes=modes)
        if collector is not None:
            _write_report(args.report, collector, dump_name)
        return code
    finally:
        if bar is not None:
            bar.stop()
        if stream is not sys.stdin:
            stream.close()


def _write_report(path: str, collector: Any, dump_name: str) -> None:
    from chunkseam.report.formats import Summary

    summary = Summary()
    for d, c, b in collector.groups.values():
        summary.files += d
        summary.chunks += c
        summary.chunks_with_issues += b
    summary.issues = sum(collector.rules.values())
    from chunkseam.config.confine import write_refusal

    why = write_refusal(path)
    if why is not None:
        raise UsageError(error_line(path, f"cannot write the report: {why}"))
    try:
        Path(path).write_text(collector.page(summary, f"chunkseam audit of {dump_name}"), encoding="utf-8")
    except OSError as exc:
        raise UsageError(error_line(path, f"cannot write the report: {exc.strerror or exc}")) from None
    eprint(f"wrote the report to {path}")


def _audit_on_cluster(args: argparse.Namespace, settings: Settings, dump_name: str) -> int:
    """``audit --scheduler``: byte ranges of the dump on Dask workers, parts in --output-dir."""
    from chunkseam.cluster.jobs import run
    from chunkseam.report import formats as report

    if args.dump == "-":
        raise UsageError("error: --scheduler reads the dump from a path or URL, not stdin")
    if not args.output_dir:
        raise UsageError("error: --scheduler needs --output-dir DIR (the full records are written there)")
    if args.format not in ("text", "jsonl", "sarif"):
        raise UsageError(f"error: --scheduler writes JSON Lines or SARIF parts; --format {args.format} "
                         "is not available with it (use text, jsonl or sarif)")
    if args.baseline or args.write_baseline or args.report:
        raise UsageError("error: --baseline, --write-baseline and --report are not available with --scheduler")
    if "://" not in args.dump and not Path(args.dump).is_file():
        raise UsageError(error_line(args.dump, "No such file" if not Path(args.dump).exists()
                                    else "not a regular file"))
    try:
        summary, modes, errors, fails, _ = run(
            args.dump, dump_name, args.scheduler, args.jobs, settings, args.source_root,
            args.allow_outside_root, args.output_dir, "sarif" if args.format == "sarif" else "jsonl",
            args.fail_on, on_shuffle=lambda: eprint(
                f"warning: {dump_name}: the dump is not grouped by document (a document's chunks are not "
                "consecutive lines): shuffling it by doc_id so that each document is audited whole; this "
                "moves every chunk between workers once more (sort the dump by doc_id to avoid it)"))
    except (ValueError, RuntimeError, OSError) as exc:
        raise UsageError(f"error: {exc}") from None
    for e in errors:
        eprint(f"{e['path']}:{e['line']}: error: {e['message'].split(': ', 1)[-1]}" if "line" in e
               else error_line(e["path"], e["message"]))
    eprint(f"wrote the records to {args.output_dir} ({'SARIF' if args.format == 'sarif' else 'JSON Lines'} "
           "parts and summary.json)")
    print(report.summary_line(summary, noun="document"))
    print(f"{modes.get('source-aware', 0)} documents checked source-aware, {modes.get('text-only', 0)} text-only")
    return exit_code(args, bool(errors), bool(fails), summary)


def _dump_items(stream, on_error, dump_name: str):
    """JSON Lines, streamed; or the elements of a JSON array file (read whole)."""
    from chunkseam.audit.dump import array_items

    lines = _utf8_lines(stream, on_error, dump_name)
    head: list[str] = []
    for raw in lines:
        head.append(raw)
        if raw.strip():
            break
    if head and head[-1].lstrip().startswith("["):
        yield from array_items("".join(head) + "".join(lines), on_error)
        return
    yield from head
    yield from lines


def _utf8_lines(stream, on_error, dump_name: str):
    """Lines of the dump; a line that is not UTF-8 is reported and skipped."""
    from chunkseam.audit.dump import DumpError

    for n, raw in enumerate(stream, 1):
        if n == 1 and raw.startswith("\ufeff"):  # a UTF-8 byte order mark
            raw = raw[1:]
        if any("\udc80" <= ch <= "\udcff" for ch in raw):
            on_error(DumpError(n, "not UTF-8"))
            yield "\n"  # keep line numbers aligned
            continue
        yield raw
