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
import re
import threading
from array import array
from typing import Any, Callable

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk, chunk_of
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import incremental, register
from chunkseam.chunkers.recursive import STABLE_BOUNDARY, STABLE_BOUNDARY_LAST, stable_boundaries_apply

#: a character that is not whitespace (``\S`` matches exactly what ``str.isspace`` does not)
_CONTENT = re.compile(r"\S")

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


#: tokens per block of the cumulative byte offsets kept by :class:`_TokenText`
_BLOCK = 256


class _TokenText:
    """The text encoded once: token windows as character spans, and exact
    token counts of those spans without encoding each one again.

    Tokens are kept as their UTF-8 byte lengths (``lens``) with the byte
    offset of every :data:`_BLOCK`-th token (``blocks``), so an edit splices
    the lengths around it (see ``token_text``) instead of rebuilding a
    running total over the whole text."""

    def __init__(self, text: str, sizer: Sizer, encoding: Any,
                 spliced: tuple | None = None,
                 edited: tuple["_TokenText", int, int, int] | None = None) -> None:
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
        self.ascii = len(data) == len(text)
        self.surrogates = surrogates
        if spliced is None or surrogates:
            tokens = encoding.encode_ordinary(plain) if text else []
            table = _token_byte_lengths(encoding)
            self.lens = array("H", map(table.__getitem__, tokens))
            self.blocks = _blocks(self.lens, 0, [0])
        else:
            # (lengths, first changed token, the previous version's blocks)
            self.lens, changed, old_blocks = spliced[:3]
            # (and, when known, what the edit moved: see _blocks)
            self.blocks = _blocks(self.lens, changed // _BLOCK, old_blocks,
                                  spliced[3] if len(spliced) > 3 else None)
        self.n_tokens = len(self.lens)
        #: windows by (size, step): ``(token windows, character spans)`` (see :meth:`token_windows`)
        self._windows: dict[tuple[int, int], tuple[list, list]] = {}
        #: what :meth:`span_count` learnt of span starts and ends
        self._heads: dict[int, tuple[int, int, int, int]] = {}
        self._tails: dict[int, tuple[int, int, int]] = {}
        #: the previous version's windows and the first token that may differ
        #: from its tokens (set by ``token_text``; its lists, not the
        #: previous version, are kept)
        self.prior: tuple | None = None
        # counting spans from the whole-text tokens needs the stable-boundary
        # property of the pre-tokenizer, and the same text tiktoken encodes
        self.fast = not surrogates and stable_boundaries_apply(sizer)
        self._multibyte: list[int] = []
        self._extra: list[int] = [0]
        self._mb_bytes: list[int] = []
        if not self.ascii:
            if edited is not None and not edited[0].surrogates and not surrogates:
                self._splice_multibyte(plain, *edited)
            else:
                self._index_multibyte(plain, 0, len(plain))

    def _index_multibyte(self, plain: str, a: int, b: int) -> None:
        """Index the characters of more than one UTF-8 byte in ``plain[a:b]``
        (appended: ``a`` is past every one indexed so far)."""
        mb, extra, at = self._multibyte, self._extra, self._mb_bytes
        for m in _MULTIBYTE.finditer(plain, a, b):
            c = m.start()
            mb.append(c)
            at.append(c + extra[-1])
            extra.append(extra[-1] + len(m.group().encode("utf-8")) - 1)

    def _splice_multibyte(self, plain: str, old: "_TokenText", a: int, b: int, ins: int) -> None:
        """The index of :meth:`_index_multibyte` from ``old``'s, this text being
        ``old``'s with ``[a, b)`` replaced by ``ins`` characters: kept before
        the edit, made for the inserted text, shifted after it (an edit of a
        large non-ASCII text no longer walks all its characters)."""
        omb, oextra, oat = old._multibyte, old._extra, old._mb_bytes
        i0 = bisect.bisect_left(omb, a)
        i1 = bisect.bisect_left(omb, b)
        self._multibyte = omb[:i0]
        self._mb_bytes = oat[:i0]
        self._extra = oextra[: i0 + 1]
        self._index_multibyte(plain, a, a + ins)
        if i1 < len(omb):
            dc = ins - (b - a)  # characters
            dx = self._extra[-1] - oextra[i1]  # extra bytes before the first one after the edit
            self._multibyte.extend([c + dc for c in omb[i1:]])
            self._mb_bytes.extend([x + dc + dx for x in oat[i1:]])
            self._extra.extend([e + dx for e in oextra[i1 + 1 :]])

    def offset(self, k: int) -> int:
        """Byte offset of token ``k`` (``n_tokens``: the end)."""
        q = k // _BLOCK
        base = q * _BLOCK
        return self.blocks[q] + (sum(self.lens[base:k]) if k > base else 0)

    def token_at(self, x: int, hint: int | None = None, hint_pos: int | None = None) -> int:
        """The token starting at byte ``x`` (-1: none does), searched from
        token ``hint`` when that one starts a little before ``x`` (at byte
        ``hint_pos`` when the caller knows it: no walk to find it)."""
        pos = -1
        if hint is not None:
            k = hint
            pos = self.offset(k) if hint_pos is None else hint_pos
        if pos < 0 or pos > x or x - pos > 4096:
            q = bisect.bisect_right(self.blocks, x) - 1
            if q < 0:
                return -1
            k = q * _BLOCK
            pos = self.blocks[q]
        lens = self.lens
        n = len(lens)
        while pos < x and k < n:
            pos += lens[k]
            k += 1
        return k if pos == x else -1

    def token_before(self, x: int, hint: int, hint_pos: int | None = None) -> int:
        """The token starting at byte ``x`` (-1: none does), searched back from
        token ``hint`` (which starts at or after ``x``, not far; at byte
        ``hint_pos`` when the caller knows it)."""
        k = hint
        pos = self.offset(k) if hint_pos is None else hint_pos
        if pos < x or pos - x > 4096:
            return self.token_at(x)
        lens = self.lens
        while pos > x and k > 0:
            k -= 1
            pos -= lens[k]
        return k if pos == x else -1

    def char_of(self, x: int) -> int:
        """The character offset of byte ``x``, snapped back to a character start."""
        if self.ascii:
            return x
        i = bisect.bisect_right(self._mb_bytes, x) - 1
        if i < 0:
            return x
        extra = self._extra
        if x < self._mb_bytes[i] + extra[i + 1] - extra[i] + 1:
            return self._multibyte[i]
        return x - extra[i + 1]

    def windows(self, size: int, step: int) -> list[tuple[int, int]]:
        """Character spans of windows of ``size`` tokens stepping ``step``."""
        return self.window_spans(size, step)[1]

    def token_windows(self, size: int, step: int) -> list[tuple[int, int, int, int]]:
        """Windows of ``size`` tokens stepping ``step``: ``(start byte, end byte,
        first token, end token)``."""
        return self.window_spans(size, step)[0]

    def window_spans(self, size: int, step: int) -> tuple[list[tuple[int, int, int, int]],
                                                          list[tuple[int, int]]]:
        """:meth:`token_windows` and the character spans of those windows
        (start and end snapped back to a character start). Made once per
        text and (size, step); after an edit, the windows that end before the
        first token that may have changed (see ``token_text``) are the
        previous version's (same tokens before them, same bytes, same
        characters); past the edit's tokens, where token ``x`` is the previous
        version's ``x - shift``, a window's bytes are read off the previous
        version's window of the same token numbers (a few tokens summed, not
        the ``step`` tokens between two windows)."""
        key = (size, step)
        got = self._windows.get(key)
        if got is not None:
            return got
        out: list[tuple[int, int, int, int]] = []
        spans: list[tuple[int, int]] = []
        prior = self.prior
        old_windows: list = []
        after = shift = grown = 0
        if prior is not None:
            old = prior[0].get(key)
            if old is not None:
                old_windows, old_spans = old
                changed = prior[1]
                k = 0
                while k < len(old_windows) and old_windows[k][3] <= changed:
                    k += 1
                out = old_windows[:k]
                spans = old_spans[:k]
                if len(prior) > 2:
                    after, shift, grown = prior[2:5]
                else:
                    old_windows = []
        n = self.n_tokens
        lens = self.lens
        char_of = self.char_of
        if out and out[-1][3] >= n:
            got = self._windows[key] = (out, spans)
            return got
        # starts 0, step, 2*step … until a window reaches n (see _windows)
        a = len(out) * step
        pos = self.offset(a) if a else 0
        k = kb = a
        posb = pos
        # from this start on a window's tokens are the old text's, moved (its
        # start and end: the old window's of the same numbers, ``shift``
        # tokens away)
        moved_from = max(after, after - shift) if old_windows else n
        while a < n:
            b = min(a + size, n)
            w = a // step
            if a >= moved_from and b == a + size and w < len(old_windows) and b + max(shift, 0) <= n:
                # old tokens [a - shift, b - shift): old window w's, shifted
                x, y, first, end = old_windows[w]
                if first == a and end == a + size:
                    if shift > 0:
                        pos = x - sum(lens[a:a + shift]) + grown
                        posb = y - sum(lens[b:b + shift]) + grown
                    else:
                        pos = x + sum(lens[a + shift:a]) + grown
                        posb = y + sum(lens[b + shift:b]) + grown
                    k, kb = a, b
                    out.append((pos, posb, a, b))
                    spans.append((char_of(pos), char_of(posb)))
                    if b >= n:
                        break
                    a += step
                    continue
            if a > k:  # starts are increasing
                pos += sum(lens[k:a])
                k = a
            if a <= kb <= b:  # so are ends: each token summed once more, not per window
                posb += sum(lens[kb:b])
            else:
                posb = pos + sum(lens[a:b])
            kb = b
            out.append((pos, posb, a, b))
            spans.append((char_of(pos), char_of(posb)))
            if b >= n:
                break
            a += step
        got = self._windows[key] = (out, spans)
        return got

    def _byte(self, q: int) -> int:
        if self.ascii:
            return q
        return q + self._extra[bisect.bisect_left(self._multibyte, q)]

    def span_count(self, a: int, b: int, first_token: int | None = None,
                   end_token: int | None = None, first_byte: int | None = None,
                   end_byte: int | None = None) -> int:
        """``count(text[a:b])``: the whole-text tokens between the first and the
        last stable boundary of the span, plus its two ends counted alone
        (``first_token``/``end_token``: tokens starting at or before ``a`` / at
        or after ``b``, where the search for those boundaries' tokens starts;
        ``first_byte``/``end_byte``: the bytes those tokens start at, when
        known). When both ends are stable boundaries at which those tokens
        start (a window that starts and ends between a word and a space, the
        commonest), the count is the number of tokens between them.

        What the start of a span gives (its first boundary, that boundary's
        token, the count of the text before it) is kept by start, and what
        its end gives by end: a window and the overlap after it share their
        start, the overlap and the window before it their end."""
        text = self.text
        count = self.count
        # an end that is a stable boundary where the given token starts: the
        # text's tokens split there (so a span between two such ends holds
        # the tokens between them, and a text from or to one is counted by
        # its tokens)
        a_split = (self.fast and first_byte is not None and first_token is not None
                   and (a == 0 or STABLE_BOUNDARY.match(text, a - 1, a + 1) is not None)
                   and first_byte == self._byte(a))
        b_split = (self.fast and end_byte is not None and end_token is not None
                   and (b == len(text) or STABLE_BOUNDARY.match(text, b - 1, b + 1) is not None)
                   and end_byte == self._byte(b))
        if a_split and b_split:
            return end_token - first_token
        if self.fast and b - a > 64:
            head = self._heads.get(a)
            if head is None or head[0] < b:
                # the first boundary from ``a`` found by a search that stops
                # at ``e``: a search that stops at any ``b <= e`` finds it
                # when it ends before ``b``, and nothing otherwise
                first = STABLE_BOUNDARY.search(text, a, b)
                h = first.end() if first is not None else -1
                ih = count_h = -1
                if h >= 0:
                    ih = self.token_at(self._byte(h), first_token, first_byte)
                    count_h = ih - first_token if a_split and ih >= 0 else count(text[a:h])
                head = self._heads[a] = (b, h, ih, count_h)
            _e, h, ih, count_h = head
            if 0 <= h < b:
                x = max(h - 1, b - 64)
                tail = self._tails.get(b) if x == b - 64 else None
                if tail is None:
                    last = STABLE_BOUNDARY_LAST.match(text, x, b) or (
                        STABLE_BOUNDARY_LAST.match(text, h - 1, b)
                    )
                    t = last.end() if last is not None else h
                    if ih < 0:
                        it = -1
                    elif end_token is not None:
                        it = self.token_before(self._byte(t), end_token, end_byte)
                    else:
                        it = self.token_at(self._byte(t), ih)
                    tail = (t, it, (end_token - it if b_split else count(text[t:b])) if it >= 0 else -1)
                    if x == b - 64 and last is not None and last.start() >= x and ih >= 0:
                        # (found in the last 64 characters alone: the same for every span ending at b)
                        self._tails[b] = tail
                _t, it, count_t = tail
                if ih >= 0 and it >= 0:
                    return count_h + (it - ih) + count_t
        return count(text[a:b])


