"""Markdown block structure with exact character spans, computed once per
document version and reused across versions segment by segment.

The block parser is markdown-it-py's (CommonMark + GFM tables + front
matter), run *block-only*: inline parsing is done just for heading titles.

Incremental reuse
-----------------
A document is cut into *segments* at anchor lines: a column-0 ATX heading
(``# …``) that follows a blank line. Such a line always starts a new top-level
block, unless it lies inside a fenced code block, an HTML block of CommonMark
types 1–5, or front matter. Each segment is parsed on its own and the result
is cached by the segment's text, so an edit re-parses only the segment it
touches. Block parsing at a top-level block start depends only on the lines
from there on, so the segmented parse equals a whole-document parse as long as
no segment ends inside an open fence or HTML block: when one does (its last
block reaches the segment's end), the segment is merged with the next and
parsed again. ``tests/test_structure.py`` checks the equality on the corpus
and on generated documents.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from threading import Lock

from .document import Document
from .sentences import segment

LEAF_KINDS = frozenset(
    {"heading", "paragraph", "fence", "code", "table", "html_block", "front_matter", "hr"}
)
CONTAINER_KINDS = frozenset({"bullet_list", "ordered_list", "list_item", "blockquote"})
#: blocks a chunker keeps whole and a cut must not fall inside
ATOMIC_KINDS = frozenset({"fence", "code", "table", "front_matter", "html_block"})


@dataclass(slots=True)
class Block:
    """One Markdown block. ``start``/``end`` are offsets into the document
    text; ``end`` excludes the trailing line break and trailing blank lines."""

    kind: str
    start: int
    end: int
    level: int = 0  # heading level 1–6
    title: str | None = None  # heading text, markup stripped
    parent: int | None = None  # index into Structure.blocks
    depth: int = 0  # number of container ancestors
    info: str = ""  # fence info string / list marker
    rows: list[tuple[int, int]] = field(default_factory=list)  # table rows; rows[0] = header
    header_end: int = 0  # table: end of the delimiter row
    index: int = 0  # position in Structure.blocks
    closed: bool = True  # fence: has a closing marker
    line: int = 0  # first line (0-based)
    end_line: int = 0  # last non-blank line (0-based, inclusive)

    @property
    def is_leaf(self) -> bool:
        return self.kind in LEAF_KINDS

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end

    def strictly_inside(self, offset: int) -> bool:
        return self.start < offset < self.end


# -- the parser --------------------------------------------------------------------

_md_lock = Lock()


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    return MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


def _block_tokens(text: str):
    from markdown_it.rules_core import StateCore, block, normalize

    md = _parser()
    with _md_lock:  # markdown-it's parser objects are not re-entrant across threads
        state = StateCore(text, md, {})
        normalize(state)
        block(state)
    return state.tokens


_EOL = re.compile(r"\r\n|\r|\n")
_LIST_MARKER = re.compile(r"[-+*]|\d{1,9}[.)]")
_WS = " \t"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _EOL.finditer(text))
    return starts


class _Lines:
    __slots__ = ("text", "starts", "n")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _line_starts(text)
        self.n = len(self.starts)

    def start(self, line: int) -> int:
        return self.starts[line] if line < self.n else len(self.text)

    def end(self, line: int) -> int:
        if line >= self.n:
            return len(self.text)
        end = self.starts[line + 1] if line + 1 < self.n else len(self.text)
        s = self.starts[line]
        t = self.text
        while end > s and t[end - 1] in "\r\n":
            end -= 1
        return end

    def blank(self, line: int) -> bool:
        return not self.text[self.start(line) : self.end(line)].strip()


_INLINE_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|!?\[([^\]]*)\]\[[^\]]*\]|[*_~`]+|<[^>]+>")


def _plain_title(content: str) -> str:
    """Heading text without inline markup (links keep their text)."""
    out = _INLINE_MARKUP.sub(lambda m: m.group(1) or m.group(2) or "", content)
    out = re.sub(r"\s+#+\s*$", "", out)  # closing hashes of an ATX heading
    out = re.sub(r"\s*\{[#.][^}]*\}\s*$", "", out)  # attribute lists {#id}
    return " ".join(out.split())


def _parse_segment(text: str) -> tuple[tuple, ...]:
    """Blocks of one segment as tuples with offsets relative to ``text``."""
    tokens = _block_tokens(text)
    lines = _Lines(text)
    out: list[list] = []
    stack: list[int] = []  # indices into out of open containers
    consumed: dict[int, int] = {}  # line -> offset already taken by container markers
    table: list | None = None

    def opening(kind: str, line: int) -> int:
        pos = consumed.get(line)
        if pos is None:
            pos = lines.start(line)
            # markers of enclosing block quotes repeat on every line
            for anc in stack:
                if out[anc][0] == "blockquote":
                    j = pos
                    while j < len(text) and text[j] in _WS:
                        j += 1
                    if j < len(text) and text[j] == ">":
                        pos = j + 1
        if kind == "code" and not stack:
            return pos  # a top-level indented code block's indentation is its syntax
        end = lines.end(line)
        while pos < end and text[pos] in _WS:
            pos += 1
        return pos

    def last_line(map_end: int, first: int) -> int:
        last = max(first, map_end - 1)
        while last > first and lines.blank(last):
            last -= 1
        return last

    for tok in tokens:
        ttype = tok.type
        if tok.nesting == 1 and tok.map is not None and ttype.endswith("_open"):
            kind = ttype[:-5]
            if kind in ("thead", "tbody", "th", "td"):
                continue
            if kind == "tr":
                if table is not None:
                    r0 = tok.map[0]
                    table[8].append((r0, opening("tr", r0), lines.end(r0)))
                continue
            first = tok.map[0]
            lst = last_line(tok.map[1], first)
            start = opening(kind, first)
            end = max(lines.end(lst), start)
            rec = [kind, start, end, 0, None, stack[-1] if stack else None, len(stack), "", [], 0, True, first, lst]
            if kind == "heading":
                rec[3] = int(tok.tag[1]) if tok.tag[:1] == "h" else 1
            elif kind in ("bullet_list", "ordered_list", "list_item"):
                rec[7] = tok.markup
            if kind in ("list_item", "blockquote"):
                # the marker is consumed for the blocks that open on the same line
                j = start
                if kind == "blockquote":
                    j += 1
                else:
                    m = _LIST_MARKER.match(text, start)
                    j = m.end() if m else start
                consumed[first] = j
            elif kind in ("bullet_list", "ordered_list"):
                consumed[first] = start
            out.append(rec)
            if kind in CONTAINER_KINDS:
                stack.append(len(out) - 1)
            elif kind == "table":
                rec[9] = lines.end(first + 1)
                table = rec
                stack.append(len(out) - 1)
            else:
                stack.append(len(out) - 1)
        elif tok.nesting == -1:
            kind = ttype[:-6]
            if kind in ("thead", "tbody", "th", "td", "tr"):
                continue
            if stack:
                rec = out[stack.pop()]
                if rec[0] == "table":
                    table = None
                    rec[8] = [(s, e) for _, s, e in rec[8]]
        elif tok.nesting == 0 and tok.map is not None and tok.type != "inline":
            kind = {"code_block": "code", "front_matter": "front_matter"}.get(ttype, ttype)
            if kind not in LEAF_KINDS:
                continue
            first = tok.map[0]
            lst = last_line(tok.map[1], first)
            start = opening(kind, first)
            end = max(lines.end(lst), start)
            rec = [kind, start, end, 0, None, stack[-1] if stack else None, len(stack), "", [], 0, True, first, lst]
            if kind == "fence":
                rec[7] = tok.info.strip()
                rec[10] = _fence_closed(tok, lines, lst)
            elif kind == "html_block":
                rec[10] = _html_closed(tok.content)
            out.append(rec)
        elif ttype == "inline" and stack and out[stack[-1]][0] == "heading":
            out[stack[-1]][4] = _plain_title(tok.content)
    for rec in out:
        if rec[0] == "heading" and rec[4] is None:
            rec[4] = ""
    return tuple(tuple(r) for r in out)


_HTML_END = (
    (re.compile(r"^\s*<(?:script|pre|style|textarea)(?:\s|>|$)", re.I), re.compile(r"</(?:script|pre|style|textarea)>", re.I)),
    (re.compile(r"^\s*<!--"), re.compile(r"-->")),
    (re.compile(r"^\s*<\?"), re.compile(r"\?>")),
    (re.compile(r"^\s*<!\[CDATA\["), re.compile(r"\]\]>")),
    (re.compile(r"^\s*<![A-Za-z]"), re.compile(r">")),
)


def _html_closed(content: str) -> bool:
    """Whether an HTML block is complete: types 6–7 end at a blank line, so
    they always are; types 1–5 only when their end marker appears."""
    for start, end in _HTML_END:
        m = start.match(content)
        if m:
            return bool(end.search(content, m.end()))
    return True


def _fence_closed(tok, lines: _Lines, last: int) -> bool:
    """Whether a fence token has its closing marker line: markdown-it's map
    spans the content lines plus the opening line, plus the closing line
    only when there is one (a closing-looking line inside a block quote or a
    list item that has ended does not close a top-level fence)."""
    return (tok.map[1] - tok.map[0]) - tok.content.count("\n") >= 2


# -- segmentation and the cache ------------------------------------------------------

# a blank line, then a heading line; the \r of a \r\n is not a line break of its own
_ANCHOR = re.compile(r"(?:^|\r\n|\n|\r(?!\n))[ \t]*(?:\r\n|\r(?!\n)|\n)(?=#{1,6}(?:[ \t]|\r|\n|$))")
_FRONT_MATTER_OPEN = re.compile(r"---[ \t]*(?:\r\n|\r|\n)")
_FRONT_MATTER_CLOSE = re.compile(r"(?:\r\n|\r|\n)(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|$)")


def _anchor_offsets(text: str) -> list[int]:
    """Offsets of candidate segment starts (after 0)."""
    skip_to = 0
    if _FRONT_MATTER_OPEN.match(text):
        m = _FRONT_MATTER_CLOSE.search(text, 3)
        skip_to = m.end() if m else len(text)
    return [m.end() for m in _ANCHOR.finditer(text, skip_to) if m.end() > skip_to]


class _SegmentCache:
    def __init__(self, maxsize: int = 4096) -> None:
        self.maxsize = maxsize
        self.data: OrderedDict[str, tuple] = OrderedDict()
        self.lock = Lock()

    def get(self, text: str) -> tuple:
        with self.lock:
            hit = self.data.get(text)
            if hit is not None:
                self.data.move_to_end(text)
                return hit
        value = _parse_segment(text)
        with self.lock:
            self.data[text] = value
            if len(self.data) > self.maxsize:
                self.data.popitem(last=False)
        return value

    def forget(self, text: str) -> None:
        with self.lock:
            self.data.pop(text, None)


_SEGMENTS = _SegmentCache()


def _ends_open(blocks: tuple, seg_text: str) -> bool:
    """Whether the segment ends inside a top-level fence or HTML block (which
    would swallow the anchor heading that starts the next segment)."""
    return any(r[6] == 0 and r[0] in ("fence", "html_block") and not r[10] for r in blocks)


def parse_blocks(text: str) -> list[Block]:
    """All blocks of ``text`` in document order (pre-order), offsets absolute."""
    anchors = _anchor_offsets(text)
    bounds = [0, *anchors, len(text)]
    blocks: list[Block] = []
    i = 0
    line_base = 0
    counted_to = 0
    while i < len(bounds) - 1:
        seg_start = bounds[i]
        j = i + 1
        step = 1
        while True:
            seg_text = text[seg_start : bounds[j]]
            recs = _SEGMENTS.get(seg_text)
            if j < len(bounds) - 1 and _ends_open(recs, seg_text):
                # merge with the following segments; growing the step
                # geometrically keeps an early unclosed fence from making the
                # parse quadratic in the number of segments
                _SEGMENTS.forget(seg_text)
                j = min(j + step, len(bounds) - 1)
                step *= 2
                continue
            break
        base = len(blocks)
        line_base += _count_lines(text, counted_to, seg_start)
        counted_to = seg_start
        for rec in recs:
            (kind, s, e, level, title, parent, depth, info, rows, hend, closed, first, last) = rec
            blocks.append(
                Block(
                    kind,
                    s + seg_start,
                    e + seg_start,
                    level,
                    title,
                    None if parent is None else parent + base,
                    depth,
                    info,
                    [(a + seg_start, b + seg_start) for a, b in rows] if rows else [],
                    hend + seg_start if hend else 0,
                    len(blocks),
                    closed,
                    first + line_base,
                    last + line_base,
                )
            )
        i = j
    return blocks


def _count_lines(text: str, start: int, end: int) -> int:
    # \r\n counts once; lone \r and \n count once each (anchors never split a \r\n)
    chunk = text[start:end]
    return chunk.count("\n") + chunk.count("\r") - chunk.count("\r\n")


# -- the structure object ------------------------------------------------------------


class Structure:
    """Blocks of one document version plus lookups used by chunkers and checks."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.text = doc.text
        self.blocks: list[Block] = parse_blocks(doc.text) if doc.kind == "markdown" else _plain_blocks(doc.text)
        self._starts = [b.start for b in self.blocks]
        self.leaves = [b for b in self.blocks if b.is_leaf]
        self._leaf_starts = [b.start for b in self.leaves]
        self.headings = [b for b in self.blocks if b.kind == "heading" and b.depth == 0]
        self._heading_starts = [h.start for h in self.headings]
        self._paths: list[tuple[str, ...]] = []
        stack: list[Block] = []
        for h in self.headings:
            while stack and stack[-1].level >= h.level:
                stack.pop()
            stack.append(h)
            self._paths.append(tuple(x.title or "" for x in stack))

    # -- lookups
    def leaf_at(self, offset: int) -> Block | None:
        """The leaf block containing ``offset`` (start inclusive, end exclusive)."""
        i = bisect_right(self._leaf_starts, offset) - 1
        if i >= 0 and self.leaves[i].contains(offset):
            return self.leaves[i]
        return None

    def containing(self, offset: int) -> list[Block]:
        """Every block whose span contains ``offset``, outermost first."""
        i = bisect_right(self._starts, offset) - 1
        found: list[Block] = []
        b = self.blocks[i] if i >= 0 else None
        while b is not None:
            if b.contains(offset):
                found.append(b)
            b = self.blocks[b.parent] if b.parent is not None else None
        found.reverse()
        return found

    def parent(self, block: Block) -> Block | None:
        return self.blocks[block.parent] if block.parent is not None else None

    def top_level(self) -> list[Block]:
        return [b for b in self.blocks if b.depth == 0]

    def blocks_between(self, start: int, end: int) -> list[Block]:
        """Blocks that start in ``[start, end)``."""
        i = bisect_right(self._starts, start - 1)
        out = []
        while i < len(self.blocks) and self.blocks[i].start < end:
            out.append(self.blocks[i])
            i += 1
        return out

    def heading_path_at(self, offset: int) -> tuple[str, ...]:
        """Titles of the headings that enclose ``offset`` (a heading encloses
        itself from its first character)."""
        i = bisect_right(self._heading_starts, offset) - 1
        return self._paths[i] if i >= 0 else ()

    def heading_path_of(self, heading: Block) -> tuple[str, ...]:
        i = bisect_right(self._heading_starts, heading.start) - 1
        return self._paths[i] if i >= 0 else ()

    def sentences(self, block: Block) -> list[tuple[int, int]]:
        """Sentence spans of a leaf block as absolute offsets (a heading, a
        fence, a table … is one unit)."""
        if block.kind != "paragraph":
            return [(block.start, block.end)]
        base = block.start
        return [(base + a, base + b) for a, b in segment(self.text[block.start : block.end])]

    def sentence_at(self, offset: int) -> tuple[int, int] | None:
        leaf = self.leaf_at(offset)
        if leaf is None or leaf.kind != "paragraph":
            return None
        for a, b in self.sentences(leaf):
            if a <= offset < b:
                return (a, b)
        return None


_PARA = re.compile(r"(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)(?:[ \t]*(?:\r\n|\r|\n))*")


def _plain_blocks(text: str) -> list[Block]:
    """Paragraph blocks of a plain-text (or code) document: runs of non-blank lines."""
    blocks: list[Block] = []
    pos = 0
    for m in [*_PARA.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[pos:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            s = pos + lead
            e = pos + len(piece.rstrip())
            blocks.append(Block("paragraph", s, e, index=len(blocks)))
        if m:
            pos = m.end()
    return blocks


def structure(doc: Document) -> Structure:
    """The structure of ``doc``, computed once per document version."""
    return doc.memo("structure", lambda: Structure(doc))
