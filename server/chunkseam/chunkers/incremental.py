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

A run is kept on the :class:`~chunkseam.document.text.Document` it was made for
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
* ``langchain`` with a ``RecursiveCharacterTextSplitter``: the installed
  splitter itself re-splits a window around the edit, chosen with the
  ``recursive`` run (see below); any difference is a full split.
* ``sentence``: the units are sentences, found paragraph by paragraph; the
  state before a chunk is its first sentence and the sentence after the chunk
  before it.
* ``fixed``: token windows depend only on the whole text's tokens, which are
  spliced around the edit; when the edit changes the number of tokens every
  later window moves (the cuts after the edit are new, and judged anew),
  otherwise they are the old ones shifted. Character windows are cut afresh
  (a few thousand list items).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any, Sequence

from chunkseam.core import budget
from chunkseam.document.text import Document

_SURROGATE_RE = re.compile("[\ud800-\udfff]")

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

    __slots__ = ("sep_index", "sep_len", "pieces", "sizes", "post", "kids", "emits", "steps",
                 "walked")

    def __init__(self, sep_index: int, sep_len: int) -> None:
        self.sep_index = sep_index
        self.sep_len = sep_len
        self.pieces: list[tuple[int, int]] = []
        self.sizes: list[int] = []
        self.post: list[int] = []
        self.kids: list[Any] = []
        self.emits: list[tuple[int, int, int, int]] = []
        self.steps: list[int] = []  # emits' steps, for bisection
        #: the pieces ``[i, j)`` this run walked (the rest was the old run's)
        self.walked: tuple[int, int] = (0, 0)

    def pre(self, k: int) -> int:
        """The first piece of the buffer when piece ``k`` comes."""
        if k == 0:
            return 0
        return k if self.kids[k - 1] is not None else self.post[k - 1]


def top_separator(text: str, separators: Sequence[str], regex: bool) -> int:
    """Index of the separator the top level splits at (LangChain's choice)."""
    from chunkseam.chunkers.recursive import _search  # regular expressions under the analysis' time budget

    for i, sep in enumerate(separators):
        if not sep:
            return i
        if _search(sep, regex, text):
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


def _rescan_literal(text: str, old: list[tuple[int, int]], separator: str,
                    edit: tuple[int, int, int]) -> tuple[list, int, int, int] | None:
    """The top-level pieces of ``text`` split at the literal ``separator``
    (kept at the start of each piece) from the old pieces and a scan around
    the edit: ``(pieces, i0, tail_new, tail_old)`` where ``pieces[:i0]`` are
    ``old[:i0]`` and ``pieces[tail_new:]`` are ``old[tail_old:]`` shifted.

    Every piece but the first starts with a match. The scan starts at the last
    old piece that ends before the edit (its match ends before it too, and
    matches of a literal read only their own characters, so the scan up to
    there is the old one) and stops at a match past the edit where an old
    piece started: from there on both scans continue alike."""
    from chunkseam.chunkers.recursive import _pattern

    a, b, ins = edit
    delta = ins - (b - a)
    p = bisect_right([q[1] for q in old], a) - 1
    if p < 0:
        p = 0
    start = old[p][0] if p > 0 else 0
    old_starts = [q[0] for q in old]
    bounds = [start]
    stop, resume = len(text), len(old)
    for m in _pattern(separator, False).finditer(text, start):
        q = m.start()
        if q >= a + ins:
            r = bisect_left(old_starts, q - delta)
            if 0 < r < len(old) and old_starts[r] == q - delta:
                stop, resume = q, r
                break
        if q > bounds[-1]:
            bounds.append(q)
    if stop > bounds[-1]:
        bounds.append(stop)
    window = list(zip(bounds, bounds[1:]))
    pieces = old[:p]
    pieces.extend(window)
    tail_new = len(pieces)
    pieces.extend((s + delta, e + delta) for s, e in old[resume:])
    return pieces, p, tail_new, resume


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
    from chunkseam.chunkers.recursive import split_spans

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
    reuse = old is not None and edit is not None and old.sep_index == sep_index and old.pieces
    local = None
    if reuse and separator and not run_opts.regex and run_opts.keep in (True, "start"):
        local = _rescan_literal(text, old.pieces, separator, edit)
    if local is not None:
        pieces, i0, tail_new, tail_old = local
        delta = edit[2] - (edit[1] - edit[0])
        n = len(pieces)
    else:
        pieces = split_spans(text, separator, keep_separator=run_opts.keep,
                             is_regex=run_opts.regex)
        n = len(pieces)
    new.pieces = pieces

    if local is not None:
        pass
    elif reuse:
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
    new.walked = (i0, k)
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


# -- langchain -----------------------------------------------------------------------------
#
# The ``langchain`` strategy runs the installed splitter. For a
# RecursiveCharacterTextSplitter whose chunks the ``recursive`` run reproduces
# (checked on the whole text when a document is first split), an edit is
# re-split by LangChain itself only in a window of the text around it.
#
# The window starts where the merge buffer began just after a chunk was
# emitted, before the first piece the edit changed (or after a piece split on
# its own): the buffer then holds at most ``overlap`` and takes the next piece
# without emitting, so a run started there with an empty buffer reaches the
# same state without emitting anything. It ends at a piece at or after the
# place where the updated run met the old one whose arrival emitted a chunk
# (or that is split on its own): a run that stops there emits the same last
# chunk by flushing its buffer. The window holds the top-level separator (else
# it is widened), so LangChain splits it into the same pieces. Its chunks
# from LangChain must equal the run's, else the whole text is split again;
# the chunks before and after it are the previous version's (LangChain's,
# checked then), shifted. This relies on LangChain's merge being the one
# ``recursive`` implements, which tests/test_langchain_differential.py checks.


