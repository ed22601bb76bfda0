"""Chunks as an outline (document symbols) and as folding ranges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .view import SEP, chunk_range, end_line, heading_path, issues_of, plural, size_label

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result


def symbol_name(result, chunk) -> str:
    path = heading_path(result, chunk)
    return f"Chunk {chunk.index + 1}" + (SEP + path if path else "")


def document_symbols(result: "Result", encoding: str, hierarchical: bool = True):
    out = []
    doc = result.doc
    for chunk in result.chunks:
        rng = chunk_range(result, chunk, encoding)
        detail = size_label(chunk.tokens, result.unit)
        n = len(issues_of(result, chunk.index))
        if n:
            detail += SEP + plural(n, "issue")
        if hierarchical:
            first_line_end = min(doc.line_end(rng.start.line), max(chunk.end, chunk.start))
            sel_end = doc.offset_to_position(max(first_line_end, chunk.start), encoding)
            selection = types.Range(rng.start, types.Position(sel_end.line, sel_end.character))
            out.append(types.DocumentSymbol(
                name=symbol_name(result, chunk), kind=types.SymbolKind.Namespace, range=rng,
                selection_range=selection, detail=detail,
            ))
        else:
            out.append(types.SymbolInformation(
                name=symbol_name(result, chunk), kind=types.SymbolKind.Namespace,
                location=types.Location(uri=result.uri, range=rng), container_name=detail,
            ))
    return out


def folding_ranges(result: "Result") -> list[types.FoldingRange]:
    doc = result.doc
    out = []
    for chunk in result.chunks:
        first = doc.line_of(chunk.start)
        last = end_line(doc, chunk)
        if last > first:
            out.append(types.FoldingRange(start_line=first, end_line=last,
                                          kind=types.FoldingRangeKind.Region))
    return out