def _blocks(lens: Any, q: int, old: list[int], moved: tuple[int, int, int] | None = None) -> list[int]:
    """Byte offsets of tokens ``0, _BLOCK, 2 * _BLOCK …`` (and the end), the
    first ``q + 1`` taken from ``old``. ``moved``: ``(after, shift, bytes)``
    of the edit that made ``lens`` from ``old``'s tokens (see
    ``_splice_tokens``): past it, the offset of token ``t`` is read
    off ``old``'s entry for the same number (token ``t - shift`` there is
    ``shift`` tokens away), not summed from the entry before."""
    blocks = old[: q + 1] if q < len(old) else None
    if not blocks:
        blocks, q = [0], 0
    n = len(lens)
    after = shift = grown = 0
    if moved is not None:
        after, shift, grown = moved
        after = max(after, after - shift)
    old_n = n - shift  # (the number of tokens ``old`` was made for)
    m = len(blocks)
    while (m - 1) * _BLOCK < n:
        t = m * _BLOCK
        if moved is not None and after <= t < n and t <= old_n and m < len(old):
            x = old[m]
            if shift > 0:
                x -= sum(lens[t:t + shift])
            elif shift < 0:
                x += sum(lens[t + shift:t])
            blocks.append(x + grown)
        else:
            blocks.append(blocks[-1] + sum(lens[t - _BLOCK:t]))
        m += 1
    return blocks


