"""Chunking strategies behind one protocol, registered by name.

A chunker is an object with a ``name`` and a method
``chunk(doc, sizer, *, size, overlap, **options) -> list[Chunk]`` that returns
offset-exact chunks ordered by start with ``index`` equal to their position.
Strategy modules register themselves with :func:`register`; :func:`get`
looks one up by name and :func:`route` picks one for a file.
"""

from __future__ import annotations

import fnmatch
import importlib
import threading
from typing import Any, Callable, Protocol

from ..chunk import Chunk
from ..document import Document
from ..tokens import Sizer


class Chunker(Protocol):
    name: str
    #: one line for `chunkseam chunks --help` and docs
    description: str

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]: ...


_REGISTRY: dict[str, Chunker] = {}
_BUILTIN_MODULES = ("fixed", "recursive", "sentence", "markdown", "code", "pipeline")
_loaded = False
_load_lock = threading.RLock()


def register(chunker: Chunker) -> Chunker:
    """Register a chunker instance (usable as a class decorator too)."""
    if isinstance(chunker, type):
        instance = chunker()
        _REGISTRY[instance.name] = instance
        return chunker
    _REGISTRY[chunker.name] = chunker
    return chunker


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    # a second thread (the server's workers) waits until every strategy is
    # registered instead of seeing a half-filled registry
    with _load_lock:
        if _loaded:
            return
        for mod in _BUILTIN_MODULES:
            try:
                importlib.import_module(f"{__name__}.{mod}")
            except ModuleNotFoundError as exc:  # a strategy not written yet
                if exc.name != f"{__name__}.{mod}":
                    raise
        _loaded = True


def names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def get(name: str) -> Chunker:
    _load_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown chunker {name!r}: expected one of {', '.join(sorted(_REGISTRY))}"
        ) from None


_KIND_DEFAULT = {"markdown": "markdown", "python": "code", "code": "code", "text": "sentence"}


def route(doc: Document, routes: dict[str, str] | None = None) -> str:
    """The chunker name for a document: the first matching glob of ``routes``
    (user routes first, then the defaults), else by document kind."""
    from ..settings import DEFAULT_ROUTES

    if doc.path:
        from pathlib import PurePath

        name = PurePath(doc.path).name
        for table in (routes or {}, DEFAULT_ROUTES):
            for pattern, chunker in table.items():
                if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(doc.path, pattern):
                    return chunker
    return _KIND_DEFAULT.get(doc.kind, "sentence")
