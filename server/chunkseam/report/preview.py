"""See the chunks: a rich terminal view and a self-contained HTML page.

The HTML page has no external assets and makes no network request: CSS and
JavaScript are inline, all document text is escaped, and the data the script
needs is embedded as JSON (with ``<`` escaped). The document is shown as text
in which every chunk is a coloured band (``.cs-band[data-chunk]``), text
shared by two chunks (overlap) is striped in both colours, every cut is
marked (``.cs-cut``), red when an issue is about it, and issues become
tooltips (``.cs-tip``, built by the script; a ``title`` attribute is the
fallback without JavaScript). A side list names each chunk with its lines,
size, heading path and issues.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence, TextIO

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.core.issue import SEVERITY_RANK, Issue
from chunkseam.report.formats import plural

# neighbours get far-apart hues so a cut is visible at a glance
_HUES = (212, 32, 142, 280, 0, 176, 52, 322, 100, 240)


def hue(index: int) -> int:
    return _HUES[index % len(_HUES)]


def band_color(index: int) -> str:
    return f"hsl({hue(index)} 85% 88%)"


def overlap_color(index: int) -> str:
    return f"hsl({hue(index)} 80% 76%)"


def strong_color(index: int) -> str:
    return f"hsl({hue(index)} 60% 42%)"


# --- shared helpers ---------------------------------------------------------------------


def broken_stats(chunks: Sequence[Chunk], issues: Sequence[Issue]):
    """The broken-chunk count and rate, computed as everywhere else
    (:func:`chunkseam.engine.validate.statistics`: a chunk is broken when an error or
    warning is charged to it)."""
    from chunkseam.engine.validate import statistics

    return statistics(chunks, issues)


def line_range(doc: Document, c: Chunk) -> tuple[int, int]:
    first, _ = doc.line_col(c.start)
    last, _ = doc.line_col(max(c.start, c.end - 1))
    return first, last


def span_label(doc: Document, c: Chunk) -> str:
    """``lines 3–9``, or in a notebook ``cells 2:1–3:4`` (cell:line, lines in the cells)."""
    if getattr(doc, "notebook", None) is None:
        first, last = line_range(doc, c)
        return f"lines {first}–{last}"
    fc, fl, _ = doc.location(c.start)
    lc, ll, _ = doc.location(max(c.start, c.end - 1))
    return f"cell {fc}:{fl}–{ll}" if fc == lc else f"cells {fc}:{fl}–{lc}:{ll}"


def _where(doc: Document, offset: int) -> str:
    cell, line, col = doc.location(offset)
    return f"{line}:{col}" if cell is None else f"cell {cell}:{line}:{col}"


def _issues_by_chunk(issues: Iterable[Issue]) -> dict[int, list[Issue]]:
    out: dict[int, list[Issue]] = {}
    for i in issues:
        for k in {i.chunk, i.other_chunk}:
            if k is not None:
                out.setdefault(k, []).append(i)
    return out


def first_words(text: str, n: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


# --- terminal ---------------------------------------------------------------------------


def print_terminal(doc: Document, chunks: Sequence[Chunk], issues: Sequence[Issue], *,
                   out: TextIO, color: bool, unit: str = "tokens", chunker: str = "",
                   width: int | None = None, stats: Any = None) -> None:
    """Each chunk in a panel: index, line range, size, heading path; text shared
    with a neighbour (overlap) highlighted; the chunk's issues under it."""
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.text import Text

    console = Console(file=out, force_terminal=color, no_color=not color, color_system="auto" if color else None,
                      width=width, highlight=False, soft_wrap=False, emoji=False)
    by_chunk = _issues_by_chunk(issues)
    unit_label = "tok" if unit == "tokens" else "chars"
    sev_style = {"error": "bold red", "warning": "bold yellow", "info": "bold blue", "hint": "cyan"}
    for c in chunks:
        text = Text()
        prev = chunks[c.index - 1] if c.index > 0 else None
        nxt = chunks[c.index + 1] if c.index + 1 < len(chunks) else None
        head_ov = max(c.start, min(prev.end, c.end)) if prev is not None and prev.end > c.start else c.start
        tail_ov = min(c.end, max(nxt.start, c.start)) if nxt is not None and nxt.start < c.end else c.end
        if head_ov > c.start:
            text.append(doc.text[c.start:head_ov], style="reverse magenta" if color else "")
            if not color:
                text = Text("«overlap» ") + text + Text(" «/overlap»")
        text.append(doc.text[head_ov:max(head_ov, tail_ov)])
        if tail_ov < c.end:
            if not color:
                text.append(" «overlap» ")
            text.append(doc.text[max(head_ov, tail_ov):c.end], style="reverse magenta" if color else "")
            if not color:
                text.append(" «/overlap»")
        title = f"chunk {c.index + 1}"  # people count from one (JSON keeps the 0-based index)
        path = " › ".join(c.heading_path)
        subtitle = f"{span_label(doc, c)} · {c.tokens} {unit_label}" + (" · OVERSIZE" if c.oversize else "")
        if path:
            subtitle += f" · {path}"
        mine = [i for i in by_chunk.get(c.index, []) if i.chunk == c.index or i.chunk is None]
        border = "green"
        if mine:
            worst = min(mine, key=lambda i: SEVERITY_RANK.get(i.severity, 9)).severity
            border = {"error": "red", "warning": "yellow"}.get(worst, "blue")
        body: list[Any] = [text]
        if mine:
            lines = Text()
            for i in sorted(mine, key=lambda i: i.start):
                lines.append("\n")
                lines.append(f"{i.code}", style=sev_style.get(i.severity, ""))
                lines.append(f" [{i.name}] {_where(doc, i.start)} {i.message}")
            body.append(lines)
        # headings are text, not rich markup ("[draft]" must stay)
        console.print(Panel(Group(*body), title=title, title_align="left", subtitle=Text(subtitle),
                            subtitle_align="left", border_style=border if color else "none"))
    stats = broken_stats(chunks, issues)
    broken = stats.chunks_with_issues
    name = doc.path or "<text>"
    # one line whatever the width: a path is never broken by an inserted newline
    # (the terminal wraps it softly; copy, paste and grep keep working)
    console.print(Text(f"{name}: {plural(len(chunks), 'chunk')} ({chunker}), {plural(len(issues), 'issue')}, "
                       f"{broken} of {plural(len(chunks), 'chunk')} broken ({stats.rate * 100:.1f}%)"),
                  soft_wrap=True)


