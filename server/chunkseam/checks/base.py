"""What every check family shares: the cut, the context, text helpers.

Chunk numbers: ``Issue.chunk`` / ``Issue.other_chunk`` are 0-based positions
in the chunk list given to :func:`chunkseam.engine.validate.validate`; messages show
them 1-based (``chunk 1`` is the first chunk) because people count from one.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from chunkseam.core.cache import ByteLRU, text_key
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.structure.sentences import segment
from chunkseam.checks.registry import RULES

# -- words -----------------------------------------------------------------------------

#: scripts written without spaces between words: a cut between two of their
#: letters is not detectably mid-word (it is judged mid-sentence instead)
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3FFFF),  # CJK extensions B+
)

#: joiners that keep a word together when letters stand on both sides
#: (``don't``, ``foo.bar``, ``3.14``, ``well-known``, ``std::io``, ``a/b``)
JOINERS = frozenset("'\u2019.-:/@_+#~\u00b7")


@lru_cache(maxsize=4096)
def _char_class(ch: str) -> str:
    """'w' word char, 'm' combining/joining (never split), 'u' unspaced letter,
    's' space, 'p' anything else."""
    if ch.isspace():
        return "s"
    cp = ord(ch)
    if ch in "\u200d\u200c" or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
        return "m"
    cat = unicodedata.category(ch)
    if cat[0] == "M":
        return "m"
    for lo, hi in _UNSPACED:
        if lo <= cp <= hi:
            return "u"
    if ch == "_" or cat[0] in "LN":
        return "w"
    if 0xD800 <= cp <= 0xDFFF:  # half of a surrogate pair in a broken string
        return "m"
    return "p"


def is_word_char(ch: str) -> bool:
    """Letters, digits, underscore and combining marks (not spaceless scripts)."""
    return _char_class(ch) in ("w", "m")


#: how far a word span extends on each side of a cut
MAX_WORD = 256

_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]{1,15}://|www\.|mailto:)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def word_span(text: str, cut: int) -> tuple[int, int] | None:
    """The word, number, identifier or URL that a cut at ``cut`` splits, as
    ``(start, end)``, or None when the cut is not mid-word.

    Mid-word means: the characters on both sides are word characters; or one
    side is a combining mark / zero-width joiner (a grapheme split); or the cut
    sits at a joiner (``.``, ``'``, ``-``, ``::`` …) with word characters on
    both sides of the joined token (``foo.|bar``, ``don|'t``); or it is
    strictly inside a URL or an e-mail address.
    """
    n = len(text)
    if cut <= 0 or cut >= n:
        return None
    a, b = text[cut - 1], text[cut]
    if a in _ASCII_WORD and b in _ASCII_WORD:  # (the commonest case: class "w" on both sides)
        return _extend_word(text, cut, n)
    ca, cb = _char_class(a), _char_class(b)
    if ca == "s" or cb == "s":
        return None
    split = False
    if cb == "m" or (ca == "m" and a in "\u200d"):
        split = True  # a grapheme: base + combining mark, or a ZWJ sequence
    elif ca in "wm" and cb in "wm":
        split = True
    elif a in JOINERS or b in JOINERS:
        # joiners at the cut ("foo.|bar", "don|'t", "std:|:io"): up to three,
        # with word characters on both sides of the run
        i = cut - 1
        while i >= 0 and text[i] in JOINERS and cut - 1 - i < 3:
            i -= 1
        j = cut
        while j < n and text[j] in JOINERS and j - cut < 3:
            j += 1
        split = i >= 0 and j < n and _char_class(text[i]) in "wm" and _char_class(text[j]) in "wm"
    if not split:
        # URLs and e-mail addresses: the non-space run around the cut (at most
        # 2048 characters each way; \s is str.isspace's set)
        floor = max(0, cut - 2048)
        m = _TO_LAST_SPACE.match(text, max(floor - 1, 0), cut - 1)
        lo = max(floor, m.end()) if m is not None else floor
        hi = _NON_SPACE_RUN.match(text, cut + 1, min(n, cut + 2048)).end()
        run = text[lo:hi]
        pats = []
        if "://" in run or "www." in run or "mailto:" in run:
            pats.append(_URL)
        if "@" in run:
            pats.append(_EMAIL)
        for pat in pats:
            for m in pat.finditer(run):
                if lo + m.start() < cut < lo + m.end():
                    return (lo + m.start(), lo + m.end())
        return None
    return _extend_word(text, cut, n)


#: up to the last whitespace character (the last space before a run)
_TO_LAST_SPACE = re.compile(r".*\s", re.S)
#: a run of characters that are not whitespace
_NON_SPACE_RUN = re.compile(r"\S*")
#: ASCII letters, digits and the underscore: class "w" of :func:`_char_class`
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _extend_word(text: str, cut: int, n: int) -> tuple[int, int]:
    """The word a mid-word cut splits: extended over word characters and
    inner joiners (a "word" longer than MAX_WORD characters is shown by its
    MAX_WORD characters around the cut). An ASCII word character is known
    to be of class "w" without asking :func:`_char_class`."""
    lo = cut
    while lo > 0 and cut - lo < MAX_WORD:
        c = text[lo - 1]
        if c in _ASCII_WORD or _char_class(c) in "wm":
            lo -= 1
        elif c in JOINERS and lo - 2 >= 0 and (text[lo - 2] in _ASCII_WORD
                                              or _char_class(text[lo - 2]) in "wm"):
            lo -= 1
        else:
            break
    hi = cut
    while hi < n and hi - cut < MAX_WORD:
        c = text[hi]
        if c in _ASCII_WORD or _char_class(c) in "wm":
            hi += 1
        elif c in JOINERS and hi + 1 < n and (text[hi + 1] in _ASCII_WORD
                                             or _char_class(text[hi + 1]) in "wm"):
            hi += 1
        else:
            break
    return (lo, max(hi, cut + 1))


# -- sentences -------------------------------------------------------------------------

#: paragraphs longer than this are segmented in windows around the offsets asked
SENTENCE_WINDOW = 4000
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+")

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_QUOTE_MARKERS = re.compile(r"(?:\r\n|\r|\n)([ \t]*(?:>[ \t]?)+)")


def _flatten(text: str) -> str:
    """Same-length text with line breaks (and block-quote markers after them)
    turned into spaces, so the sentence segmenter does not take every line
    break of a paragraph for a sentence end."""
    text = _QUOTE_MARKERS.sub(lambda m: " " * len(m.group()), text)
    return _LINE_BREAK.sub(lambda m: " " * len(m.group()), text)


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` (a paragraph) as absolute offsets.

    Line breaks inside the paragraph are not sentence ends: pysbd with
    ``clean=False`` treats each line break as one, so the text is flattened
    (same length, offsets preserved) before segmenting.
    """
    flat = _flatten(text[start:end])
    return [(start + a, start + b) for a, b in segment(flat)]


# -- brackets, links and inline code ----------------------------------------------------

_PAIRS = {")": "(", "]": "[", "}": "{"}
#: inline HTML (CommonMark: open tag, closing tag, comment) and autolinks
_INLINE_HTML = re.compile(
    r"<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)*\s*/?>"
    r"|</[A-Za-z][A-Za-z0-9-]*\s*>|<!--.*?-->")
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|<[\w.+-]+@[\w-]+(?:\.[\w-]+)+>")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: what the bracket pairing reads: brackets and backslashes (escapes)
_PAIR_CHARS = re.compile(r"[\\()\[\]{}]")


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int  # exclusive: just after the closer
    # (reStructuredText: "literal", "role", "interpreted" too)
    kind: str  # "parentheses" | "brackets" | "braces" | "link" | "code" | "html"


def code_spans(text: str) -> list[tuple[int, int]]:
    """Inline code spans of a paragraph (CommonMark: a backtick run opens, the
    next run of exactly the same length closes; no closer = literal)."""
    if "`" not in text:
        return []
    out: list[tuple[int, int]] = []
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    by_len: dict[int, list[int]] = {}
    for a, b in runs:
        by_len.setdefault(b - a, []).append(a)
    i = 0
    k = 0  # index into runs
    while k < len(runs):
        a, b = runs[k]
        if a < i:
            k += 1
            continue
        # a backslash before the run escapes its first backtick
        j = a
        while j > i and text[j - 1] == "\\":
            j -= 1
        if (a - j) % 2 == 1:
            a += 1
            if a == b:
                k += 1
                continue
        length = b - a
        starts = by_len.get(length, [])
        p = bisect.bisect_left(starts, b)
        if p >= len(starts):
            i = b
            k += 1
            continue
        close = starts[p]
        out.append((a, close + length))
        i = close + length
        k += 1
    return out


def _rst_span_kind(text: str, a: int, b: int) -> str:
    """An inline literal (````x````), a role (``:meth:`x```), a hyperlink
    reference (```x`_``) or interpreted text in the default role (```x```)."""
    if text.startswith("``", a):
        return "literal"
    if text[a] == ":":
        return "role"
    return "link" if text[b - 1] == "_" else "interpreted"


def paired_spans(text: str, base: int = 0, code: list[tuple] | None = None) -> list[Span]:
    """Bracket pairs, links and inline code spans of a paragraph or heading.

    Offsets are ``base`` + index into ``text``. Brackets inside code spans and
    backslash-escaped brackets do not count; an unmatched opener or closer is
    ignored; ``[text](url)``, ``![alt](src)`` and ``[text][ref]`` are one
    ``link`` span; an autolink ``<https://…>`` is a ``link`` too, and an inline
    HTML tag (``<dfn title="…">``, ``</dfn>``, ``<!-- … -->``) an ``html`` span.
    """
    if code is None:  # (reStructuredText passes its inline literals and roles)
        code = code_spans(text)
    # (a third item names the span's kind: a reStructuredText "literal" or "role")
    spans: list[Span] = [Span(base + c[0], base + c[1], c[2] if len(c) > 2 else "code") for c in code]
    if "<" in text:
        code_starts = [c[0] for c in code]
        for pat, kind in ((_AUTOLINK, "link"), (_INLINE_HTML, "html")):
            for m in pat.finditer(text):
                k = bisect.bisect_left(code_starts, m.end()) - 1  # last code span starting before
                if k >= 0 and code[k][1] > m.start():
                    continue  # overlaps inline code
                spans.append(Span(base + m.start(), base + m.end(), kind))
    stack: list[tuple[str, int]] = []
    # per opener kind, the stack positions of its openers (ascending): a closer
    # finds its opener without scanning openers of other kinds (linear time
    # on "[" * n + ")" * n)
    where: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    pairs: dict[int, int] = {}  # opener index -> closer index
    ci = 0
    ncode = len(code)
    resume = 0  # characters before it are inside a code span or escaped
    n = len(text)
    # (only brackets and backslashes matter: visited through a search, not
    # one character at a time)
    for m in _PAIR_CHARS.finditer(text):
        i = m.start()
        while ci < ncode and code[ci][0] <= i:  # a code span reached: skipped whole
            if code[ci][1] > resume:
                resume = code[ci][1]
            ci += 1
        if i < resume:
            continue
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] in _ASCII_PUNCT:
                resume = i + 2  # an escaped character
            continue
        if ch in "([{":
            where[ch].append(len(stack))
            stack.append((ch, i))
        elif ch in ")]}":
            mine = where[_PAIRS[ch]]
            if mine:
                k = mine[-1]  # the nearest opener of this kind; those above it are dropped
                pairs[stack[k][1]] = i
                del stack[k:]
                for positions in where.values():
                    while positions and positions[-1] >= k:
                        positions.pop()
    linked: set[int] = set()
    for o, c in sorted(pairs.items()):
        if o in linked:
            continue
        ch = text[o]
        if ch == "[" and c + 1 < n and text[c + 1] in "([" and (c + 1) in pairs:
            end = pairs[c + 1] + 1
            start = o - 1 if o > 0 and text[o - 1] == "!" else o
            spans.append(Span(base + start, base + end, "link"))
            linked.add(c + 1)
            continue
        kind = {"(": "parentheses", "[": "brackets", "{": "braces"}[ch]
        spans.append(Span(base + o, base + c + 1, kind))
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans


# -- what a sentence is made of -----------------------------------------------------------

#: markup that carries no prose: HTML tags and comments, images (inline and by
#: reference) and, once those are gone, the empty links that wrapped them
_NO_PROSE = (
    re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]*>", re.S),
    re.compile(r"!\[[^\]]*\](?:\([^)\s]*(?:\s+\"[^\"]*\")?\)|\[[^\]]*\])?"),
    re.compile(r"\[\s*\](?:\([^)]*\)|\[[^\]]*\])?"),
)
_WORD = re.compile(r"\w")