def token_windows(text: str, encoding: Any, size: int, step: int) -> list[tuple[int, int]]:
    """Character spans of windows of ``size`` tokens stepping ``step`` tokens."""
    from chunkseam.tokens.tiktoken import TokenSizer

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
        #: the token windows' sizes by span, kept for the next version
        counted: dict[tuple[int, int], int] = {}
        count: Callable[[int, int], int] = lambda a, b: sizer.count(text[a:b])  # noqa: E731
        if sizer.unit == "chars":
            spans = _windows(len(text), size, step)
        elif encoding is not None:

            encoded = token_text(doc, sizer, encoding)
            windows, spans = encoded.window_spans(size, step)
            known = _known_counts(doc, sizer, encoding)
            span_count = encoded.span_count
            #: the window each chunk was made from (its tokens and their bytes)
            made_from: list[tuple[int, int, int, int]] = []

            def count(a: int, b: int) -> int:
                n = known(a, b)
                if n is None:
                    x, y, first, end = windows[k]  # (the window being read)
                    n = span_count(a, b, first, end, x, y)
                counted[(a, b)] = n
                made_from.append(windows[k])
                return n
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
        content = _CONTENT.search
        for k, (start, end) in enumerate(spans):
            if not k % budget.STRIDE:
                budget.check("fixed chunking")
            if start >= end or (start, end) == previous:
                continue
            previous = (start, end)
            if content(text, start, end) is None:  # (only whitespace: no chunk; no copy made to see it)
                continue
            tokens = count(start, end)
            chunks.append(chunk_of(start, end, len(chunks), text, tokens, name, (), tokens > size,
                                   dict(meta)))
        if counted:
            def overlaps() -> None:
                # the overlaps' sizes too (the language server shows them, so
                # they are counted when it first asks: after its diagnostics):
                # from the whole text's tokens, the window ends' tokens as hints
                for i in range(1, len(chunks)):
                    prev, cur = chunks[i - 1], chunks[i]
                    if cur.start < prev.end:
                        span = (cur.start, min(prev.end, cur.end))
                        if span not in counted:
                            n = known(*span)
                            if n is None:
                                first_byte, _y, first, _e = made_from[i]
                                if span[1] == prev.end:
                                    _x, last_byte, _a, last = made_from[i - 1]
                                else:
                                    last = last_byte = None
                                n = span_count(*span, first, last, first_byte, last_byte)
                            counted[span] = n

            _keep_counts(doc, sizer, encoding, _Counts(counted, overlaps))
        return chunks