def langchain_key(splitter: Any, sizer: Any) -> tuple:
    return ("langchain", splitter, sizer)


def langchain_update(doc: Document, splitter: Any, sizer: Any, size: int, overlap: int,
                     options: dict[str, Any]) -> list[tuple[int, int, int]] | None:
    """The chunks ``(start, end, tokens)`` of ``doc`` by ``splitter`` from the
    previous version's, or None when they must be computed from scratch."""
    from chunkseam.chunkers.recursive import recursive_chunks, run_key

    key = langchain_key(splitter, sizer)
    rkey = run_key(sizer, size, overlap, options)
    if rkey is None:
        return None
    for ancestor, a, b, ins in doc.lineage()[:_LINEAGE]:
        kept = ancestor.memoised(key)
        if kept is None:
            continue
        old_run = ancestor.memoised(rkey)
        if old_run is None:
            return None
        break
    else:
        return None
    run = recursive_chunks(doc, sizer, size=size, overlap=overlap,
                           previous=(old_run, a, b, ins), **options)
    if run.sep_index != old_run.sep_index or not run.pieces:
        return None
    text = doc.text
    n = len(run.pieces)
    i0, k1 = run.walked
    steps = run.steps

    def anchor(k: int) -> bool:
        """Did the run empty or flush its buffer when piece ``k`` came?"""
        if k <= 0 or k >= n or run.kids[k] is not None:
            return True
        at = bisect_left(steps, 2 * k)
        return at < len(steps) and steps[at] == 2 * k

    # the window: from where the buffer held after an emission before the
    # first changed piece begins, to an emission at or after the place where
    # the run met the old one
    ka = i0 - 1
    while ka > 0 and not anchor(ka):
        ka -= 1
    kb = max(k1, ka + 1)
    while not anchor(kb):
        kb += 1
    separators = list(options.get("separators") or ())
    regex = bool(options.get("is_separator_regex", False))
    while True:
        start_piece = 0 if ka <= 0 else (ka if run.kids[ka] is not None else run.post[ka])
        lo = run.pieces[start_piece][0] if start_piece > 0 else 0
        hi = run.pieces[kb][0] if kb < n else len(text)
        window = text[lo:hi]
        if top_separator(window, separators, regex) == run.sep_index:
            break
        # the window lacks the top-level separator: widen it
        if kb < n:
            kb += 1
            while not anchor(kb):
                kb += 1
        elif ka > 0:
            ka -= 1
            while ka > 0 and not anchor(ka):
                ka -= 1
        else:
            return None
    first = bisect_left(steps, 2 * ka + 1) if ka > 0 else 0
    last = bisect_right(steps, 2 * kb)
    mine = [(s, e) for _st, s, e, _t in run.emits[first:last]]
    theirs = [t for t in splitter.split_text(window) if t]
    if len(theirs) != len(mine) or any(text[s:e] != t for (s, e), t in zip(mine, theirs)):
        return None
    # the chunks outside the window are the previous version's, shifted
    delta = ins - (b - a)
    after = len(run.emits) - last
    if first + after > len(kept):
        return None
    head = kept[:first]
    tail = [(s + delta, e + delta, t) for s, e, t in kept[len(kept) - after:]]
    spans = [(s, e) for _st, s, e, _t in run.emits]
    if [(s, e) for s, e, _t in head] != spans[:first] or (
        [(s, e) for s, e, _t in tail] != spans[last:]
    ):
        return None
    count = sizer.count
    return head + [(s, e, count(text[s:e])) for s, e in mine] + tail


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


def _shifted(values: list[int], k: int, delta: int) -> list[int]:
    """``values[k:]``, each plus ``delta``."""
    if not delta:
        return values[k:]
    return list(map(delta.__add__, values[k:]))


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
    from chunkseam.chunkers.sentence import _BLANK_LINES, _NON_SPACE

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
    from chunkseam.chunkers.sentence import _greedy, measures, paragraph_sentences, paragraphs

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
    previous = find_previous(doc, key) if key is not None else None
    old = None
    if previous is not None:
        old, a, b, ins = previous
        delta = ins - (b - a)
        p0, scanned, p1_old = _paragraphs_around(text, old.para_starts, old.para_ends, a, b, ins)
        para_starts = old.para_starts[:p0]
        para_ends = old.para_ends[:p0]
        para_starts.extend(s for s, _e in scanned)
        para_ends.extend(e for _s, e in scanned)
        para_starts.extend(_shifted(old.para_starts, p1_old, delta))
        para_ends.extend(_shifted(old.para_ends, p1_old, delta))
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
        starts.extend(_shifted(old.starts, p1_old, shift))
        s_starts.extend(_shifted(old.s_starts, c1_old, delta))
        s_ends.extend(_shifted(old.s_ends, c1_old, delta))
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
            firsts.extend(_shifted(old_firsts, met[0], shift))
            lasts.extend(_shifted(old.lasts, met[0], shift))
            units.extend(old.units[met[0]:])
        new.firsts, new.lasts, new.units = firsts, lasts, units
    if key is not None:
        doc.memo(key, lambda: new)
    return new


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
    from chunkseam.chunkers.fixed import _TokenText
    from chunkseam.chunkers.recursive import stable_boundaries_apply

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
    previous = find_previous(doc, key) if key is not None else None
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

    from chunkseam.chunkers.fixed import _token_byte_lengths
    from chunkseam.chunkers.recursive import STABLE_BOUNDARY, STABLE_BOUNDARY_LAST

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
