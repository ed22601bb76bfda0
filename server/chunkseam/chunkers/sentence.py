"""``sentence``: pysbd sentences merged greedily up to ``size``.

* Sentences come from :func:`chunkseam.structure.sentences.segment` (pysbd,
  ``clean=False``, cached by content), run paragraph by paragraph: the text is
  first split at blank lines, so a sentence never spans a blank line and an
  edit re-segments only the paragraph it touches. pysbd's time grows faster
  than linearly with the length of what it is given (100 kB in one piece takes
  seconds), so a paragraph longer than :data:`WINDOW` characters is segmented
  in windows that end after a sentence-looking end (``. `` ``? `` ``! ``), else
  at a line break, else at a space; a window never ends inside a run of
  non-space characters, and a window without any whitespace is one sentence.
* A chunk is a run of whole sentences: it starts at a sentence start, ends at a
  sentence end, and is as long as fits in ``size`` (measured on the chunk's own
  text, ``source[start:end]``, with the sizer). The whitespace between two
  chunks belongs to neither.
* ``overlap`` counts whole sentences: the next chunk starts ``overlap``
  sentences before the end of the previous one — but always after the
  previous chunk's start and after the end of the chunk before that (only
  neighbours overlap), and never so early that the sentence following the
  previous chunk would not fit: every chunk brings a new sentence, so the
  chunker moves forward and no chunk lies inside another.
* A sentence larger than ``size`` is a chunk of its own, marked ``oversize``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any, Callable

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk, chunk_of
from chunkseam.document.text import Document
from chunkseam.structure.sentences import segment
from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import incremental, register
from chunkseam.chunkers.incremental import shifted
from chunkseam.chunkers.recursive import SpanCounter

name = "sentence"
description = "pysbd sentences merged greedily to `size`; overlap in whole sentences"

#: paragraphs longer than this (characters) are segmented in windows
WINDOW = 3000

_BLANK_LINES = re.compile(r"(?:\r\n|\r|\n)(?:[ \t\f\v]*(?:\r\n|\r|\n))+")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]['\")\]\u201d\u2019]*\s+")
_LINE_BREAK = re.compile(r"(?:\r\n|\r|\n)\s*")
_SPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Spans of the text between blank lines (those holding non-space text)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BLANK_LINES.finditer(text):
        if _NON_SPACE.search(text, start, m.start()):
            spans.append((start, m.start()))
        start = m.end()
    if _NON_SPACE.search(text, start):
        spans.append((start, len(text)))
    return spans


def _window_end(text: str, start: int, end: int) -> int:
    """Where the window starting at ``start`` (in a paragraph ending at ``end``)
    stops: after the last sentence end, line break or space before
    ``start + WINDOW``, else after the first space after it, else ``end``."""
    limit = start + WINDOW
    if limit >= end:
        return end
    for pattern, floor in ((_SENTENCE_END, start + WINDOW // 3), (_LINE_BREAK, start + WINDOW // 3),
                           (_SPACE, start + 1)):
        last = None
        for last in pattern.finditer(text, floor, limit):
            pass
        if last is not None and last.end() > start:
            return last.end()
    m = _SPACE.search(text, limit, end)
    return m.end() if m else end


def paragraph_sentences(text: str, p_start: int, p_end: int) -> list[tuple[int, int]]:
    """The sentences of the paragraph ``text[p_start:p_end]`` (absolute spans);
    they depend on the paragraph's text only."""
    out: list[tuple[int, int]] = []
    pos = p_start
    while pos < p_end:
        budget.check("sentence splitting")  # each window is a pysbd run
        stop = _window_end(text, pos, p_end)
        piece = text[pos:stop]
        core = piece.strip()
        if len(core) > WINDOW and not _SPACE.search(core):
            # one run of non-space characters: one sentence, no pysbd
            lead = len(piece) - len(piece.lstrip())
            out.append((pos + lead, pos + lead + len(core)))
        else:
            out.extend((pos + a, pos + b) for a, b in segment(piece))
        pos = stop
    return out


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Every sentence of ``text`` as ``(start, end)`` (trailing space excluded)."""
    out: list[tuple[int, int]] = []
    for p_start, p_end in paragraphs(text):
        out.extend(paragraph_sentences(text, p_start, p_end))
    return out


def _greedy(
    n: int,
    exact: Callable[[int, int], int],
    first: Callable[[int], int],
    unit: Callable[[int], int],
    size: int,
    overlap: int,
    *,
    start: tuple[int, int] = (0, 0),
    runs: list[tuple[int, int, int]] | None = None,
    meet: Callable[[int, int], bool] | None = None,
) -> list[tuple[int, int, int]]:
    """Runs ``(i, j, units)`` of items ``i..j`` (inclusive) each fitting ``size``.

    ``exact(i, j)`` is the size of items ``i..j`` as one text; ``first(i)``
    the size of item ``i`` alone and ``unit(m)`` the size item ``m`` adds
    (with the space before it), used to guess how far a run reaches before
    the guess is checked with ``exact``.

    The state before a run is ``(i, floor)``: its first item and the item
    after the run before it. ``start`` is the state to begin in, ``runs`` a
    list to append to; ``meet(i, floor)``, asked before each run, stops the
    walk when it answers true (see :mod:`chunkseam.chunkers.incremental`).
    """
    runs = [] if runs is None else runs
    i, floor = start
    while i < n:
        if not len(runs) % budget.STRIDE:
            budget.check("sentence chunking")
        if meet is not None and meet(i, floor):
            break
        current = first(i)
        j = i
        if current <= size:
            guess = current
            while j + 1 < n and guess + unit(j + 1) <= size:
                j += 1
                guess += unit(j)
            current = exact(i, j)
            while current > size and j > i:  # the guess was too generous
                j -= 1
                current = exact(i, j)
            while j + 1 < n:  # or too careful
                more = exact(i, j + 1)
                if more > size:
                    break
                j += 1
                current = more
        runs.append((i, j, current))
        if j + 1 >= n:
            break
        # the next run starts `overlap` items before the end of this one, but
        # after its start and after the end of the run before it (so only
        # neighbours overlap), and late enough that it takes the next new item
        nxt = max(i + 1, j + 1 - overlap, floor)
        while nxt <= j and exact(nxt, j + 1) > size:
            nxt += 1
        floor = j + 1
        i = nxt
    return runs


class SentenceChunker:
    name = name
    description = description

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise ValueError(f"sentence: size must be a positive integer, got {size!r}")
        if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
            raise ValueError(
                f"sentence: overlap (in sentences) must be a non-negative integer, got {overlap!r}"
            )
        text = doc.text

        run = sentence_run(doc, sizer, size, overlap)
        s_starts, s_ends = run.s_starts, run.s_ends
        out = []
        append = out.append
        k = 0
        for i, j, tokens in zip(run.firsts, run.lasts, run.units):
            append(chunk_of(s_starts[i], s_ends[j], k, text, tokens, name, (), tokens > size,
                            {"sentences": j - i + 1}))
            k += 1
        return out


def measures(text: str, starts: list[int], ends: list[int], sizer: Sizer) -> tuple[
        Callable[[int, int], int], Callable[[int], int], Callable[[int], int]]:
    """``exact``, ``first`` and ``unit`` of :func:`_greedy` for the sentences
    ``starts[k]``..``ends[k]``."""
    if sizer.unit == "chars" and not getattr(sizer, "approximate", False):

        def exact(i: int, j: int) -> int:
            return ends[j] - starts[i]

        def first(i: int) -> int:
            return ends[i] - starts[i]

        def unit(m: int) -> int:
            return ends[m] - ends[m - 1]

        return exact, first, unit
    count = sizer.count
    counter = SpanCounter(text, sizer, count)
    alone: dict[int, int] = {}
    joined: dict[int, int] = {}

    def first(i: int) -> int:
        c = alone.get(i)
        if c is None:
            c = alone[i] = count(text[starts[i] : ends[i]])
        return c

    def unit(m: int) -> int:
        # sentence m with the whitespace before it: how it sits in a chunk
        c = joined.get(m)
        if c is None:
            c = joined[m] = count(text[ends[m - 1] : ends[m]])
        return c

    def exact(i: int, j: int) -> int:
        if i == j:
            return first(i)
        pieces = [(starts[i], ends[i], first(i))]
        pieces.extend((ends[m - 1], ends[m], unit(m)) for m in range(i + 1, j + 1))
        return counter.span(starts[i], ends[j], pieces)

    return exact, first, unit


register(SentenceChunker())


# -- sentence ------------------------------------------------------------------------------
#
# The units are sentences, found paragraph by paragraph (a paragraph's
# sentences depend on its own text only); the state before a chunk (a run of
# sentences) is its first sentence and the sentence after the chunk before it
# (see chunkers/sentence.py, ``_greedy``).


class SentenceRun:
    """``para_starts``/``para_ends`` the paragraphs, ``starts[p]`` the index
    of paragraph ``p``'s first sentence, ``s_starts``/``s_ends`` the
    sentences, and the chunks: run ``r`` holds sentences ``firsts[r]`` to
    ``lasts[r]`` and measures ``units[r]``.

    Each is a plain list of ints (not a list of tuples): an edit copies them
    shifted, and ints, unlike tuples, are no work for the garbage collector
    (a tuple per sentence made on every edit sets off collections)."""

    __slots__ = ("para_starts", "para_ends", "starts", "s_starts", "s_ends", "firsts", "lasts",
                 "units")

    def __init__(self) -> None:
        self.para_starts: list[int] = []
        self.para_ends: list[int] = []
        self.starts: list[int] = []
        self.s_starts: list[int] = []
        self.s_ends: list[int] = []
        self.firsts: list[int] = []
        self.lasts: list[int] = []
        self.units: list[int] = []

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The sentences as ``(start, end)``."""
        return list(zip(self.s_starts, self.s_ends))

    @property
    def runs(self) -> list[tuple[int, int, int]]:
        """The chunks as ``(first sentence, last sentence, units)``."""
        return list(zip(self.firsts, self.lasts, self.units))

    def state(self, r: int) -> tuple[int, int]:
        """The state ``(i, floor)`` before run ``r``."""
        return self.firsts[r], (self.lasts[r - 1] + 1 if r else 0)



