"""Small helpers shared by the features: how a chunk is named and described."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from chunkseam.lsp.diagnostics import lsp_range

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

SEP = " · "
PATH_SEP = " › "


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def size_label(n: int, unit: str) -> str:
    word = "char" if unit == "chars" else "token"
    return plural(n, word)


def heading_path(result: "Result", chunk: Any) -> str:
    return PATH_SEP.join(t for t in heading_titles(result, chunk) if t)


def heading_titles(result: "Result", chunk: Any) -> tuple[str, ...]:
    paths = result.heading_paths
    if chunk.index < len(paths):
        return paths[chunk.index]
    return tuple(chunk.heading_path)


def chunk_range(result: "Result", chunk: Any, encoding: str) -> types.Range:
    return lsp_range(result.doc, chunk.start, chunk.end, encoding)


def end_line(doc: Any, chunk: Any) -> int:
    """Last line that holds a character of the chunk."""
    if chunk.end <= chunk.start:
        return doc.line_of(chunk.start)
    return doc.line_of(chunk.end - 1)


#: the longest heading a lens shows (it is the last part: what an editor cuts off)
TITLE_HEADING_CHARS = 32


def chunk_title(result: "Result", chunk: Any) -> str:
    """``2 issues · Chunk 4/12 · 387 tokens · +43 overlap · Database``: the
    most important first (an editor cuts a long lens off at its end, without
    an ellipsis, in split editors and at large fonts), and short: of the
    heading path only the innermost heading, cut with an ellipsis."""
    n = len(result.chunks)
    parts = []
    issues = len(counted_issues(result, chunk.index))
    if issues:
        parts.append(plural(issues, "issue"))
    parts += [f"Chunk {chunk.index + 1}/{n}", size_label(chunk.tokens, result.unit)]
    ov = result.overlap_prev[chunk.index] if chunk.index < len(result.overlap_prev) else 0
    if ov:
        parts.append(f"+{size_label(ov, result.unit)} overlap")
    if chunk.oversize:
        parts.append("oversize")
    titles = [t for t in heading_titles(result, chunk) if t]
    if titles:
        last = " ".join(titles[-1].split())
        if len(last) > TITLE_HEADING_CHARS:
            last = last[:TITLE_HEADING_CHARS - 1].rstrip() + "…"
        parts.append(last)
    return SEP.join(parts)


def issues_of(result: "Result", index: int) -> list[Any]:
    """The issues that concern a chunk (either side of its cuts)."""
    return result.issues_by_chunk.get(index, [])


def counted_issues(result: "Result", index: int) -> list[Any]:
    """The issues a chunk is counted for: each issue once, on the chunk it is
    charged to (as the broken-chunk rate counts it), not on both sides of its cut."""
    from chunkseam.engine.validate import charged_chunk

    return [i for i in issues_of(result, index) if charged_chunk(i) == index]


def chunk_info(result: "Result", chunk: Any, encoding: str, *, text: bool = False) -> dict[str, Any]:
    """A chunk as JSON for custom requests and the showChunk command."""
    doc = result.doc
    info: dict[str, Any] = {
        "index": chunk.index,
        "range": _range_json(chunk_range(result, chunk, encoding)),
        "startOffset": chunk.start,
        "endOffset": chunk.end,
        "startLine": doc.line_of(chunk.start),
        "endLine": end_line(doc, chunk),
        "tokens": chunk.tokens,
        "unit": result.unit,
        "headingPath": list(heading_titles(result, chunk)),
        "strategy": chunk.strategy,
        "oversize": bool(chunk.oversize),
        "overlapPrevious": result.overlap_prev[chunk.index] if chunk.index < len(result.overlap_prev) else 0,
        "overlapRange": _overlap_range(result, chunk, encoding),
        "issues": len(counted_issues(result, chunk.index)),
        "title": chunk_title(result, chunk),
    }
    if text:
        info["text"] = chunk.text
        info["issueList"] = [
            {"code": i.code, "name": i.name, "severity": i.severity, "message": i.message,
             "range": _range_json(lsp_range(doc, i.start, i.end, encoding))}
            for i in issues_of(result, chunk.index)
        ]
    return info


def _overlap_range(result: "Result", chunk: Any, encoding: str) -> dict[str, Any] | None:
    """The part of the chunk that the previous chunk holds too, or None."""
    if chunk.index == 0 or chunk.index > len(result.chunks) - 1:
        return None
    prev = result.chunks[chunk.index - 1]
    if prev.end <= chunk.start:
        return None
    return _range_json(lsp_range(result.doc, chunk.start, min(prev.end, chunk.end), encoding))


def _range_json(r: types.Range) -> dict[str, Any]:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}