class _Counts:
    """The sizes the ``fixed`` chunker counted on one version, by character
    span (``table``): its windows', and its overlaps' once :meth:`filled`
    (counted on first use, whichever thread asks first; an earlier reader of
    ``table`` may find only the windows there)."""

    __slots__ = ("table", "_fill", "_lock")

    def __init__(self, table: dict[tuple[int, int], int], fill: Callable[[], None]) -> None:
        self.table = table
        self._fill: Callable[[], None] | None = fill
        self._lock = threading.Lock()

    def filled(self) -> dict[tuple[int, int], int]:
        if self._fill is not None:
            with self._lock:
                fill = self._fill
                if fill is not None:
                    fill()
                    self._fill = None  # (what it kept alive, freed)
        return self.table


def kept_count(doc: Document, sizer: Sizer, start: int, end: int) -> int | None:
    """``sizer.count(doc.text[start:end])`` when the ``fixed`` chunker counted
    that span of this version with ``sizer`` (a window or the overlap of two),
    else None."""
    counted = kept_counts(doc, sizer)
    return counted.get((start, end)) if counted is not None else None


def kept_counts(doc: Document, sizer: Sizer) -> dict[tuple[int, int], int] | None:
    """What :func:`kept_count` looks in: ``sizer.count`` of the spans the
    ``fixed`` chunker counted on this version with ``sizer``, by ``(start,
    end)`` (None: it counted none). Read-only."""
    key = _counts_key(sizer, getattr(sizer, "encoding", None))
    kept = doc.memoised(key) if key is not None else None
    return kept.filled() if kept is not None else None