def _paragraphs_around(text: str, old_starts: list[int], old_ends: list[int], a: int, b: int,
                       ins: int) -> tuple[int, list[tuple[int, int]], int]:
    """The paragraphs of ``text`` (the old text with ``[a, b)`` replaced by
    ``ins`` characters) around the edit: ``(p0, scanned, p1)`` where the new
    paragraphs are the old ones before ``p0``, ``scanned``, and the old ones
    from ``p1`` on (shifted); the old paragraphs are ``old_starts``/``old_ends``.

    Paragraphs are the text between matches of a blank-line pattern, which
    reads only line breaks and blanks and stops at the first other
    character. The scan starts at the last old paragraph that ends before the
    edit (its start ends a match that read only text before the edit) and
    stops at a match past the edit that the old scan had too (the same
    paragraphs on both sides of it): from there on the scans agree."""
    delta = ins - (b - a)
    n = len(old_starts)
    p0 = max(0, bisect_right(old_ends, a) - 1)
    start = old_starts[p0] if 0 < p0 < n else 0
    scanned: list[tuple[int, int]] = []
    for m in _BLANK_LINES.finditer(text, start):
        if _NON_SPACE.search(text, start, m.start()):
            scanned.append((start, m.start()))
        start = m.end()
        if m.start() >= a + ins:
            q = bisect_left(old_starts, start - delta)
            if (0 < q < n and old_starts[q] == start - delta
                    and old_ends[q - 1] == m.start() - delta):
                return p0, scanned, q
    if _NON_SPACE.search(text, start):
        scanned.append((start, len(text)))
    return p0, scanned, n


