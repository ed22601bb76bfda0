"""``chunkseam tune``: a grid of configurations, its Pareto set, and ``--write``.

Objectives: a lower broken-chunk rate and a smaller mean chunk (less context
per retrieved chunk) on the files; with questions also a higher excerpt
integrity, recall@k and token IoU (BM25). A configuration is in the Pareto
set when no other is at least as good on every objective and better on one.

The configuration ``--write`` keeps (unless ``--choose N``): with questions,
the Pareto member with the highest recall@k (then token IoU, then the lower
broken-chunk rate); without, the one with the lowest broken-chunk rate among
those whose size is at most the configured size (the budget the pipeline
has), else the lowest broken-chunk rate overall.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from chunkseam.evaluation.run import ChunkTotals


@dataclass
class Row(ChunkTotals):
    label: str
    settings: Any
    chunks: int = 0
    size_total: int = 0
    broken: int = 0
    integrity: float | None = None
    recall_at_k: float | None = None
    iou: float | None = None
    errors: list[str] = field(default_factory=list)


    def objectives(self) -> tuple[float, ...]:
        """All to be minimised."""
        base = (self.broken_rate, self.mean_size)
        if self.recall_at_k is None:
            return base
        return base + (-(self.integrity or 0.0), -(self.recall_at_k or 0.0), -(self.iou or 0.0))

    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        d = {"label": self.label, "chunker": s.chunker, "chunker_options": dict(s.chunker_options or {}),
             "size": s.size, "overlap": s.overlap, "unit": s.unit, "chunks": self.chunks,
             "mean_size": round(self.mean_size, 2), "broken_rate": round(self.broken_rate, 6)}
        if self.recall_at_k is not None:
            d.update(excerpt_integrity=round(self.integrity or 0.0, 6), recall_at_k=round(self.recall_at_k, 6),
                     token_iou=round(self.iou or 0.0, 6))
        if self.errors:
            d["errors"] = self.errors
        return d


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto(rows: Sequence[Row]) -> list[Row]:
    ok = [r for r in rows if not r.errors and r.chunks]
    front = [r for r in ok if not any(dominates(o.objectives(), r.objectives()) for o in ok if o is not r)]
    return order(front)


def order(rows: Sequence[Row]) -> list[Row]:
    if rows and rows[0].recall_at_k is not None:
        return sorted(rows, key=lambda r: (-(r.recall_at_k or 0), -(r.iou or 0), r.broken_rate, r.mean_size))
    return sorted(rows, key=lambda r: (r.broken_rate, r.mean_size))


def choose(front: Sequence[Row], configured_size: int) -> Row | None:
    if not front:
        return None
    if front[0].recall_at_k is not None:
        return front[0]
    within = [r for r in front if r.settings.size <= configured_size]
    return min(within or front, key=lambda r: (r.broken_rate, r.mean_size))


def _rows_from_files(args: argparse.Namespace, configs) -> list[Row]:
    from chunkseam.cli.common import UsageError
    from chunkseam.cli.eval import mapper, eval_progress
    from chunkseam.config.discover import discover
    from chunkseam.evaluation.run import chunk_document
    from chunkseam.report.formats import eprint

    top = configs[0][1]
    disc = discover(args.paths or ["."], top.include, top.exclude)
    for path, msg in disc.errors:
        eprint(f"{path}: error: {msg}")
    files = [str(f) for f in disc.files]
    if not files:
        raise UsageError("error: no files to tune on")
    items = [(f, s, f) for _, s in configs for f in files]
    done = eval_progress(args)(mapper(args)(chunk_document, items), len(items), "tuning")
    it = iter(done)
    rows = []
    for label, s in configs:
        row = Row(label, s)
        for _ in files:
            dc = next(it)
            if dc.error:
                row.errors.append(f"{dc.path}: {dc.error}")
                continue
            row.chunks += len(dc.spans)
            row.size_total += sum(n for _, _, n in dc.spans)
            row.broken += dc.broken
        rows.append(row)
    return rows


def _rows_from_questions(args: argparse.Namespace, configs) -> list[Row]:
    from chunkseam.cli.eval import load_questions, mapper, eval_progress
    from chunkseam.evaluation.run import evaluate

    corpus, questions = load_questions(args.questions, args.corpus)
    results = evaluate(questions, corpus, configs, k=args.k, mapper=mapper(args), progress=eval_progress(args))
    rows = []
    for r in results:
        a = r.scores().to_dict()
        rows.append(Row(r.label, r.settings, r.chunks, r.size_total, r.broken, r.integrity,
                        a["recall_at_k"] or 0.0, a["token_iou"] or 0.0, list(r.errors)))
    return rows


def run(args: argparse.Namespace) -> int:
    from chunkseam.cli.common import EXIT_ERROR, EXIT_OK, UsageError, open_output
    from chunkseam.cli.eval import configurations
    from chunkseam.config.loader import resolve
    from chunkseam.report.formats import eprint

    if not args.chunkers and not args.sizes and not args.overlaps and not args.units:
        args.sizes = [128, 256, 384, 512, 768, 1024]
        args.overlaps = ["0", "10%", "20%"]
    configs = configurations(args, [args.config])
    base = resolve(Path.cwd(), {}, config_file=args.config)
    rows = _rows_from_questions(args, configs) if args.questions else _rows_from_files(args, configs)
    front = pareto(rows)
    shown = order([r for r in rows if not r.errors]) if args.show_all else front
    picked = None
    if args.choose:
        if args.choose > len(front):
            raise UsageError(f"error: --choose {args.choose}: the Pareto set has {len(front)} configurations")
        picked = front[args.choose - 1]
    else:
        picked = choose(front, base.settings.size)
    out = open_output(args.output)
    try:
        if args.format == "json":
            json.dump({"grid": len(rows), "pareto": [r.to_dict() for r in front],
                       "all": [r.to_dict() for r in rows] if args.show_all else None,
                       "chosen": picked.to_dict() if picked else None}, out, indent=2, ensure_ascii=False)
            out.write("\n")
        else:
            _write_table(out, shown, front, picked, markdown=args.format == "markdown", grid=len(rows))
    finally:
        if out is not sys.stdout:
            out.close()
    for r in rows:
        for e in r.errors[:3]:
            eprint(f"{r.label}: error: {e}")
    if args.write:
        if picked is None:
            raise UsageError("error: --write: no configuration to write (every one failed)")
        target = write_config(picked.settings, base.config_file)
        eprint(f"wrote {picked.label} to {target}")
    return EXIT_ERROR if any(r.errors for r in rows) and not front else EXIT_OK


def _write_table(out, rows: Sequence[Row], front: Sequence[Row], picked: Row | None, *, markdown: bool,
                 grid: int) -> None:
    with_q = bool(rows) and rows[0].recall_at_k is not None
    cols = ["#", "configuration", "chunks", "mean size", "broken %"]
    if with_q:
        cols += ["integrity %", "recall@k %", "IoU %"]
    cols.append("pareto")
    table = []
    for i, r in enumerate(rows, 1):
        row = [str(i), r.label + (" ← chosen" if r is picked else ""), str(r.chunks), f"{r.mean_size:.1f}",
               f"{r.broken_rate * 100:.1f}"]
        if with_q:
            row += [f"{(r.integrity or 0) * 100:.1f}", f"{(r.recall_at_k or 0) * 100:.1f}", f"{(r.iou or 0) * 100:.1f}"]
        row.append("yes" if r in front else "")
        table.append(row)
    title = f"{grid} configurations, {len(front)} in the Pareto set"
    if markdown:
        out.write(f"**{title}**\n\n| " + " | ".join(cols) + " |\n|" + "|".join("---" for _ in cols) + "|\n")
        for row in table:
            out.write("| " + " | ".join(row) + " |\n")
        return
    widths = [max(len(c), *(len(r[i]) for r in table)) if table else len(c) for i, c in enumerate(cols)]
    out.write(title + "\n")
    out.write("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths))) + "\n")
    for row in table:
        out.write("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) + "\n")


def write_config(settings: Any, config_file: Path | None) -> Path:
    """Put ``settings``' chunker, size, overlap and unit into the project's config file,
    keeping its formatting and comments (tomlkit); a new ``chunkseam.toml`` when there is none.
    The file is checked by reading it back; a file that would not load is left as it was."""
    import tomlkit

    from chunkseam.cli.common import UsageError
    from chunkseam.config.loader import ConfigError, resolve

    target = Path(config_file) if config_file else Path.cwd() / "chunkseam.toml"
    old = target.read_text(encoding="utf-8") if target.exists() else None
    doc = tomlkit.parse(old) if old is not None else tomlkit.document()
    if target.name == "pyproject.toml" or ("tool" in doc and "chunkseam" in doc.get("tool", {})):
        tool = doc.setdefault("tool", tomlkit.table(is_super_table=True))
        if "chunkseam" not in tool:
            tool["chunkseam"] = tomlkit.table()
        table = tool["chunkseam"]
    else:
        table = doc
    previous = table.get("chunker")
    if settings.chunker:
        table["chunker"] = settings.chunker
    elif "chunker" in table:
        del table["chunker"]
    table["size"] = settings.size
    table["overlap"] = settings.overlap
    table["unit"] = settings.unit
    options = dict(settings.chunker_options or {})
    if previous != settings.chunker or options:
        if "chunker-options" in table:
            del table["chunker-options"]
        if options:
            t = tomlkit.table()
            for k, v in options.items():
                t[k] = v
            table["chunker-options"] = t
    text = tomlkit.dumps(doc)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{target}: error: cannot write the configuration: {exc.strerror or exc}") from None
    try:
        resolve(target.parent, {}, config_file=target)
    except ConfigError as exc:
        if old is None:
            target.unlink()
        else:
            target.write_text(old, encoding="utf-8")
        raise UsageError(f"error: the chosen configuration does not load ({exc}); {target} left as it was") from None
    return target


def cmd_tune(args: argparse.Namespace) -> int:
    return run(args)
