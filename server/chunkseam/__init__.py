"""chunkseam: see where a RAG chunker cuts a document, and which cuts break meaning."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Union

from chunkseam.core.version import __version__

from chunkseam import chunkers as registry
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document, load
from chunkseam.core.issue import Issue
from chunkseam.core.settings import Settings

# imported before the function of the same name is defined below: importing a
# submodule binds it on the package, so a later first import of
# ``chunkseam.validate`` would replace the ``validate`` function with the module
from chunkseam import validate as _validate_module  # noqa: E402,F401  (isort: skip)


#: what the functions below accept as a document: a Document, a path or a text
DocumentLike = Union[Document, str, Path]
#: a chunk as the validator reads it: a Chunk, any object or mapping with
#: start/end (or start_index, start_char_idx) and text, or a plain string
ChunkLike = Union[Chunk, str, Mapping[str, Any], Any]


def chunk(doc: DocumentLike, strategy: str | None = None, *, size: int = 400, overlap: int = 0,
          unit: str = "tokens", encoding: str = "cl100k_base", overlap_unit: str = "unit",
          **options: Any) -> list[Chunk]:
    """Chunk ``doc`` (a :class:`Document`, a path or a text) with ``strategy``
    (default: routed by file type); ``overlap_unit="sentences"``: ``overlap``
    counts whole sentences (see :mod:`chunkseam.chunkers.overlap`)."""
    from chunkseam.engine.analysis import make_chunks

    if overlap_unit not in ("unit", "sentences"):
        raise ValueError(f'overlap_unit must be "unit" or "sentences", got {overlap_unit!r}')
    doc = load(doc)
    settings = Settings(chunker=strategy, size=size, overlap=overlap, unit=unit,
                        encoding=encoding, overlap_unit=overlap_unit, chunker_options=options)
    return make_chunks(doc, settings)[1]


def validate(doc: DocumentLike, chunks: Iterable[ChunkLike] | None = None, settings: Settings | None = None,
             **kwargs: Any) -> list[Issue]:
    """Issues for ``chunks`` of ``doc`` (chunked with ``settings`` when omitted).

    ``chunks`` may be plain strings — what a splitter's ``split_text`` returns:
    they are located in the document the way ``chunkseam audit`` locates a
    dump's chunks (where the text occurs once, else right after the previous
    chunk, never the first match of a search). When one cannot be located,
    the text-only checks run instead (as ``audit`` does for such documents;
    their offsets are then relative to each chunk's text)."""
    from chunkseam.engine.analysis import make_chunks
    from chunkseam.engine.validate import validate as _validate

    doc = load(doc)
    settings = settings or Settings()
    if chunks is None:
        chunks = make_chunks(doc, settings)[1]
    else:
        chunks = list(chunks)
        if chunks and all(isinstance(c, str) for c in chunks):
            located = _locate_texts(doc, chunks)
            if located is None:
                from chunkseam.engine.validate import validate_text_only

                return validate_text_only(chunks, settings)
            chunks = located
    return _validate(doc, chunks, settings, **kwargs)


def _locate_texts(doc: Document, texts: list[str]) -> list[Chunk] | None:
    """Plain chunk strings as spans of ``doc`` (audit's tracked search), or None."""
    from chunkseam.audit.dump import DumpChunk, locate

    spans, _why = locate(doc.text, [DumpChunk(line=i + 1, text=t) for i, t in enumerate(texts)])
    if spans is None:
        return None
    return [Chunk(s, e, i, doc.text) for i, (s, e) in enumerate(spans)]


def merge_adjacent(retrieved: Iterable[Any], **kwargs: Any) -> list[Any]:
    """Join retrieved chunks that are neighbours in their document (see :mod:`chunkseam.engine.merge`)."""
    from chunkseam.engine.merge import merge_adjacent as _merge

    return list(_merge(retrieved, **kwargs))


__all__ = ["Chunk", "ChunkLike", "Document", "DocumentLike", "Issue", "Settings", "chunk", "load",
           "merge_adjacent", "registry", "validate", "__version__"]