def sentence_run(doc: Document, sizer: Any, size: int, overlap: int) -> SentenceRun:
    try:
        key: tuple | None = ("sentence", sizer, size, overlap)
        hash(key)
    except TypeError:
        key = None
    if key is not None:
        kept = doc.memoised(key)
        if kept is not None:
            return kept
    text = doc.text
    new = SentenceRun()
    previous = incremental.find_previous(doc, key) if key is not None else None
    old = None
    if previous is not None:
        old, a, b, ins = previous
        delta = ins - (b - a)
        p0, scanned, p1_old = _paragraphs_around(text, old.para_starts, old.para_ends, a, b, ins)
        para_starts = old.para_starts[:p0]
        para_ends = old.para_ends[:p0]
        para_starts.extend(s for s, _e in scanned)
        para_ends.extend(e for _s, e in scanned)
        para_starts.extend(shifted(old.para_starts, p1_old, delta))
        para_ends.extend(shifted(old.para_ends, p1_old, delta))
        n_old = len(old.s_starts)
        c0 = old.starts[p0] if p0 < len(old.starts) else n_old
        c1_old = old.starts[p1_old] if p1_old < len(old.starts) else n_old
        s_starts = old.s_starts[:c0]
        s_ends = old.s_ends[:c0]
        starts = old.starts[:p0]
        for ps, pe in scanned:
            starts.append(len(s_starts))
            for s, e in paragraph_sentences(text, ps, pe):
                s_starts.append(s)
                s_ends.append(e)
        c1_new = len(s_starts)
        shift = c1_new - c1_old
        starts.extend(shifted(old.starts, p1_old, shift))
        s_starts.extend(shifted(old.s_starts, c1_old, delta))
        s_ends.extend(shifted(old.s_ends, c1_old, delta))
    else:
        para_starts, para_ends, starts, s_starts, s_ends = [], [], [], [], []
        for ps, pe in paragraphs(text):
            para_starts.append(ps)
            para_ends.append(pe)
            starts.append(len(s_starts))
            for s, e in paragraph_sentences(text, ps, pe):
                s_starts.append(s)
                s_ends.append(e)
    new.para_starts, new.para_ends, new.starts = para_starts, para_ends, starts
    new.s_starts, new.s_ends = s_starts, s_ends
    n = len(s_starts)
    exact, first, unit = measures(text, s_starts, s_ends, sizer)
    if old is None or not old.firsts:
        walked = _greedy(n, exact, first, unit, size, overlap) if n else []
        new.firsts = [i for i, _j, _t in walked]
        new.lasts = [j for _i, j, _t in walked]
        new.units = [t for _i, _j, t in walked]
    else:
        # keep the chunks that read only sentences before the first changed
        # one (a chunk reads the sentence after it too), less one
        kept_runs = bisect_left(old.lasts, c0 - 1)
        r0 = max(0, kept_runs - 1)
        old_firsts = old.firsts
        met: list[int] = []

        def meet(i: int, floor: int) -> bool:
            if i < c1_new or floor < c1_new:
                return False
            r = bisect_left(old_firsts, i - shift)
            if r < len(old_firsts) and old_firsts[r] == i - shift and (
                old.state(r)[1] == floor - shift
            ):
                met.append(r)
                return True
            return False

        walked = _greedy(n, exact, first, unit, size, overlap, start=old.state(r0), meet=meet)
        firsts = old_firsts[:r0]
        lasts = old.lasts[:r0]
        units = old.units[:r0]
        for i, j, t in walked:
            firsts.append(i)
            lasts.append(j)
            units.append(t)
        if met:
            firsts.extend(shifted(old_firsts, met[0], shift))
            lasts.extend(shifted(old.lasts, met[0], shift))
            units.extend(old.units[met[0]:])
        new.firsts, new.lasts, new.units = firsts, lasts, units
    if key is not None:
        doc.memo(key, lambda: new)
    return new