def _counts_key(sizer: Sizer, encoding: Any) -> tuple | None:
    key = ("fixed-counts", sizer, encoding)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _keep_counts(doc: Document, sizer: Sizer, encoding: Any, counted: _Counts) -> None:
    """Keep ``counted`` (the windows' sizes by character span) on ``doc`` for
    its next version (see :func:`_known_counts`) and the language server."""
    key = _counts_key(sizer, encoding)
    if key is not None:
        doc.memo(key, lambda: counted)


def _known_counts(doc: Document, sizer: Sizer, encoding: Any) -> Callable[[int, int], int | None]:
    """``(a, b) -> sizer.count(doc.text[a:b])`` when the nearest ancestor of
    ``doc`` that kept its windows' sizes counted the same text: a window
    wholly before the edit from it, or wholly after it (moved by the edit's
    length); else None. A size is a function of the window's text alone, so
    the windows an edit leaves alone are not counted again."""
    key = _counts_key(sizer, encoding)
    previous = None
    if key is not None:
        for ancestor, start, end, inserted in doc.lineage():
            previous = ancestor.memoised(key)
            if previous is not None:
                break
    if previous is None:
        return lambda a, b: None
    old = previous.table  # (its overlaps too once they were asked for)
    after = start + inserted  # the first character after the edit in this version
    delta = inserted - (end - start)
    get = old.get

    def known(a: int, b: int) -> int | None:
        if b <= start:
            return get((a, b))
        if a >= after:
            return get((a - delta, b - delta))
        return None

    return known