def has_prose(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds a word outside markup: a run of badges
    (``[![npm](…)](…)``), avatar links (``<a href=…><img …></a>``) or ``<br>``
    holds none, so a cut beside it is not inside a sentence."""
    piece = text[start:end]
    if "<" not in piece and "!" not in piece:
        return True  # no markup: whatever is there ("." before a cut) belongs to the sentence
    masked = piece
    for pat in _NO_PROSE:
        masked = pat.sub(" ", masked)
    return masked == piece or bool(_WORD.search(masked))


_ATX_OPEN = re.compile(r"[ \t]{0,3}#{1,6}(?=[ \t\r\n]|$)[ \t]*")
_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$")
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*")


#: an image, or a link around only an image: a badge (``[![PRs Welcome](https://img.shields.io/…)](…)``)
_BADGE = re.compile(r"\[!\[[^\[\]\n]*\](?:\([^()\s]*\)|\[[^\[\]\n]*\])\](?:\([^()\s]*\)|\[[^\[\]\n]*\])"
                    r"|!\[[^\[\]\n]*\](?:\([^()\s]*\)|\[[^\[\]\n]*\])")


def heading_as_written(text: str, heading, width: int = 80) -> str:
    """A heading's text as the writer wrote it (code spans, links and HTML
    kept), without its ``#`` marks or setext underline and without badge
    images (``## Sponsors [![](…/badge.svg)](…)`` reads "Sponsors"),
    whitespace collapsed, shortened to ``width`` characters."""
    raw = text[heading.start : heading.end]
    m = _ATX_OPEN.match(raw)
    if m:
        raw = _ATX_CLOSE.sub("", raw[m.end() :].rstrip())
    else:
        lines = raw.splitlines()
        # a setext underline (a reStructuredText title's under- and overline:
        # one punctuation character repeated)
        if len(lines) > 1 and _ADORNMENT.fullmatch(lines[-1].strip()):
            lines = lines[:-1]
            if len(lines) > 1 and _ADORNMENT.fullmatch(lines[0].strip()):
                lines = lines[1:]
            raw = "\n".join(lines)
    out = " ".join(raw.split())
    if "![" in out:
        out = " ".join(_BADGE.sub(" ", out).split()) or out
    return out if len(out) <= width else out[: width - 1] + "…"


#: estimated bytes of the bracket-span indexes kept (see :mod:`chunkseam.core.cache`)
SPAN_CACHE_BYTES = 8 * 1024 * 1024
_SPAN_CACHE = ByteLRU("bracket spans", SPAN_CACHE_BYTES)


def clear_caches() -> None:
    """Forget every cached bracket-span index (benchmarks use it for cold figures)."""
    _SPAN_CACHE.clear()


class _SpanIndex:
    """Spans sorted by start, with a segment tree of their ends: the last span
    starting before an offset whose end is past it, in O(log n)."""

    __slots__ = ("spans", "starts", "size", "tree")

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self.starts = [s.start for s in spans]
        size = 1
        while size < len(spans):
            size *= 2
        self.size = size
        tree = [-1] * (2 * size)
        for k, s in enumerate(spans):
            tree[size + k] = s.end
        for k in range(size - 1, 0, -1):
            tree[k] = max(tree[2 * k], tree[2 * k + 1])
        self.tree = tree

    def innermost(self, offset: int) -> Span | None:
        hi = bisect.bisect_left(self.starts, offset)  # spans[:hi] start before offset
        if hi == 0:
            return None
        if hi <= 8:  # few candidates: a scan is cheaper
            for k in range(hi - 1, -1, -1):
                if self.spans[k].end > offset:
                    return self.spans[k]
            return None
        tree, size = self.tree, self.size
        # the rightmost leaf < hi whose end > offset: climb from leaf hi-1 until a
        # left sibling subtree (or the leaf itself) qualifies, then descend
        node = size + hi - 1
        if tree[node] <= offset:
            while True:
                if node == 1:
                    return None
                if node & 1 and tree[node - 1] > offset:
                    node -= 1
                    break
                node //= 2
            while node < size:
                node = 2 * node + 1 if tree[2 * node + 1] > offset else 2 * node
        return self.spans[node - size]


# -- cuts and context ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cut:
    """A place where the chunk list cuts the document.

    ``left`` is the chunk holding the text just before the offset (ending there
    when ``side`` is "end" or "both"), ``right`` the chunk holding the text just
    after it (starting there when ``side`` is "start" or "both"). Either may
    be None when no chunk covers that side.
    """

    offset: int
    left: int | None
    right: int | None
    side: str  # "end" | "start" | "both"
    #: when only whitespace separates the left chunk's end (``offset``) from
    #: the right chunk's start, that start: judged when ``offset`` is clean
    alt: int | None = None

    def at(self, offset: int) -> "Cut":
        return Cut(offset, self.left, self.right, self.side)

    @property
    def charged(self) -> int | None:
        """The chunk the cut counts against: the one that ends there, else the
        one that starts there."""
        return self.right if self.side == "start" else self.left


@dataclass(slots=True)
class ChunkView:
    """A validated chunk: where it is in the input list and what it covers."""

    position: int  # index in the list given to validate()
    start: int
    end: int
    tokens: int | None
    heading_path: tuple[str, ...]
    oversize: bool
    obj: Any = field(repr=False, default=None)


class Context:
    """Everything a check needs about one validation run."""

    def __init__(self, doc: Document, settings: Any, enabled: dict[str, str],
                 chunks: list[ChunkView], sizer: Any = None) -> None:
        self.doc = doc
        self.text = doc.text
        self.settings = settings
        self.enabled = enabled
        self.chunks = chunks  # valid, non-empty chunks sorted by (start, end)
        self.by_position = {c.position: c for c in chunks}
        self.sizer = sizer
        self._structure = None
        self._py = None
        self._spans: dict[int, list[Span]] = {}
        self._span_index: dict[int, _SpanIndex] = {}
        self._sentences: dict[int, list[tuple[int, int]]] = {}
        self._windows: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self._rst: bool | None = None

    @property
    def rst(self) -> bool:
        """Whether the document is reStructuredText (its name or language;
        asked per cut by several rules, so answered once)."""
        rst = self._rst
        if rst is None:
            from chunkseam.structure.rst import is_rst

            doc = self.doc
            rst = self._rst = is_rst(doc.path, doc.uri, doc.language_id)
        return rst

    # -- lazily computed views of the document
    @property
    def structure(self):
        if self._structure is None:
            from chunkseam.structure.markdown import structure

            self._structure = structure(self.doc)
        return self._structure

    @property
    def python(self):
        if self._py is None:
            from chunkseam.structure.python import python_structure

            self._py = python_structure(self.doc)
        return self._py

    def sentences(self, block) -> list[tuple[int, int]]:
        """The sentences of a paragraph (any other block: one). Those of a
        paragraph's text are kept with its structure segment, by their place
        in it (:meth:`~chunkseam.structure.markdown.Structure.segment_memo`): after an
        edit elsewhere they are found again without the text flattened and
        hashed for the sentence cache."""
        key = block.start
        got = self._sentences.get(key)
        if got is None:
            if block.kind == "paragraph":
                start, end = block.start, block.end
                kept = self.structure.segment_memo(start, end)
                if kept is None:
                    got = sentence_spans(self.text, start, end)
                else:
                    from chunkseam.structure.sentences import current_language

                    memo_key = ("sentences", kept[1], end - start, current_language())
                    rel = kept[0].get(memo_key)
                    if rel is None:
                        rel = kept[0][memo_key] = tuple(
                            (a - start, b - start) for a, b in sentence_spans(self.text, start, end))
                    got = [(start + a, start + b) for a, b in rel]
            else:
                got = [(block.start, block.end)]
            self._sentences[key] = got
        return got

    def sentence_at(self, block, offset: int) -> tuple[int, int] | None:
        if block.kind == "paragraph" and block.end - block.start > SENTENCE_WINDOW:
            return self._windowed_sentence_at(block, offset)
        for a, b in self.sentences(block):
            if a <= offset < b:
                return (a, b)
        return None

    def _windowed_sentence_at(self, block, offset: int) -> tuple[int, int] | None:
        """A huge paragraph is not segmented whole (pysbd is slow on long
        text): a window of about SENTENCE_WINDOW characters around the offset,
        trimmed to likely sentence ends, is. A sentence reaching the window's
        edge is reported up to that edge."""
        text = self.text
        half = SENTENCE_WINDOW // 2
        lo = max(block.start, offset - half)
        hi = min(block.end, offset + half)
        # a window's edge at a likely sentence end, else at a line break: never
        # inside a tag or a link of a long run of markup (a wall of 40 avatar
        # links, one per line, holds no sentence end), whose clipped half would
        # read as words
        if lo > block.start:
            m = _SENTENCE_END.search(text, lo, offset)
            if m:
                lo = m.end()
            else:
                nl = text.find("\n", lo, offset)
                if nl >= 0:
                    lo = nl + 1
        if hi < block.end:
            last = None
            for last in _SENTENCE_END.finditer(text, offset, hi):
                pass
            if last is not None:
                hi = last.end()
            else:
                nl = text.rfind("\n", offset + 1, hi)
                if nl >= 0:
                    hi = nl
        key = (lo, hi)
        got = self._windows.get(key)
        if got is None:
            got = sentence_spans(text, lo, hi) or [(lo, hi)]
            self._windows[key] = got
        for a, b in got:
            if a <= offset < b:
                return (a, b)
        return None

    def innermost_span(self, block, offset: int) -> Span | None:
        """Of the spans of ``block`` that strictly contain ``offset``
        (``start < offset < end``), the last in (start, -end) order — the
        greatest start, and of equal starts the smallest end — in logarithmic
        time (a max-end segment tree over the sorted spans). The index of a
        block's spans depends on its text and on whether the document is
        reStructuredText (its inline literals and roles, see :meth:`spans`)
        only: it is kept across versions and documents by those (offsets
        relative to the block), so an edit that moves every later cut (a
        ``fixed`` chunker) finds the paragraphs indexed: first with the
        structure segment holding the block (by its place in the segment,
        no hashing), then in a cache by the text."""
        base = block.start
        got = self._span_index.get(base)
        if got is None:
            rst = self.doc.kind == "markdown" and self.rst
            kept = self.structure.segment_memo(base, block.end)
            if kept is not None:
                got = kept[0].get(("spans", rst, kept[1], block.end - base))
            if got is None:
                piece = self.text[base : block.end]
                key = (rst, piece if len(piece) <= 64 else text_key(piece))
                got = _SPAN_CACHE.get(key)
                if got is None:
                    got = _SpanIndex(paired_spans(piece, 0, self._rst_literals(piece)))
                    _SPAN_CACHE.put(key, got, 200 + 150 * len(got.spans)
                                    + (len(piece) if len(piece) <= 64 else 40))
                if kept is not None:
                    kept[0][("spans", rst, kept[1], block.end - base)] = got
            self._span_index[base] = got
        found = got.innermost(offset - base)
        return None if found is None else Span(found.start + base, found.end + base, found.kind)

    def _rst_literals(self, piece: str) -> list[tuple[int, int, str]] | None:
        if self.doc.kind == "markdown" and self.rst:
            from chunkseam.structure.rst import inline_literals

            return [(a, b, _rst_span_kind(piece, a, b)) for a, b in inline_literals(piece)]
        return None

    def spans(self, block) -> list[Span]:
        got = self._spans.get(block.start)
        if got is None:
            piece = self.text[block.start : block.end]
            got = paired_spans(piece, block.start, self._rst_literals(piece))
            self._spans[block.start] = got
        return got

    # -- reporting
    def issue(self, code: str, message: str, start: int, end: int, *, cut: Cut | None = None,
              chunk: int | None = None, other_chunk: int | None = None,
              related: tuple[int, int] | None = None, related_message: str | None = None,
              hint: str | None = None, unit: tuple[int, int] | None = None, **data: Any) -> Issue:
        """An issue; for a cut, ``start``/``end`` is the broken unit and the
        issue's range becomes the part of it at the cut (:func:`at_cut`)."""
        rule = RULES[code]
        if cut is not None:
            if chunk is None and other_chunk is None and unit is None:
                return self.cut_issue(code, message, start, end, cut, related, related_message,
                                      hint, data)
            chunk = cut.left if chunk is None else chunk
            other_chunk = cut.right if other_chunk is None else other_chunk
            data.setdefault("side", cut.side)
            unit = (start, end) if unit is None else unit
            start, end = at_cut(self.text, cut.offset, start, end)
        return Issue(code, rule.name, self.enabled.get(code, rule.severity), message,
                     start, end, chunk, other_chunk, cut.offset if cut else None,
                     related, related_message, hint, data, unit)

    def cut_issue(self, code: str, message: str | CutMessage, start: int, end: int, cut: Cut,
                  related: tuple[int, int] | None, related_message: str | None,
                  hint: str | None, data: dict[str, Any]) -> Issue:
        """:meth:`issue` of a cut whose unit is ``[start, end)``, charged to
        the cut's chunks; ``data`` becomes the issue's own."""
        rule = RULES[code]
        data.setdefault("side", cut.side)
        c = cut.offset
        if start < c < end and end - start <= 256 and not _SPACE.search(self.text, start, end):
            lo, hi = start, end  # (at_cut's first case: a word is its own range)
        else:
            lo, hi = at_cut(self.text, c, start, end)
        return Issue(code, rule.name, self.enabled.get(code, rule.severity), message,
                     lo, hi, cut.left, cut.right, c, related, related_message, hint, data,
                     (start, end))

    def snippet_left(self, cut: int, lo: int = 0, width: int = 32, chunk: int | None = None) -> str:
        """The excerpt before ``cut``; with ``chunk`` (a position), never
        reaching before that chunk's start (the message says it is there)."""
        view = self.by_position.get(chunk) if chunk is not None else None
        return snippet_before(self.text, cut, lo, width, view.start if view is not None else 0)

    def snippet_right(self, cut: int, hi: int | None = None, width: int = 32, chunk: int | None = None) -> str:
        """The excerpt from ``cut``; with ``chunk``, never reaching past that
        chunk's end."""
        view = self.by_position.get(chunk) if chunk is not None else None
        return snippet_after(self.text, cut, len(self.text) if hi is None else hi, width,
                             view.end if view is not None else None)

    def cut_message(self, cut: Cut, what: str, lo: int, hi: int) -> str:
        """``chunk 3 ends mid-sentence: "…set the timeout to" | "30 seconds…" is in chunk 4``."""
        return self.cut_message_later(cut, what, lo, hi).write(self.text)

    def cut_message_later(self, cut: Cut, what: str, lo: int, hi: int) -> CutMessage:
        """:meth:`cut_message` still to be written (see :class:`CutMessage`)."""
        floor, ceiling = self.reach(cut)
        return CutMessage((cut.offset, lo, hi, floor, ceiling, cut.side, cut.left, cut.right, what,
                           [None]))

    def reach(self, cut: Cut) -> tuple[int, int | None]:
        """How far a cut's excerpts may reach for words: the start of the
        chunk before it (0: none) and the end of the one after it (None)."""
        by_position = self.by_position
        left = by_position.get(cut.left) if cut.left is not None else None
        right = by_position.get(cut.right) if cut.right is not None else None
        return (left.start if left is not None else 0, right.end if right is not None else None)

    def related_for(self, cut: Cut, lo: int, hi: int) -> tuple[tuple[int, int], str]:
        """The part of the broken unit on the other side of the cut."""
        if cut.side == "start":
            where = f"chunk {cut.left + 1}" if cut.left is not None else "no chunk"
            return (lo, cut.offset), f"the beginning is in {where}"
        where = f"chunk {cut.right + 1}" if cut.right is not None else "no chunk"
        return (cut.offset, hi), f"continues in {where}"


class CutMessage(tuple):
    """The message of a cut's issue (:meth:`Context.cut_message`) until it is
    first read: what it is written from besides the document's text, which
    the issue holds (``Issue._text``; a large document's issues are mostly
    never shown). A tuple: ``(cut, lo, hi, floor, ceiling, side, left,
    right, what, written)`` — the cut's offset, the excerpt bounds, how far
    an excerpt may reach for words (the start of the chunk before the cut,
    the end of the one after it: :meth:`Context.reach`), the cut's side, the
    chunk numbers either side, what the cut breaks, and a one-item list that
    holds the message once written. It holds no text: a cache keeps it as it
    is; the same judgement elsewhere (a later version whose text is the same
    there, the same neighbourhood moved, see :mod:`chunkseam.engine.validate`)
    shares the written message (:meth:`moved`)."""

    __slots__ = ()

    def __call__(self, issue: Any) -> str:
        box = self[9]
        written = box[0]
        if written is None:
            text = getattr(issue, "_text", None)
            if text is None:
                raise ValueError("a cut issue's message is written from the text its issue holds")
            written = box[0] = self.write(text)  # (two threads: the same text)
        return written

    def same(self, other: Any) -> bool:
        """Whether ``other`` is this judgement's message (this one, or moved
        from it or it from the same one: their messages are equal)."""
        return other is self or (type(other) is CutMessage and other[9] is self[9])

    def write(self, text: str) -> str:
        cut, lo, hi, floor, ceiling, side, left_chunk, right_chunk, what, _box = self
        left = snippet_before(text, cut, lo, 32, floor)
        right = snippet_after(text, cut, len(text) if hi is None else hi, 32, ceiling)
        if side == "start":
            where = f"in chunk {left_chunk + 1}" if left_chunk is not None else "in no chunk"
            return f'chunk {right_chunk + 1} starts {what}: "{left}" is {where} | "{right}"'
        where = f"in chunk {right_chunk + 1}" if right_chunk is not None else "in no chunk"
        return f'chunk {left_chunk + 1} ends {what}: "{left}" | "{right}" is {where}'

    def moved(self, delta: int, reach: tuple[int, int | None]) -> CutMessage:
        """This judgement's message ``delta`` characters further on, where the
        excerpts may reach as far as ``reach``: the same message (once
        written, for both)."""
        cut, lo, hi, _floor, _ceiling, side, left, right, what, box = self
        return CutMessage((cut + delta, lo + delta, None if hi is None else hi + delta, reach[0],
                           reach[1], side, left, right, what, box))


_SPACE = re.compile(r"\s")


def at_cut(text: str, cut: int, lo: int, hi: int) -> tuple[int, int]:
    """The range an issue at ``cut`` covers inside its unit ``[lo, hi)``: it
    starts at the cut itself and runs to the end of the line holding the
    first character after the cut (within the unit, trailing spaces left
    out), so every output reports the cut's own line and column. A word
    (CS001) is its own range; a cut at or after the unit's end (CS007, after
    its heading) covers the unit's last line."""
    if hi - lo <= 0:
        return (lo, hi)
    c = max(lo, min(cut, hi))
    if lo < cut < hi and hi - lo <= 256 and not _SPACE.search(text, lo, hi):
        return (lo, hi)  # a word (no line break, no space: \s is str.isspace's set)
    j = c
    while j < hi and text[j] in " \t\r\n":
        j += 1
    if j < hi:
        e = text.find("\n", j, hi)
        e = hi if e < 0 else e
        r = text.find("\r", j, e)  # (only before the line feed: the nearer break wins)
        e = r if r >= 0 else e
        while e > j and text[e - 1] in " \t":
            e -= 1
        return (c, max(e, c))
    i = c
    while i > lo and text[i - 1] in " \t\r\n":
        i -= 1
    a = text.rfind("\n", lo, i)
    a = max(a, text.rfind("\r", max(a + 1, lo), i)) + 1  # (the nearer break wins)
    a = max(a, lo)
    while a < i and text[a] in " \t":
        a += 1
    return (a, i) if i > a else (lo, hi)


_WS_RUN = re.compile(r"\s+")
#: a whitespace run holding a line break, matched as a whole from its first
#: character only (linear time on long runs)
_BREAK_RUN = re.compile(r"(?<!\s)\s*[\r\n]\s*")


def _clean(s: str) -> str:
    """Whitespace collapsed: a run holding a line break shows as ``⏎`` (joined
    lines stay visible), any other run as one space; table padding around
    ``|`` shrinks to one space."""
    s = s.strip()
    if "|" not in s and "  " not in s and s.isprintable():
        # the common excerpt: no whitespace but single ASCII spaces (every
        # other whitespace character is unprintable), no table pipes
        return s
    if "|" not in s and "\r" not in s and s.replace("\n", "").isprintable():
        # wrapped prose: line breaks and single or repeated ASCII spaces only;
        # the spaces around each break, and blank lines, belong to its run
        return "⏎".join(p if "  " not in p else _WS_RUN.sub(" ", p)
                        for p in (q.strip(" ") for q in s.split("\n")) if p)
    if "\n" in s or "\r" in s:
        s = _BREAK_RUN.sub("⏎", s)  # (each run holding a line break, as a whole)
    s = _WS_RUN.sub(" ", s)
    if "|" not in s:
        return s
    rows = []
    for row in s.split("⏎"):
        if _DELIMITER_ROW.fullmatch(row) and "-" in row:
            continue  # a table's delimiter row: no cell text
        if row.startswith("|") or row.endswith("|"):
            row = _PIPE_PAD.sub(" | ", row.strip().strip("|").strip())
        rows.append(row)
    return "⏎".join(r for r in rows if r) or s


_PIPE_PAD = re.compile(r"[ \t]*\|[ \t]*")
_DELIMITER_ROW = re.compile(r"[\s|:-]+")
#: what an excerpt must hold to say something: a letter or a digit
_SAYS = re.compile(r"[^\W_]")
#: how far an excerpt may reach past its unit to find the nearest words
REACH = _REACH = 4000


def _before(text: str, cut: int, lo: int, width: int) -> str:
    lo = max(0, min(lo, cut))
    start = max(lo, cut - width)
    piece = text[start:cut]
    if start > lo:
        sp = piece.find(" ", 0, 12)
        if sp >= 0:
            piece = piece[sp + 1 :]
        elif _IN_URL.fullmatch(piece):
            # inside a long URL: from its last separator before the cut's
            # words ("…/acme-sponsor-8/w", not "…ncollective.com/acme-sponsor-8/w")
            k = max(piece.rfind(ch, 0, len(piece) - 8) for ch in _URL_SEPARATORS)
            if k > 0:
                piece = piece[k:]
        return "…" + _clean(piece)
    return _clean(piece)


def _after(text: str, cut: int, hi: int, width: int) -> str:
    hi = min(max(hi, cut), len(text))
    end = min(hi, cut + width)
    piece = text[cut:end]
    if end < hi:
        sp = piece.rfind(" ", len(piece) - 12)
        if sp > 0:
            piece = piece[:sp]
        elif _IN_URL.fullmatch(piece):  # inside a long URL: up to its next separator after the cut's words
            seps = [k for k in (piece.find(ch, 8) for ch in _URL_SEPARATORS) if k > 0]
            if seps:
                piece = piece[: min(seps)]
        return _clean(piece) + "…"
    return _clean(piece)


#: a piece of a URL (no space, a path or query separator in it) and its separators
_IN_URL = re.compile(r"[^\s]*[/?&=#][^\s]*")
_URL_SEPARATORS = "/?&=#"


def snippet_before(text: str, cut: int, lo: int = 0, width: int = 32, limit: int = 0) -> str:
    """Up to ``width`` characters before ``cut`` (not before ``lo``), whitespace
    collapsed (line breaks as ``⏎``), with a leading "…" when shortened. An
    excerpt of only whitespace, table padding, a ``>`` or nothing says
    nothing: then it reaches back past ``lo`` to the nearest words, but not
    before ``limit`` (the start of the chunk a message says holds it); with
    no words there it shows what is there (a table's delimiter row)."""
    got = _before(text, cut, lo, width)
    if _SAYS.search(got):
        return got
    floor = max(0, min(limit, cut))
    start = cut
    while start > floor and cut - start < _REACH and not _SAYS.match(text[start - 1]):
        start -= 1
    if start <= floor or cut - start >= _REACH:
        return got or _before(text, cut, floor, width)  # no words to reach
    while start > floor and cut - start < _REACH and not text[start - 1].isspace():
        start -= 1  # the whole nearest word
    return ("…" if start > 0 else "") + _clean(text[start:cut])


def snippet_after(text: str, cut: int, hi: int, width: int = 32, limit: int | None = None) -> str:
    """Up to ``width`` characters from ``cut`` (not past ``hi``), whitespace
    collapsed (line breaks as ``⏎``), with a trailing "…" when shortened; like
    :func:`snippet_before`, it reaches past ``hi`` when it would say nothing,
    but not past ``limit`` (the end of the chunk a message says holds it)."""
    got = _after(text, cut, hi, width)
    if _SAYS.search(got):
        return got
    ceiling = len(text) if limit is None else max(cut, min(limit, len(text)))
    end = cut
    while end < ceiling and end - cut < _REACH and not _SAYS.match(text[end]):
        end += 1
    if end >= ceiling or end - cut >= _REACH:
        return got or _after(text, cut, ceiling, width)  # no words to reach
    while end < ceiling and end - cut < _REACH and not text[end].isspace():
        end += 1  # the whole nearest word
    return _clean(text[cut:end]) + ("…" if end < len(text) else "")


CheckFn = Callable[[Context, Cut], "Issue | None"]
