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
parsed again. ``tests/structure/test_structure.py`` checks the equality on the corpus
and on generated documents.

A document made by :meth:`Document.with_edit` from a version whose structure
is known gets its segments by updating that version's (:func:`_resegment`):
only the anchors and segments around the edit are looked at again, the
others are the same segment objects at shifted offsets. And :class:`Block`
objects are made lazily, per segment, for the blocks a lookup returns;
``Structure.blocks`` makes them all. Segment parses carry a serial number
(the same number, the same text and parse), which the chunker and the
validator use to key their own per-section and per-cut caches.
``tests/chunkers/test_incremental.py`` checks all of it against fresh computations.
"""

from __future__ import annotations

import itertools
import re
import weakref
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from threading import local
from typing import Callable, Iterable

from chunkseam.core.cache import ByteLRU, text_key
from chunkseam.document.text import Document
from chunkseam.structure.mdx import MdxBackend
from chunkseam.structure.registry import backend_for, register
from chunkseam.structure.rst import RstBackend
from chunkseam.structure.sentences import segment

LEAF_KINDS = frozenset(
    {"heading", "paragraph", "fence", "code", "table", "html_block", "front_matter", "hr", "esm", "explicit"}
)
CONTAINER_KINDS = frozenset({"bullet_list", "ordered_list", "list_item", "blockquote", "jsx", "directive"})
#: reStructuredText blocks (see :mod:`chunkseam.structure.rst`): ``explicit`` markup is an atomic leaf, a
#: ``directive`` with a body of prose a container
#: MDX blocks (see :mod:`chunkseam.structure.mdx`): ``esm`` is a leaf, ``jsx`` a container
MDX_KINDS = frozenset({"esm", "jsx"})
#: blocks a chunker keeps whole and a cut must not fall inside
ATOMIC_KINDS = frozenset({"fence", "code", "table", "front_matter", "html_block", "esm", "explicit"})
#: reStructuredText directives that set something for what follows and show
#: nothing where they stand (a label, the highlighting language, the module)
ANCHOR_DIRECTIVES = frozenset({
    "highlight", "currentmodule", "module", "py:currentmodule", "py:module", "meta", "index",
    "default-role", "default-domain", "sectionauthor", "codeauthor", "role", "tabularcolumns",
    "replace", "unicode", "date",
})
#: HTML of empty anchors and one-line comments only (``<a name="x"></a>``,
#: ``<span id="x"></span>``, ``<!-- prettier-ignore -->``; a license header is no label)
_HTML_ANCHOR = re.compile(
    r"(?:\s*(?:<(a|span|div)\s+(?:name|id)\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+)\s*/?>\s*(?:</\1>)?"
    r"|<!--(?:(?!-->)[^\r\n])*-->))+\s*",
    re.I,
)


def lead_in_end(text: str, start: int, end: int) -> int | None:
    """Where the text of ``text[start:end]`` ends when it ends with a colon —
    a lead-in to what follows ("…like so:", reStructuredText's "For
    example::"), not a ":::" admonition fence or a colon alone at a line's
    start — else None. Reads only the tail (a paragraph may be long)."""
    e = end
    while e > start and text[e - 1].isspace():
        e -= 1
    k = e
    while k > start and text[k - 1] == ":":
        k -= 1
    if not 1 <= e - k <= 2 or (k > start and text[k - 1] == "\n"):
        return None
    return e


def is_anchor(kind: str, info: str, text: str) -> bool:
    """Whether a top-level block (``text`` is its own text) only labels or
    sets up what follows and says nothing itself: a reStructuredText target
    (``.. _label:``) or one-line comment, a directive of :data:`ANCHOR_DIRECTIVES`
    (``.. highlight:: rst``), HTML of empty anchors and one-line comments. Such a block
    belongs with the block after it: it is no section body, and a chunk never
    ends with it."""
    if kind == "explicit":
        if info == "target":
            return True
        if info == "comment":  # (a footnote or citation says something; a long comment is a preamble)
            return not text.lstrip().startswith(".. [") and "\n" not in text.strip() and "\r" not in text.strip()
        return info in ANCHOR_DIRECTIVES
    if kind in ("html_block", "paragraph"):  # (``<a name="x"></a>`` alone is a paragraph to CommonMark)
        return text[:1] == "<" and _HTML_ANCHOR.fullmatch(text) is not None
    return False


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

_parsers = local()


def _parser(mdx: bool = False):
    """This thread's markdown-it parser (with the MDX rules when ``mdx``). A MarkdownIt instance is not safe to
    share between threads (its rule chains are compiled lazily on first use),
    and one lock for all would make a tiny document wait behind the parse of
    a large one in another worker; so each thread builds its own, once."""
    attr = "mdx" if mdx else "md"
    md = getattr(_parsers, attr, None)
    if md is None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.front_matter import front_matter_plugin

        md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
        if mdx:
            from chunkseam.structure.mdx import mdx_plugin

            md.use(mdx_plugin)
        md.block.ruler.getRules("")  # compile the rule chains now, in this thread
        md.core.ruler.getRules("")
        setattr(_parsers, attr, md)
    return md


def _block_tokens(text: str, mdx: bool = False):
    from markdown_it.rules_core import StateCore, block, normalize

    state = StateCore(text, _parser(mdx), {})
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


_CLOSING_HASHES = re.compile(r"\s+#+\s*$")
_ATTRIBUTES = re.compile(r"\s*\{[#.][^}]*\}\s*$")


def _plain_title(content: str) -> str:
    """Heading text without inline markup (links keep their text)."""
    if not content:
        return ""
    out = _INLINE_MARKUP.sub(lambda m: m.group(1) or m.group(2) or "", content)
    if "#" in out:
        out = _CLOSING_HASHES.sub("", out)  # closing hashes of an ATX heading
    if "{" in out:
        out = _ATTRIBUTES.sub("", out)  # attribute lists {#id}
    return " ".join(out.split())


#: block kinds by opening token type (one string object per kind, not one per block)
_KIND_OF = {f"{k}_open": k for k in ("heading", "paragraph", "table", "bullet_list",
                                      "ordered_list", "list_item", "blockquote", "tr")}


#: a line of HTML tags only (text may sit between them: ``<summary>More</summary>``)
_TAG_LINE = re.compile(r"[ \t]{0,3}<[A-Za-z/][^\r\n]*>[ \t]*")
#: a line that opens a fence, a table row, a heading or a list item
_MD_LINE = re.compile(r"[ \t]{0,3}(?:`{3,}|~{3,}|\||#{1,6}(?:[ \t]|$)|[-+*][ \t]|\d{1,9}[.)][ \t])")
#: raw-text elements (CommonMark HTML block type 1): their content is not Markdown
_RAW_TAG = re.compile(r"[ \t]*<(?:script|pre|style|textarea)(?:[\s>]|$)", re.I)


def _wrapper_lines(text: str) -> list[tuple[int, int, int]]:
    """Lines of HTML tags directly followed by a fence, a table, a heading or a
    list (``<CodeGroup>`` then a code fence, ``<div align="center">`` then a
    table): CommonMark would swallow the Markdown into an HTML block that ends
    at the next blank line (MDX, and most writers, mean Markdown there). Each
    is parsed as an HTML block of its own, the Markdown after it as Markdown.
    ``(start, end, line)`` of each such line."""
    if "<" not in text:
        return []
    out = []
    starts = _line_starts(text)
    n = len(starts)
    for k in range(n - 1):
        a = starts[k]
        if a >= len(text) or text[a] not in " \t<":
            continue
        b = starts[k + 1]
        e = b
        while e > a and text[e - 1] in "\r\n":
            e -= 1
        if not _TAG_LINE.fullmatch(text, a, e) or _RAW_TAG.match(text, a, e):
            continue
        if _MD_LINE.match(text, b):
            out.append((a, e, k))
    return out


def _parse_segment(text: str, mdx: bool = False) -> tuple[tuple, ...]:
    """Blocks of one segment as tuples with offsets relative to ``text``
    (``mdx``: JSX elements are parsed by :mod:`chunkseam.structure.mdx`, with their
    Markdown children, so no wrapper lines are blanked). A leading BOM (kept as
    the document's first character) is read as a space: the same offsets, and
    ``# Title`` after it is still a heading."""
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    wrappers = [] if mdx else _wrapper_lines(text)
    original = text
    if wrappers:
        # same length, same line breaks: the wrapper lines read as blank lines
        parts, last = [], 0
        for a, e, _k in wrappers:
            parts += [text[last:a], " " * (e - a)]
            last = e
        parts.append(text[last:])
        text = "".join(parts)
    tokens = _block_tokens(text, mdx)
    lines = _Lines(text)
    out: list[list] = []
    stack: list[int] = []  # indices into out of open containers
    consumed: dict[int, int] = {}  # line -> offset already taken by container markers
    table: list | None = None
    quotes = 0  # block quotes in the stack

    def opening(kind: str, line: int) -> int:
        pos = consumed.get(line)
        if pos is None:
            pos = lines.start(line)
            # markers of enclosing block quotes repeat on every line
            for anc in (stack if quotes else ()):
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
        if last == first:  # one line (a heading, most paragraphs): nothing to trim
            return last
        quoted = quotes > 0
        while last > first and (lines.blank(last) or (quoted and _quote_blank(lines, last))):
            last -= 1
        return last

    for tok in tokens:
        ttype = tok.type
        if tok.nesting == 1 and tok.map is not None and ttype.endswith("_open"):
            kind = _KIND_OF.get(ttype) or ttype[:-5]
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
            elif kind == "jsx":
                rec[7] = tok.info
                rec[10] = tok.meta["closed"]
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
                if kind == "blockquote":
                    quotes += 1
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
                if rec[0] == "blockquote":
                    quotes -= 1
                elif rec[0] == "table":
                    table = None
                    rec[8] = [(s, e) for _, s, e in rec[8]]
        elif tok.nesting == 0 and tok.map is not None and tok.type != "inline":
            kind = {"code_block": "code", "mdx_esm": "esm"}.get(ttype, ttype)
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
            elif kind == "esm":
                rec[10] = tok.meta["closed"]
                rec[7] = tok.info or ""  # "expression": an MDX {…} block
            out.append(rec)
        elif ttype == "inline" and stack and out[stack[-1]][0] == "heading":
            out[stack[-1]][4] = _plain_title(tok.content)
    if wrappers:
        out = _with_wrappers(out, wrappers, original)
    for rec in out:
        if rec[0] == "heading" and rec[4] is None:
            rec[4] = ""
        if not rec[8]:
            rec[8] = ()  # (an empty list per record adds up over a large document)
    return tuple(tuple(r) for r in out)


def _quote_blank(lines: _Lines, line: int) -> bool:
    """A line of block-quote markers only (``>``): a blank line of the quote."""
    t = lines.text[lines.start(line) : lines.end(line)]
    return ">" in t and not t.replace(">", "").strip()


def _with_wrappers(out: list, wrappers: list, text: str) -> list:
    """``out`` with an ``html_block`` record for each wrapper line that is not
    inside code or raw HTML, in document order (parents remapped)."""
    extra = []
    for a, e, k in wrappers:
        if any(r[0] in ("fence", "code", "html_block", "front_matter") and r[1] <= a < r[2] for r in out):
            continue  # code (or raw HTML) that happens to hold a tag line
        parent = None
        for i, r in enumerate(out):
            if r[0] in CONTAINER_KINDS and r[1] <= a <= r[2]:
                parent = i  # pre-order: the last match is the innermost
        start = a
        while start < e and text[start] in _WS:
            start += 1
        depth = out[parent][6] + 1 if parent is not None else 0
        extra.append(["html_block", start, e, 0, None, parent, depth, "", [], 0, True, k, k])
    if not extra:
        return out
    merged: list = []
    remap: dict[int, int] = {}
    i = j = 0
    while i < len(out) or j < len(extra):
        if j < len(extra) and (i >= len(out) or extra[j][1] < out[i][1]):
            merged.append(("x", extra[j]))
            j += 1
        else:
            remap[i] = len(merged)
            merged.append(("o", out[i]))
            i += 1
    result = []
    for _src, rec in merged:
        if rec[5] is not None:
            rec[5] = remap[rec[5]]
        result.append(rec)
    return result


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
#: what follows the ``#`` run of an ATX heading line (or the end of the text)
_HEADING_MARKS = re.compile(r"#{1,6}(?:[ \t\r\n]|\Z)")


def _skip_to(text: str) -> int:
    """End of the front matter (0 when there is none): no anchor before it.

    The rule is the front-matter plugin's, line for line: a first line that
    starts with a run of at least three ``-`` (``----`` and ``---yaml`` too)
    opens it; a later line of at least as many ``-`` (indented less than four
    columns, then only spaces) or a ``...`` line at column 0 closes it. An
    opener never closed is no front matter for the parser, but no anchor is
    trusted after it either (the whole text is one segment: always right)."""
    if not text.startswith("---"):
        return 0
    first = _EOL.search(text)
    if first is None:
        return len(text)
    head = text[: first.start()]
    marks = len(head) - len(head.lstrip("-"))
    pos = first.end()
    n = len(text)
    while pos < n:
        eol = _EOL.search(text, pos)
        line_end, nxt = (eol.start(), eol.end()) if eol else (n, n)
        line = text[pos:line_end]
        if line.startswith("...") and not line[3:].strip(" \t"):
            return nxt
        body = line.lstrip(" \t")
        if body.startswith("-") and len(line[: len(line) - len(body)].expandtabs(4)) < 4:
            run = len(body) - len(body.lstrip("-"))
            if run >= marks and not body[run:].strip(" \t"):
                return nxt
        pos = nxt
    return len(text)


def _anchor_offsets(text: str) -> list[int]:
    """Offsets of candidate segment starts (after 0): every ``#`` at a line
    start that opens an ATX heading line and follows a blank line — the
    matches of :data:`_ANCHOR`, found by scanning for line breaks followed by
    ``#`` (much faster than running the regular expression at every offset)."""
    return _anchors_in(text, 0, len(text) + 1, _skip_to(text))


def _anchors_in(text: str, lo: int, hi: int, skip_to: int) -> list[int]:
    """The anchors ``p`` with ``lo <= p < hi`` (and ``p > skip_to``)."""
    out: list[int] = []
    first = max(lo - 1, skip_to, 0)
    for brk in ("\n#", "\r#") if "\r" in text else ("\n#",):
        found: list[int] = []
        i = text.find(brk, first)
        while 0 <= i < hi - 1:
            p = i + 1  # the "#"
            if p > skip_to and _HEADING_MARKS.match(text, p) and _after_blank_line(text, i, skip_to):
                found.append(p)
            i = text.find(brk, p)
        out = found if not out else sorted(out + found)
    return out


def _after_blank_line(text: str, brk: int, skip_to: int) -> bool:
    """Whether the line break at ``brk`` (its last character, ``\\n`` or a
    lone ``\\r``) ends a blank line (spaces and tabs only) that is preceded by
    the start of the text or a line break at or after ``skip_to``."""
    j = brk
    if text[j] == "\n" and j > 0 and text[j - 1] == "\r":
        j -= 1
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    return j == 0 or (j - 1 >= skip_to and text[j - 1] in "\r\n")


_SERIALS = itertools.count()


class _Seg:
    """The parse of one segment's text (offsets relative to it) and the
    indexes lookups need; cached by the text, so shared by every version (and
    document) in which the segment's text recurs."""

    __slots__ = ("recs", "serial", "n", "nlines", "open_end", "_index", "_children", "_groups",
                 "last", "anchors", "memo")

    def __init__(self, recs: tuple, text: str, nlines: int | None = None) -> None:
        self.recs = recs
        #: unique for the life of the process: equal serials, same text and parse
        self.serial = next(_SERIALS)
        self.n = len(recs)
        #: line breaks in the text (\r\n counts once; segments never split one)
        self.nlines = (text.count("\n") + text.count("\r") - text.count("\r\n")
                       if nlines is None else nlines)
        #: ends inside a top-level fence or HTML block (which would swallow
        #: the anchor heading that starts the next segment)
        self.open_end = any(r[6] == 0 and r[0] in ("fence", "html_block", "jsx", "esm") and not r[10]
                            for r in recs)
        self._index: tuple | None = None
        self._children: dict[int, list[int]] | None = None
        self._groups: list[tuple[int, int, int, bool, bool, int, int]] | None = None
        #: indexes of the top-level records that only label what follows (see :func:`is_anchor`)
        self.anchors = frozenset(i for i, r in enumerate(recs)
                                 if r[6] == 0 and r[0] in ("explicit", "html_block", "paragraph")
                                 and is_anchor(r[0], r[7], text[r[1]:r[2]]))
        #: the Block objects made at the last position this segment was
        #: materialised at: ((start, line base, index base), slots)
        self.last: tuple[tuple[int, int, int], list] | None = None
        #: what checks derive from the text of a block of this segment alone,
        #: by their own keys holding offsets relative to the segment (see
        #: :meth:`Structure.segment_memo`); made on first use
        self.memo: dict | None = None

    # -- indexes for lookups, made on first use (a structure that is only
    # ever asked for all its blocks needs none of them)
    def _indexes(self) -> tuple:
        index = self._index
        if index is None:
            recs = self.recs
            leaf_idx = tuple(i for i, r in enumerate(recs) if r[0] in LEAF_KINDS)
            # (tuples of atoms: the garbage collector stops tracking them)
            index = self._index = (
                tuple(r[1] for r in recs),
                leaf_idx,
                tuple(recs[i][1] for i in leaf_idx),
                tuple(i for i, r in enumerate(recs) if r[6] == 0),
                tuple((i, r[1], r[3], r[4]) for i, r in enumerate(recs)
                      if r[0] == "heading" and r[6] == 0),
                tuple(r[1] for r in recs if r[0] == "heading"),
            )
        return index

    @property
    def starts(self) -> tuple[int, ...]:
        """Start of each record."""
        return self._indexes()[0]

    @property
    def leaf_idx(self) -> tuple[int, ...]:
        """Indexes of the leaf records."""
        return self._indexes()[1]

    @property
    def leaf_starts(self) -> tuple[int, ...]:
        return self._indexes()[2]

    @property
    def top(self) -> tuple[int, ...]:
        """Indexes of the top-level records."""
        return self._indexes()[3]

    @property
    def heads(self) -> tuple[tuple[int, int, int, str], ...]:
        """Top-level headings: (index, start, level, title)."""
        return self._indexes()[4]

    def children(self) -> dict[int, list[int]]:
        kids = self._children
        if kids is None:
            kids = {}
            for i, r in enumerate(self.recs):
                if r[5] is not None:
                    kids.setdefault(r[5], []).append(i)
            self._children = kids
        return kids

    def groups(self) -> list[tuple[int, int, int, bool, bool, int, int]]:
        """The top-level blocks grouped by heading as if a section started
        here (see :meth:`Structure.sections`): ``(first, last, heading,
        has_body, starts_with_heading, labels, before_labels)`` with record
        indices and the start of the group's last heading (-1 when none);
        ``labels`` is the first of the labels (:func:`is_anchor`) that end a
        group with a body, ``before_labels`` the top-level record before them
        (both -1 when none): a heading in the next segment takes them along."""
        groups = self._groups
        if groups is None:
            groups = []
            cur: list | None = None
            recs = self.recs
            anchors = self.anchors
            run: tuple[int, int] | None = None  # (first, before it) of trailing labels in a section with a body
            prev = -1
            for i in self.top:
                r = recs[i]
                if r[0] == "heading":
                    if cur is not None and cur[3]:
                        if run is not None:  # the labels before the heading go with it
                            cur[1] = run[1]
                            groups.append(tuple(cur))
                            cur = [run[0], i, r[1], False, True, -1, -1]
                        else:
                            groups.append(tuple(cur))
                            cur = None
                    if cur is None:
                        cur = [i, i, r[1], False, True, -1, -1]
                    else:
                        cur[1] = i
                        cur[2] = r[1]
                    cur[3] = False
                    run = None
                elif i in anchors or r[0] == "front_matter":
                    # (a label, or the page's front matter: it belongs with what
                    # follows, no body; a chunk of only "sidebar_position: 2" is
                    # nothing to retrieve)
                    if cur is None:
                        cur = [i, i, -1, False, False, -1, -1]
                    elif cur[3] and run is None:
                        run = (i, prev)
                    cur[1] = i
                else:
                    if cur is None:
                        cur = [i, i, -1, True, False, -1, -1]
                    cur[1] = i
                    cur[3] = True
                    run = None
                prev = i
            if cur is not None:
                if run is not None:
                    cur[5], cur[6] = run
                groups.append(tuple(cur))
            self._groups = groups
        return groups


#: estimated bytes of the segment parses kept (see :mod:`chunkseam.core.cache`)
SEGMENT_CACHE_BYTES = 40 * 1024 * 1024
#: estimated bytes per parsed block of a segment: its record, the Block made
#: from it and the lookup indexes (measured on corpus documents, rounded up)
_BYTES_PER_BLOCK = 700


class _SegmentCache:
    """Segment parses by text (keyed by a digest of it, so no text is kept),
    least recently used dropped first, bounded by estimated bytes. An edited
    document does not need it for its unchanged segments (its structure is
    updated from the previous version's, see :func:`_resegment`); it serves
    the segments an edit touches (an undo finds them again), documents that
    share text, and the attempts of a merge."""

    def __init__(self, max_bytes: int = SEGMENT_CACHE_BYTES) -> None:
        self.lru = ByteLRU("segments", max_bytes)

    def get(self, text: str, mdx: bool = False) -> _Seg:
        key = (text_key(text), True) if mdx else text_key(text)
        hit = self.lru.get(key)
        if hit is not None:
            return hit
        value = _Seg(_parse_segment(text, True) if mdx else _parse_segment(text), text)
        return self.lru.put(key, value, 200 + _BYTES_PER_BLOCK * value.n + len(text) // 8)

    def forget(self, text: str) -> int:
        """Drop the parses of ``text`` (as Markdown and as MDX); how many there were."""
        key = text_key(text)
        return self.lru.forget(key) + self.lru.forget((key, True))

    def clear(self) -> None:
        self.lru.clear()


_SEGMENTS = _SegmentCache()


class _Segmentation:
    """The segments of one text: their starts and parses, and the anchors
    and front-matter end they were cut by (kept to update them after an edit)."""

    __slots__ = ("starts", "segs", "anchors", "skip_to", "updated", "mdx")

    def __init__(self, starts: list[int], segs: list[_Seg], anchors: list[int],
                 skip_to: int, updated: bool = False, mdx: bool = False) -> None:
        self.mdx = mdx
        self.starts = starts
        self.segs = segs
        self.anchors = anchors
        self.skip_to = skip_to
        #: made by updating an older version's (see :func:`_resegment`)
        self.updated = updated


def _segments(text: str, mdx: bool = False) -> tuple[list[int], list[_Seg]]:
    """The segments of ``text``: their start offsets and parses."""
    seg = _segment_all(text, mdx)
    return seg.starts, seg.segs


def _segment_all(text: str, mdx: bool = False) -> _Segmentation:
    skip_to = _skip_to(text)
    anchors = _anchors_in(text, 0, len(text) + 1, skip_to)
    starts: list[int] = []
    segs: list[_Seg] = []
    _segment_run(text, [0, *anchors, len(text)], 0, starts, segs, mdx=mdx)
    return _Segmentation(starts, segs, anchors, skip_to, mdx=mdx)


def _segment_run(text: str, bounds: list[int], i: int, starts: list[int], segs: list[_Seg],
                 sync: Callable[[int], tuple[list[int], list[_Seg]] | None] | None = None,
                 mdx: bool = False) -> None:
    """Cut ``text`` into segments from ``bounds[i]`` on, appending to
    ``starts``/``segs``; ``sync(start)`` may hand over the rest (the
    segments of an older version that are known to follow from there)."""
    last = len(bounds) - 1
    while i < last:
        seg_start = bounds[i]
        if sync is not None:
            rest = sync(seg_start)
            if rest is not None:
                starts.extend(rest[0])
                segs.extend(rest[1])
                return
        j = i + 1
        step = 1
        while True:
            seg_text = text[seg_start : bounds[j]]
            seg = _SEGMENTS.get(seg_text, mdx)
            if j < last and seg.open_end:
                # merge with the following segments; growing the step
                # geometrically keeps an early unclosed fence from making the
                # parse quadratic in the number of segments. The open attempt
                # stays cached: the next version meets it again (unless the
                # edit is in it) and needs no parse to know it must merge
                j = min(j + step, last)
                step *= 2
                continue
            break
        starts.append(seg_start)
        segs.append(seg)
        i = j


_NOT_BLANK = re.compile(r"[^ \t\r\n]")


def _resegment(text: str, old: _Segmentation, a: int, b: int,
               inserted: int) -> _Segmentation | None:
    """The segmentation of ``text``, which is the text ``old`` was made from
    with ``[a, b)`` replaced by ``inserted`` characters, reusing ``old``
    (None when the edit touches the front matter's extent: start afresh).

    Equal to :func:`_segment_all` (tests/chunkers/test_incremental.py checks it):

    * an anchor's status depends on its blank line, the line break before it
      and at most 7 characters after the ``#``. Segment starts ``r`` with
      ``r + 8 <= a``, and every anchor up to them, are unchanged; anchors
      after the first character at or after the edit that is not a space,
      tab or line break cannot look back into the edit: they are the old
      ones, shifted. Only the anchors between are searched for.
    * segments are cut greedily from a segment start using the text and
      anchors from there on: the old segments before ``r`` stay, and from
      the first new segment start past that point that was also an old one,
      the old segments follow, shifted.
    """
    skip_to = _skip_to(text)
    if skip_to != old.skip_to:
        return None
    delta = inserted - (b - a)
    S = old.starts
    i_r = max(bisect_right(S, a - 8) - 1, 0)
    r = S[i_r]
    m = _NOT_BLANK.search(text, a + inserted)
    resume = m.start() + 1 if m else len(text) + 1
    oa = old.anchors
    anchors = oa[: bisect_right(oa, r)]
    anchors.extend(_anchors_in(text, r + 1, resume, skip_to))
    k = bisect_left(oa, resume - delta)
    anchors.extend([p + delta for p in oa[k:]] if delta else oa[k:])
    bounds = [0, *anchors, len(text)]
    starts = S[:i_r]
    segs = old.segs[:i_r]

    def sync(start: int) -> tuple[list[int], list[_Seg]] | None:
        if start < resume:
            return None
        q = start - delta
        k = bisect_left(S, q)
        if k < len(S) and S[k] == q:
            return ([x + delta for x in S[k:]] if delta else S[k:], old.segs[k:])
        return None

    _segment_run(text, bounds, bisect_left(bounds, r), starts, segs, sync, mdx=old.mdx)
    return _Segmentation(starts, segs, anchors, skip_to, updated=True, mdx=old.mdx)


def _make_block(rec: tuple, seg_start: int, line_base: int, index_base: int, i: int) -> Block:
    (kind, s, e, level, title, parent, depth, info, rows, hend, closed, first, last) = rec
    return Block(
        kind,
        s + seg_start,
        e + seg_start,
        level,
        title,
        None if parent is None else parent + index_base,
        depth,
        info,
        # no rows: a shared empty tuple (an empty list per block adds up)
        [(a + seg_start, b + seg_start) for a, b in rows] if rows else (),
        hend + seg_start if hend else 0,
        index_base + i,
        closed,
        first + line_base,
        last + line_base,
    )


def parse_blocks(text: str, mdx: bool = False) -> list[Block]:
    """All blocks of ``text`` in document order (pre-order), offsets absolute
    (``mdx``: with the MDX rules of :mod:`chunkseam.structure.mdx`)."""
    starts, segs = _segments(text, mdx)
    blocks: list[Block] = []
    line_base = 0
    for seg_start, seg in zip(starts, segs):
        base = len(blocks)
        for i, rec in enumerate(seg.recs):
            blocks.append(_make_block(rec, seg_start, line_base, base, i))
        line_base += seg.nlines
    return blocks


# -- the structure object ------------------------------------------------------------


class Structure:
    """Blocks of one document version plus lookups used by chunkers and checks.

    :class:`Block` objects are made lazily, segment by segment, when a lookup
    or ``blocks`` asks for them: a lookup costs the blocks it returns (and
    their ancestors), not the whole document. A segment whose text, offset,
    first line and first block index are those of the last version that made
    its blocks reuses that version's objects (everything before an edit).
    Blocks are shared: treat them as read-only.
    """

    def __init__(self, doc: Document) -> None:
        # a weak reference: the document memoises its structure, and a cycle
        # would keep every old version alive until a full garbage collection
        self._doc = weakref.ref(doc)
        self.text = doc.text
        self._segmentation: _Segmentation | None = None
        backend = backend_for(doc)
        mdx = backend.segmented == "mdx"
        if backend.segmented is None:
            # parsed whole (reStructuredText, plain text, …): one segment
            recs, text = backend.records(doc)
            self._seg_starts, self._segs = [0], [_Seg(recs, text)]
        else:
            seg = None
            for ancestor, a, b, inserted in doc.lineage():
                prev = ancestor.memoised("structure")
                if (isinstance(prev, Structure) and prev._segmentation is not None
                        and prev._segmentation.mdx == mdx):
                    # an edit of a version whose structure is known: update it
                    seg = _resegment(doc.text, prev._segmentation, a, b, inserted)
                    break
            if seg is None:
                seg = _segment_all(doc.text, mdx)
            self._segmentation = seg
            self._seg_starts, self._segs = seg.starts, seg.segs
        n = len(self._segs)
        self._line_bases = [0] * n
        self._index_bases = [0] * n
        lb = ib = 0
        for k, seg in enumerate(self._segs):
            self._line_bases[k] = lb
            self._index_bases[k] = ib
            lb += seg.nlines
            ib += seg.n
        self._count = ib
        self._serials = [seg.serial for seg in self._segs]
        self._mat: list[list | None] = [None] * n
        self._blocks: list[Block] | None = None
        self._leaves: list[Block] | None = None
        self._headings: list[Block] | None = None
        self._heading_starts: list[int] | None = None
        self._paths: list[tuple[str, ...]] = []
        self._sections: list[tuple[int, int, int, int, int, int, int]] | None = None

    @property
    def doc(self) -> Document | None:
        """The document (None once it is gone)."""
        return self._doc()

    # -- materialisation
    def _slots(self, k: int) -> list:
        m = self._mat[k]
        if m is None:
            seg = self._segs[k]
            key = (self._seg_starts[k], self._line_bases[k], self._index_bases[k])
            last = seg.last
            if last is not None and last[0] == key:
                m = last[1]
            else:
                m = [None] * seg.n
                seg.last = (key, m)
            self._mat[k] = m
        return m

    def _block(self, k: int, i: int) -> Block:
        m = self._slots(k)
        b = m[i]
        if b is None:
            b = m[i] = _make_block(self._segs[k].recs[i], self._seg_starts[k],
                                   self._line_bases[k], self._index_bases[k], i)
        return b

    def _segment_blocks(self, k: int) -> list[Block]:
        m = self._slots(k)
        recs = self._segs[k].recs
        for i, b in enumerate(m):
            if b is None:
                m[i] = _make_block(recs[i], self._seg_starts[k], self._line_bases[k],
                                   self._index_bases[k], i)
        return m

    def segment_memo(self, start: int, end: int) -> tuple[dict, int] | None:
        """A dictionary kept with the segment holding ``[start, end)`` (None:
        the span is not inside one) and ``start`` relative to the segment: a
        segment is shared by every version and document in which its text
        recurs, so what is kept there by relative offsets (an index of a
        block's text) is found again after an edit elsewhere moved it,
        without hashing the text. Worker threads may fill it at once: an
        entry is computed from the text alone, so two that race are equal."""
        k = bisect_right(self._seg_starts, start) - 1
        if k < 0:
            return None
        base = self._seg_starts[k]
        if k + 1 < len(self._seg_starts) and end > self._seg_starts[k + 1]:
            return None
        seg = self._segs[k]
        memo = seg.memo
        if memo is None:
            memo = seg.memo = {}
        return memo, start - base

    def _seg_of(self, offset: int) -> int:
        """The segment holding ``offset`` (-1 before the text)."""
        return bisect_right(self._seg_starts, offset) - 1

    def block(self, index: int) -> Block:
        """The block at position ``index`` of :attr:`blocks` (made alone)."""
        if not 0 <= index < self._count:
            raise IndexError(index)
        k = bisect_right(self._index_bases, index) - 1
        return self._block(k, index - self._index_bases[k])

    def __len__(self) -> int:
        return self._count

    # -- whole lists (made on first use)
    @property
    def blocks(self) -> list[Block]:
        """Every block in document order (pre-order); ``blocks[b.index] is b``."""
        blocks = self._blocks
        if blocks is None:
            blocks = []
            for k in range(len(self._segs)):
                blocks.extend(self._segment_blocks(k))
            self._blocks = blocks
        return blocks

    @property
    def leaves(self) -> list[Block]:
        leaves = self._leaves
        if leaves is None:
            leaves = self._leaves = [b for b in self.blocks if b.is_leaf]
        return leaves

    @property
    def headings(self) -> list[Block]:
        """Top-level headings in document order."""
        hs = self._headings
        if hs is None:
            hs = self._headings = [self._block(k, h[0]) for k, seg in enumerate(self._segs)
                                   for h in seg.heads]
        return hs

    @property
    def has_headings(self) -> bool:
        """``bool(self.headings)``, without making the heading blocks."""
        hs = self._headings
        if hs is not None:
            return bool(hs)
        return any(seg.heads for seg in self._segs)

    def top_level(self) -> list[Block]:
        return [self._block(k, i) for k, seg in enumerate(self._segs) for i in seg.top]

    def sections(self) -> list[tuple[int, int, int, int, int, int, int]]:
        """Top-level blocks grouped by heading: a top-level heading starts a
        new section unless the section so far has no body (a heading directly
        followed by a heading joins the next section). Each as ``(start, end,
        heading, k0, i0, k1, i1)``: its first block's start, its last block's
        end, the start of its last heading (-1 when none) and where its first
        and last blocks are (for :meth:`section_blocks`). Makes no Block."""
        secs = self._sections
        if secs is not None:
            return secs
        raw: list[list[int]] = []
        # [k0, i0, k1, i1, heading, has_body, labels, before_labels] (the labels that end it: in segment k1)
        cur: list | None = None
        for k, seg in enumerate(self._segs):
            base = self._seg_starts[k]
            for gi, (first, last, head, body, head_first, labels, before) in enumerate(seg.groups()):
                h = head + base if head >= 0 else -1
                if gi == 0 and cur is not None and (not head_first or not cur[5]):
                    cur[2], cur[3] = k, last  # continues the section before
                    if h >= 0:
                        cur[4] = h
                    cur[5] = cur[5] or body
                    cur[6], cur[7] = labels, before
                    continue
                if cur is not None:
                    if gi == 0 and cur[6] >= 0:  # its closing labels go with this heading
                        kl = cur[2]
                        cur[3] = cur[7]
                        raw.append(cur)
                        cur = [kl, cur[6], k, last, h, body, labels, before]
                        continue
                    raw.append(cur)
                cur = [k, first, k, last, h, body, labels, before]
        if cur is not None:
            raw.append(cur)
        starts = self._seg_starts
        segs = self._segs
        secs = [(segs[k0].recs[i0][1] + starts[k0], segs[k1].recs[i1][2] + starts[k1], h,
                 k0, i0, k1, i1) for k0, i0, k1, i1, h, _body, _labels, _before in raw]
        self._sections = secs
        return secs

    def section_blocks(self, section: tuple) -> list[Block]:
        """The top-level blocks of a section from :meth:`sections`."""
        _s, _e, _h, k0, i0, k1, i1 = section
        out: list[Block] = []
        for k in range(k0, k1 + 1):
            for i in self._segs[k].top:
                if (k == k0 and i < i0) or (k == k1 and i > i1):
                    continue
                out.append(self._block(k, i))
        return out

    def text_key(self, start: int, end: int) -> tuple:
        """A key for ``text[start:end]`` and the parse around it: the serial
        numbers of the segments the span lies in (a segment's parse is made
        once per text and numbered for good, so the same numbers mean the same
        text and blocks) and its offsets in them. Equal keys, equal texts."""
        k0 = max(self._seg_of(start), 0)
        k1 = max(self._seg_of(max(end - 1, start)), k0)
        return (tuple(self._serials[k0 : k1 + 1]), start - self._seg_starts[k0],
                end - self._seg_starts[k1])

    # -- lookups
    def leaf_at(self, offset: int) -> Block | None:
        """The leaf block containing ``offset`` (start inclusive, end exclusive)."""
        k = self._seg_of(offset)
        if k < 0:
            return None
        seg = self._segs[k]
        rel = offset - self._seg_starts[k]
        j = bisect_right(seg.leaf_starts, rel) - 1
        if j < 0:
            return None
        i = seg.leaf_idx[j]
        r = seg.recs[i]
        if r[1] <= rel < r[2]:
            return self._block(k, i)
        return None

    def containing(self, offset: int) -> list[Block]:
        """Every block whose span contains ``offset``, outermost first."""
        k = self._seg_of(offset)
        if k < 0:
            return []
        seg = self._segs[k]
        rel = offset - self._seg_starts[k]
        i: int | None = bisect_right(seg.starts, rel) - 1
        found: list[Block] = []
        recs = seg.recs
        while i is not None and i >= 0:
            r = recs[i]
            if r[1] <= rel < r[2]:
                found.append(self._block(k, i))
            i = r[5]
        found.reverse()
        return found

    def strictly_containing(self, offset: int) -> list[Block]:
        """Every block with ``start < offset < end``, outermost first:
        ``[b for b in containing(offset) if b.start < offset]`` (what a cut at
        ``offset`` breaks), with the records checked before any Block is
        made (asked once per cut)."""
        k = bisect_right(self._seg_starts, offset) - 1
        if k < 0:
            return []
        seg = self._segs[k]
        rel = offset - self._seg_starts[k]
        index = seg._index
        if index is None:
            index = seg._indexes()
        i: int | None = bisect_right(index[0], rel) - 1
        recs = seg.recs
        chain: list[int] = []
        while i is not None and i >= 0:
            r = recs[i]
            if r[1] < rel < r[2]:
                chain.append(i)
            i = r[5]
        if not chain:
            return []
        m = self._mat[k]
        if m is None:
            m = self._slots(k)
        found: list[Block] = []
        for i in reversed(chain):
            b = m[i]
            if b is None:
                b = m[i] = _make_block(recs[i], self._seg_starts[k], self._line_bases[k],
                                       self._index_bases[k], i)
            found.append(b)
        return found

    def leaves_around(self, offset: int) -> tuple[Block | None, Block | None]:
        """The last leaf that starts before ``offset`` and the leaf after it
        in document order (``(leaves[i], leaves[i + 1])``), either None when
        there is none — without making the other leaves."""
        n = len(self._segs)
        k = min(self._seg_of(offset), n - 1)
        j = -1
        while k >= 0:
            seg = self._segs[k]
            j = bisect_left(seg.leaf_starts, offset - self._seg_starts[k]) - 1
            if j >= 0:
                break
            k -= 1
        if k < 0:
            return None, None
        leaf_idx = self._segs[k].leaf_idx
        before = self._block(k, leaf_idx[j])
        if j + 1 < len(leaf_idx):
            return before, self._block(k, leaf_idx[j + 1])
        m = k + 1
        while m < n and not self._segs[m].leaf_idx:
            m += 1
        return before, (self._block(m, self._segs[m].leaf_idx[0]) if m < n else None)

    def neighbourhood(self, start: int, end: int) -> tuple[tuple, int, int]:
        """``(key, lo, hi)``: the segments from the one before the segment
        holding ``start`` to the one after the segment holding ``end``, as
        the span ``[lo, hi)`` they cover and a key that identifies their text
        and parse (their serial numbers, see :meth:`text_key`; ``None`` marks
        an edge of the document). Text outside such a span cannot change the blocks inside
        it, and every segment boundary is a line start after a blank line."""
        n = len(self._segs)
        k0 = max(self._seg_of(start) - 1, 0)
        k1 = min(max(self._seg_of(end), 0) + 2, n)
        lo = self._seg_starts[k0]
        hi = self._seg_starts[k1] if k1 < n else len(self.text)
        key = (k0 == 0, tuple(self._serials[k0:k1]), k1 == n)
        return key, lo, hi

    def parent(self, block: Block) -> Block | None:
        return self.block(block.parent) if block.parent is not None else None

    def children(self, block: Block) -> list[Block]:
        """The blocks whose parent is ``block``, in order."""
        k = bisect_right(self._index_bases, block.index) - 1
        if k < 0:
            return []
        kids = self._segs[k].children().get(block.index - self._index_bases[k])
        return [self._block(k, i) for i in kids] if kids else []

    def blocks_between(self, start: int, end: int) -> list[Block]:
        """Blocks that start in ``[start, end)``."""
        out: list[Block] = []
        k = max(0, self._seg_of(start))
        n = len(self._segs)
        while k < n and self._seg_starts[k] < end:
            seg = self._segs[k]
            base = self._seg_starts[k]
            i = bisect_left(seg.starts, start - base)
            starts = seg.starts
            while i < seg.n and starts[i] + base < end:
                out.append(self._block(k, i))
                i += 1
            k += 1
        return out

    def first_leaf_between(self, start: int, end: int) -> Block | None:
        """The first leaf (in document order) that starts in ``[start, end)``:
        ``next((b for b in blocks_between(start, end) if b.is_leaf), None)``
        without making the other blocks."""
        k = max(0, self._seg_of(start))
        n = len(self._segs)
        while k < n and self._seg_starts[k] < end:
            seg = self._segs[k]
            base = self._seg_starts[k]
            starts = seg.leaf_starts
            j = bisect_left(starts, start - base)
            if j < len(starts):
                return self._block(k, seg.leaf_idx[j]) if starts[j] + base < end else None
            k += 1
        return None

    def has_heading_between(self, start: int, end: int) -> bool:
        """Whether a heading (at any depth) starts in ``[start, end)``: what
        ``any(b.kind == "heading" for b in blocks_between(start, end))`` says,
        without making the blocks (asked for every chunk on every edit)."""
        k = max(0, self._seg_of(start))
        n = len(self._segs)
        while k < n and self._seg_starts[k] < end:
            base = self._seg_starts[k]
            heads = self._segs[k]._indexes()[5]
            i = bisect_left(heads, start - base)
            if i < len(heads) and heads[i] + base < end:
                return True
            k += 1
        return False

    def _heading_index(self) -> list[int]:
        hs = self._heading_starts
        if hs is None:
            hs = []
            paths: list[tuple[str, ...]] = []
            levels: list[int] = []  # the enclosing headings' levels and titles
            titles: list[str] = []
            for k, seg in enumerate(self._segs):
                base = self._seg_starts[k]
                for _i, s, level, title in seg.heads:
                    while levels and levels[-1] >= level:
                        levels.pop()
                        titles.pop()
                    levels.append(level)
                    titles.append(title or "")
                    hs.append(s + base)
                    paths.append(tuple(titles))
            self._paths = paths
            self._heading_starts = hs
        return hs

    def heading_path_at(self, offset: int) -> tuple[str, ...]:
        """Titles of the headings that enclose ``offset`` (a heading encloses
        itself from its first character)."""
        i = bisect_right(self._heading_index(), offset) - 1
        return self._paths[i] if i >= 0 else ()

    def heading_paths_at(self, offsets: Iterable[int]) -> list[tuple[str, ...]]:
        """``[self.heading_path_at(o) for o in offsets]``, in one go (every
        chunk's, on every edit)."""
        hs = self._heading_index()
        paths = self._paths
        out = []
        for o in offsets:
            i = bisect_right(hs, o) - 1
            out.append(paths[i] if i >= 0 else ())
        return out

    def heading_path_of(self, heading: Block) -> tuple[str, ...]:
        return self.heading_path_at(heading.start)

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


def _plain_records(text: str) -> tuple:
    """Paragraph records of a plain-text (or code) document: runs of non-blank
    lines (no line numbers: ``line``/``end_line`` stay 0)."""
    out = []
    pos = 0
    for m in [*_PARA.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[pos:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            s = pos + lead
            e = pos + len(piece.rstrip())
            out.append(("paragraph", s, e, 0, None, None, 0, "", [], 0, True, 0, 0))
        if m:
            pos = m.end()
    return tuple(out)


def _plain_blocks(text: str) -> list[Block]:
    """Paragraph blocks of a plain-text (or code) document: runs of non-blank lines."""
    return [_make_block(r, 0, 0, 0, i) for i, r in enumerate(_plain_records(text))]


def structure(doc: Document) -> Structure:
    """The structure of ``doc``, computed once per document version."""
    return doc.memo("structure", lambda: Structure(doc))


def forget(doc: Document) -> int:
    """Drop the cached segment parses of ``doc``'s text (a closed document's:
    nothing else is likely to need them). Returns how many were dropped."""
    st = doc.memoised("structure")
    if not isinstance(st, Structure) or doc.kind != "markdown":
        return 0
    starts = list(st._seg_starts)
    text = st.text
    dropped = 0
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        dropped += _SEGMENTS.forget(text[start:end])
    return dropped


# -- the built-in backends (see :mod:`chunkseam.structure.registry`) --------------


class MarkdownBackend:
    """Markdown (CommonMark + GFM): the segmented parse, updated after an edit."""

    name = "markdown"
    segmented = "markdown"

    def accepts(self, doc: Document) -> bool:
        return doc.kind == "markdown"

    def records(self, doc: Document) -> tuple[tuple, str]:
        raise NotImplementedError("a segmented backend has no whole-text records")


class PlainBackend:
    """Plain text (and code, whose own structures are read apart): paragraphs."""

    name = "plain"
    segmented = None

    def accepts(self, doc: Document) -> bool:
        return True

    def records(self, doc: Document) -> tuple[tuple, str]:
        return _plain_records(doc.text), ""


register(RstBackend())
register(MdxBackend())
register(MarkdownBackend())
register(PlainBackend(), fallback=True)
