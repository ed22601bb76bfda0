"""``fixed``: a plain window of ``size`` units stepping ``size - overlap``.

This is the baseline many pipelines run in production, and the one that makes
the bug chunkseam exists to show: it cuts wherever the window ends — inside a
word, a sentence, a code fence.

* ``chars``: windows of exactly ``size`` characters (the last one may be
  shorter).
* ``tokens``: the whole text is encoded once with the sizer's tiktoken
  encoding; windows are ``size`` tokens. Token boundaries are mapped back to
  character offsets through the UTF-8 byte lengths of the tokens. A boundary
  that falls inside a multi-byte character (a token holding half an emoji) is
  snapped back to the start of that character, for the start and the end of a
  window alike, so chunks never intersect without overlap and no character is
  lost; a window that snaps to nothing, or to the same span as the window
  before it, is dropped. (With windows of a few tokens over characters that
  take more tokens than the step, two windows can then share a start.)

Windows holding only whitespace are dropped (they carry nothing to embed).
The chunk's ``tokens`` is the sizer's count of the chunk text, which for a
token window can differ slightly from ``size`` (the text re-encoded on its own
may tokenize differently at its edges: on ../shared/corpus/markdown at 256
tokens, 29 of 3400 windows re-encode to 257 or 258 tokens; those are marked
``oversize``). With cl100k_base it is computed
without encoding the window again: the whole-text tokens between the window's
first and last stable boundary (see ``recursive.SpanCounter``) plus its two
ends encoded alone.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from typing import Any, Callable

from ..chunk import Chunk
from ..document import Document
from ..tokens import Sizer
from . import register
from .recursive import STABLE_BOUNDARY, STABLE_BOUNDARY_LAST, stable_boundaries_apply

name = "fixed"
description = "plain window of `size` units stepping `size - overlap` (cuts anywhere: the baseline)"

_SURROGATE = re.compile("[\ud800-\udfff]")
_MULTIBYTE = re.compile("[^\x00-\x7f]")


def _check(size: int, overlap: int) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"fixed: size must be a positive integer, got {size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise ValueError(f"fixed: overlap must be a non-negative integer, got {overlap!r}")
    if overlap >= size:
        raise ValueError(
            f"fixed: overlap ({overlap}) must be smaller than size ({size}); "
            "the window would never move forward"
        )


def _windows(n: int, size: int, step: int) -> list[tuple[int, int]]:
    """Window spans over ``n`` units: starts 0, step, 2*step … until one reaches n."""
    out: list[tuple[int, int]] = []
    start = 0
    while start < n:
        end = min(start + size, n)
        out.append((start, end))
        if end >= n:
            break
        start += step
    return out


@functools.lru_cache(maxsize=8)
def _token_byte_lengths(encoding: Any) -> tuple[int, ...]:
    """UTF-8 byte length of every token id of ``encoding`` (0 for unused ids)."""
    lengths = []
    decode = encoding.decode_single_token_bytes
    for token in range(encoding.n_vocab):
        try:
            lengths.append(len(decode(token)))
        except KeyError:
            lengths.append(0)
    return tuple(lengths)


def _byte_to_char(data: bytes, boundaries: list[int]) -> dict[int, int]:
    """Character offset of each byte boundary, snapped back to a character start."""
    mapping: dict[int, int] = {}
    prev_byte = 0
    prev_char = 0
    for b in sorted(set(boundaries)):
        snapped = b
        while 0 < snapped < len(data) and (data[snapped] & 0xC0) == 0x80:
            snapped -= 1
        if snapped < prev_byte:  # two boundaries inside the same character
            snapped = prev_byte
        prev_char += len(data[prev_byte:snapped].decode("utf-8", "surrogatepass"))
        prev_byte = snapped
        mapping[b] = prev_char
    return mapping


class _TokenText:
    """The text encoded once: token windows as character spans, and exact
    token counts of those spans without encoding each one again."""

    def __init__(self, text: str, sizer: Sizer, encoding: Any) -> None:
        self.text = text
        self.count = sizer.count
        try:
            data = text.encode("utf-8")
            plain = text
            surrogates = False
        except UnicodeEncodeError:
            # lone surrogates: replace each by U+FFFD (same length in code points,
            # 3 UTF-8 bytes like the surrogate itself) so offsets stay aligned
            plain = _SURROGATE.sub("\ufffd", text)
            data = plain.encode("utf-8")
            surrogates = True
        self.data = data
        self.ascii = len(data) == len(text)
        tokens = encoding.encode_ordinary(plain) if text else []
        self.n_tokens = len(tokens)
        table = _token_byte_lengths(encoding)
        self.cumulative = [0, *itertools.accumulate(map(table.__getitem__, tokens))]
        # counting spans from the whole-text tokens needs the stable-boundary
        # property of the pre-tokenizer, and the same text tiktoken encodes
        self.fast = not surrogates and stable_boundaries_apply(sizer)
        self._multibyte: list[int] = []
        self._extra: list[int] = [0]
        if self.fast and not self.ascii:
            for m in _MULTIBYTE.finditer(text):
                self._multibyte.append(m.start())
                self._extra.append(self._extra[-1] + len(m.group().encode("utf-8")) - 1)

    def windows(self, size: int, step: int) -> list[tuple[int, int]]:
        """Character spans of windows of ``size`` tokens stepping ``step``."""
        cumulative = self.cumulative
        spans = _windows(self.n_tokens, size, step)
        if self.ascii:  # bytes are characters
            return [(cumulative[a], cumulative[b]) for a, b in spans]
        wanted = [cumulative[a] for a, _ in spans] + [cumulative[b] for _, b in spans]
        mapping = _byte_to_char(self.data, wanted)
        return [(mapping[cumulative[a]], mapping[cumulative[b]]) for a, b in spans]

    def _byte(self, q: int) -> int:
        if self.ascii:
            return q
        return q + self._extra[bisect.bisect_left(self._multibyte, q)]

    def span_count(self, a: int, b: int) -> int:
        """``count(text[a:b])``: the whole-text tokens between the first and the
        last stable boundary of the span, plus its two ends counted alone."""
        text = self.text
        count = self.count
        if self.fast and b - a > 64:
            first = STABLE_BOUNDARY.search(text, a, b)
            if first is not None:
                h = first.end()
                last = STABLE_BOUNDARY_LAST.match(text, max(h - 1, b - 64), b) or (
                    STABLE_BOUNDARY_LAST.match(text, h - 1, b)
                )
                t = last.end() if last is not None else h
                cumulative = self.cumulative
                bh, bt = self._byte(h), self._byte(t)
                ih = bisect.bisect_left(cumulative, bh)
                it = bisect.bisect_left(cumulative, bt)
                if (
                    ih < len(cumulative) and cumulative[ih] == bh
                    and it < len(cumulative) and cumulative[it] == bt
                ):
                    return count(text[a:h]) + (it - ih) + count(text[t:b])
        return count(text[a:b])


def token_windows(text: str, encoding: Any, size: int, step: int) -> list[tuple[int, int]]:
    """Character spans of windows of ``size`` tokens stepping ``step`` tokens."""
    from ..tokens import TokenSizer

    if not text:
        return []
    return _TokenText(text, TokenSizer(encoding), encoding).windows(size, step)


class FixedChunker:
    name = name
    description = description

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        _check(size, overlap)
        text = doc.text
        step = size - overlap
        encoding = getattr(sizer, "encoding", None)
        meta: dict[str, Any] = {}
        count: Callable[[int, int], int] = lambda a, b: sizer.count(text[a:b])  # noqa: E731
        if sizer.unit == "chars":
            spans = _windows(len(text), size, step)
        elif encoding is not None:
            encoded = _TokenText(text, sizer, encoding)
            spans = encoded.windows(size, step)
            count = encoded.span_count
        else:
            # a sizer without an encoding (approximate counts): windows of the
            # characters-per-unit ratio of the whole text
            total = sizer.count(text) if text else 0
            ratio = len(text) / total if total else 1.0
            width = max(1, round(size * ratio))
            cstep = max(1, round(step * ratio))
            spans = _windows(len(text), width, min(cstep, width))
            meta = {"approximate_window": True}
        chunks: list[Chunk] = []
        previous = (-1, -1)
        for start, end in spans:
            if start >= end or (start, end) == previous:
                continue
            previous = (start, end)
            if text[start:end].isspace():
                continue
            tokens = count(start, end)
            chunks.append(
                Chunk(
                    start,
                    end,
                    len(chunks),
                    source=text,
                    tokens=tokens,
                    strategy=name,
                    oversize=tokens > size,
                    meta=dict(meta),
                )
            )
        return chunks


register(FixedChunker())
