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

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate


def token_window_spans(text: str, ids: Sequence[int], token_bytes: Callable[[int], bytes],
                       size: int, overlap: int, texts: list[str],
                       skip_empty: bool = True) -> list[tuple[int, int]] | None:
    """Spans of ``texts`` (the library's chunks, in order) as the windows of
    ``ids`` (the library's encoding of ``text``) every ``size - overlap`` tokens;
    None when they are not exactly those windows decoded."""
    stride = size - overlap
    if stride <= 0 or size <= 0:
        return None
    offsets = [0, *accumulate(len(token_bytes(t)) for t in ids)]
    data = text.encode("utf-8")
    if offsets[-1] != len(data):
        return None
    if len(data) == len(text):  # ASCII: a byte is a character
        starts: Sequence[int] | None = None
    else:
        starts = [0, *accumulate(len(c.encode("utf-8", "surrogatepass")) for c in text)][:-1]
    spans: list[tuple[int, int]] = []
    k = 0
    n = len(ids)
    start = 0
    while start < n:
        end = min(start + size, n)
        b0, b1 = offsets[start], offsets[end]
        decoded = data[b0:b1].decode("utf-8", errors="replace")
        if decoded or not skip_empty:
            if k >= len(texts) or texts[k] != decoded:
                return None
            if starts is None:
                spans.append((b0, b1))
            else:  # the characters the window's bytes touch
                spans.append((bisect_right(starts, b0) - 1, bisect_left(starts, b1)))
            k += 1
        if end == n:
            break
        start += stride
    return spans if k == len(texts) else None


def tiktoken_bytes(encoding: object) -> Callable[[int], bytes] | None:
    """A tiktoken ``Encoding``'s bytes of one token (None for other tokenizers)."""
    fn = getattr(encoding, "decode_single_token_bytes", None)
    return fn if callable(fn) else None