register(FixedChunker())


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


# -- fixed ---------------------------------------------------------------------------------
#
# Token windows are cut from the whole text's tokens. A stable boundary (see
# recursive.SpanCounter) ends a pre-token in every text that holds its two
# characters, so the tokens of a text are those before such a boundary
# followed by those after it: an edit re-encodes only the text between the
# last stable boundary before it and the first after it.


def token_text(doc: Document, sizer: Any, encoding: Any) -> Any:
    """The :class:`chunkseam.chunkers.fixed._TokenText` of ``doc``, its tokens
    spliced from the previous version's when that one is known."""
    try:
        key: tuple | None = ("fixed-tokens", sizer, encoding)
        hash(key)
    except TypeError:
        key = None
    if key is not None:
        kept = doc.memoised(key)
        if kept is not None:
            return kept
    text = doc.text
    tokens = None
    previous = incremental.find_previous(doc, key) if key is not None else None
    if previous is not None and stable_boundaries_apply(sizer):
        old, a, b, ins = previous
        if not old.surrogates:
            tokens = _splice_tokens(text, old, a, b, ins, encoding)
            if tokens is not None and _SURROGATE_RE.search(text, a, a + ins):
                tokens = None
    # the character index of multi-byte characters is spliced too (any sizer)
    encoded = _TokenText(text, sizer, encoding, tokens,
                         edited=previous)
    if tokens is not None:
        # the windows before the first token that may differ are the old ones,
        # those after the edit's tokens are found from them (see window_spans)
        encoded.prior = (previous[0]._windows, tokens[1], *tokens[3])
    if key is not None:
        doc.memo(key, lambda: encoded)
    return encoded


def _splice_tokens(text: str, old: Any, a: int, b: int, ins: int, encoding: Any) -> Any:
    """``(lengths, first changed token, old blocks, (after, shift, bytes))``
    for ``_TokenText``: ``after`` the first token past the re-encoded text (from
    which token ``x`` is the old text's token ``x - shift``, ``bytes`` further
    on), or None to encode the whole text."""
    from array import array

    delta = ins - (b - a)
    m = STABLE_BOUNDARY_LAST.match(text, max(0, a - 512), a) or (
        STABLE_BOUNDARY_LAST.match(text, 0, a))
    h = m.end() if m is not None else 0
    m = STABLE_BOUNDARY.search(text, a + ins)
    t = m.end() if m is not None else len(text)
    try:
        middle = encoding.encode_ordinary(text[h:t])
    except UnicodeEncodeError:  # pragma: no cover - tiktoken replaces surrogates
        return None
    i = old.token_at(old._byte(h))
    j = old.token_at(old._byte(t - delta))
    if i < 0 or j < 0 or j < i:
        return None  # not token boundaries of the old text: cannot happen; be safe
    table = _token_byte_lengths(encoding)
    lens = old.lens[:i]
    lens.extend(array("H", map(table.__getitem__, middle)))
    after = len(lens)
    grown = sum(lens[i:after]) - sum(old.lens[i:j])
    lens.extend(old.lens[j:])
    return lens, i, old.blocks, (after, after - j, grown)
