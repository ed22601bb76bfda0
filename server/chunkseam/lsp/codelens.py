"""Code lenses: one at the first line of every chunk.

``Chunk 4/12 · 387 tokens · Setup › Database`` (+ overlap, + issue count);
clicking runs ``chunkseam.showChunk`` with ``[uri, index]``, which answers
the chunk's text and metadata (:func:`show_chunk`) for the client to display.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .view import chunk_info, chunk_title

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result

SHOW_CHUNK = "chunkseam.showChunk"


def lenses(result: "Result", encoding: str) -> list[types.CodeLens]:
    doc = result.doc
    out = []
    for chunk in result.chunks:
        pos = doc.offset_to_position(chunk.start, encoding)
        # a chunk that starts at the very end of a line shows on that line
        p = types.Position(pos.line, pos.character)
        out.append(types.CodeLens(
            range=types.Range(p, p),
            command=types.Command(title=chunk_title(result, chunk), command=SHOW_CHUNK,
                                  arguments=[result.uri, chunk.index]),
        ))
    return out


def show_chunk(result: "Result", index: Any, encoding: str) -> dict[str, Any]:
    chunks = result.chunks
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(chunks):
        raise IndexError(f"no chunk {index!r}: the document has {len(chunks)} chunks")
    info = chunk_info(result, chunks[index], encoding, text=True)
    info.update({"uri": result.uri, "version": result.version, "count": len(chunks)})
    return info
