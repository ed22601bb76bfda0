"""The evaluation table in text, JSON, Markdown, and one self-contained HTML page with plots."""

from __future__ import annotations

import html
import json
from typing import Any, Sequence, TextIO

from chunkseam.evaluation.run import Result


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v * 100:.1f}"


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


COLUMNS = ("configuration", "chunks", "mean size", "broken %", "integrity %", "loud splits",
           "recall@k %", "complete@k %", "MRR", "tok recall %", "tok precision %", "IoU %")
#: the link to the linter: questions one of whose excerpts a loud cut splits | the others
LINK_COLUMNS = ("configuration", "questions loud | quiet", "complete@k % loud | quiet",
                "recall@k % loud | quiet", "MRR loud | quiet", "IoU % loud | quiet")


def rows(results: Sequence[Result], retriever: str | None = None) -> list[list[str]]:
    out = []
    for r in results:
        a = r.scores(retriever).to_dict()
        out.append([
            r.label, str(r.chunks), f"{r.mean_size:.1f}", _pct(r.broken_rate), _pct(r.integrity),
            str(sum(x.loud for x in r.excerpts)),
            _pct(a["recall_at_k"]), _pct(a["complete_at_k"]), _f(a["mrr"]), _pct(a["token_recall"]),
            _pct(a["token_precision"]), _pct(a["token_iou"]),
        ])
    return out


def link_rows(results: Sequence[Result], retriever: str | None = None) -> list[list[str]]:
    out = []
    for r in results:
        loud = r.scores(retriever, "split_loudly").to_dict()
        quiet = r.scores(retriever, "not_split_loudly").to_dict()
        out.append([r.label, f"{loud['questions']} | {quiet['questions']}",
                    f"{_pct(loud['complete_at_k'])} | {_pct(quiet['complete_at_k'])}",
                    f"{_pct(loud['recall_at_k'])} | {_pct(quiet['recall_at_k'])}",
                    f"{_f(loud['mrr'])} | {_f(quiet['mrr'])}",
                    f"{_pct(loud['token_iou'])} | {_pct(quiet['token_iou'])}"])
    return out


def retrievers(results: Sequence[Result]) -> list[str]:
    seen: list[str] = []
    for r in results:
        for name in r.retrieval:
            if name not in seen:
                seen.append(name)
    return seen or ["bm25"]


def _title(results: Sequence[Result], questions: int, retriever: str) -> str:
    k = results[0].k if results else 5
    return (f"{questions} questions, {results[0].documents if results else 0} documents, "
            f"retrieval: {retriever}, k = {k}")


def write_text(out: TextIO, results: Sequence[Result], *, questions: int, color: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, force_terminal=color, no_color=not color, width=200, highlight=False)
    for name in retrievers(results):
        for title, cols, body in ((_title(results, questions, name), COLUMNS, rows(results, name)),
                                  ("what loud cuts cost: questions one of whose excerpts a cut with an error or "
                                   "warning splits | the others", LINK_COLUMNS, link_rows(results, name))):
            table = Table(title=title, title_justify="left")
            for i, c in enumerate(cols):
                table.add_column(c, justify="left" if i == 0 else "right", style="bold" if i == 0 else None,
                                 no_wrap=i == 0)
            for row in body:
                table.add_row(*row)
            console.print(table)
    console.print("integrity: share of reference excerpts one chunk holds whole; loud splits: excerpts "
                  "split by a cut with an error or warning; loud | quiet: questions with such an excerpt "
                  "vs. the others (question counts in brackets)")
    for r in results:
        rules = r.split_rules()
        if rules:
            console.print(f"{r.label}: excerpts split by " + ", ".join(f"{k} {v}" for k, v in rules.items()))
        for e in r.errors[:5]:
            console.print(f"{r.label}: error: {e}")