# --- HTML -------------------------------------------------------------------------------

_CSS = r"""
:root { --fg:#1d2330; --muted:#5b6577; --bg:#f6f7f9; --panel:#fff; --line:#dde1e8;
        --err:#c62828; --warn:#b26a00; --info:#1565c0; }
* { box-sizing: border-box; }
html, body { margin:0; padding:0; background:var(--bg); color:var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header.cs-head { position:sticky; top:0; z-index:5; background:#1d2330; color:#fff;
  padding:10px 20px; display:flex; gap:18px; align-items:baseline; flex-wrap:wrap; }
header.cs-head h1 { font-size:17px; margin:0; font-weight:600; }
header.cs-head .cs-meta { color:#c7cedb; font-size:13px; }
header.cs-head .cs-rate { margin-left:auto; font-weight:600; }
header.cs-head .cs-rate.bad { color:#ffb4a9; } header.cs-head .cs-rate.ok { color:#a5e7b5; }
.cs-layout { display:grid; grid-template-columns: minmax(0,1fr) 330px; gap:18px; padding:18px 20px; }
.cs-doc { background:var(--panel); border:1px solid var(--line); border-radius:8px;
  padding:18px 22px; white-space:pre-wrap; overflow-wrap:anywhere;
  font: 14px/1.7 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.cs-band { background: var(--c); border-radius:3px; padding:1px 0; transition: box-shadow .12s; }
.cs-band.cs-active { box-shadow: 0 0 0 2px var(--cs); }
.cs-band.cs-empty { display:inline-block; width:6px; height:1em; }
.cs-ov { background: repeating-linear-gradient(135deg, var(--c) 0 4px, var(--c2) 4px 8px);
  outline: 1px dashed rgba(0,0,0,.25); }
.cs-gap { color: var(--muted); }
.cs-issue { text-decoration: underline wavy; text-decoration-thickness: 1.5px; text-underline-offset: 3px; }
.cs-issue.cs-sev-error { text-decoration-color: var(--err); }
.cs-issue.cs-sev-warning { text-decoration-color: var(--warn); }
.cs-issue.cs-sev-info, .cs-issue.cs-sev-hint { text-decoration-color: var(--info); }
.cs-cut { position:relative; display:inline-block; width:0; height:1.35em; vertical-align:-0.3em;
  border-left:2px dashed #8b95a7; margin:0 2px; }
.cs-cut::before { content:attr(data-label); position:absolute; top:-0.95em; left:-0.7em; font:10px/1 system-ui, sans-serif;
  color:#fff; background:#8b95a7; border-radius:3px; padding:1px 3px; white-space:nowrap; }
.cs-cut.cs-bad { border-left:2px solid var(--err); }
.cs-cut.cs-bad::before { background:var(--err); }
[data-issues] { cursor: help; }
.cs-tip { display:none; position:absolute; z-index:20; left:0; top:1.5em; min-width:280px; max-width:460px;
  background:#1d2330; color:#fff; border-radius:6px; padding:8px 10px; white-space:normal;
  font: 12.5px/1.45 system-ui, sans-serif; box-shadow:0 6px 18px rgba(0,0,0,.25); }
.cs-tip-item + .cs-tip-item { margin-top:6px; padding-top:6px; border-top:1px solid #3a4356; }
.cs-tip b { color:#ffcc80; }
.cs-tip b.sev-error { color:#ff8a80; }
.cs-anchor { position:relative; }
.cs-anchor:hover > .cs-tip, .cs-anchor:focus > .cs-tip, .cs-anchor.cs-open > .cs-tip { display:block; }
aside.cs-side { position:sticky; top:64px; align-self:start; max-height:calc(100vh - 84px); overflow:auto;
  background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:8px 0; }
aside.cs-side h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:4px 14px 8px; }
.cs-list { list-style:none; margin:0; padding:0; }
.cs-item { display:grid; grid-template-columns: 14px 1fr auto; gap:2px 8px; padding:6px 14px; cursor:pointer;
  border-left:3px solid transparent; font-size:13px; }
.cs-item:hover, .cs-item.cs-active { background:#eef1f6; border-left-color: var(--cs); }
.cs-swatch { width:14px; height:14px; border-radius:3px; background:var(--c); margin-top:3px; border:1px solid rgba(0,0,0,.12); }
.cs-item .cs-title { font-weight:600; }
.cs-item .cs-sub { grid-column: 2 / 4; color:var(--muted); font-size:12px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.cs-badge { font:11px/1.5 system-ui, sans-serif; border-radius:9px; padding:0 6px; color:#fff; background:var(--warn); }
.cs-badge.sev-error { background:var(--err); } .cs-badge.sev-info, .cs-badge.sev-hint { background:var(--info); }
.cs-badge.ok { background:#2e7d32; }
.cs-legend { font-size:12px; color:var(--muted); margin:10px 14px 4px; line-height:1.8; }
.cs-legend span.k { display:inline-block; width:22px; height:12px; vertical-align:middle; border-radius:2px; margin-right:4px; }
.cs-compare { display:grid; gap:14px; padding:18px 20px; }
.cs-col h2 { font-size:15px; margin:0 0 6px; }
.cs-col .cs-meta { font-size:12.5px; color:var(--muted); margin-bottom:8px; }
.cs-col .cs-doc { font-size:12.5px; padding:12px 14px; }
table.cs-table { border-collapse:collapse; margin:18px 20px 0; background:#fff; font-size:13.5px; }
table.cs-table th, table.cs-table td { border:1px solid var(--line); padding:5px 10px; text-align:right; }
table.cs-table th:first-child, table.cs-table td:first-child { text-align:left; }
@media (max-width: 900px) { .cs-layout { grid-template-columns: 1fr; } aside.cs-side { position:static; max-height:none; } }
"""

