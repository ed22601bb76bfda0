"""A least-recently-used cache bounded by (estimated) bytes, thread-safe.

The engine's content-addressed caches (segment parses, sentence spans, cut
judgements, section chunk spans, token counts) live for the whole life of a
language server. Bounding them by entries let a few large entries (the parse
of a 500 KB segment, the sentences of a huge paragraph) hold gigabytes, so
every cache here is bounded by an estimate of what its entries hold, and an
entry larger than a quarter of the budget is not kept at all. Keys that
would be large texts are replaced by :func:`text_key` (length + a 128-bit
BLAKE2b digest), so the cache never keeps a document's text alive.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import OrderedDict
from threading import Lock
from typing import Any, Hashable

__all__ = ["ByteLRU", "text_key", "all_caches"]

_MISSING = object()

#: every cache made here (for statistics and ``clear_all``)
_ALL: "weakref.WeakSet[ByteLRU]" = weakref.WeakSet()
_ALL_LOCK = Lock()


def text_key(text: str) -> tuple[int, bytes]:
    """A small key standing for ``text``: its length and a BLAKE2b-128 digest
    of its UTF-8 bytes (lone surrogates kept), never the text itself."""
    data = text.encode("utf-8", "surrogatepass")
    return (len(text), hashlib.blake2b(data, digest_size=16).digest())


class ByteLRU:
    """``get``/``put`` with least-recently-used eviction once the estimated
    bytes of the entries exceed ``max_bytes``. ``cost`` is given with each
    ``put`` (the caller knows what it stores)."""

    __slots__ = ("name", "max_bytes", "data", "bytes", "lock", "__weakref__")

    def __init__(self, name: str, max_bytes: int) -> None:
        self.name = name
        self.max_bytes = max_bytes
        self.data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.lock = Lock()
        with _ALL_LOCK:
            _ALL.add(self)

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self.lock:
            hit = self.data.get(key, _MISSING)
            if hit is _MISSING:
                return default
            self.data.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: Any, cost: int) -> Any:
        """Store ``value`` (returned) unless it alone would take more than a
        quarter of the budget; evict the least recently used beyond it."""
        cost = max(int(cost), 1) + 120  # the entry's key, tuple and dict slot
        if cost > self.max_bytes // 4:
            return value
        with self.lock:
            old = self.data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self.data[key] = (value, cost)
            self.bytes += cost
            while self.bytes > self.max_bytes and self.data:
                _k, (_v, c) = self.data.popitem(last=False)
                self.bytes -= c
        return value

    def forget(self, key: Hashable) -> int:
        """Drop ``key``'s entry; 1 if there was one, else 0."""
        with self.lock:
            old = self.data.pop(key, None)
            if old is None:
                return 0
            self.bytes -= old[1]
            return 1

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self.data)

    def stats(self) -> dict[str, int]:
        with self.lock:
            return {"entries": len(self.data), "bytes": self.bytes, "max_bytes": self.max_bytes}


def all_caches() -> dict[str, dict[str, int]]:
    """Entries, estimated bytes and budget of every cache, by name."""
    with _ALL_LOCK:
        caches = list(_ALL)
    out: dict[str, dict[str, int]] = {}
    for c in caches:
        s = c.stats()
        if c.name in out:  # several caches of one kind (one per sizer): summed
            for k in s:
                out[c.name][k] += s[k]
        else:
            out[c.name] = s
    return out
