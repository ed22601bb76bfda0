"""The block-structure backends by file kind: one :class:`Backend` per kind,
kept in an ordered registry (the first that accepts a document wins, the
fallback when none does).

:class:`chunkseam.structure.markdown.Structure` asks :func:`backend_for` which
backend reads a document. The built-in ones, registered by
:mod:`chunkseam.structure.markdown` in this order: reStructuredText
(:mod:`chunkseam.structure.rst`), MDX (:mod:`chunkseam.structure.mdx`),
Markdown, and plain text as the fallback. A backend either parses the whole
text into block records (``segmented`` is None: :meth:`Backend.records`) or
names the markdown-it dialect (``"markdown"``, ``"mdx"``) of the segmented
parse that is updated from the previous version's segmentation after an edit.

The code structures (:mod:`chunkseam.structure.python`'s ``PyStructure``,
:mod:`chunkseam.structure.treesitter`'s ``ts_structure``) are not registered
here: they are not block records of a :class:`Structure` but their own shapes
(definitions, statements and string literals; tree-sitter nodes) read by the
code chunker and the code rules alongside the block structure, and a code file
still gets its plain-text block structure from this registry.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from chunkseam.document.text import Document


@runtime_checkable
class Backend(Protocol):
    """How one file kind's block structure is read."""

    #: a short name (``markdown``, ``mdx``, ``rst``, ``plain``, …)
    name: str
    #: the markdown-it dialect of a segmented, incrementally updated parse
    #: (``"markdown"`` or ``"mdx"``), or None: :meth:`records` parses the whole text
    segmented: str | None

    def accepts(self, doc: Document) -> bool:
        """Whether this backend reads ``doc``."""
        ...

    def records(self, doc: Document) -> tuple[tuple, str]:
        """(Only when ``segmented`` is None.) The block records of the whole
        text (the tuples of :mod:`chunkseam.structure.markdown`) and the text
        their labels and line count are read from (``""``: none)."""
        ...


_LOCK = threading.Lock()
_BACKENDS: list[Backend] = []
_FALLBACK: list[Backend] = []


def register(backend: Backend, *, first: bool = False, fallback: bool = False) -> None:
    """Add ``backend`` to the registry: after the others (``first``: before
    them), or as the fallback used when none accepts a document."""
    with _LOCK:
        if fallback:
            _FALLBACK[:] = [backend]
        elif first:
            _BACKENDS.insert(0, backend)
        else:
            _BACKENDS.append(backend)


def unregister(backend: Backend) -> None:
    """Remove ``backend`` (nothing if it is not registered)."""
    with _LOCK:
        if backend in _BACKENDS:
            _BACKENDS.remove(backend)
        if backend in _FALLBACK:
            _FALLBACK.clear()


def backends() -> list[Backend]:
    """The registered backends in the order they are asked, the fallback last."""
    with _LOCK:
        return [*_BACKENDS, *_FALLBACK]


def backend_for(doc: Document) -> Backend:
    """The first registered backend that accepts ``doc``, else the fallback."""
    with _LOCK:
        ordered, fallback = list(_BACKENDS), list(_FALLBACK)
    for backend in ordered:
        if backend.accepts(doc):
            return backend
    if fallback:
        return fallback[0]
    raise LookupError("no structure backend is registered")
