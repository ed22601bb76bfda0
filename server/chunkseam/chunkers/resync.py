"""Incremental re-chunking for the sequential strategies (``recursive``,
``langchain``, ``fixed``, ``sentence``): re-chunk from the chunk holding an
edit and stop where the new run meets the old one, shifted by the edit.

Every strategy here is a left-to-right process over units of the text
(top-level pieces, sentences, token windows) with a small state between two
units. A run records that state at every unit; the run of an edited text
starts from the recorded state at the first unit the edit touches (the units
before it are the same text, so the state there is the same) and walks
forward. Once it is past the edit, at a unit whose text is unchanged, and its
state is the old state at that unit (the same units, shifted by the edit's
length delta), the rest of the run is the old run, shifted: it is copied, not
recomputed. The result is identical to a run from scratch by construction;
tests/test_incremental.py checks that over random edits for each strategy.

A run is kept on the :class:`~chunkseam.document.Document` it was made for
(``Document.memo``); an edited document finds its nearest ancestor's run
through ``Document.lineage()`` (the server keeps the previous version alive
as its last result), so neither the server nor the caller passes anything.

* ``recursive`` (LangChain's ``RecursiveCharacterTextSplitter``): the units
  are the top-level pieces (the text split at the first separator that
  occurs). The state before piece ``k`` is the start of the merge buffer
  (the pieces carried into the chunk being built); a piece of ``size`` or
  more flushes the buffer and is split on its own (its output depends on its
  text only, and is reused while its text is unchanged). A change of the
  top-level separator (the edit adds or removes the only occurrence of a
  separator) is a run from scratch.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Callable, Sequence

from .. import budget
from ..document import Document

#: ancestors searched for a run to update (nearest first)
_LINEAGE = 8


def find_previous(doc: Document, key: Any) -> tuple[Any, int, int, int] | None:
    """The run kept under ``key`` by the nearest ancestor of ``doc`` that has
    one, with the edit from it: ``(run, start, end, inserted)``."""
    for ancestor, start, end, inserted in doc.lineage()[:_LINEAGE]:
        run = ancestor.memoised(key)
        if run is not None:
            return run, start, end, inserted
    return None


# -- recursive ---------------------------------------------------------------------------


class RecursiveRun:
    """The top level of one ``recursive`` run over a whole text.

    ``pieces[k]`` is ``(start, end)``, ``sizes[k]`` its measure; ``post[k]``
    the first piece of the merge buffer after the emission (if any) that
    piece ``k`` caused, before ``k`` joins it (``k``: empty); ``kids[k]`` is
    None for a piece that joins the buffer, else the output of the piece split
    on its own (a tuple of ``(start, end, tokens)`` relative to its start).
    ``emits`` are the chunks ``(step, start, end, tokens)`` in order, where
    ``step`` is ``2k`` for a chunk emitted when piece ``k`` came (``2n`` for
    the last one) and ``2k + 1`` for the output of a piece split on its own.
    """

    __slots__ = ("sep_index", "sep_len", "pieces", "sizes", "post", "kids", "emits", "steps")

    def __init__(self, sep_index: int, sep_len: int) -> None:
        self.sep_index = sep_index
        self.sep_len = sep_len
        self.pieces: list[tuple[int, int]] = []
        self.sizes: list[int] = []
        self.post: list[int] = []
        self.kids: list[Any] = []
        self.emits: list[tuple[int, int, int, int]] = []
        self.steps: list[int] = []  # emits' steps, for bisection

    def pre(self, k: int) -> int:
        """The first piece of the buffer when piece ``k`` comes."""
        if k == 0:
            return 0
        return k if self.kids[k - 1] is not None else self.post[k - 1]

    def restart(self, k: int) -> bool:
        """Does the run start afresh at piece ``k`` (nothing carried over)?"""
        return k >= len(self.pieces) or self.post[k] == k


def top_separator(text: str, separators: Sequence[str], regex: bool) -> int:
    """Index of the separator the top level splits at (LangChain's choice)."""
    from .recursive import _search

    for i, sep in enumerate(separators):
        if not sep:
            return i
        if _search(sep, regex, text):  # a regex separator runs under the analysis' time budget
            return i
    return len(separators) - 1


def _common_prefix(new: list, old: list, limit: int) -> int:
    """How many leading items ``new`` and ``old`` share, at most ``limit``."""
    limit = min(limit, len(new), len(old))
    if new[:limit] == old[:limit]:
        return limit
    lo, hi = 0, limit  # new[:lo] == old[:lo]; new[:hi] != old[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new[lo:mid] == old[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(new: list, old: list, limit: int) -> int:
    """How many trailing items ``new`` and ``old`` share, at most ``limit``."""
    limit = min(limit, len(new), len(old))
    if limit <= 0:
        return 0
    if new[len(new) - limit:] == old[len(old) - limit:]:
        return limit
    lo, hi = 0, limit  # the last lo items agree; the last hi do not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new[len(new) - mid:] == old[len(old) - mid:]:
            lo = mid
        else:
            hi = mid
    return lo


def recursive_run(
    text: str,
    run_opts: Any,
    separators: Sequence[str],
    counter: Any,
    old: RecursiveRun | None = None,
    edit: tuple[int, int, int] | None = None,
) -> RecursiveRun:
    """The top level of ``recursive`` over ``text`` (see :class:`RecursiveRun`),
    updated from ``old`` — the run of the text before ``edit`` ``(start, end,
    inserted)`` replaced ``[start, end)`` by ``inserted`` characters — when
    given. ``run_opts`` is a :class:`chunkseam.chunkers.recursive._Run` for
    ``text`` (options and measure); ``counter`` its span counter."""
    from .recursive import split_spans

    size = run_opts.size
    overlap = run_opts.overlap
    measure = run_opts.measure
    if not text:
        return RecursiveRun(-1, 0)
    sep_index = top_separator(text, separators, run_opts.regex)
    separator = separators[sep_index]
    rest = separators[sep_index + 1 :] if separator else ()
    joiner = "" if run_opts.keep else separator
    sep_len = measure(joiner) if joiner else 0
    new = RecursiveRun(sep_index, sep_len)
    pieces = split_spans(text, separator, keep_separator=run_opts.keep, is_regex=run_opts.regex)
    new.pieces = pieces
    n = len(pieces)

    if old is not None and edit is not None and old.sep_index == sep_index and old.pieces:
        a, b, ins = edit
        delta = ins - (b - a)
        old_pieces = old.pieces
        # pieces before the edit: unchanged text, same spans
        i0 = _common_prefix(pieces, old_pieces, bisect_right([p[1] for p in old_pieces], a))
        # pieces after it: unchanged text, spans shifted by delta
        tail_old = bisect_left([p[0] for p in old_pieces], b)
        shifted = [(s + delta, e + delta) for s, e in old_pieces[tail_old:]]
        same = _common_suffix(pieces, shifted, n - i0)
        tail_new = n - same
        tail_old = len(old_pieces) - same
    else:
        old = None

    if old is None:
        i0, tail_new, tail_old, delta = 0, n, len(pieces), 0
        sizes = [measure(text[s:e]) for s, e in pieces]
    else:
        sizes = old.sizes[:i0]
        sizes.extend(measure(text[s:e]) for s, e in pieces[i0:tail_new])
        sizes.extend(old.sizes[tail_old:])
    new.sizes = sizes

    # the walk: from piece i0 with the old state there, until the state meets
    # the old run's past the edit
    post = old.post[:i0] if old is not None else []
    kids = old.kids[:i0] if old is not None else []
    if old is not None:
        cut = bisect_left(old.steps, 2 * i0)
        emits = old.emits[:cut]
    else:
        emits = []
    first = old.pre(i0) if old is not None else 0
    total = 0
    if first < i0:
        total = sum(sizes[first:i0]) + sep_len * (i0 - first - 1)
    shift = tail_new - tail_old
    strip = run_opts.strip
    resumed_at = -1
    k = i0
    while k < n:
        if not k & 4095:
            budget.check("recursive splitting")
        if old is not None and k >= tail_new and first >= tail_new:
            m = k - shift
            if old.pre(m) == first - shift:
                resumed_at = m
                break
        s, e = pieces[k]
        nk = sizes[k]
        if nk >= size:
            if first < k:
                _emit(text, strip, counter, pieces, sizes, first, k, 2 * k, emits)
            post.append(k)
            if old is not None and k >= tail_new:
                out = old.kids[k - shift]
            elif rest:
                out = _split_alone(text, run_opts, counter, s, e, rest)
            else:
                out = ((0, e - s, nk),)  # emitted as it is, like LangChain
            kids.append(out)
            emits.extend((2 * k + 1, s + rs, s + re_, t) for rs, re_, t in out)
            first = k + 1
            total = 0
            k += 1
            continue
        if total + nk + (sep_len if k > first else 0) > size and k > first:
            _emit(text, strip, counter, pieces, sizes, first, k, 2 * k, emits)
            while total > overlap or (
                total + nk + (sep_len if k > first else 0) > size and total > 0
            ):
                total -= sizes[first] + (sep_len if k - first > 1 else 0)
                first += 1
        post.append(first)
        kids.append(None)
        total += nk + (sep_len if k > first else 0)
        k += 1
    if resumed_at >= 0:
        m = resumed_at
        post.extend(p + shift for p in old.post[m:])
        kids.extend(old.kids[m:])
        cut = bisect_left(old.steps, 2 * m)
        step_shift = 2 * shift
        emits.extend((st + step_shift, s + delta, e + delta, t)
                     for st, s, e, t in old.emits[cut:])
    elif first < n:
        _emit(text, strip, counter, pieces, sizes, first, n, 2 * n, emits)
    new.post = post
    new.kids = kids
    new.emits = emits
    new.steps = [x[0] for x in emits]
    return new


def _emit(text: str, strip: bool, counter: Any, pieces: list[tuple[int, int]], sizes: list[int],
          i: int, j: int, step: int, out: list) -> None:
    start = pieces[i][0]
    end = pieces[j - 1][1]
    if strip:
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        if left == len(piece):
            return
        right = len(piece) - len(piece.rstrip())
        start += left
        end -= right
    if start < end:
        out.append((step, start, end, _tokens(counter, start, end, pieces, sizes, i, j)))


def _tokens(counter: Any, start: int, end: int, pieces: list[tuple[int, int]], sizes: list[int],
            i: int, j: int) -> int:
    if counter is None:  # characters
        return end - start
    return counter.span(start, end, [(pieces[k][0], pieces[k][1], sizes[k]) for k in range(i, j)])


def _split_alone(text: str, run_opts: Any, counter: Any, s: int, e: int,
                 rest: Sequence[str]) -> tuple[tuple[int, int, int], ...]:
    """The output of the piece ``[s, e)`` split with ``rest`` on its own,
    relative to ``s``."""
    run_opts.spans = []
    run_opts.split(s, e, rest)
    out = []
    for start, end, group in run_opts.spans:
        if counter is None:
            tokens = end - start
        elif isinstance(group, int):
            tokens = group
        else:
            pieces, a, b = group
            tokens = counter.span(start, end, pieces[a:b])
        out.append((start - s, end - s, tokens))
    run_opts.spans = []
    return tuple(out)


def emitted_spans(run: RecursiveRun) -> list[tuple[int, int, int]]:
    return [(s, e, t) for _st, s, e, t in run.emits]


Measure = Callable[[str], int]