_JS = r"""
(function () {
  var data = JSON.parse(document.getElementById('cs-data').textContent);
  function esc(s) { var d = document.createElement('div'); d.textContent = s; return d.innerHTML; }
  // tooltips: one per anchor (a cut marker or the first piece of an issue's range)
  document.querySelectorAll('[data-issues]').forEach(function (el) {
    var doc = el.closest('[data-doc]');
    var issues = data.docs[doc ? doc.getAttribute('data-doc') : 0].issues;
    var tip = document.createElement('span');
    tip.className = 'cs-tip'; tip.setAttribute('role', 'tooltip');
    el.getAttribute('data-issues').split(' ').forEach(function (k) {
      var it = issues[+k]; if (!it) return;
      var item = document.createElement('span');
      item.className = 'cs-tip-item'; item.style.display = 'block';
      item.innerHTML = '<b class="sev-' + esc(it.severity) + '">' + esc(it.code) + ' ' + esc(it.name) +
        '</b> <i>' + esc(it.severity) + ' · line ' + it.line + '</i><br>' + esc(it.message) +
        (it.fix ? '<br><span style="color:#a5e7b5">fix: ' + esc(it.fix) + '</span>' : '');
      tip.appendChild(item);
    });
    el.classList.add('cs-anchor');
    if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0');
    el.appendChild(tip);
    el.addEventListener('click', function (e) { el.classList.toggle('cs-open'); e.stopPropagation(); });
  });
  // side list <-> bands
  function bands(scope, k) { return scope.querySelectorAll('.cs-band[data-chunk="' + k + '"], .cs-band[data-chunk-cont="' + k + '"]'); }
  document.querySelectorAll('.cs-item').forEach(function (li) {
    var k = li.getAttribute('data-chunk');
    var scope = li.closest('[data-doc]') || document;
    li.addEventListener('mouseenter', function () { bands(scope, k).forEach(function (b) { b.classList.add('cs-active'); }); });
    li.addEventListener('mouseleave', function () { bands(scope, k).forEach(function (b) { b.classList.remove('cs-active'); }); });
    li.addEventListener('click', function () {
      var b = bands(scope, k)[0]; if (b) b.scrollIntoView({behavior: 'smooth', block: 'center'});
    });
  });
  document.querySelectorAll('.cs-band[data-chunk]').forEach(function (b) {
    var k = b.getAttribute('data-chunk');
    var scope = b.closest('[data-doc]') || document;
    var li = scope.querySelector('.cs-item[data-chunk="' + k + '"]');
    if (!li) return;
    b.addEventListener('mouseenter', function () { li.classList.add('cs-active'); });
    b.addEventListener('mouseleave', function () { li.classList.remove('cs-active'); });
  });
  document.documentElement.setAttribute('data-ready', '1');
})();
"""


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


