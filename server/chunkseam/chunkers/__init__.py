"""Chunking strategies behind one protocol, registered by name.

A chunker is an object with a ``name`` and a method
``chunk(doc, sizer, *, size, overlap, **options) -> list[Chunk]`` that returns
offset-exact chunks ordered by start with ``index`` equal to their position.
Strategy modules register themselves with :func:`register`; :func:`get`
looks one up by name and :func:`route` picks one for a file.
"""

from __future__ import annotations

import importlib
import threading
from types import MappingProxyType
from typing import Any, Callable, Mapping, Protocol

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer


class Chunker(Protocol):
    name: str
    #: one line for `chunkseam chunks --help` and docs
    description: str

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]: ...


_REGISTRY: dict[str, Chunker] = {}
_BUILTIN_MODULES = ("fixed", "recursive", "sentence", "markdown", "code",
                    # pipeline-library adapters (each library imported only when used)
                    "adapters.langchain", "adapters.llamaindex", "adapters.chonkie", "adapters.semchunk",
                    "adapters.text_splitter", "adapters.haystack", "adapters.chunkipy")
_loaded = False
# Held while the built-in strategies are imported, so that a thread never sees
# a half-filled registry; re-entrant because a strategy module may itself ask
# for another chunker while it is being imported (pipeline).
_load_lock = threading.RLock()


def register(chunker: Chunker) -> Chunker:
    """Register a chunker instance (usable as a class decorator too)."""
    if isinstance(chunker, type):
        instance = chunker()
        _REGISTRY[instance.name] = instance
        return chunker
    _REGISTRY[chunker.name] = chunker
    return chunker


def registered() -> Mapping[str, Chunker]:
    """The chunkers registered so far, by name (read only; the built-in ones
    may not be loaded yet: :func:`names` loads them)."""
    return MappingProxyType(_REGISTRY)


def _load_builtins() -> None:
    """Import every built-in strategy once; ``_loaded`` is set only after all
    of them registered, and other threads wait on the lock until then."""
    global _loaded
    if _loaded:
        return
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


def unavailable(name: str) -> str | None:
    """Why the registered chunker ``name`` cannot run in this installation (a
    library-backed strategy whose library is not installed), or None."""
    _load_builtins()
    chunker = _REGISTRY.get(name)
    check = getattr(chunker, "unavailable", None)
    return check() if callable(check) else None


def describe_all() -> list[tuple[str, str, str | None]]:
    """(name, description, why unavailable or None) of every registered chunker."""
    return [(n, getattr(_REGISTRY[n], "description", ""), unavailable(n)) for n in names()]


def get(name: str) -> Chunker:
    _load_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown chunker {name!r}: expected one of {', '.join(sorted(_REGISTRY))}"
        ) from None


_KIND_DEFAULT = {"markdown": "markdown", "python": "code", "code": "code", "text": "sentence"}


def route(doc: Document, routes: dict[str, str] | None = None, base: str | None = None) -> str:
    """The chunker name for a document: the first matching glob of ``routes``
    (user routes first, then the defaults), else by document kind. Globs are
    gitignore-style, anchored at ``base`` (see :mod:`chunkseam.core.globs`)."""
    return explain_route(doc.path, doc.kind, routes, base)[0]


def explain_route(path: str | None, kind: str, routes: dict[str, str] | None = None,
                  base: str | None = None) -> tuple[str, str]:
    """(chunker name, why) for a document at ``path`` of ``kind``: the first
    matching glob of the user's ``routes``, then of the built-in routes, else
    the default for the document kind."""
    from chunkseam.core import globs
    from chunkseam.core.settings import DEFAULT_ROUTES

    if path:
        for table, label in ((routes or {}, "chunkers"), (DEFAULT_ROUTES, "built-in route")):
            pattern = globs.first_match(path, table, base)
            if pattern is not None:
                return table[pattern], f"{label} {pattern!r}"
    chunker = _KIND_DEFAULT.get(kind, "sentence")
    return chunker, f"default for {kind} documents"