def write_markdown(out: TextIO, results: Sequence[Result], *, questions: int) -> None:
    for name in retrievers(results):
        for title, cols, body in ((_title(results, questions, name), COLUMNS, rows(results, name)),
                                  ("What loud cuts cost (questions one of whose excerpts a loud cut splits | "
                                   "the others)", LINK_COLUMNS, link_rows(results, name))):
            out.write(f"**{title}**\n\n")
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |\n")
            out.write("|" + "|".join(["---"] + ["---:"] * (len(cols) - 1)) + "|\n")
            for row in body:
                out.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
            out.write("\n")


def to_json(results: Sequence[Result], *, questions: int, details: bool = False) -> dict[str, Any]:
    return {"questions": questions, "configurations": [r.to_dict(details=details) for r in results]}


def write_json(out: TextIO, results: Sequence[Result], *, questions: int, details: bool = False) -> None:
    json.dump(to_json(results, questions=questions, details=details), out, indent=2, ensure_ascii=False)
    out.write("\n")


# --- HTML ------------------------------------------------------------------------------------------

_PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
            "#9c755f", "#bab0ac")


def _bars(title: str, labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]]) -> str:
    """Grouped horizontal bars, values in [0, 1]."""
    bar_h, gap, left, width = 12, 10, 260, 420
    n = len(series)
    group_h = n * bar_h + gap
    height = 40 + len(labels) * group_h + 20
    total_w = max(left + width + 80, left + n * 130)
    parts = [f'<svg class="plot" role="img" aria-label="{html.escape(title)}" '
             f'width="{total_w}" height="{height}" viewBox="0 0 {total_w} {height}">',
             f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>']
    for j, (name, _) in enumerate(series):
        parts.append(f'<rect x="{left + j * 130}" y="24" width="10" height="10" fill="{_PALETTE[j % 10]}"/>'
                     f'<text x="{left + 14 + j * 130}" y="33" font-size="11">{html.escape(name)}</text>')
    for x in (0, 0.25, 0.5, 0.75, 1.0):
        gx = left + x * width
        parts.append(f'<line x1="{gx}" y1="40" x2="{gx}" y2="{height - 16}" stroke="#ddd"/>'
                     f'<text x="{gx}" y="{height - 4}" font-size="10" text-anchor="middle">{int(x * 100)}%</text>')
    for i, label in enumerate(labels):
        y0 = 40 + i * group_h
        parts.append(f'<text x="{left - 6}" y="{y0 + n * bar_h / 2 + 4}" font-size="11" text-anchor="end">'
                     f'{html.escape(label)}</text>')
        for j, (name, values) in enumerate(series):
            v = values[i]
            w = 0 if v is None else max(0.0, min(1.0, v)) * width
            tip = f"{label}: {name} {'—' if v is None else f'{v * 100:.1f}%'}"
            parts.append(f'<rect class="bar" x="{left}" y="{y0 + j * bar_h}" width="{w:.1f}" height="{bar_h - 2}" '
                         f'fill="{_PALETTE[j % 10]}"><title>{html.escape(tip)}</title></rect>')
            if v is not None:
                parts.append(f'<text x="{left + w + 3:.1f}" y="{y0 + j * bar_h + bar_h - 3}" font-size="9">'
                             f'{v * 100:.1f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _scatter(title: str, points: Sequence[tuple[str, float, float]], xlabel: str, ylabel: str) -> str:
    """Points (label, x in [0,1], y in [0,1])."""
    w, h, pad = 520, 340, 50
    parts = [f'<svg class="plot" role="img" aria-label="{html.escape(title)}" '
             f'width="{w + 220}" height="{h}" viewBox="0 0 {w + 220} {h}">',
             f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>']
    x0, y0, x1, y1 = pad, h - pad, w - 10, 30
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        gx = x0 + t * (x1 - x0)
        gy = y0 - t * (y0 - y1)
        parts.append(f'<line x1="{gx}" y1="{y1}" x2="{gx}" y2="{y0}" stroke="#eee"/>'
                     f'<text x="{gx}" y="{y0 + 14}" font-size="10" text-anchor="middle">{int(t * 100)}%</text>'
                     f'<line x1="{x0}" y1="{gy}" x2="{x1}" y2="{gy}" stroke="#eee"/>'
                     f'<text x="{x0 - 4}" y="{gy + 3}" font-size="10" text-anchor="end">{int(t * 100)}%</text>')
    parts.append(f'<text x="{(x0 + x1) / 2}" y="{h - 8}" font-size="11" text-anchor="middle">{html.escape(xlabel)}</text>'
                 f'<text x="12" y="{(y0 + y1) / 2}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(y0 + y1) / 2})">{html.escape(ylabel)}</text>')
    for i, (label, x, y) in enumerate(points):
        cx, cy = x0 + x * (x1 - x0), y0 - y * (y0 - y1)
        c = _PALETTE[i % 10]
        parts.append(f'<circle class="point" cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{c}">'
                     f'<title>{html.escape(f"{label}: {xlabel} {x * 100:.1f}%, {ylabel} {y * 100:.1f}%")}</title></circle>'
                     f'<rect x="{w + 4}" y="{30 + i * 16}" width="10" height="10" fill="{c}"/>'
                     f'<text x="{w + 18}" y="{39 + i * 16}" font-size="11">{html.escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_page(results: Sequence[Result], *, questions: int, title: str = "chunkseam eval") -> str:
    labels = [r.label for r in results]
    sections = []
    for name in retrievers(results):
        table = []
        for caption, cols, body in (
                ("", COLUMNS, rows(results, name)),
                ("<h3>What loud cuts cost: questions one of whose excerpts a cut with an error or warning "
                 "splits | the others</h3>", LINK_COLUMNS, link_rows(results, name))):
            table.append(caption + "<table><thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols)
                         + "</tr></thead><tbody>")
            for row in body:
                table.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
            table.append("</tbody></table>")
        alls = [r.scores(name).to_dict() for r in results]
        loud = [r.scores(name, "split_loudly").to_dict() for r in results]
        quiet = [r.scores(name, "not_split_loudly").to_dict() for r in results]
        sections.append(
            f"<section><h2>{html.escape(_title(results, questions, name))}</h2>" + "".join(table)
            + _bars("Integrity and retrieval per configuration", labels, [
                ("excerpt integrity", [r.integrity for r in results]),
                ("recall@k", [a["recall_at_k"] for a in alls]),
                ("complete@k", [a["complete_at_k"] for a in alls]),
                ("token IoU", [a["token_iou"] for a in alls]),
                ("broken chunks", [r.broken_rate for r in results])])
            + _bars("What loud cuts cost: complete@k of questions whose excerpt a warning/error cut splits vs. not",
                    labels, [("split loudly", [x["complete_at_k"] for x in loud]),
                             ("not split loudly", [x["complete_at_k"] for x in quiet])])
            + _scatter("Broken-chunk rate against complete@k",
                       [(r.label, r.broken_rate, a["complete_at_k"] or 0.0) for r, a in zip(results, alls)],
                       "broken-chunk rate", "complete@k")
            + "</section>")
    splits = []
    for r in results:
        rules = r.split_rules()
        if rules:
            splits.append(f"<li><b>{html.escape(r.label)}</b>: "
                          + ", ".join(f"{html.escape(k)} × {v}" for k, v in rules.items()) + "</li>")
    data = json.dumps(to_json(results, questions=questions), ensure_ascii=False).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
svg.plot {{ display: block; margin: 1.5em 0; font-family: system-ui, sans-serif; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Excerpt integrity: the share of reference excerpts one chunk holds whole. Retrieval metrics as in
Chroma's chunking evaluation (character ranges): token recall, precision and IoU of the top k chunks.
"Loud" questions have an excerpt split by a cut chunkseam reports as an error or a warning.</p>
{''.join(sections)}
<h2>Cuts that split excerpts, by rule</h2><ul>{''.join(splits) or '<li>none</li>'}</ul>
<script type="application/json" id="eval-data">{data}</script>
</body></html>
"""
