"""Chunks as an outline (document symbols) and as folding ranges.

Both are off by default — chunks would take over the Outline and the
breadcrumbs, and a fold per chunk hides the heading and function folds — and
turned on by the ``chunk-symbols`` / ``chunk-folding`` settings (editor:
``chunkseam.chunkSymbols`` / ``chunkseam.chunkFolding``). When off the server
answers ``null``, so the editor's own providers are used.

Workspace symbols (the chunks of the open documents, for "Go to Symbol in
Workspace") are on, with no setting: an editor merges them with the other
servers' symbols and shows them only for what the user types, so they take
nothing over; see :func:`workspace_symbols`."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

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


#: most workspace symbols in one answer: the editor filters and ranks what it
#: gets, and a few big open files would otherwise send thousands per keystroke
WORKSPACE_SYMBOL_LIMIT = 500


def _file_name(result: "Result") -> str:
    path = getattr(result.doc, "path", None)
    if path:
        return posixpath.basename(str(path).replace("\\", "/")) or str(path)
    return posixpath.basename(unquote(urlsplit(result.uri).path)) or result.uri


def workspace_symbols(results: Iterable["Result"], query: str, encoding: str,
                      limit: int = WORKSPACE_SYMBOL_LIMIT) -> list[types.SymbolInformation]:
    """The chunks of the analysed open documents whose name ("Chunk N ·
    heading path", as the document symbols name them) holds ``query``
    (case-insensitive; every chunk when it is empty), at most ``limit``.

    On by default, unlike the document symbols: "Go to Symbol in Workspace"
    merges every server's symbols and lists them only for what the user
    types, so chunks replace nothing there (no Outline, no breadcrumbs). Only
    the documents the server holds are listed — nothing is read from disk —
    and those analysed with ``enable = false`` or of a kind not analysed have
    no chunks. The container name is the file name, the chunk's size and its
    issue count (the document symbols' detail)."""
    needle = (query or "").casefold()
    out: list[types.SymbolInformation] = []
    for result in results:
        if result.analysis is None:
            continue
        file_name = None
        for chunk in result.chunks:
            name = symbol_name(result, chunk)
            if needle and needle not in name.casefold():
                continue
            if file_name is None:
                file_name = _file_name(result)
            container = file_name + SEP + size_label(chunk.tokens, result.unit)
            n = len(counted_issues(result, chunk.index))
            if n:
                container += SEP + plural(n, "issue")
            out.append(types.SymbolInformation(
                name=name, kind=types.SymbolKind.Namespace,
                location=types.Location(uri=result.uri, range=chunk_range(result, chunk, encoding)),
                container_name=container,
            ))
            if len(out) >= limit:
                return out
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
