"""``chunkseam chunks``: the chunks of a file, as the configured chunker cuts it."""

from __future__ import annotations

import argparse
import json
import sys

from chunkseam.cli.common import (
    EXIT_OK,
    SettingsCache,
    UsageError,
    check_tokenizer,
    load_doc,
    settings_path,
)
from chunkseam.report.formats import (
    error_line,
    plural,
)


def cmd_chunks(args: argparse.Namespace) -> int:
    from chunkseam.engine.analysis import make_chunks, sizer_for

    settings = SettingsCache(args).settings(settings_path(args, args.file))
    doc = load_doc(args.file, args, settings)
    check_tokenizer(settings)
    from chunkseam.core import budget
    try:  # within the budget of an analysis, as lint is
        budget.check_document(len(doc.text))
        with budget.limits(budget.default_seconds(len(doc.text))):
            sizer = sizer_for(settings)
            name, chunks = make_chunks(doc, settings, sizer)
    except budget.BudgetExceeded as exc:
        raise UsageError(error_line(args.file, str(exc))) from None
    out = sys.stdout
    if args.format == "json":
        rows = []
        for c in chunks:
            d = c.to_dict()
            start_cell, d["start_line"], d["start_column"] = doc.location(c.start)
            end_cell, d["end_line"], d["end_column"] = doc.location(c.end)
            if start_cell is not None:  # a notebook: lines and columns in the cells' sources
                d["start_cell"], d["end_cell"] = start_cell, end_cell
            d["unit"] = settings.unit
            rows.append(d)
        json.dump(rows, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_OK
    from chunkseam.report.preview import first_words, line_range

    unit = "tok" if settings.unit == "tokens" else "ch"
    width = len(str(len(chunks)))  # chunks are numbered from 1 here (JSON: 0-based "index")
    for c in chunks:
        if doc.notebook is not None:
            first_cell, first, _ = doc.location(c.start)
            last_cell, last, _ = doc.location(max(c.start, c.end - 1))
            where = (f"cell {first_cell}:{first}-{last}" if first_cell == last_cell
                     else f"cell {first_cell}:{first}-cell {last_cell}:{last}")
        else:
            first, last = line_range(doc, c)
            where = f"L{first}-{last}"
        path = " › ".join(c.heading_path)
        flag = (" OVERSIZE" if c.oversize else "") + (" APPROXIMATE" if c.approximate else "")
        out.write(f"#{c.index + 1:<{width}}  {where}  {c.tokens} {unit}{flag}"
                  f"{'  ' + path if path else ''}  \"{first_words(c.text, 50)}\"\n")
    out.write(f"{doc.path or '-'}: {plural(len(chunks), 'chunk')} ({name}, size {settings.size} {settings.unit}, "
              f"overlap {settings.overlap})"
              + ("; offsets approximate" if any(c.approximate for c in chunks) else "")
              + (f"; fell back to {chunks[0].meta['fallback']}: {chunks[0].meta.get('reason')}"
                 if chunks and chunks[0].meta.get("fallback") else "") + "\n")
    return EXIT_OK
