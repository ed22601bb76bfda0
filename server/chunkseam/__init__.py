"""chunkseam: see where a RAG chunker cuts a document, and which cuts break meaning."""

from __future__ import annotations

__version__ = "0.1.0"

from . import chunkers as registry
from .chunk import Chunk
from .document import Document, load
from .issue import Issue
from .settings import Settings

# imported before the function of the same name is defined below: importing a
# submodule binds it on the package, so a later first import of
# ``chunkseam.validate`` would replace the ``validate`` function with the module
from . import validate as _validate_module  # noqa: E402,F401  (isort: skip)


def chunk(doc, strategy: str | None = None, *, size: int = 400, overlap: int = 0,
          unit: str = "tokens", encoding: str = "cl100k_base", **options) -> list[Chunk]:
    """Chunk ``doc`` (a :class:`Document`, a path or a text) with ``strategy``
    (default: routed by file type)."""
    from .analysis import make_chunks

    doc = load(doc)
    settings = Settings(chunker=strategy, size=size, overlap=overlap, unit=unit,
                        encoding=encoding, chunker_options=options)
    return make_chunks(doc, settings)[1]


def validate(doc, chunks=None, settings: Settings | None = None, **kwargs):
    """Issues for ``chunks`` of ``doc`` (chunked with ``settings`` when omitted)."""
    from .analysis import make_chunks
    from .validate import validate as _validate

    doc = load(doc)
    settings = settings or Settings()
    if chunks is None:
        chunks = make_chunks(doc, settings)[1]
    return _validate(doc, chunks, settings, **kwargs)


def merge_adjacent(retrieved, **kwargs):
    from .merge import merge_adjacent as _merge

    return _merge(retrieved, **kwargs)


__all__ = ["Chunk", "Document", "Issue", "Settings", "chunk", "load", "merge_adjacent",
           "registry", "validate", "__version__"]
