"""Hover: the issue and its fix first, then the chunk(s) that contain the
position, as the embedder sees them.

On a diagnostic, one line per rule comes first: its summary, the fix and a
link to the full rule page (the diagnostic's own message is not repeated: the
editor shows it with the hover already). Then each chunk: one line with its
number, size, place and heading path, its other issues (each message once),
and last the previews, short — its neighbours' ends and its text in a fenced
block, truncated in the middle so that both cut ends stay visible (an editor
does not fold a hover: a tall one pushed the Quick Fix link out of sight).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from chunkseam.lsp.diagnostics import lsp_range, rule, rule_url
from chunkseam.lsp.view import SEP, heading_path, issues_of, plural, size_label

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

MAX_LINES = 12
MAX_CHARS = 900
#: the preview of a chunk below an issue: what the cut ends are, not the whole chunk
ISSUE_MAX_LINES = 6
ISSUE_MAX_CHARS = 360
NEIGHBOUR_CHARS = 48
_BACKTICKS = re.compile(r"`+")
_LANG = {"markdown": "markdown", "python": "python"}
_CODE_FENCE = {"js": "javascript", "ts": "typescript", "tsx": "tsx", "go": "go", "rust": "rust",
               "java": "java"}


def fence_language(doc) -> str:
    """The info string of a fence showing ``doc``'s text (highlighting in the hover)."""
    if doc.kind == "code":
        from chunkseam.structure.treesitter import code_language

        return _CODE_FENCE.get(code_language(doc) or "", "text")
    return _LANG.get(doc.kind, "text")
_ICON = {"error": "⛔", "warning": "⚠", "info": "ℹ", "hint": "💡"}


def chunks_at(result: "Result", offset: int) -> list[Any]:
    chunks = result.chunks
    hits = [c for c in chunks if c.start <= offset < c.end]
    if not hits and chunks and offset == len(result.doc.text) and chunks[-1].end == offset:
        hits = [chunks[-1]]
    return hits


def issues_at(result: "Result", offset: int) -> list[Any]:
    return [i for i in result.issues
            if i.start <= offset < i.end or (i.start == i.end == offset)]


