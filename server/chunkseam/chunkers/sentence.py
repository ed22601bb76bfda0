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
from typing import Any, Callable

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk, chunk_of
from chunkseam.document.text import Document
from chunkseam.structure.sentences import segment
from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
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
        from chunkseam.chunkers.incremental import sentence_run

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