def _script_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@dataclass
class _Seg:
    start: int
    end: int
    owners: tuple[int, ...]
    issues: tuple[int, ...]


def _issue_payload(doc: Document, issues: Sequence[Issue]) -> list[dict[str, Any]]:
    out = []
    for i in issues:
        line, col = doc.line_col(i.start)
        out.append({"code": i.code, "name": i.name, "severity": i.severity, "message": i.message,
                    "line": line, "column": col, "chunk": i.chunk, "fix": i.fix})
    return out


def _segments(points: list[int], chunk_spans: list[tuple[int, int, int]],
              issue_spans: list[tuple[int, int, int]]) -> list[_Seg]:
    """The pieces between consecutive ``points`` with, for each, the chunks and
    the issues whose spans contain it (each in index order), by one sweep over
    the points: the spans that start at a point join the open set there and
    those that end leave it. Every span's ends are points (clamped into the
    text), so a piece lies wholly inside or outside each span."""
    where = {p: k for k, p in enumerate(points)}
    last = len(points) - 1

    def events(spans):
        opens: dict[int, list[int]] = {}
        closes: dict[int, list[int]] = {}
        for start, end, key in spans:
            a = where.get(start, 0 if start < points[0] else None)
            b = where.get(end, last if end > points[-1] else None)
            if a is None or b is None or b <= a:
                continue  # empty, or not on the points: contains no piece
            opens.setdefault(a, []).append(key)
            closes.setdefault(b, []).append(key)
        return opens, closes

    c_open, c_close = events(chunk_spans)
    i_open, i_close = events(issue_spans)
    owners: dict[int, None] = {}
    active: dict[int, None] = {}
    segs: list[_Seg] = []
    for k in range(last):
        for key in c_close.get(k, ()):
            owners.pop(key, None)
        for key in i_close.get(k, ()):
            active.pop(key, None)
        for key in c_open.get(k, ()):
            owners[key] = None
        for key in i_open.get(k, ()):
            active[key] = None
        segs.append(_Seg(points[k], points[k + 1], tuple(sorted(owners)), tuple(sorted(active))))
    return segs


