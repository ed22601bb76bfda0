"""Source spans of chunks a library decodes from token windows.

LangChain's ``TokenTextSplitter`` and chonkie's ``TokenChunker`` encode the
whole document, take windows of ``size`` tokens every ``size - overlap``
tokens, and decode each window. A multibyte character whose bytes fall in two
windows comes out as U+FFFD in both, so such a chunk is not a span of the
source — but it still *comes from* one: the bytes its tokens cover. Here the
windows are laid out as the library lays them, each is checked against the
library's own text (the same bytes decoded the same way), and its span is
the characters those bytes touch (a character cut in two belongs to both
chunks). On a long run of one character every window is a copy of the next:
the stride, not a text search, says where each one is.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any


_CONTINUATION = bytes(range(0x80, 0xC0))
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)


def token_window_spans(text: str, ids: Sequence[int], token_bytes: Callable[[int], bytes],
                       size: int, overlap: int, texts: list[str],
                       skip_empty: bool = True,
                       lengths: Sequence[int] | None = None,
                       decoded: Sequence[tuple[Any, str]] | None = None,
                       ) -> list[tuple[int, int]] | None:
    """Spans of ``texts`` (the library's chunks, in order) as the windows of
    ``ids`` (the library's encoding of ``text``) every ``size - overlap`` tokens;
    None when they are not exactly those windows decoded. ``lengths``: the byte
    length of every token id (a table), else ``token_bytes`` is asked per token.
    ``decoded``: the library's own tiktoken decodes, ``(window ids, text)`` in
    order (see :class:`Recording`): a window whose text has no U+FFFD decoded
    from valid UTF-8, so its byte length is its text's, and only the tokens the
    next window shares with it are measured one by one."""
    stride = size - overlap
    if stride <= 0 or size <= 0:
        return None
    n = len(ids)
    windows: list[tuple[int, int]] = []
    start = 0
    while start < n:
        end = min(start + size, n)
        windows.append((start, end))
        if end == n:
            break
        start += stride
    data = text.encode("utf-8")
    try:
        bounds = _window_bytes(ids, windows, lengths, decoded)
    except IndexError:  # an id beyond the table
        return None
    if bounds is None:
        if lengths is not None:
            try:
                offsets = [0, *accumulate(map(lengths.__getitem__, ids))]
            except IndexError:
                return None
        else:
            offsets = [0, *accumulate(len(token_bytes(t)) for t in ids)]
        if offsets[-1] != len(data):
            return None
        bounds = [(offsets[a], offsets[b]) for a, b in windows]
    elif (bounds[-1][1] if bounds else 0) != len(data):
        return None
    ascii_only = len(data) == len(text)
    spans: list[tuple[int, int]] = []
    k = 0
    # characters started before a byte offset: window starts and window ends each
    # increase, so each is counted on from the previous one of its kind
    at = {"start": [0, 0], "end": [0, 0]}

    def started(b: int, kind: str) -> int:
        seen = at[kind]
        if b < seen[0]:  # (never, windows move forward; counted from the top if so)
            seen[0] = seen[1] = 0
        seen[1] += len(data[seen[0]:b].translate(None, _CONTINUATION))
        seen[0] = b
        return seen[1]

    for b0, b1 in bounds:
        window = data[b0:b1].decode("utf-8", errors="replace")
        if window or not skip_empty:
            if k >= len(texts) or texts[k] != window:
                return None
            if ascii_only:  # a byte is a character
                spans.append((b0, b1))
            else:  # the characters the window's bytes touch
                cut = b0 < len(data) and 0x80 <= data[b0] < 0xC0
                first = started(b0, "start") - (1 if cut else 0)
                spans.append((first, started(b1, "end")))
            k += 1
    return spans if k == len(texts) else None


def _window_bytes(ids: Sequence[int], windows: list[tuple[int, int]],
                  lengths: Sequence[int] | None,
                  decoded: Sequence[tuple[Any, str]] | None) -> list[tuple[int, int]] | None:
    """The byte offsets ``(start, end)`` of each window from the library's decodes
    of exactly these windows (None: not those, or no table to measure overlaps)."""
    if lengths is None or decoded is None or len(decoded) != len(windows):
        return None
    for (a, b), (window_ids, _t) in zip(windows, decoded):
        if list(window_ids) != ids[a:b]:
            return None
    size_of = lengths.__getitem__
    out: list[tuple[int, int]] = []
    b0 = 0
    for k, ((a, b), (_ids, decoded_text)) in enumerate(zip(windows, decoded)):
        if "\ufffd" in decoded_text:  # (a cut character, or one in the text): token by token
            width = sum(map(size_of, ids[a:b]))
        else:  # decoded from valid UTF-8: the same bytes again
            width = len(decoded_text.encode("utf-8"))
        out.append((b0, b0 + width))
        if k + 1 < len(windows):  # the next window starts where this one's overlap does
            b0 += width - sum(map(size_of, ids[windows[k + 1][0]:b]))
    return out


@functools.lru_cache(maxsize=8)
def _lengths(encoding: object) -> tuple[int, ...]:
    n = int(getattr(encoding, "n_vocab", 0) or 0)
    one = encoding.decode_single_token_bytes  # type: ignore[attr-defined]
    out = []
    for i in range(n):
        try:
            out.append(len(one(i)))
        except Exception:  # an id the encoding does not have
            out.append(0)
    return tuple(out)


def token_lengths(encoding: object) -> Sequence[int] | None:
    """The byte length of every token id of a tiktoken ``Encoding`` (made once)."""
    if not callable(getattr(encoding, "decode_single_token_bytes", None)):
        return None
    try:
        return _lengths(encoding)
    except TypeError:  # not hashable
        return None


def tiktoken_bytes(encoding: object) -> Callable[[int], bytes] | None:
    """A tiktoken ``Encoding``'s bytes of one token (None for other tokenizers)."""
    fn = getattr(encoding, "decode_single_token_bytes", None)
    return fn if callable(fn) else None


class Recording:
    """A tokenizer that answers as ``inner`` does and keeps what its first
    ``encode`` call was given and returned — the library's own encoding of the
    document, so its windows are laid out without encoding the text again — and
    what it decoded."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.text: str | None = None
        self.ids: Any = None
        #: every ``decode(ids)`` call (without other arguments): ``(ids, text)``
        self.decodes: list[tuple[Any, str]] = []

    def decode(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        out = self.inner.decode(tokens, *args, **kwargs)
        if not args and not kwargs and isinstance(out, str):
            self.decodes.append((tokens, out))
        return out

    def encode(self, text: str, *args: Any, **kwargs: Any) -> Any:
        ids = self.inner.encode(text, *args, **kwargs)
        if self.text is None:
            self.text, self.ids = text, ids
        return ids

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def ids_of(self, text: str) -> Any:
        """The ids the library encoded ``text`` to (None: it did not encode it)."""
        return self.ids if self.text is not None and self.text == text else None


def recording_copy(splitter: Any, attr: str) -> tuple[Any, Recording | None]:
    """A shallow copy of ``splitter`` (for one call: the cached splitter is shared
    by threads) whose tokenizer attribute ``attr`` records the library's encoding
    of the document; ``(splitter, None)`` when it cannot be made so."""
    inner = getattr(splitter, attr, None)
    if inner is None or not callable(getattr(inner, "encode", None)):
        return splitter, None
    try:
        clone = copy.copy(splitter)
        recording = Recording(inner)
        object.__setattr__(clone, attr, recording)
    except Exception:  # (a library object that cannot be copied so)
        return splitter, None
    if getattr(clone, attr, None) is not recording:
        return splitter, None
    return clone, recording
