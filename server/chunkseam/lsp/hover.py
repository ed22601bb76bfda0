"""Hover: the chunk(s) that contain the position, as the embedder sees them.

Each chunk is shown in a fenced block — huge chunks are truncated in the
middle so that both cut ends stay visible — with its size, heading path,
neighbours and issues. On a diagnostic the rule's doc comes first.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .diagnostics import lsp_range, rule
from .view import SEP, heading_path, issues_of, size_label

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result

MAX_LINES = 16
MAX_CHARS = 1600
NEIGHBOUR_CHARS = 48
_BACKTICKS = re.compile(r"`+")
_LANG = {"markdown": "markdown", "python": "python"}
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
    what = f"{omitted_lines} lines, " if omitted_lines else ""
    return f"{head}\n··· {what}{omitted_chars} characters not shown ···\n{tail}"


def fenced(text: str, lang: str = "") -> str:
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def neighbours(result: "Result", chunk: Any) -> list[str]:
    out = []
    chunks = result.chunks
    if chunk.index > 0:
        prev = chunks[chunk.index - 1]
        tail = _one_line(prev.text)[-NEIGHBOUR_CHARS:]
        out.append(f"previous: chunk {prev.index + 1} ends “…{tail}”")
    if chunk.index + 1 < len(chunks):
        nxt = chunks[chunk.index + 1]
        head = _one_line(nxt.text)[:NEIGHBOUR_CHARS]
        out.append(f"next: chunk {nxt.index + 1} starts “{head}…”")
    return out


def describe_chunk(result: "Result", chunk: Any) -> str:
    doc = result.doc
    n = len(result.chunks)
    first = doc.line_of(chunk.start) + 1
    last = doc.line_of(max(chunk.start, chunk.end - 1)) + 1
    head = [f"**Chunk {chunk.index + 1}/{n}**", size_label(chunk.tokens, result.unit),
            f"lines {first}–{last}" if last > first else f"line {first}"]
    path = heading_path(result, chunk)
    if path:
        head.append(path)
    ov = result.overlap_prev[chunk.index] if chunk.index < len(result.overlap_prev) else 0
    if ov:
        head.append(f"overlaps previous by {size_label(ov, result.unit)}")
    if chunk.oversize:
        head.append("oversize (kept whole)")
    parts = [SEP.join(head), fenced(truncate(chunk.text), _LANG.get(doc.kind, "text"))]
    nb = neighbours(result, chunk)
    if nb:
        parts.append("  \n".join(nb))
    issues = issues_of(result, chunk.index)
    if issues:
        parts.append("\n".join(
            f"- {_ICON.get(i.severity, '•')} `{i.code}` {i.name}: {i.message}" for i in issues))
    return "\n\n".join(parts)


_TITLE = re.compile(r"^#\s+CS\d+\b.*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def rule_doc(doc: str) -> str:
    """A rule's Markdown doc for a hover: its own title dropped (the hover has
    one) and its headings made smaller."""
    lines = doc.strip().splitlines()
    if lines and _TITLE.match(lines[0]):
        lines = lines[1:]
    out = []
    fence = None
    for line in lines:
        m = _FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)[0]
            elif m.group(1)[0] == fence:
                fence = None
        elif fence is None and line.startswith("#"):
            line = "##" + line
        out.append(line)
    return "\n".join(out).strip()


def describe_rule(issue: Any) -> str:
    r = rule(issue.code)
    title = f"### {issue.code} {issue.name}"
    body = ""
    if r is not None:
        doc = getattr(r, "doc", None) or ""
        summary = getattr(r, "summary", None) or ""
        body = rule_doc(doc) if doc.strip() else summary
    parts = [title, issue.message]
    if issue.fix:
        parts.append(f"**Fix:** {issue.fix}")
    if body:
        parts.append(body)
    return "\n\n".join(p for p in parts if p)


def hover(result: "Result", offset: int, encoding: str, markdown: bool = True) -> types.Hover | None:
    if result.analysis is None:
        return None
    chunks = chunks_at(result, offset)
    issues = issues_at(result, offset)
    if not chunks and not issues:
        return None
    sections = [describe_rule(i) for i in issues]
    sections += [describe_chunk(result, c) for c in chunks]
    if issues:
        rng = lsp_range(result.doc, issues[0].start, issues[0].end, encoding)
    else:
        c = chunks[0]
        rng = lsp_range(result.doc, c.start, c.end, encoding)
    value = "\n\n---\n\n".join(sections)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=rng)
