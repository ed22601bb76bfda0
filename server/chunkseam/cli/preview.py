"""``chunkseam preview``: the chunks in the terminal or as a self-contained HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from chunkseam.cli.common import (
    EXIT_OK,
    SettingsCache,
    UsageError,
    check_tokenizer,
    load_doc,
    settings_path,
)
from chunkseam.report.formats import (
    eprint,
    error_line,
    plural,
    use_color,
)


def cmd_preview(args: argparse.Namespace) -> int:
    from chunkseam.engine.analysis import analyze
    from chunkseam.report.preview import html_page, print_terminal, too_many_to_draw

    resolved = SettingsCache(args).resolved(settings_path(args, args.file))
    settings = resolved.settings
    doc = load_doc(args.file, args, settings)
    check_tokenizer(settings)
    a = analyze(doc, settings)
    from chunkseam.engine.analysis import describe_chunker

    simulated = describe_chunker(settings, resolved.sources)
    if args.html:
        page = html_page(doc, a.chunks, a.issues, chunker=a.chunker, settings=settings)
        from chunkseam.config.confine import write_refusal

        why = write_refusal(args.html)
        if why is not None:
            raise UsageError(error_line(args.html, why))
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as exc:
            raise UsageError(error_line(args.html, exc.strerror or str(exc))) from None
        eprint(f"wrote {args.html}: {plural(len(a.chunks), 'chunk')}, {plural(len(a.issues), 'issue')}; "
               f"{simulated}")
        note = too_many_to_draw(a.chunks)
        if note is not None:
            eprint(f"{args.html}: {note}")
        return EXIT_OK
    sys.stdout.write(simulated + "\n")
    print_terminal(doc, a.chunks, a.issues, out=sys.stdout, color=use_color(sys.stdout, args.color),
                   unit=settings.unit, chunker=a.chunker, width=args.width)
    return EXIT_OK