#: the most chunks one page draws (per document and strategy): each is a band,
#: cut markers and issue titles, some 3 KB of HTML for a chunk of one character;
#: past a few thousand the page weighs tens of megabytes and no reader can use
#: it. The drawing then says so, and the figures (header, table, JSON data) stay.
MAX_DRAWN_CHUNKS = 5_000


def too_many_to_draw(chunks: Sequence[Chunk]) -> str | None:
    """The note shown instead of a drawing of more than :data:`MAX_DRAWN_CHUNKS` chunks, or None."""
    if len(chunks) <= MAX_DRAWN_CHUNKS:
        return None
    return (f"too many chunks to draw: {len(chunks):,} (at most {MAX_DRAWN_CHUNKS:,} are drawn); "
            "raise the chunk size to see the document's bands")


def document_html(doc: Document, chunks: Sequence[Chunk], issues: Sequence[Issue], *,
                  doc_index: int = 0) -> str:
    """The document text with chunk bands, overlap stripes, cut markers and issue anchors
    (or, past :data:`MAX_DRAWN_CHUNKS` chunks, a note saying there are too many to draw).

    Linear in the chunks and issues: the pieces between their boundaries are
    found by one sweep (:func:`_segments`)."""
    note = too_many_to_draw(chunks)
    if note is not None:
        return f'<div class="cs-doc cs-too-many" data-doc="{doc_index}"><p>{_esc(note)}</p></div>'
    text = doc.text
    n = len(text)
    chunks = sorted(chunks, key=lambda c: (c.index))
    cuts: dict[int, list[int]] = {}  # offset -> left chunk indices of the cuts there
    for a, b in zip(chunks, chunks[1:]):
        # one marker where chunk a ends; with overlap a second one where b starts inside a
        offs = {a.end} | ({b.start} if b.start < a.end else set())
        for off in sorted(offs):
            cuts.setdefault(max(0, min(off, n)), []).append(a.index)
    # issues anchored at a cut marker when they concern one, else at their range's first piece
    cut_issues: dict[int, list[int]] = {}
    range_issues: list[int] = []
    for k, i in enumerate(issues):
        if i.cut is not None and i.cut in cuts:
            cut_issues.setdefault(i.cut, []).append(k)
        elif i.cut is not None:
            cuts.setdefault(max(0, min(i.cut, n)), [])
            cut_issues.setdefault(max(0, min(i.cut, n)), []).append(k)
        else:
            range_issues.append(k)
    bounds = {0, n}
    for c in chunks:
        bounds.update((max(0, min(c.start, n)), max(0, min(c.end, n))))
    for k, i in enumerate(issues):
        s, e = max(0, min(i.start, n)), max(0, min(i.end, n))
        if e > s:
            bounds.update((s, e))
    bounds.update(cuts)
    points = sorted(bounds)
    segs = _segments(points, [(c.start, c.end, c.index) for c in chunks],
                     [(i.start, i.end, k) for k, i in enumerate(issues) if i.end > i.start])
    range_set = set(range_issues)
    by_index = {c.index: c for c in chunks}
    anchored: set[int] = set()
    emitted: set[int] = set()
    parts: list[str] = []
    open_band: int | None = None

    def close() -> None:
        nonlocal open_band
        if open_band is not None:
            parts.append("</span>")
            open_band = None

    def open_(k: int) -> None:
        nonlocal open_band
        c = by_index[k]
        if k in emitted:
            attr = f'data-chunk-cont="{k}"'
        else:
            attr = f'data-chunk="{k}"'
            emitted.add(k)
        title = f"chunk {k + 1} · {span_label(doc, c)} · {c.tokens} " + ("tokens" if True else "")
        parts.append(f'<span class="cs-band" {attr} style="--c:{band_color(k)};--cs:{strong_color(k)}" '
                     f'title="{_esc(title)}">')
        open_band = k

    def emit_cut(off: int) -> None:
        left = cuts.get(off)
        if left is None:
            return
        ks = cut_issues.get(off, [])
        label = "✂" + (" " + ",".join(f"{l}|{l + 1}" for l in left) if left else "")
        cls = "cs-cut cs-bad" if ks else "cs-cut"
        extra = ""
        if ks:
            titles = "\n".join(f"{issues[k].code} {issues[k].name}: {issues[k].message}" for k in ks)
            extra = f' data-issues="{" ".join(map(str, ks))}" title="{_esc(titles)}"'
        parts.append(f'<span class="{cls}" data-cut="{off}" data-label="{_esc(label)}"{extra}></span>')

    empty_at: dict[int, list[int]] = {}
    covered = {k for s in segs for k in s.owners}
    for c in chunks:
        if c.index not in covered or c.end <= c.start:
            empty_at.setdefault(max(0, min(c.start, n)), []).append(c.index)

    for seg in segs:
        if seg.start in empty_at:
            close()
            for k in empty_at.pop(seg.start):
                parts.append(f'<span class="cs-band cs-empty" data-chunk="{k}" '
                             f'style="--c:{band_color(k)};--cs:{strong_color(k)}" title="chunk {k + 1} (empty)"></span>')
                emitted.add(k)
        if seg.start in cuts:
            close()
            emit_cut(seg.start)
        band = max(seg.owners) if seg.owners else None
        if band != open_band:
            close()
            if band is not None:
                open_(band)
        body = _esc(text[seg.start:seg.end])
        classes = []
        style = ""
        if len(seg.owners) > 1:
            classes.append("cs-ov")
            other = sorted(seg.owners)[-2]
            style = f' style="--c:{overlap_color(band)};--c2:{overlap_color(other)}" data-overlap="{" ".join(map(str, seg.owners))}"'
        if band is None:
            classes.append("cs-gap")
        attrs = ""
        if seg.issues:
            worst = min((issues[k] for k in seg.issues), key=lambda i: SEVERITY_RANK.get(i.severity, 9))
            classes += ["cs-issue", f"cs-sev-{worst.severity}"]
            titles = "\n".join(f"{issues[k].code} {issues[k].name}: {issues[k].message}" for k in seg.issues)
            attrs += f' title="{_esc(titles)}"'
            mine = [k for k in seg.issues if k in range_set and k not in anchored]
            if mine:
                anchored.update(mine)
                attrs += f' data-issues="{" ".join(map(str, mine))}"'
        if classes or attrs or style:
            parts.append(f'<span class="{" ".join(classes)}"{style}{attrs}>{body}</span>')
        else:
            parts.append(body)
    close()
    if n in cuts:
        emit_cut(n)
    for off, ks in sorted(empty_at.items()):
        for k in ks:
            parts.append(f'<span class="cs-band cs-empty" data-chunk="{k}" style="--c:{band_color(k)}"></span>')
    # issues with an empty range and no cut: anchor them on a marker at their offset
    leftovers = [k for k in range_issues if k not in anchored]
    if leftovers:
        parts.append('<span class="cs-cut cs-bad" data-label="!" data-issues="'
                     + " ".join(map(str, leftovers)) + '"></span>')
    return f'<div class="cs-doc" data-doc="{doc_index}">' + "".join(parts) + "</div>"


