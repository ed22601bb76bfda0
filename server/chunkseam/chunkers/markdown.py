"""``markdown``: structure-aware chunks — one per heading section, split only
where the section is over budget, and never inside an atomic block.

What a chunk is
---------------
1. **Sections.** The document is cut at every top-level heading (ATX or
   setext). A section is a heading plus the blocks up to the next heading; the
   text before the first heading (front matter included) is a section without
   a heading. Sub-sections are sections of their own: ``## B`` under ``# A``
   is not part of ``A``'s chunk, but its heading path is ``(A, B)``.
   Front matter directly followed by the first heading joins that heading's
   section (a chunk of only ``sidebar_position: 2`` is nothing to retrieve).
   A heading with no body of its own (directly followed by another heading)
   is joined to the next section, so no chunk is a lone heading; such a chunk
   takes the heading path of the last heading, the one whose body it carries.
   A heading at the very end of the document, with nothing after it, is a
   chunk on its own. A *label* — a reStructuredText target (``.. _name:``),
   comment or setup directive (``.. highlight::``, ``.. currentmodule::``,
   ``.. index::``), an HTML anchor alone on its lines (``<a name="x"></a>``)
   or an HTML comment — is no body either: labels before the first heading join its section, and
   labels that end a section go with the heading after them, so no chunk is
   only labels (see :func:`chunkseam.structure.markdown.is_anchor`).
2. **A section that fits** ``size`` (exact count of its text) is one chunk.
   Small neighbouring sections are *not* merged: a section is the unit a
   reader and a retriever expect (the field's reference example — four short
   sections, four chunks).
3. **A section over** ``size`` is split into units, packed greedily in order:
   top-level blocks; a paragraph over ``size`` becomes its sentences (pysbd,
   via :meth:`Structure.sentences`; a paragraph over
   :data:`PYSBD_WINDOW` characters is first cut into windows at likely
   sentence ends, as pysbd's time grows with the square of its input); a
   sentence over ``size`` becomes its words (whitespace-separated, but never
   cut inside an inline code span, an HTML tag or a link; such a cut is
   reported by the validator as mid-sentence, which is honest: no better cut
   exists within budget); a list over ``size`` becomes its items, a block
   quote over ``size`` its child blocks (each again by these rules).
   Atomic units — fenced and indented code, tables, list items, front
   matter, HTML blocks, thematic breaks and headings — are never cut: one
   larger than ``size`` is a chunk of its own with ``oversize=True``, as is a
   single word over budget. A heading is glued to the unit after it, so it
   always starts a chunk together with (the start of) its body; a block that
   fits alone but not together with the heading before it is split as if it
   were over budget. A *lead-in* — a paragraph that ends with a colon ("Run
   it like so:") before a block that is not a heading — is glued to that
   block the same way, so an example never starts a chunk without the
   sentence that introduces it.
4. **Overlap** (``overlap`` units, default 0) repeats whole trailing units of
   the previous chunk of the same section — blocks, sentences or items, never
   a part of one — as many as fit in ``overlap`` and in the next chunk's
   budget. It never crosses a heading (a section's first chunk starts at its
   heading) and a chunk overlaps only its neighbours.

Spans start at a unit start and end at a unit end: no leading or trailing
blank lines (an indented code block keeps its indentation). Text that
Markdown does not turn into a block is kept: the ``>`` or list marker before
a block inside a container starts that block's unit, a line of ``>`` alone
ends the unit before it, and anything else on lines of its own (a link
reference definition) is a unit of its own — every non-whitespace character
lies in a chunk. Labels and link reference definitions are glued to the unit
after them, as headings are.

Sizes: each unit is counted once with the sizer; packing adds unit and gap
counts (an estimate of the joined count; in tokens a single space between
units costs nothing, as it merges into the next token), then every chunk's
exact count is taken, and a chunk over budget gives back trailing units until
it fits. ``Chunk.tokens`` is always the exact count of the chunk's text. A
section whose text is short for the budget is counted whole first; a long one
is counted by its blocks, and whole only when their sum says it may fit.

Options: none (unknown options, meant for other strategies, are ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from threading import Lock
from typing import Any, Callable, Sequence
from weakref import WeakKeyDictionary

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.structure.markdown import Block, Structure, is_anchor, lead_in_end, structure
from chunkseam.tokens.tiktoken import Sizer, memo_count
from chunkseam.core.cache import ByteLRU
from chunkseam.chunkers import register

name = "markdown"
description = (
    "one chunk per heading section with its heading path; big sections split at blocks, "
    "then sentences; code, tables, list items, front matter, HTML and MDX import/export never cut"
)

#: block kinds kept whole (a chunk of their own when over budget)
ATOMIC = frozenset(
    {"fence", "code", "table", "front_matter", "html_block", "hr", "heading", "list_item", "esm", "explicit"}
)
#: a section (in tokens mode) longer than this many characters per unit of
#: ``size`` is first counted by its blocks rather than as a whole (prose runs
#: at about 4.3 characters per cl100k token, code at about 3)
LIKELY_FITS_CHARS_PER_UNIT = 4
#: paragraphs longer than this are pre-cut at likely sentence ends before
#: pysbd, whose run time grows with the square of its input (~1 s at 35k
#: characters, ~15 s at 140k)
PYSBD_WINDOW = 3000

_WORD = re.compile(r"\S+")
_QUOTE_MARKS = re.compile(r">+")
#: inline units a word-level cut must not split: code spans, HTML, links
_INLINE_UNIT = re.compile(
    r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|<!--.*?-->|</?[A-Za-z][^<>]*>"
    r"|!?\[[^\[\]]*\](?:\([^()]*\)|\[[^\[\]]*\])?",
    re.S,
)
#: lines of link reference definitions only (``[label]: https://…``)
_LINK_DEFS = re.compile(r"(?: {0,3}\[[^\]\n]+\]:[ \t]*\S[^\n]*(?:\r\n|\r|\n|$))+")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+|\n")

_SPACE = re.compile(r"\s")
_LAST_SPACE = re.compile(r".*\s", re.S)


# -- packing (shared with the code chunker) ---------------------------------------


@dataclass(slots=True)
class Atom:
    """A unit that is never cut: ``text[start:end]`` counting ``count``;
    ``glue`` means it may not end a chunk (a heading, a class line)."""

    start: int
    end: int
    count: int
    glue: bool = False


def rstrip_end(text: str, end: int, floor: int = 0) -> int:
    """``end`` moved back over whitespace, not below ``floor`` (no copy of the text)."""
    while end > floor and text[end - 1].isspace():
        end -= 1
    return end


def check_size(strategy: str, size: Any, overlap: Any) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"{strategy}: size must be a positive integer, got {size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise ValueError(f"{strategy}: overlap must be a non-negative integer, got {overlap!r}")
    if overlap > size:
        raise ValueError(f"{strategy}: overlap ({overlap}) must not be larger than size ({size})")


def make_measure(sizer: Sizer) -> Callable[[str], int]:
    """``sizer.count`` with a per-call cache (gaps like "\\n\\n" repeat)."""
    if sizer.unit == "chars" and not getattr(sizer, "approximate", False):
        return len
    return memo_count(sizer.count)


def glue_atoms(text: str, atoms: list[Atom], measure: Callable[[str], int]) -> list[Atom]:
    """Join every glued atom to the atom after it (a trailing glued atom stays)."""
    out: list[Atom] = []
    pending: Atom | None = None
    for atom in atoms:
        if pending is not None:
            gap = measure(text[pending.end : atom.start])
            atom = Atom(pending.start, atom.end, pending.count + gap + atom.count, atom.glue)
            pending = None
        if atom.glue:
            pending = atom
        else:
            out.append(atom)
    if pending is not None:
        out.append(pending)
    return out


def pack(
    text: str,
    atoms: Sequence[Atom],
    size: int,
    overlap: int,
    measure: Callable[[str], int],
    *,
    tokens: bool = False,
) -> list[tuple[int, int, int]]:
    """Greedy packing of ``atoms`` (in order, glue already applied) into
    chunks ``(first atom, last atom, exact count)``.

    A chunk takes atoms while the estimate (atom counts plus gap counts; with
    ``tokens``, a single space costs nothing) stays within ``size``; its exact count is then taken and trailing atoms go back
    while it is over (a single atom over ``size`` stays: oversize). With
    ``overlap``, the next chunk starts with the longest run of whole trailing
    atoms of this one that fits in ``overlap`` (and in ``size`` with the next
    atom), never reaching into the chunk before this one.
    """
    n = len(atoms)
    out: list[tuple[int, int, int]] = []
    gaps = [measure(text[atoms[k].end : atoms[k + 1].start]) for k in range(n - 1)]
    if tokens:  # a single space between pieces merges into the next token
        gaps = [0 if text[atoms[k].end : atoms[k + 1].start] == " " else g
                for k, g in enumerate(gaps)]
    first = 0  # first atom of the current chunk (overlap atoms included)
    new = 0  # first atom not in any earlier chunk
    floor = 0  # overlap may not reach below this atom (end of the chunk before)
    while new < n:
        if not len(out) % budget.STRIDE:
            budget.check("markdown chunking")
        # drop overlap atoms that leave no room for the first new atom
        total = atoms[new].count
        k = new
        while k > first:
            add = atoms[k - 1].count + gaps[k - 1]
            if total + add > size:
                break
            total += add
            k -= 1
        first = k
        last = new
        while last + 1 < n and total + gaps[last] + atoms[last + 1].count <= size:
            total += gaps[last] + atoms[last + 1].count
            last += 1
        exact = measure(text[atoms[first].start : atoms[last].end])
        while exact > size and (last > new or first < new):
            if last > new:
                last -= 1
            else:
                first += 1
            exact = measure(text[atoms[first].start : atoms[last].end])
        out.append((first, last, exact))
        nxt = last + 1
        if overlap > 0 and nxt < n:
            k = nxt
            acc = 0
            lowest = max(first + 1, floor)
            while k - 1 >= lowest:
                add = atoms[k - 1].count + (gaps[k - 1] if k < nxt else 0)
                if acc + add > overlap:
                    break
                acc += add
                k -= 1
            first = k
        else:
            first = nxt
        floor = nxt
        new = nxt
    return out


def _line_start_of(text: str, line_starts: Sequence[int] | None) -> Callable[[int], int]:
    from bisect import bisect_right

    def line_start(pos: int) -> int:
        if line_starts is None:
            # a carriage return only after the last line feed (the nearer break
            # wins): a search back to the text's start for one that a document
            # without carriage returns never holds read it all per call
            n = text.rfind("\n", 0, pos)
            return max(n, text.rfind("\r", n + 1, pos)) + 1
        return line_starts[bisect_right(line_starts, pos) - 1]

    return line_start


def split_gap(text: str, e: int, s: int, line_start: Callable[[int], int],
              code: bool = False) -> tuple[int, int]:
    """Share the text between a span ending at ``e`` and the next starting at
    ``s`` (``e < s``): non-whitespace on the line where the next span starts
    (a ``>`` or list marker before a nested block) goes to the next span,
    anything on lines of its own (a link reference definition, a comment
    after a blank line) to the previous one. With ``code=True`` all of it
    goes to the previous span (code spans start at line starts)."""
    cut = s
    if not code:
        ls = max(line_start(s), e)
        head = text[ls:s]
        if head.strip():
            cut = ls + len(head) - len(head.lstrip())
    rest = text[e:cut]
    if rest.strip():
        e += len(rest.rstrip())
    return e, cut


_RUN = re.compile(r"[^\r\n]*\S[^\r\n]*(?:(?:\r\n|\r|\n)[^\r\n]*\S[^\r\n]*)*")
_LINE = re.compile(r"[^\r\n]*\S[^\r\n]*")
_MARKERS_ONLY = re.compile(r"[\s>]*")
_EOL = re.compile(r"\r\n|\r|\n")


def fill_gaps(text: str, atoms: list[Atom], lo: int, hi: int, size: int,
              measure: Callable[[str], int], *, line_starts: Sequence[int] | None = None,
              code: bool = False) -> list[Atom]:
    """The atoms plus the non-whitespace text around them in ``[lo, hi)`` (their
    group's extent), so packing sees every character it will emit.

    Text on the line where an atom starts (a ``>`` or list marker before a
    nested block) joins that atom, text on the line where one ends joins that
    one; a line of block-quote markers only (``>``)
    joins the atom before it; any other text on lines of its own — a link
    reference definition, a comment after a blank line — becomes atoms of its
    own, one per run of non-blank lines (one per line when a run is over
    ``size``). With ``code=True`` atoms keep their line starts (indentation)."""
    if not atoms:
        return atoms
    line_start = _line_start_of(text, line_starts)
    out: list[Atom] = []

    def gap(e: int, s: int) -> None:
        if out:  # the rest of the previous atom's last line stays with it
            nl = _EOL.search(text, e, s)
            line_end = nl.start() if nl else s
            piece = text[e:line_end]
            if piece.strip():
                out[-1].end = e + len(piece.rstrip())
                out[-1].count = measure(text[out[-1].start : out[-1].end])
                e = line_end
        for m in _RUN.finditer(text, e, s):
            a, b = m.start(), m.end()
            run = m.group()
            if not code:
                a += len(run) - len(run.lstrip())
            b = a + len(text[a:b].rstrip())
            if not code and out and _MARKERS_ONLY.fullmatch(text[a:b]):
                out[-1].end = b
                out[-1].count = measure(text[out[-1].start : b])
                continue
            n = measure(text[a:b])
            if n <= size:
                # (link reference definitions before a block: glued to it, as a heading is)
                out.append(Atom(a, b, n, not code and _LINK_DEFS.fullmatch(text[a:b]) is not None))
                continue
            for line in _LINE.finditer(text, a, b):
                la = line.start() if code else line.start() + len(line.group()) - len(
                    line.group().lstrip())
                lb = line.end()
                out.append(Atom(la, lb, measure(text[la:lb])))

    prev = lo
    for atom in atoms:
        if atom.start > prev and text[prev : atom.start].strip():
            if not code:
                ls = max(line_start(atom.start), prev)
                head = text[ls : atom.start]
                if head.strip():
                    atom.start = ls + len(head) - len(head.lstrip())
                    atom.count = measure(text[atom.start : atom.end])
            gap(prev, atom.start)
        out.append(atom)
        prev = atom.end
    if hi > prev and text[prev:hi].strip():
        gap(prev, hi)
    return out


def tidy_bounds(text: str, spans: list[list], *, line_starts: Sequence[int] | None = None,
                code: bool = False) -> None:
    """Make chunk spans cover every non-whitespace character, in place (a
    safety net: the chunkers already give gap text to their atoms). Gaps
    between chunks that do not overlap are shared by :func:`split_gap`; text
    before the first and after the last chunk joins them."""
    if not spans:
        return
    line_start = _line_start_of(text, line_starts)
    lead = len(text) - len(text.lstrip())
    if lead < spans[0][0]:
        spans[0][0] = line_start(lead) if code else lead
    for prev, cur in zip(spans, spans[1:]):
        e, s = prev[1], cur[0]
        if s > e and text[e:s].strip():
            prev[1], cur[0] = split_gap(text, e, s, line_start, code)
    tail = len(text.rstrip())
    if tail > spans[-1][1]:
        spans[-1][1] = tail


# -- the markdown strategy ------------------------------------------------------------


class _Run:
    __slots__ = ("doc", "text", "st", "size", "overlap", "measure", "tokens")

    def __init__(self, doc: Document, st: Structure, size: int, overlap: int,
                 measure: Callable[[str], int]) -> None:
        self.doc = doc
        self.text = doc.text
        self.st = st
        self.size = size
        self.overlap = overlap
        self.measure = measure
        self.tokens = False

    def child_blocks(self, block: Block) -> list[Block]:
        return self.st.children(block)

    def head(self, pos: int, out: list[Atom]) -> int:
        """Where an atom at ``pos`` really starts: container markers before it
        on its line (``>``, a list marker), after the previous atom, are its."""
        text = self.text
        ls = self.doc.line_start(self.doc.line_of(pos))
        if out and out[-1].end > ls:
            ls = out[-1].end
        mark = text[ls:pos]
        if not mark.strip():
            return pos
        return ls + len(mark) - len(mark.lstrip())

    def atoms_of(self, block: Block, out: list[Atom], lead: int | None = None) -> None:
        """Atoms of one block: the block itself when it fits or is atomic, else
        its parts (sentences, words, items, child blocks). ``lead`` is the
        start of the headings that will be glued before the block: the block
        stays whole only if it fits together with them."""
        text = self.text
        measure = self.measure
        size = self.size
        start = self.head(block.start, out) if block.depth else block.start
        count = measure(text[start : block.end])
        fits = count <= size and (lead is None or measure(text[lead : block.end]) <= size)
        if fits or block.kind in ATOMIC:
            out.append(Atom(start, block.end, count, block.kind == "heading"))
            return
        if block.kind == "paragraph":
            first = True
            for s0, e in self.sentences(block):
                s = start if first else self.head(s0, out)
                n = measure(text[s:e])
                if n <= size and (lead is None or measure(text[lead:e]) <= size):
                    out.append(Atom(s, e, n))
                else:
                    for a, b in self.words(s0, e):
                        w = s if first else self.head(a, out)
                        first = False
                        out.append(Atom(w, b, measure(text[w:b])))
                first = False
                lead = None
            return
        kids = self.child_blocks(block)
        if not kids:  # a container without children (an empty list item …)
            out.append(Atom(start, block.end, count))
            return
        if block.kind in ("jsx", "directive"):  # (an rst directive: its head glued to its body)
            self.jsx_atoms(block, start, kids, out, lead)
            return
        for kid in kids:
            if kid.kind == "heading":  # a heading in a block quote: glued like any other
                h = self.head(kid.start, out)
                lead = h if lead is None else lead
                out.append(Atom(h, kid.end, measure(text[h : kid.end]), True))
                continue
            self.atoms_of(kid, out, lead)
            lead = None

    def jsx_atoms(self, block: Block, start: int, kids: list[Block], out: list[Atom],
                  lead: int | None) -> None:
        """An MDX JSX element too big for one chunk: split between its
        children, its opening tag glued to the first child and its closing tag
        kept with the last one when they fit together (no chunk is only
        ``<Tab title="…">`` or ``</Tab>``). Cuts between the children are still
        cuts inside the element (CS008 reports them)."""
        text = self.text
        measure = self.measure
        open_end = rstrip_end(text, kids[0].start, start)
        if open_end > start:
            out.append(Atom(start, open_end, measure(text[start:open_end]), True))
            lead = None
        for kid in kids:
            self.atoms_of(kid, out, lead)
            lead = None
        close_start = kids[-1].end
        while close_start < block.end and text[close_start].isspace():
            close_start += 1
        if close_start >= block.end:
            return
        last = out[-1]
        if last.end <= close_start:
            joined = measure(text[last.start : block.end])
            # (a child already over the size takes its closing tag too: a
            # chunk of only ``</Tab>`` is worth nothing)
            if joined <= self.size or last.count > self.size:
                out[-1] = Atom(last.start, block.end, joined, last.glue)
                return
        out.append(Atom(close_start, block.end, measure(text[close_start : block.end])))

    def words(self, start: int, end: int) -> list[tuple[int, int]]:
        """Word spans of ``text[start:end]`` where a chunk may be cut: never
        inside an inline code span, an HTML tag or a link; a block quote's
        ``>`` at a line start goes with the word after it."""
        text = self.text
        keep = [(m.start(), m.end()) for m in _INLINE_UNIT.finditer(text, start, end)]
        out: list[tuple[int, int]] = []
        k = 0
        for m in _WORD.finditer(text, start, end):
            a, b = m.start(), m.end()
            if _QUOTE_MARKS.fullmatch(m.group()) and not text[
                self.doc.line_start(self.doc.line_of(a)) : a
            ].strip(" \t>"):
                continue  # the marker: head() gives it to the next word
            while k < len(keep) and keep[k][1] <= a:
                k += 1
            if out and k < len(keep) and keep[k][0] < out[-1][1] and keep[k][1] > a:
                out[-1] = (out[-1][0], b)  # the gap lies inside an inline unit
            else:
                out.append((a, b))
        return out

    def sentences(self, block: Block) -> list[tuple[int, int]]:
        if block.end - block.start <= PYSBD_WINDOW:
            return self.st.sentences(block)
        # pre-cut a huge paragraph at likely sentence ends (else at a space)
        # into windows of at most PYSBD_WINDOW characters, then pysbd each;
        # a window without whitespace is one word and needs no pysbd at all
        from chunkseam.structure.sentences import sentence_spans

        text = self.text
        spans: list[tuple[int, int]] = []
        pos = block.start
        end = block.end
        while pos < end:
            budget.check("markdown chunking")  # each window is a pysbd run
            cut = end
            if pos + PYSBD_WINDOW < end:
                limit = pos + PYSBD_WINDOW
                cut = -1
                for m in _SENTENCE_END.finditer(text, pos + PYSBD_WINDOW // 2, limit):
                    cut = m.end()
                if cut < 0:
                    m = _LAST_SPACE.search(text, pos, limit)
                    cut = m.end() if m else -1
                if cut < 0:  # no whitespace in the window: a long word, up to its end
                    m = _SPACE.search(text, limit, end)
                    cut = m.end() if m else end
            piece = text[pos:cut]
            if _SPACE.search(piece.strip()):
                spans.extend(sentence_spans(text, pos, cut))
            elif piece.strip():
                lead = len(piece) - len(piece.lstrip())
                spans.append((pos + lead, pos + len(piece.rstrip())))
            pos = cut
        return spans

    def section_chunks(self, get_blocks: Callable[[], list[Block]], path: tuple[str, ...],
                       lo: int, hi: int) -> list[list]:
        """Chunks of one section whose text (with what lies between its blocks
        and the next section) is ``text[lo:hi]``; ``get_blocks()`` gives its
        top-level blocks (asked for only when the section does not fit)."""
        text = self.text
        measure = self.measure
        size = self.size
        whole: int | None = None
        # a section much longer than the budget (in characters) is counted
        # by its blocks only, which it needs anyway; the whole count is taken
        # when the blocks' sum says it may fit (token counts of pieces add up
        # to within a few tokens of the count of their joined text)
        if not self.tokens or hi - lo <= LIKELY_FITS_CHARS_PER_UNIT * size:
            whole = measure(text[lo:hi])
            if whole <= size:
                return [[lo, hi, whole, path]]
        blocks = get_blocks()
        if len(blocks) == 1 and blocks[0].kind in ATOMIC:
            return [[lo, hi, whole if whole is not None else measure(text[lo:hi]), path]]
        atoms: list[Atom] = []
        lead: int | None = None
        for j, b in enumerate(blocks):
            if lead is None:  # link reference definitions right before it are glued to it (fill_gaps)
                prev = atoms[-1].end if atoms else lo
                defs = text[prev : b.start].strip()
                if defs and _LINK_DEFS.fullmatch(defs):
                    lead = text.index(defs, prev)
            label = b.kind in ("explicit", "html_block", "paragraph") and is_anchor(
                b.kind, b.info, text[b.start : b.end]) or (
                # front matter that joined the first heading's section goes with that heading
                b.kind == "front_matter" and j + 1 < len(blocks) and blocks[j + 1].kind == "heading") or (
                # a lead-in ("Run it like so:") goes with the block it introduces
                b.kind == "paragraph" and j + 1 < len(blocks) and blocks[j + 1].kind != "heading"
                and lead_in_end(text, b.start, b.end) is not None)
            if b.kind == "heading" or label:
                # (a label before a heading or a block: glued to it, never a chunk's end,
                # unless it is over the size on its own: a long comment is a unit of its own)
                n = measure(text[b.start : b.end])
                if b.kind == "heading" or n <= size:
                    lead = b.start if lead is None else lead
                    atoms.append(Atom(b.start, b.end, n, True))
                    continue
            self.atoms_of(b, atoms, lead)
            lead = None
        atoms = fill_gaps(text, atoms, lo, hi, size, measure, line_starts=self.doc.line_starts)
        if whole is None:
            estimate = sum(a.count for a in atoms) + sum(
                measure(text[a.end : b.start]) for a, b in zip(atoms, atoms[1:]))
            if estimate <= size + size // 4 + 16:
                whole = measure(text[lo:hi])
                if whole <= size:
                    return [[lo, hi, whole, path]]
        atoms = glue_atoms(text, atoms, measure)
        return [
            [atoms[a].start, atoms[b].end, n, path]
            for a, b, n in pack(text, atoms, self.size, self.overlap, measure,
                                tokens=self.tokens)
        ]


def sections(st: Structure) -> list[tuple[list[Block], tuple[str, ...]]]:
    """Top-level blocks grouped by heading section, with each group's heading
    path (headings without a body of their own join the next section)."""
    return [(st.section_blocks(sec), st.heading_path_at(sec[2]) if sec[2] >= 0 else ())
            for sec in st.sections()]


# -- reuse across versions ---------------------------------------------------------------
#
# A section's chunk spans depend only on its own text (from its first block to
# the start of the next section, trailing whitespace excluded), its blocks, the
# sizer, ``size`` and ``overlap`` (the heading path is only attached to them):
# every lookup the packing makes (line starts, markers, sentences, words) stays
# inside the section. So they are cached by those, with offsets relative to the
# section's start (text and blocks identified by Structure.text_key: the
# structure segments the section lies in, whose parses are made once per text),
# and an edit re-chunks only the section it touches. tests/chunkers/test_incremental.py
# checks that cached and fresh chunks are identical over random edits.

#: estimated bytes of the section chunk spans kept per sizer (least recently
#: used go first; see :mod:`chunkseam.core.cache`)
SECTION_CACHE_BYTES = 12 * 1024 * 1024


class _SectionCache:
    __slots__ = ("lru", "__weakref__")

    def __init__(self) -> None:
        self.lru = ByteLRU("markdown sections", SECTION_CACHE_BYTES)

    def get(self, key: tuple) -> tuple[tuple[int, int, int], ...] | None:
        return self.lru.get(key)

    def put(self, key: tuple, value: tuple[tuple[int, int, int], ...]) -> None:
        # the key holds serials (shared), two ints and the shared params
        self.lru.put(key, value, 200 + 8 * len(key[0][0]) + 100 * len(value))

    def clear(self) -> None:
        self.lru.clear()


_PARAM_KEYS: dict[tuple, tuple] = {}
#: sizer -> its section cache (a sizer that goes away takes its cache along)
_SECTION_CACHES: "WeakKeyDictionary[Any, _SectionCache]" = WeakKeyDictionary()
_caches_lock = Lock()


def _section_cache(sizer: Sizer) -> _SectionCache | None:
    try:
        with _caches_lock:
            cache = _SECTION_CACHES.get(sizer)
            if cache is None:
                cache = _SECTION_CACHES[sizer] = _SectionCache()
        return cache
    except TypeError:  # a sizer that cannot be weakly referenced or hashed: no reuse
        return None


def clear_caches() -> None:
    """Forget every cached section (benchmarks use it for cold figures)."""
    with _caches_lock:
        caches = list(_SECTION_CACHES.values())
    for cache in caches:
        cache.clear()


class MarkdownChunker:
    name = name
    description = description

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        check_size(name, size, overlap)
        text = doc.text
        if not text.strip():
            return []
        st = structure(doc)
        measure = make_measure(sizer)
        run = _Run(doc, st, size, overlap, measure)
        run.tokens = sizer.unit == "tokens"
        cache = _section_cache(sizer)
        try:
            params: tuple = (size, overlap, run.tokens, tuple(sorted(options.items())))
            hash(params)
            # one object per distinct value: every cached key holds it
            params = _PARAM_KEYS.setdefault(params, params) if len(_PARAM_KEYS) < 256 else params
        except TypeError:  # unhashable options (ignored by this strategy anyway)
            cache = None
            params = ()
        if doc.kind != "markdown":
            cache = None  # (a plain-text structure has no cached segments to key on)
        spans: list[list] = []
        secs = st.sections()
        for k, sec in enumerate(secs):
            if not k % budget.STRIDE:
                budget.check("markdown chunking")
            lo = sec[0]
            if k == 0:  # text before the first block (a link reference definition …)
                lo = min(lo, len(text) - len(text.lstrip()))
            nxt = secs[k + 1][0] if k + 1 < len(secs) else len(text)
            hi = rstrip_end(text, nxt, sec[1])
            path = st.heading_path_at(sec[2]) if sec[2] >= 0 else ()
            if cache is None:
                spans.extend(run.section_chunks(partial(st.section_blocks, sec), path, lo, hi))
                continue
            key = (st.text_key(lo, hi), params)
            rel = cache.get(key)
            if rel is None:
                got = run.section_chunks(partial(st.section_blocks, sec), path, lo, hi)
                rel = tuple((s - lo, e - lo, n) for s, e, n, _path in got)
                cache.put(key, rel)
            spans.extend([lo + s, lo + e, n, path] for s, e, n in rel)
        if spans and spans[0][3] and st.heading_path_at(spans[0][1] - 1) == ():
            # front matter over the size on its own, before the first heading
            # whose section it joined: a chunk with no heading yet
            spans[0][3] = ()
        if not spans:  # no blocks at all (only link reference definitions …)
            lead = len(text) - len(text.lstrip())
            spans = [[lead, len(text.rstrip()), 0, ()]]
        before = [(s[0], s[1]) for s in spans]
        tidy_bounds(text, spans, line_starts=doc.line_starts)
        chunks: list[Chunk] = []
        for k, ((start, end, count, path), (s0, e0)) in enumerate(zip(spans, before)):
            if not k % budget.STRIDE:
                budget.check("markdown chunking")
            if (start, end) != (s0, e0) or not count:
                count = measure(text[start:end])
            chunks.append(
                Chunk(start, end, len(chunks), source=text, tokens=count, strategy=name,
                      heading_path=path, oversize=count > size)
            )
        return chunks


register(MarkdownChunker())
