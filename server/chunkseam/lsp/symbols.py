"""Chunks as an outline (document symbols) and as folding ranges.

Both are off by default — chunks would take over the Outline and the
breadcrumbs, and a fold per chunk hides the heading and function folds — and
turned on by the ``chunk-symbols`` / ``chunk-folding`` settings (editor:
``chunkseam.chunkSymbols`` / ``chunkseam.chunkFolding``). When off the server
answers ``null``, so the editor's own providers are used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from chunkseam.lsp.view import SEP, chunk_range, counted_issues, end_line, heading_path, plural, size_label

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result


def symbol_name(result, chunk) -> str:
    path = heading_path(result, chunk)
    return f"Chunk {chunk.index + 1}" + (SEP + path if path else "")


def enabled(result: "Result", setting: str) -> bool:
    return bool(getattr(result.settings, setting, False)) and result.analysis is not None


def document_symbols(result: "Result", encoding: str, hierarchical: bool = True):
    if not enabled(result, "chunk_symbols"):
        return None
    out = []
    doc = result.doc
    for chunk in result.chunks:
        rng = chunk_range(result, chunk, encoding)
        detail = size_label(chunk.tokens, result.unit)
        n = len(counted_issues(result, chunk.index))
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


def folding_ranges(result: "Result") -> list[types.FoldingRange] | None:
    if not enabled(result, "chunk_folding"):
        return None
    doc = result.doc
    out = []
    for chunk in result.chunks:
        first = doc.line_of(chunk.start)
        last = end_line(doc, chunk)
        if last > first:
            out.append(types.FoldingRange(start_line=first, end_line=last,
                                          kind=types.FoldingRangeKind.Region))
    return out