def side_list_html(doc: Document, chunks: Sequence[Chunk], issues: Sequence[Issue], *, unit: str) -> str:
    note = too_many_to_draw(chunks)
    if note is not None:
        return f'<p class="cs-list cs-too-many">{_esc(note)}</p>'
    by_chunk = _issues_by_chunk(issues)
    items = []
    for c in chunks:
        first, last = line_range(doc, c)
        mine = [i for i in by_chunk.get(c.index, []) if i.chunk == c.index]
        if mine:
            worst = min(mine, key=lambda i: SEVERITY_RANK.get(i.severity, 9)).severity
            badge = f'<span class="cs-badge sev-{_esc(worst)}">{len(mine)}</span>'
        else:
            badge = '<span class="cs-badge ok">ok</span>'
        path = " › ".join(c.heading_path)
        sub = _esc(path) if path else _esc(first_words(c.text, 48))
        titles = _esc("\n".join(f"{i.code} {i.name}: {i.message}" for i in mine) or "no issues")
        items.append(
            f'<li class="cs-item" data-chunk="{c.index}" style="--c:{band_color(c.index)};--cs:{strong_color(c.index)}" '
            f'title="{titles}"><span class="cs-swatch"></span>'
            f'<span class="cs-title">#{c.index + 1} · L{first}–{last} · {c.tokens} {"tok" if unit == "tokens" else "chars"}'
            f'{" · oversize" if c.oversize else ""}</span>{badge}'
            f'<span class="cs-sub">{sub}</span></li>')
    return '<ol class="cs-list">' + "".join(items) + "</ol>"


