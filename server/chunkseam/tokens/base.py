"""What every sizer shares: the :class:`Sizer` protocol, the errors a
tokenizer that cannot be had raises, and the bounds of the count caches."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

#: count cache (see TokenSizer): entries per sizer, and longest text cached.
#: Measured by benchmarks/bench_tokens_approx.py on 4096 paragraphs of
#: ../shared/corpus/markdown (cl100k_base, mean 101 chars): a count costs
#: 7.8 µs encoded, 0.12 µs from the cache (0.22 µs for an equal but new
#: string, which must be hashed), and a miss costs no measurable extra.
#: (Calling tiktoken's Rust ``_core_bpe`` directly saved nothing measurable,
#: so the public ``encode_ordinary`` is used.)
COUNT_CACHE_SIZE = 8192
COUNT_CACHE_MAX_CHARS = 4096


class TokenizerUnavailable(RuntimeError):
    """No exact encoding file could be found (message says how to provide one)."""

    def __init__(self, message: str, *, encoding: str | None = None) -> None:
        super().__init__(message)
        self.encoding = encoding


class TokenizerFileError(TokenizerUnavailable):
    """An explicitly given encoding file is missing, unreadable or not the
    expected one (wrong sha256). Never silently replaced by an approximation."""


@runtime_checkable
class Sizer(Protocol):
    unit: str  # "tokens" or "chars"
    name: str  # encoding name or "chars"
    approximate: bool

    def count(self, text: str) -> int: ...


def file_stamp(path: Path) -> Any:
    try:
        s = os.stat(path)
    except OSError as exc:
        return ("missing", exc.errno)
    return (s.st_dev, s.st_ino, s.st_mode, s.st_size, s.st_mtime_ns)