def truncate(text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS) -> str:
    """``text`` or its head and tail with a marker saying what was left out."""
    lines = text.split("\n")
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text
    keep = max(1, max_lines // 2)
    half = max(40, max_chars // 2)
    head = "\n".join(lines[:keep])
    if len(head) > half:
        head = head[:half] + "…"
    tail = "\n".join(lines[-keep:]) if len(lines) > keep else ""
    if len(tail) > half:
        tail = "…" + tail[-half:]
    if len(lines) <= keep:  # one or a few enormous lines
        head, tail = text[:half] + "…", "…" + text[-half:]
    omitted_lines = max(0, len(lines) - 2 * keep)
    omitted_chars = max(0, len(text) - len(head.rstrip("…")) - len(tail.lstrip("…")))
    what = f"{plural(omitted_lines, 'line')}, " if omitted_lines else ""
    return f"{head}\n··· {what}{plural(omitted_chars, 'character')} not shown ···\n{tail}"


def fenced(text: str, lang: str = "") -> str:
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def shown_text(doc: Any, chunk: Any) -> tuple[str, str]:
    """A chunk's text as the hover shows it, and the fence language: in a
    notebook, the cells' own text (no synthetic fence lines), highlighted in
    the language of its code cell."""
    if getattr(doc, "notebook", None) is None:
        return chunk.text, fence_language(doc)
    from chunkseam.document.notebook import cells_text

    text, language = cells_text(doc, chunk.start, chunk.end)
    return text, (language or "markdown")


def where(doc: Any, chunk: Any) -> str:
    """``lines 3–9`` / ``line 3``; in a notebook ``cell 3, lines 2–5`` or ``cells 2–4``."""
    if getattr(doc, "notebook", None) is not None:
        from chunkseam.document.notebook import cells_label

        return cells_label(doc, chunk.start, chunk.end)
    first = doc.line_of(chunk.start) + 1
    last = doc.line_of(max(chunk.start, chunk.end - 1)) + 1
    return f"lines {first}–{last}" if last > first else f"line {first}"


def neighbours(result: "Result", chunk: Any) -> list[str]:
    out = []
    chunks = result.chunks
    doc = result.doc
    cells = getattr(doc, "notebook", None) is not None
    if chunk.index > 0:
        prev = chunks[chunk.index - 1]
        tail = _one_line(shown_text(doc, prev)[0])[-NEIGHBOUR_CHARS:]
        at = f" ({where(doc, prev)})" if cells else ""
        out.append(f"previous: chunk {prev.index + 1}{at} ends “…{tail}”")
    if chunk.index + 1 < len(chunks):
        nxt = chunks[chunk.index + 1]
        head = _one_line(shown_text(doc, nxt)[0])[:NEIGHBOUR_CHARS]
        at = f" ({where(doc, nxt)})" if cells else ""
        out.append(f"next: chunk {nxt.index + 1}{at} starts “{head}…”")
    return out


def describe_chunk(result: "Result", chunk: Any, skip: Any = (), *, compact: bool = False) -> str:
    doc = result.doc
    n = len(result.chunks)
    head = [f"**Chunk {chunk.index + 1}/{n}**", size_label(chunk.tokens, result.unit), where(doc, chunk)]
    path = heading_path(result, chunk)
    if path:
        head.append(path)
    ov = result.overlap_prev[chunk.index] if chunk.index < len(result.overlap_prev) else 0
    if ov:
        head.append(f"overlaps previous by {size_label(ov, result.unit)}")
    if chunk.oversize:
        head.append("oversize (kept whole)")
    text, language = shown_text(doc, chunk)
    parts = [SEP.join(head)]
    skipped = {id(i) for i in skip}
    issues = [i for i in issues_of(result, chunk.index) if id(i) not in skipped]
    if issues:
        parts.append("\n".join(
            f"- {_ICON.get(i.severity, '•')} `{i.code}` {i.name}: {i.message}" for i in issues))
    # the previews last
    nb = neighbours(result, chunk)
    if nb:
        parts.append("  \n".join(nb))
    preview = (truncate(text, ISSUE_MAX_LINES, ISSUE_MAX_CHARS) if compact else truncate(text))
    parts.append(fenced(preview, language))
    return "\n\n".join(parts)


def describe_rule(issue: Any, markdown: bool = True) -> str:
    """One line: the rule's code, name and summary, the fix hint, and a link to its page."""
    r = rule(issue.code)
    summary = (getattr(r, "summary", None) or "").strip().rstrip(".") if r is not None else ""
    icon = _ICON.get(issue.severity, "•")
    url = rule_url(issue.code)
    head = f"{icon} **{issue.code}** {issue.name}" if markdown else f"{icon} {issue.code} {issue.name}"
    line = head + (f": {summary}" if summary else "")
    if issue.fix:
        line += f" — fix: {issue.fix}"
    return line + (f" · [rule]({url})" if markdown else f" ({url})")


def _distinct_rules(issues: list[Any]) -> list[Any]:
    seen: set[tuple[str, str | None]] = set()
    out = []
    for i in issues:
        key = (i.code, i.fix)
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def hover(result: "Result", offset: int, encoding: str, markdown: bool = True) -> types.Hover | None:
    if result.analysis is None:
        return None
    chunks = chunks_at(result, offset)
    issues = issues_at(result, offset)
    if not chunks and not issues:
        return None
    sections = []
    if issues:  # the issue and its fix first
        sections.append("  \n".join(describe_rule(i, markdown) for i in _distinct_rules(issues)))
    shown = list(issues)  # the editor shows these with the hover; each other one once
    for c in chunks:
        sections.append(describe_chunk(result, c, skip=shown, compact=bool(issues)))
        shown += issues_of(result, c.index)
    if issues:
        rng = lsp_range(result.doc, issues[0].start, issues[0].end, encoding)
    else:
        c = chunks[0]
        rng = lsp_range(result.doc, c.start, c.end, encoding)
    value = "\n\n---\n\n".join(sections)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=rng)