def _page(title: str, body: str, data: dict[str, Any]) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>"
        f"{body}"
        f'<script type="application/json" id="cs-data">{_script_json(data)}</script>'
        f"<script>{_JS}</script></body></html>\n"
    )


def html_page(doc: Document, chunks: Sequence[Chunk], issues: Sequence[Issue], *,
              chunker: str, settings: Any, title: str | None = None) -> str:
    """One self-contained page for one document."""
    name = doc.path or "<text>"
    unit = getattr(settings, "unit", "tokens")
    stats = broken_stats(chunks, issues)
    broken, rate = stats.chunks_with_issues, stats.rate
    meta = (f"{_esc(chunker)} · size {getattr(settings, 'size', '?')} {_esc(unit)} · "
            f"overlap {getattr(settings, 'overlap', 0)} · {plural(len(chunks), 'chunk')} · {plural(len(issues), 'issue')}")
    head = (f'<header class="cs-head"><h1>{_esc(name)}</h1><span class="cs-meta">{meta}</span>'
            f'<span class="cs-rate {"bad" if broken else "ok"}">{broken} of {plural(len(chunks), "chunk")} broken '
            f'({rate * 100:.1f}%)</span></header>')
    legend = ('<div class="cs-legend"><span class="k" style="background:' + band_color(0) + '"></span>chunk band '
              '<span class="k" style="background:repeating-linear-gradient(135deg,' + band_color(0) + ' 0 4px,'
              + band_color(1) + ' 4px 8px)"></span>overlap '
              '<span class="k" style="border-left:2px solid #c62828;width:6px"></span>bad cut '
              '<span class="k" style="border-left:2px dashed #8b95a7;width:6px"></span>clean cut</div>')
    body = (head + '<main class="cs-layout" data-doc="0">' + document_html(doc, chunks, issues)
            + '<aside class="cs-side"><h2>Chunks</h2>' + legend
            + side_list_html(doc, chunks, issues, unit=unit) + "</aside></main>")
    data = {"docs": [{"path": name, "chunker": chunker, "issues": _issue_payload(doc, issues),
                      "chunks": [{"index": c.index, "start": c.start, "end": c.end, "tokens": c.tokens}
                                 for c in chunks]}]}
    return _page(title or f"chunkseam preview — {name}", body, data)


def compare_page(files: Sequence[tuple[Document, Sequence[tuple[str, Sequence[Chunk], Sequence[Issue]]]]],
                 *, settings: Any, table_html: str = "") -> str:
    """Each document chunked by several strategies, side by side (one column per strategy)."""
    sections = []
    docs = []
    for doc, columns in files:
        name = doc.path or "<text>"
        cols = []
        for strategy, chunks, issues in columns:
            k = len(docs)
            stats = broken_stats(chunks, issues)
            broken, rate = stats.chunks_with_issues, stats.rate
            cols.append(
                f'<section class="cs-col" data-strategy="{_esc(strategy)}"><h2>{_esc(strategy)}</h2>'
                f'<div class="cs-meta">{plural(len(chunks), "chunk")} · {plural(len(issues), "issue")} · {broken} broken '
                f'({rate * 100:.1f}%)</div>' + document_html(doc, chunks, issues, doc_index=k) + "</section>")
            docs.append({"path": name, "chunker": strategy, "issues": _issue_payload(doc, issues)})
        sections.append(
            f'<h2 class="cs-file" style="margin:18px 20px 0;font-size:16px">{_esc(name)}</h2>'
            f'<main class="cs-compare" style="grid-template-columns: repeat({max(1, len(cols))}, minmax(0, 1fr))">'
            + "".join(cols) + "</main>")
    head = (f'<header class="cs-head"><h1>chunkseam compare</h1><span class="cs-meta">{len(files)} file(s) · size '
            f'{getattr(settings, "size", "?")} {_esc(getattr(settings, "unit", "tokens"))} · overlap '
            f'{getattr(settings, "overlap", 0)}</span></header>')
    return _page("chunkseam compare", head + table_html + "".join(sections), {"docs": docs})
