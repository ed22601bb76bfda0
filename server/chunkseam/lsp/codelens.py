"""Code lenses: one at the first line of every chunk.

``Chunk 4/12 · 387 tokens · Setup › Database`` (+ overlap, + issue count,
each issue counted once); clicking runs ``chunkseam.showChunk`` with
``[uri, index, {"show": true}]``. The command answers the chunk's text and
metadata (:func:`show_chunk`); with the third argument the server also shows
the chunk itself, so the lens works in any LSP client: a preview file opened
with ``window/showDocument`` when the client supports it, else a
``window/showMessage``. A client that displays the answer itself (the VS Code
extension) calls the command with ``[uri, index]`` only.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from chunkseam.lsp.view import chunk_info, chunk_title

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

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
                                  arguments=[result.uri, chunk.index, {"show": True}]),
        ))
    return out


def show_chunk(result: "Result", index: Any, encoding: str) -> dict[str, Any]:
    chunks = result.chunks
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(chunks):
        raise IndexError(f"no chunk {index!r}: the document has {len(chunks)} chunk{'' if len(chunks) == 1 else 's'}")
    info = chunk_info(result, chunks[index], encoding, text=True)
    info.update({"uri": result.uri, "version": result.version, "count": len(chunks)})
    return info


#: preview files written for ``window/showDocument`` (the newest are kept)
KEEP_PREVIEWS = 8
_preview_dir: list[str] = []
_previews: list[str] = []
_counter = itertools.count(1)


def preview_text(result: "Result", info: dict[str, Any]) -> str:
    """The chunk as a Markdown page: its title line, then its text as the embedder gets it."""
    from chunkseam.lsp.hover import fence_language, fenced

    lang = fence_language(result.doc)
    name = result.doc.name.rsplit("/", 1)[-1]
    lines = [f"# {name} — {info['title']}", ""]
    first, last = info["startLine"] + 1, info["endLine"] + 1
    lines.append(f"Lines {first}–{last} of {name}; the text below is exactly what the embedder receives.")
    for i in info.get("issueList", []):
        lines.append(f"- {i['severity']}: {i['code']} {i['name']}: {i['message']}")
    lines += ["", fenced(info["text"], lang), ""]
    return "\n".join(lines)


def write_preview(result: "Result", info: dict[str, Any]) -> str:
    """Write the chunk's preview page to a private temporary directory; its path."""
    import os
    import tempfile

    if not _preview_dir:
        _preview_dir.append(tempfile.mkdtemp(prefix="chunkseam-chunks-"))
    stem = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in
                   result.doc.name.rsplit("/", 1)[-1])[:60] or "document"
    n = next(_counter)
    path = os.path.join(_preview_dir[0], f"{stem}.chunk-{info['index'] + 1}.{n}.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(preview_text(result, info))
    _previews.append(path)
    while len(_previews) > KEEP_PREVIEWS:
        old = _previews.pop(0)
        try:
            os.unlink(old)
        except OSError:
            pass
    return path


def message_text(info: dict[str, Any], limit: int = 400) -> str:
    """The chunk in one message (clients without showDocument)."""
    text = " ".join(info["text"].split())
    if len(text) > limit:
        text = text[: limit // 2] + " … " + text[-limit // 2:]
    return f"{info['title']}: “{text}”"
