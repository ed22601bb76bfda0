"""What a cut costs: lost content is loud, the rest is info and says why.

Every cut issue (CS001–CS008) breaks a unit — a word, a sentence, a code
block, a table, a list item, a bracket pair, an HTML block, a heading and its
body. Whether that is worth acting on depends on two things the rules do not
read:

* **Is the unit lost?** With overlap, a unit cut at one chunk's end is often
  whole in the neighbouring chunk; what the cut leaves is a line or two of
  edge text. The issue is then *whole elsewhere*: severity info, its message
  ending "— the sentence is whole in chunk 7 (overlap)", ``data["impact"] =
  "whole-elsewhere"`` and ``data["whole_in"]`` the (0-based) chunk.
* **Is the region content?** A cut in a badge row, an avatar wall, a
  navigation bar, a table of contents, a contributor roster or licence text
  (:mod:`chunkseam.checks.decoration`) spoils a chunk nobody retrieves for an
  answer: severity info, "— in a badge row (decoration)", ``data["impact"] =
  "decoration"``, ``data["region"]`` what it is.

Three narrower verdicts say the same of what a rule's unit holds: a CS008 cut
inside a tag or a bare directive head whose wrapped blocks are each whole in a
chunk (*markup-only*, :func:`markup_only`), CS004 rows that name what they
describe (*self-describing*, :func:`self_describing`), a CS007 lead-in
before a block that names itself (:func:`self_named`), and a CS003 cut that
leaves only a code block's leading imports apart from its code, whole in a
chunk (*imports-only*, :func:`import_prefix`).

Only a cut that loses content keeps its rule's severity. The settings
``loud-overlap`` and ``loud-decoration`` (both false by default) keep the
rule's severity for these too. A rule graded below info (``hint``) stays
there. CS101 has its own: a chunk that is over the size only because the
chunker kept an atomic unit whole (a code block, a table) is info up to twice
the size (``loud-kept-whole``), see :func:`chunkseam.checks.chunks.oversize`.

Runs after the cut judgements (which are cached by their neighbourhood, see
:mod:`chunkseam.engine.validate`) on the issues of one validation, so both read the
same chunks; it never changes an issue it is given (the cache may hold it):
a re-graded issue is a new one.

Across versions (``keep=True``, the language server, whose validations hand
the very issue objects of one version to the next for the cuts before an
edit): each issue's grading is kept on the document version with what its
verdict read — how far into the text (the unit, the marks after it, the
blocks around the cut), the start of the part a chunk must hold (every chunk
starting at or before it), and the blocks around the cut (kind and span). The
next version grades the same issue object again only when the edit reached
into that text, a chunk starting at or before that start changed, or the
blocks around its cut are others; else it hands out the very graded issue of
the last version (no new object, so the server sees the diagnostic unchanged
by identity). An issue past the edit, which the cut judgements move (a new
object, the same issue ``delta`` characters on), takes the verdict the same
issue had, moved, when all the text it read is past the edit, the blocks
around its cut are the same ones moved, and the chunks that may hold its unit
are the last version's moved (those before them end before the unit does in
both versions). ``tests/engine/test_incremental_impact.py`` checks kept == fresh
over random edits.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from chunkseam.core.issue import SEVERITY_RANK, Issue
from chunkseam.checks.base import Context
from chunkseam.checks.decoration import inline_span, licence_file, region

#: the cut rules whose issues are graded by impact
CUT_RULES = frozenset({"CS001", "CS002", "CS003", "CS004", "CS005", "CS006", "CS007", "CS008"})
#: the rules whose unit may be whole but for a few marks on one side of the cut
_JUNK_RULES = frozenset({"CS002", "CS003", "CS005", "CS006", "CS008"})
#: no letter, digit or other word character
_NO_WORD = re.compile(r"[^\w]*")
_LOUD = frozenset({"error", "warning"})
#: what a rule's unit is called in a message
_UNIT = {"CS001": "word", "CS002": "sentence", "CS003": "code block", "CS004": "table",
         "CS005": "list item", "CS006": "span", "CS008": "block"}


class Because:
    """A message with the reason it is quiet appended; the base message is
    written when first read (a :class:`~chunkseam.checks.base.CutMessage` or
    a string)."""

    __slots__ = ("base", "why")

    def __init__(self, base: Any, why: str) -> None:
        self.base, self.why = base, why

    def __call__(self, issue: Issue) -> str:
        base = self.base
        text = base if type(base) is str else base(issue)
        return f"{text} — {self.why}"

    def same(self, other: Any) -> bool:
        """Whether ``other`` is a message equal to this one, known without
        writing either: the same reason after the same base message (see
        :meth:`chunkseam.core.issue.Issue.same_message`)."""
        if other is self:
            return True
        if type(other) is not Because or other.why != self.why:
            return False
        a, b = self.base, other.base
        if type(a) is str:
            return type(b) is str and a == b
        same = getattr(a, "same", None)
        return bool(same is not None and same(b))


def quieter(severity: str) -> str:
    """``info``, or ``severity`` when that is quieter already."""
    return severity if SEVERITY_RANK.get(severity, 0) >= SEVERITY_RANK["info"] else "info"


def regraded(issue: Issue, why: str, **data: Any) -> Issue:
    """A copy of ``issue`` at severity info (or its own, when quieter) whose
    message ends with ``why`` and whose ``data`` holds ``data`` too."""
    own = dict(issue.data)
    own.update(data)
    new = Issue(issue.code, issue.name, quieter(issue.severity), Because(issue._message, why),
                issue.start, issue.end, issue.chunk, issue.other_chunk, issue.cut, issue.related,
                issue.related_message, issue.fix, own, issue.unit)
    text = getattr(issue, "_text", None)
    if text is not None:
        new._text = text
    return new


class _Holders:
    """Which chunk holds a span whole: the chunks sorted by start with the
    running maximum of their ends (a lookup is a bisection)."""

    def __init__(self, views: list) -> None:
        if all((views[k - 1].start, views[k - 1].end) <= (views[k].start, views[k].end)
               for k in range(1, len(views))):
            self.views = views  # (a validation's chunks come sorted by start)
        else:
            self.views = sorted(views, key=lambda v: (v.start, v.end))
        self.starts = [v.start for v in self.views]
        self.reach = []
        top = -1
        for v in self.views:
            top = max(top, v.end)
            self.reach.append(top)
        # chunks overlap at all (else no chunk can hold a unit that a cut splits)
        self.overlap = any(self.views[k].start < self.reach[k - 1] for k in range(1, len(self.views)))

    def starts_at(self, c: int) -> bool:
        """Whether a chunk starts at ``c``."""
        k = bisect.bisect_left(self.starts, c)
        return k < len(self.starts) and self.starts[k] == c

    def ends_at(self, c: int) -> bool:
        """Whether a chunk ends at ``c``."""
        ends = self.__dict__.get("_ends")
        if ends is None:
            ends = self._ends = frozenset(v.end for v in self.views)
        return c in ends

    def holder(self, s: int, e: int) -> int | None:
        """The position of a chunk holding ``[s, e)`` whole, or None."""
        k = bisect.bisect_right(self.starts, s)
        if k == 0 or self.reach[k - 1] < e:
            return None
        for j in range(k - 1, -1, -1):
            if self.views[j].end >= e:
                return self.views[j].position
        return None


def _unit(issue: Issue) -> tuple[int, int] | None:
    data = issue.data or {}
    if issue.code == "CS008" and isinstance(data.get("element"), list):
        s, e = data["element"]
        return (s, e)
    if issue.code == "CS004" and issue.unit is not None:
        return issue.unit
    return issue.unit


_MARKER = re.compile(r"[ \t>]*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
#: a code block's first line that carries no code: a fence's opening, a
#: reStructuredText code directive (with its options) or a literal block's "::"
_CODE_HEAD = re.compile(r"[ \t>]*(?:`{3,}|~{3,})[^\r\n]*\r?\n"
                        r"|[ \t]*\.\.[ \t]+[\w:-]+::[^\r\n]*\r?\n(?:[ \t]+:[^\r\n]*\r?\n)*"
                        r"|[^\r\n]*::[ \t]*\r?\n")
_CODE_TAIL = re.compile(r"\r?\n[ \t>]*(?:`{3,}|~{3,})[ \t]*$")
#: what may open a unit without saying anything (brackets, backticks, quotes, emphasis) ...
_OPENING = re.compile(r"[\s(\[{`\"'*_<\u201c\u2018]*")
#: ... and what may close it (the same, and a sentence's or a clause's end)
_CLOSING = re.compile(r"[\s)\]}`\"'*_>.,;:!?\u201d\u2019]*")


def core(text: str, code: str, unit: tuple[int, int]) -> tuple[int, int]:
    """The part of ``unit`` a reader needs: a list item without its marker, a
    code block without its opening line (fence, directive) and closing fence.
    A chunk holding this part holds the unit whole for a reader."""
    s, e = unit
    if code == "CS005":
        m = _MARKER.match(text, s, e)
        if m is not None:
            s = m.end()
    elif code == "CS003":
        m = _CODE_HEAD.match(text, s, e)
        if m is not None:
            s = m.end()
            while s < e and text[s] in " \t\r\n":
                s += 1
        # (the closing fence can only be the last line, or the one before a final line
        # break: searched there, not through the whole block)
        k = text.rfind("\n", s, e)
        k = text.rfind("\n", s, k) if k > s else -1
        t = _CODE_TAIL.search(text, max(s, k - 1), e)
        if t is not None:
            e = t.start()
    return (s, max(s, e))


#: an issue or pull-request reference and nothing else: "Closes #12", "(fixes org/repo#7)", "#3, #4."
_ISSUE_REF = re.compile(r"\s*[(\[]?(?:(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see)\s*:?\s+)?"
                        r"(?:[\w.-]+/[\w.-]+)?#\d+(?:\s*,\s*#\d+)*[)\]]?[.,;]?\s*", re.I)


#: how far a link's target is read on either side of a cut
_TARGET_READ = 2048


def _target_reach(text: str, cut: int) -> int:
    """How far :func:`link_target_at` may read after ``cut``."""
    eol = text.find("\n", cut, cut + _TARGET_READ)
    return (cut + _TARGET_READ if eol < 0 else eol) + 42


def link_target_at(text: str, cut: int) -> int | None:
    """Where the Markdown link whose target (``[text](target)``) the cut falls
    in starts its target (the offset of "]("), when it does and the link ends
    its sentence, its line or its table cell, is a whole parenthesis (a
    reference: "… ([#1234](https://…))"), or its target is a place in the page (``#anchor``,
    its own text made a slug): the text is whole before the cut, only a URL is
    split. None otherwise (a sentence going on after the link is cut). Reads at most
    :data:`_TARGET_READ` characters on either side, on the cut's line."""
    bol = max(text.rfind("\n", 0, cut) + 1, cut - _TARGET_READ)
    if text.startswith("](", cut - 1):
        k = cut - 1
    else:
        k = text.rfind("](", bol, cut)
        if k < 0 or any(ch in ")\n" or ch.isspace() for ch in text[k + 2 : cut]):
            return None
    eol = text.find("\n", cut, cut + _TARGET_READ)
    close = text.find(")", cut, cut + _TARGET_READ if eol < 0 else eol)
    if close < 0 or any(ch.isspace() for ch in text[cut:close]) or text.rfind("[", bol, k) < 0:
        return None
    if text.startswith("(#", k + 1):
        return k  # a link to a place in the page: its target is its text made an anchor ("#on-close")
    open_ = text.rfind("[", bol, k)
    if open_ > 0 and text[open_ - 1] == "(" and text.startswith(")", close + 1):
        return k  # a link that is a whole parenthesis, a reference ("… ([#1234](https://…))")
    # the link ends its sentence or line: nothing of the text around it is on the other side
    m = _CLOSING.match(text, close + 1, min(len(text), close + 41))
    nxt = text[m.end() : m.end() + 1]
    if not ("\n" in m.group() or not nxt or nxt == "|"
            or (any(p in m.group() for p in ".!?") and (nxt.isupper() or nxt.isspace()))):
        return None
    return k


def junk_side(text: str, issue: Issue) -> str | None:
    """The text on one side of the cut inside the unit when it holds no letter
    or digit ("``).``", a closing fence's "}"): the unit is whole for a reader
    but for those marks. None otherwise."""
    unit = issue.unit
    c = issue.cut
    if unit is None or c is None or not unit[0] < c < unit[1]:
        return None
    tail = text[c : unit[1]]
    if len(tail) <= 48 and _ISSUE_REF.fullmatch(tail):
        # only an issue or pull-request reference after the cut ("… escape.⟂ Closes #1132"):
        # the item's words are whole, its tracker number is a trivial edge
        return " ".join(tail.split())
    sides = ((unit[0], c, _OPENING), (c, unit[1], _CLOSING))
    if issue.code == "CS008":  # a block's own marks: the first dot of ".. note::", a tag's "<"
        sides = ((unit[0], c, _NO_WORD), (c, unit[1], _NO_WORD))
    for a, b, marks in sides:
        piece = text[a:b]
        # (a code block's closing brackets count without the indentation between them)
        short = len(piece) <= 12 or (issue.code == "CS003" and len("".join(piece.split())) <= 12)
        if short and marks.fullmatch(piece):
            if issue.code == "CS006":
                # a span's marks: the text around the span on that side of the
                # cut must end there too ("(``make_app``⟂).", not "[jsx⟂] depending on…")
                if a == c:
                    # the span's sentence or line ends after its marks ("). Both…", ").⏎")
                    m = marks.match(text, b, min(len(text), b + 40))
                    nxt = text[m.end() : m.end() + 1]
                    ends = "\n" in m.group() or (any(p in m.group() for p in ".!?")
                                                  and (not nxt or nxt.isupper() or nxt.isspace()))
                    if not ends:
                        continue
                else:  # its line starts with the span's opening marks (a list item's "3. **`")
                    bol = text.rfind("\n", 0, a) + 1
                    if not marks.fullmatch(_MARKER.sub("", text[bol:a], count=1)):
                        continue
            return " ".join(piece.split()) or None
    return None


_BORDER = re.compile(r"[ \t]*[+|]?[ \t]*[-=:+| \t]*[-=][-=:+| \t]*$")
_REF_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])?")
_TARGET = re.compile(r"\]\([^)\n]*\)|\]\[[^\]\n]*\]|<[^<>\n]*>")
_CELL_WORD = re.compile(r"[^\W_][\w'’-]*")


def _cells(row: str) -> list[str]:
    """The cells of a table row (a pipe table's line, or a grid table's lines
    with each column's text joined), without border lines."""
    cols: list[str] = []
    for line in row.splitlines():
        if not line.strip() or _BORDER.fullmatch(line):
            continue
        parts = line.strip().strip("|").split("|")
        for k, part in enumerate(parts):
            if k < len(cols):
                cols[k] += " " + part.strip()
            else:
                cols.append(part.strip())
    return cols


def self_describing(text: str, rows: list[tuple[int, int]]) -> bool:
    """Whether every body row of a table names what it describes: a short
    first cell (a name, a code span, a link) and cells of prose (three words
    or more, images and link targets left out; empty and image-only cells aside),
    or a first cell of words (a name, or a name with its description) beside
    cells of links or URLs only (a column mostly of links may hold a short
    placeholder: "Not available"). Such rows
    read the same without the header ("Name | Description"); rows of figures
    do not, nor rows with a short value beside the prose (`| E42 | 402 | no |
    The card was declined. |`: what "402" and "no" are, only the header says)."""
    body = rows[1:]
    if not body:
        return False
    table = [_cells(text[rs:re_]) for rs, re_ in body]
    if any(len(cells) < 2 for cells in table):
        return False
    if _code_and_word(table):
        return True
    # columns of links ("[GitHub](…)", "https://…"): their cells say what they are, and a
    # short cell among them ("Not available") stands for a missing link
    width = max(len(cells) for cells in table)
    linky = [k for k in range(1, width)
             if 3 * sum(1 for cells in table if k < len(cells) and _links_only(cells[k])) >= 2 * len(table)]
    for cells in table:
        name = len(_CELL_WORD.findall(_TARGET.sub("]", _REF_IMAGE.sub(" ", cells[0]))))
        rest = [c for k, c in enumerate(cells[1:], 1) if k not in linky and not _links_only(c)]
        words = [n for n in (len(_CELL_WORD.findall(_TARGET.sub("]", _REF_IMAGE.sub(" ", c)))) for c in rest)
                 if n]  # (empty cells and image-only ones — a badge carries its own label — aside)
        linked = "](" in cells[0] or "][" in cells[0] or "<a " in cells[0]  # (a linked logo names it too)
        if words:  # a short name beside prose
            # (a linked first cell names what it links to, however long its title)
            if not (1 <= name <= 6 or linked) or min(words) < 3:
                return False
        elif len(rest) == len(cells) - 1 or not (name >= 1 or linked):
            return False  # (links beside a name, or a name with its description: "ferrule - pins versions")
    return True


#: a cell's value that says nothing without its column's name: a type, a flag, nothing
_BARE_VALUE = frozenset({"yes", "no", "true", "false", "none", "null", "n/a", "optional", "required",
                         "int", "integer", "str", "string", "bool", "boolean", "float", "number", "text",
                         "flag", "list", "dict", "object", "array", "any", "path", "default"})
#: a value of words: letters and the punctuation of a list of names ("Chinese (Simplified)",
#: "Arabic-script family (9): Arabic, Persian"); figures only inside parentheses
_WORDS_VALUE = re.compile(r"[,;: \t]*[^\W\d_](?:[^\W\d_]|['’.-])*(?:[ \t,;:/&]+[^\W\d_](?:[^\W\d_]|['’.-])*)*[,;:. \t]*")
_PARENS = re.compile(r"[ \t]*\([^()\n]*\)[ \t]*")


def _code_and_word(table: list[list[str]]) -> bool:
    """Whether a two-column table pairs a short name or code with the words it
    stands for (`` `de` | German``, ``eslav | East Slavic family: Russian,
    Belarusian``): each row reads alone. A row with an empty first cell
    continues the row above it (a long value wrapped); a value that is a type, a
    flag or a figure ("integer", "yes", "v4, v5") needs its header."""
    named = 0
    for cells in table:
        if len(cells) != 2:
            return False
        name, value = cells[0].strip(), _PARENS.sub(" ", cells[1]).strip()
        if not value or not _WORDS_VALUE.fullmatch(value) or value.lower() in _BARE_VALUE:
            return False
        if name:
            if len(_CELL_WORD.findall(name)) > 3 or "](" in name:
                return False
            named += 1
    return named > 0


_URL = re.compile(r"<?https?://[^\s|<>]+>?")


def _links_only(cell: str) -> bool:
    """Whether a table cell holds links or URLs and no other word, each link
    a URL or labelled with plain words ("GitHub", "Play online"): what they
    are needs no header. A link whose text is a value (a package name
    "@scope/pkg", a version) is a value like any other."""
    if "](" not in cell and "][" not in cell and "://" not in cell and "<a " not in cell:
        return False
    if "![" in cell:  # an image inside a link (a badge) is the link's label, not a word
        cell = _REF_IMAGE.sub(" ", cell)
    for m in _LINK_ANY.finditer(cell):
        label = m.group(1) if m.group(1) is not None else _TAG_ANY.sub(" ", m.group(2) or "")
        if not _LABEL.fullmatch(label.strip()) and not _URL.fullmatch(label.strip()):
            return False
    rest = _URL.sub(" ", _LINK_ANY.sub(" ", cell))
    return not _CELL_WORD.search(rest)


_LINK_ANY = re.compile(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])|<a\b[^>]*>(.*?)</a\s*>", re.I)
_TAG_ANY = re.compile(r"<[^<>]*>")
#: a link's label: one to three plain words, or nothing (an image link)
_LABEL = re.compile(r"(?:[A-Za-z]+(?:[ \t]+[A-Za-z]+){0,2})?")


def _link_tail(text: str, c: int, row: tuple[int, int]) -> bool:
    """Whether the text of ``row`` from ``c`` on is the rest of a cell of links
    or URLs only, and cells of links or nothing after it: no words without
    their name."""
    row_start, row_end = row
    a = text.rfind("|", row_start, c) + 1 or row_start
    rest = text[a:row_end].strip().strip("|").split("|")
    return all(not cell.strip() or _links_only(cell) for cell in rest)


def _in_badge_cell(text: str, c: int, row: tuple[int, int]) -> bool:
    """Whether the cell of ``row`` holding ``c`` is an image link (a badge, a logo)."""
    a = text.rfind("|", row[0], c) + 1 or row[0]
    b = text.find("|", c, row[1])
    cell = text[a : row[1] if b < 0 else b]
    return "[![" in cell or "<img" in cell.lower()


def _header_only(ctx: Context, issue: Issue, holders: _Holders | None) -> bool:
    """CS004: whether all the cut costs is the header of the rows after it,
    and those rows describe themselves (:func:`self_describing`): the cut is
    between rows, in the header's delimiter line, or in a row that is whole in
    a neighbouring chunk (overlap)."""
    c = issue.cut
    table = next((b for b in ctx.structure.strictly_containing(c) if b.kind == "table"), None)
    if table is None or not table.rows:
        return False
    text = ctx.text
    rows = list(table.rows)
    head_line = text.find("\n", rows[0][0], table.header_end or rows[0][1])
    if c <= (table.header_end or rows[0][1]):
        if head_line < 0 or c <= head_line:
            return False  # the header's own line is cut
    else:
        inside = next(((rs, re_) for rs, re_ in rows[1:] if rs < c < re_), None)
        if inside is not None and (not text[inside[0]:c].strip(" \t|") or not text[c:inside[1]].strip(" \t|\r\n")):
            inside = None  # only a row's padding and pipes on one side: a cut between rows
        elif inside is not None and _link_tail(text, c, inside) and (
                link_target_at(text, c) is not None or _in_badge_cell(text, c, inside)):
            # only the target of the row's last links, or a badge among them ("Open in
            # Colab"), is cut: the row's own text is whole before the cut (a bare URL cut
            # in two is the link itself broken)
            inside = None
        if inside is not None:
            if holders is None or not holders.overlap or holders.holder(*inside) is None:
                return False
            if any(v.start == c for v in ctx.chunks) and not _link_tail(text, c, inside):
                return False  # a chunk starts with the row's tail: a description without its name
    group = _wrapped_row(text, rows, c)
    if group is not None and (holders is None or holders.holder(*group) is None):
        return False  # a row wrapped over several lines is cut: its last lines lack its name
    return self_describing(text, rows)


def _wrapped_row(text: str, rows: list[tuple[int, int]], c: int) -> tuple[int, int] | None:
    """The span of the row wrapped over several lines (its next lines have an
    empty first cell: ``|      | Sindhi, Baluchi |``) that the cut at ``c`` falls
    inside, or None."""
    body = rows[1:]
    i = next((k for k, (rs, re_) in enumerate(body) if re_ >= c), None)
    if i is None:
        return None
    if body[i][0] >= c or not text[c : body[i][1]].strip(" \t|\r\n"):
        # a cut at a line's end or between lines: the line after it is what may continue
        i = i + 1 if body[i][0] < c else i
        if i >= len(body) or not _continues(text, body[i]):
            return None
    a = i
    while a > 0 and _continues(text, body[a]):
        a -= 1
    b = i
    while b + 1 < len(body) and _continues(text, body[b + 1]):
        b += 1
    if a == b:
        return None
    return body[a][0], body[b][1]


def _continues(text: str, row: tuple[int, int]) -> bool:
    """Whether a table line's first cell is empty: it wraps the row above it."""
    cells = _cells(text[row[0] : row[1]])
    return len(cells) >= 2 and not cells[0].strip() and any(c.strip() for c in cells[1:])


#: a line naming the file the code after it belongs to, in a code block showing
#: several files ("// @filename: server.ts", "# file: app.py", "<!-- file: index.html -->")
_FILE_MARKER = re.compile(r"[ \t]*(?://|#|<!--|--|;)[ \t]*@?file(?:[-_ ]?name)?[ \t]*:[ \t]*\S[^\n]*", re.I)


def _between_files(text: str, s: int, e: int, c: int, cache: dict) -> bool:
    """Whether the cut ``c`` in the code ``[s, e)`` falls at the border of two
    files of a code block showing several (two file-name marker lines or more):
    in a marker line, or in the blank lines between a file's last line and the
    next marker. The marker lines of a block are found once per validation
    (``cache``)."""
    markers = cache.get((s, e))
    if markers is None:
        markers = cache[(s, e)] = [m.start() for m in _FILE_MARKER.finditer(text, s, e)
                                   if m.start() == s or text[m.start() - 1] == "\n"]
    if len(markers) < 2:
        return False
    bol = text.rfind("\n", max(s, c - 4096), c) + 1 or s
    j = bisect.bisect_left(markers, bol)
    if j < len(markers) and markers[j] == bol:
        return True  # in a marker line
    # at a line's end or in blank lines, with only blank lines up to the next marker
    j = bisect.bisect_left(markers, c)
    nxt = markers[j] if j < len(markers) else None
    return nxt is not None and nxt > markers[0] and _NONSPACE.search(text, c, nxt) is None


_NONSPACE = re.compile(r"\S")


#: markup: a tag (its attributes too), an MDX expression in braces, a comment
_MARKUP = re.compile(r"<!--.*?-->|<[^<>]*>|\{[^{}]*\}", re.S)
#: an attribute that names what its element wraps, and its value
_LABEL_ATTR = re.compile(r"""\b(?:title|label|description|summary|heading|caption)\s*=\s*"""
                    r"""(?:"([^"]*)"|'([^']*)'|\{\s*["'`]([^"'`{}]*)["'`]\s*\})""", re.I)
#: a word (letters) outside the markup: text a reader reads
_WORD = re.compile(r"[^\W\d_]{2,}")
#: a reStructuredText directive's head without an argument (``.. note::``) and its options
_BARE_DIRECTIVE = re.compile(r"\s*\.\.[ \t]+[\w:-]+::[ \t]*(?:\r?\n[ \t]+:[\w -]+:[^\r\n]*)*\s*")
#: the largest element read for its blocks
_MARKUP_READ = 20_000


def markup_only(ctx: Context, issue: Issue, holders: _Holders) -> tuple[int, int, int, int, int, int] | None:
    """For a CS008 cut inside a tag of a JSX or HTML element (an MDX component's
    `<Tab value="…">`, its closing `</Tab>`) or inside the head line of a
    reStructuredText directive without an argument (``.. note::``): whether only
    the element's own markup is split — no block inside it (a paragraph, a code
    block, a list) is cut, each is whole in some chunk, and what is outside those
    blocks carries no text a reader reads (no word outside tags and braces, no
    ``title``/``label``/``description`` of two words or more that names them;
    for a directive, no argument). ``(start, end, last block's start, first
    block's end, blocks, chunk holding the first)`` read, else None."""
    kind = (issue.data or {}).get("kind")
    if kind not in ("jsx", "html_block", "directive", "explicit") or issue.unit is None or issue.cut is None:
        return None
    s, e = issue.unit
    if e - s > _MARKUP_READ:
        return None
    text = ctx.text
    c = issue.cut
    if kind in ("directive", "explicit"):
        head = text.find("\n", s, e)
        if not s < c < (e if head < 0 else head):
            return None  # not in the directive's own line: a bare head ending a chunk loses its body
    elif not (text.rfind("<", s, c) > text.rfind(">", s, c) and text.find(">", c, e) >= 0):
        # not inside a tag: a whole opening tag ending a chunk (`<PagesOnly>`) says what
        # the blocks after it are for, and they start the next chunk without it
        return None
    inner = [b for b in ctx.structure.blocks_between(s, e)
             if b.is_leaf and b.end <= e and b.kind not in ("html_block", "jsx", "esm")]
    if not inner or any(b.start < issue.cut < b.end for b in inner):
        return None  # nothing but markup, or a block inside is cut (its own rule's matter)
    parts, pos = [], s
    for b in inner:
        parts.append(text[pos:b.start])
        pos = max(pos, b.end)
    parts.append(text[pos:e])
    markup = "".join(parts)
    if kind in ("directive", "explicit"):
        if not _BARE_DIRECTIVE.fullmatch(markup):
            return None  # a directive with an argument (a name, a title) or text of its own
    else:
        for m in _LABEL_ATTR.finditer(markup):
            if len(next(g for g in m.groups() if g is not None).split()) >= 2:
                return None  # a label that names what the element wraps
        if _WORD.search(_MARKUP.sub(" ", markup)):
            return None
    first_holder = None
    for b in inner:
        k = holders.holder(b.start, b.end)
        if k is None:
            return None
        first_holder = k if first_holder is None else first_holder
    return (s, e, max(b.start for b in inner), min(b.end for b in inner), len(inner), first_holder)


#: a code block's opening line (a fence with its info string)
_FENCE_OPEN = re.compile(r"[ \t]*(?:`{3,}|~{3,})[^\r\n]*\r?\n")
#: lines a definition may come after: blank, comments, imports, decorators
_PREAMBLE = re.compile(r"[ \t]*(?:$|//|#|/\*|\*|--|import\b|from\s+\S+\s+import\b|using\b|package\b"
                       r"|use\b|(?:const|let|var)\s+\w+\s*=\s*require\(|@(?!\w+\s*\{)[\w.]+)")
#: a definition that names what it is: a type, a class, a function; a bibliography entry
_DEFINITION = re.compile(r"[ \t]*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:pub(?:\([^)]*\))?\s+)?"
                         r"(?:abstract\s+)?(?:async\s+)?"
                         r"(?:interface|type|class|struct|enum|trait|def|function|fn|func)\s+([A-Za-z_$][\w$]*)"
                         r"|[ \t]*@(\w+)\s*\{\s*([^,\s]+)")
#: how much of a code block is read for its definition
_DEFINITION_READ = 600


#: a line that imports (Python, JavaScript/TypeScript, Go, Rust, Java/Kotlin, C#, C, R)
_IMPORT_LINE = re.compile(
    r"[ \t]*(?:import\b|from\s+[\w.]+\s+import\b|(?:const|let|var)\s+[\w${}, \t]+=\s*require\("
    r"|use\s+[\w:{]|extern\s+crate\b|package\s+[\w.]+;?[ \t]*$|using\s+[\w.]+\s*;"
    r"|#\s*include\b|library\(|require\s*\(?\s*['\"])")
#: a comment line (kept with the imports when it comes before them)
_COMMENT_LINE = re.compile(r"[ \t]*(?:#(?!\s*include)|//|/\*|\*|--|<!--)")
#: how far a code block's leading imports are read
_IMPORTS_READ = 4096


def import_prefix(text: str, s: int, e: int, bounds: list | None = None) -> int:
    """Where the code of the code block whose code spans ``[s, e)`` starts
    after its leading import lines (``import``, ``from … import``, ``require``,
    ``use``, ``package``, ``#include``; a statement over several lines, as
    ``from x import (`` … ``)``, counts whole), the comment and blank lines
    before and among them: the first character of the next line holding
    anything else. ``s`` when the block does not open with an import (or its
    imports run past what is read). ``bounds`` gets the start of each line
    that begins outside an import statement (a cut there parts whole
    statements)."""
    reach = min(e, s + _IMPORTS_READ)
    pos, code, seen = s, s, False
    open_ = 0  # brackets an import statement left open
    while pos < reach:
        eol = text.find("\n", pos, reach)
        if eol < 0:
            return s  # (the imports run on past what is read, or to the block's end: no code after)
        line = text[pos:eol]
        if not open_ and bounds is not None:
            bounds.append(pos)
        if open_:
            open_ += line.count("(") + line.count("{") - line.count(")") - line.count("}")
            open_ = max(open_, 0)
        elif _IMPORT_LINE.match(line):
            seen = True
            open_ = max(0, line.count("(") + line.count("{") - line.count(")") - line.count("}"))
        elif not line.strip() or (not seen and _COMMENT_LINE.match(line)):
            pass
        else:
            break
        pos = eol + 1
        if not open_ and seen:
            code = pos
    if not seen or open_:
        return s
    while code < reach and text[code] in " \t\r\n":
        code += 1
    return code if code < e else s


def self_named(text: str, body: int) -> tuple[str, int]:
    """What a code block at ``body`` (a fence or a literal block) defines when its
    first line of code, after comments, imports and decorators, is a named
    definition ("interface ErrorObject", "class User", a BibTeX entry): such a
    block names itself, and the lead-in before it adds little. ("", reach) else;
    ``reach`` is how far the text was read."""
    reach = min(len(text), body + _DEFINITION_READ)
    m = _FENCE_OPEN.match(text, body, reach)
    pos = m.end() if m else body
    while pos < reach:
        eol = text.find("\n", pos, reach)
        line = text[pos : reach if eol < 0 else eol].rstrip("\r")
        if line.strip().startswith(("```", "~~~")):
            return "", reach
        d = _DEFINITION.match(line)
        if d is not None:
            if d.group(1):
                kind = line.split(d.group(1))[0].split()[-1]
                return f"{kind} {d.group(1)}", reach
            return f"@{d.group(2)}{{{d.group(3)}", reach
        if not _PREAMBLE.match(line) or eol < 0:
            return "", reach
        pos = eol + 1
    return "", reach


def _lines(text: str, a: int, b: int, most: int = 2) -> int:
    """How many lines of ``text[a:b]`` hold more than spaces, counted up to
    ``most + 1`` (what is read stops there)."""
    n = 0
    while a < b and n <= most:
        k = text.find("\n", a, b)
        k = b if k < 0 else k
        if _NONSPACE.search(text, a, k) is not None:
            n += 1
        a = k + 1
    return n


def _decoration(ctx: Context, issue: Issue, read: list | None = None) -> str:
    """The decoration the issue's cut falls in ("" for content). With
    ``read``, what was read is appended to it: when the blocks around the cut
    are asked for, None, then those whose text was judged (``(kind, start,
    end)``, outermost first)."""
    whole = ctx.__dict__.get("_licence_file")
    if whole is None:  # (asked once per validation)
        whole = ctx.__dict__["_licence_file"] = licence_file(getattr(ctx.doc, "path", None))
    if whole:
        return "licence text"
    if ctx.doc.kind not in ("markdown", "text"):
        return ""
    at = _decoration_at(issue)
    if at is None:
        return ""
    if read is not None:
        read.append(None)  # (the blocks around the cut are asked for)
    st = ctx.structure
    text = ctx.text
    seen = ctx.__dict__.setdefault("_regions", {})  # each block judged once per validation
    for b in st.strictly_containing(at):
        key = (b.kind, b.start, b.end)
        if read is not None:
            read.append(key)
        got = seen.get(key)
        if got is None:
            got = seen[key] = region(b.kind, text[b.start : b.end])
        if got:
            return got
    return ""


def _decoration_at(issue: Issue) -> int | None:
    """Where :func:`_decoration` looks for the blocks around an issue's cut."""
    at = issue.cut
    if issue.code == "CS007":  # the heading's body is what the cut separates it from
        body = (issue.data or {}).get("body")
        at = body + 1 if isinstance(body, int) else at
    return at


def _grade_one(ctx: Context, issue: Issue, holders: _Holders | None, loud_overlap: bool,
               loud_decoration: bool, read: list) -> Issue:
    """``issue`` graded (itself when it keeps its severity). What the verdict
    read is appended to ``read``: ``[hi, first, end, lo, blocks]`` — the
    text is read in ``[lo, hi)`` only, the chunks starting at or before
    ``first`` only, to find one that ends at or after ``end`` (both None: no
    chunk read), and when the blocks around the cut were asked for
    (decoration), ``(blocks, all)``: those judged (``(kind, start, end)``,
    outermost first) and whether they were all the blocks there (none was
    decoration)."""
    text = ctx.text
    hi = issue.cut + 1
    lo = issue.cut
    first = end = None
    unit = issue.unit
    if unit is not None:
        hi = max(hi, unit[1] + 41)  # (the junk test reads up to 41 characters past the unit)
        lo = min(lo, text.rfind("\n", 0, unit[0]) + 1)  # (and back to the line's start)
    if not loud_overlap and issue.code == "CS003" and unit is not None:
        # a cut in a code block's opening line (the fence and its language) or its
        # closing fence, or in the blank lines around the code: the code is not cut
        s, e = core(text, "CS003", unit)
        while e > s and text[e - 1] in " \t\r\n":
            e -= 1
        hi, lo = max(hi, unit[1], e), min(lo, unit[0], s)
        if s < e and not s < issue.cut < e:
            read += (hi, first, end, lo)
            side = "opening line" if issue.cut <= s else "closing fence"
            return regraded(issue, f"only the code block's {side} is on one side of the cut: "
                                   "its code is not cut", impact="whole-elsewhere")
        if _between_files(text, s, e, issue.cut, ctx.__dict__.setdefault("_file_markers", {})):
            read += (hi, first, end, lo)
            return regraded(issue, "the cut is between two files of the code block (file-name marker "
                                   "lines): each file's code is on one side", impact="whole-elsewhere")
    if not loud_overlap and issue.code != "CS007":  # (CS007 reads the overlap itself)
        u = _unit(issue) if holders.overlap else None
        if u is not None:
            s, e = core(text, issue.code, u)
            hi = max(hi, u[1], e)
            lo = min(lo, u[0], s)
            first, end = s, e
            k = holders.holder(s, e)
            if k is not None:
                read += (hi, first, end, lo)
                what = _UNIT.get(issue.code, "unit")
                return regraded(issue, f"the {what} is whole in chunk {k + 1} (overlap)",
                                impact="whole-elsewhere", whole_in=k)
            if issue.code == "CS003":
                # a code block longer than a chunk, with at most two of its lines on one side
                # of the cut, and those in a chunk that goes on across the cut (overlap): that
                # side is a copy of the other chunk's edge, the break is where that chunk ends
                c = issue.cut
                first, end = max(first, c), min(end, c)  # (a chunk ending at c is read too)
                # (the side of the chunk that ends or starts at the cut: the other side is
                # what that chunk lacks, a real loss)
                ends_here, starts_here = holders.ends_at(c), holders.starts_at(c)
                for a, b, need, mine in ((s, c, (s, c + 1), ends_here and not starts_here),
                                         (c, e, (c - 1, e), starts_here and not ends_here)):
                    if mine and 0 < b - a <= 4096 and _lines(text, a, b) <= 2:
                        k = holders.holder(*need)
                        if k is not None:
                            read += (hi, first, end, lo)
                            side = "before" if a == s else "after"
                            return regraded(issue, f"the code block's lines {side} the cut are in chunk {k + 1} "
                                                   "too, which goes on across the cut (overlap)",
                                            impact="whole-elsewhere", whole_in=k)
    if not loud_overlap and issue.code == "CS003" and unit is not None:
        # the code block's leading imports apart from its code, which is whole in a
        # chunk: the example reads without them (a cut inside an import statement
        # breaks the statement itself and stays loud)
        s, e = core(text, "CS003", unit)
        while e > s and text[e - 1] in " \t\r\n":
            e -= 1
        bounds: list = []
        p = import_prefix(text, s, e, bounds)
        hi, lo = max(hi, e), min(lo, s)
        c = issue.cut
        if c < p:  # (in the imports: only between two whole statements)
            bol = text.rfind("\n", 0, c) + 1
            eol = text.find("\n", c)
            at_line = bol if not text[bol:c].strip() else (eol + 1 if eol >= 0 and not text[c:eol].strip() else -1)
        if s < p and (c >= p or at_line in bounds):
            first = p if first is None else max(first, p)
            end = e if end is None else min(end, e)
            k = holders.holder(p, e)
            if k is not None:
                read += (hi, first, end, lo)
                return regraded(issue, f"only its import lines are apart from the code, which is whole "
                                       f"in chunk {k + 1}", impact="imports-only", whole_in=k)
    if not loud_overlap and issue.code == "CS008":
        got = markup_only(ctx, issue, holders)
        if got is not None:
            a, b, last_start, first_end, n, k = got
            hi, lo = max(hi, b + 1), min(lo, text.rfind("\n", 0, a) + 1)
            # (the chunks starting at or before the last block's start were read, to
            # find for each block one that holds it: those before them end too soon)
            first = last_start if first is None else max(first, last_start)
            end = first_end if end is None else min(end, first_end)
            read += (hi, first, end, lo)
            whole = f"the block inside is whole in chunk {k + 1}" if n == 1 else \
                f"each of the {n} blocks inside is whole in a chunk"
            return regraded(issue, f"only markup is cut ({whole})", impact="markup-only")
    if not loud_overlap and issue.code == "CS004":
        # the verdict reads the table's text and rows, and the chunks that start at
        # the cut or hold the row it falls in: kept with it whichever way it goes
        c = issue.cut
        around = ctx.structure.strictly_containing(c)
        table = next((b for b in around if b.kind == "table"), None)
        if table is not None:
            lo = min(lo, text.rfind("\n", 0, max(0, table.start - 1)) + 1)
            nxt = text.find("\n", table.end + 1)
            hi = max(hi, len(text) if nxt < 0 else nxt + 1, _target_reach(text, c))
            first = c if first is None else max(first, c)
            end = c if end is None else min(end, c)
            if _header_only(ctx, issue, holders):
                read += (hi, first, end, lo)
                read.append(([(b.kind, b.start, b.end) for b in around], True))
                return regraded(issue, "its rows name what they describe: they read the same "
                                       "without the header", impact="self-describing")
    if not loud_overlap and issue.code == "CS007" and isinstance((issue.data or {}).get("body"), int) \
            and "lead_in" in issue.data:
        name, reach = self_named(text, issue.data["body"])
        hi = max(hi, reach)
        if name:
            read += (hi, first, end, lo)
            return regraded(issue, f"what it introduces names itself ({name})", impact="self-describing")
    if not loud_overlap and issue.code in _JUNK_RULES:
        junk = junk_side(text, issue)
        if junk:
            read += (hi, first, end, lo)
            what = _UNIT.get(issue.code, "unit")
            return regraded(issue, f"only \u201c{junk}\u201d of the {what} is on one side of the cut",
                            impact="whole-elsewhere")
    read += (hi, first, end, lo)
    if not loud_decoration:
        # markup nobody reads right at the cut, whatever block holds it (a data URL in a
        # style sheet's code block, a link target's line): read on the cut's line only
        what, a, b = inline_span(text, _decoration_at(issue))
        read[0], read[3] = max(read[0], b), min(read[3], a)
        if what:
            return regraded(issue, f"in {what} (decoration)", impact="decoration", region=what)
        blocks: list = []
        where = _decoration(ctx, issue, blocks)
        if blocks:  # the blocks judged, and whether they were all there were (no region found)
            blocks = blocks[1:]
            if blocks:
                read[0] = max(hi, max(b[2] for b in blocks))
                read[3] = min(lo, min(b[1] for b in blocks))
            read.append((blocks, not where))
        if where:
            return regraded(issue, f"in {where} (decoration)", impact="decoration", region=where)
    if not loud_overlap and issue.code in ("CS001", "CS006"):
        k = link_target_at(text, issue.cut)
        read[0] = max(read[0], _target_reach(text, issue.cut))
        read[3] = min(read[3], max(text.rfind("\n", 0, issue.cut) + 1, issue.cut - _TARGET_READ))
        if k is not None:
            return regraded(issue, "only the link's target (its URL) is cut: the link's text is whole",
                            impact="whole-elsewhere")
    return issue


class _Kept:
    """One validation's grading, kept on its document version for the next
    (see the module documentation)."""

    __slots__ = ("key", "views", "by_id", "_by_cut")

    def __init__(self, key: tuple, views: list, by_id: dict) -> None:
        self._by_cut: dict | None = None
        #: what every verdict shares: the settings that grade, the document's
        #: kind and path (licence files), whether any chunks overlap
        self.key = key
        #: the chunks (start, end, position) in order of start
        self.views = views
        #: id(issue) -> (issue, graded issue, hi, first, end, lo, blocks)
        self.by_id = by_id

    def by_cut(self) -> dict:
        """(code, cut) -> the entry of :attr:`by_id` (made when first asked;
        two threads make equal ones)."""
        index = self._by_cut
        if index is None:
            index = {(e[0].code, e[0].cut): e for e in self.by_id.values()}
            self._by_cut = index
        return index


def _previous(doc: Any, key: tuple) -> tuple[_Kept | None, int, int, int]:
    """The grading kept by ``doc``'s nearest ancestor with one of ``key``,
    and the edit from that ancestor's text to this one: ``[start, end)``
    replaced by ``inserted`` characters."""
    for ancestor, start, end, inserted in doc.lineage():
        kept = ancestor.memoised("impact-grading")
        if kept is not None:
            return (kept, start, end, inserted) if kept.key == key else (None, 0, 0, 0)
    return None, 0, 0, 0


def _moved_views(views: list, old: list, delta: int) -> tuple[int, int, int]:
    """``(j, reach, old_reach)``: the chunks from ``views[j]`` on are the
    last ones of ``old`` moved by ``delta`` (same numbers, spans ``delta``
    further on); ``reach`` and ``old_reach`` the furthest end of the chunks
    before those in either list (-1: none)."""
    j, i = len(views), len(old)
    while j > 0 and i > 0:
        a, b = views[j - 1], old[i - 1]
        if a[2] != b[2] or a[0] != b[0] + delta or a[1] != b[1] + delta:
            break
        j -= 1
        i -= 1
    return (j, max((v[1] for v in views[:j]), default=-1), max((v[1] for v in old[:i]), default=-1))


def _chunk_limit(views: list, old: list) -> float:
    """The start below which every chunk that starts there is the same in both
    lists (same span, same number)."""
    k, n = 0, min(len(views), len(old))
    while k < n and views[k] == old[k]:
        k += 1
    limit = float("inf")
    if k < len(views):
        limit = views[k][0]
    if k < len(old):
        limit = min(limit, old[k][0])
    return limit


def _same_blocks(ctx: Context, issue: Issue, asked: tuple | None, delta: int) -> bool:
    """Whether the blocks around ``issue``'s cut are those a kept verdict
    judged (``asked``, see :func:`_grade_one`), ``delta`` characters further
    on: the same (kind, start, end) from the outermost in, all of them when
    none was decoration. None: the verdict asked for none."""
    if asked is None:
        return True
    blocks, whole = asked
    at = _decoration_at(issue)
    now = [] if at is None else ctx.structure.strictly_containing(at)
    if len(now) < len(blocks) or (whole and len(now) != len(blocks)):
        return False
    return all(b.kind == k and b.start == a + delta and b.end == e + delta
               for b, (k, a, e) in zip(now, blocks))


def _moved_issue(old: Issue, new: Issue, delta: int) -> bool:
    """Whether ``new`` is ``old`` moved ``delta`` characters on, in all a
    grading reads of an issue: rule, severity, cut, unit, and the offsets
    in ``data`` it reads (an HTML block's element, a heading's body)."""
    if old.code != new.code or old.severity != new.severity or old.cut + delta != new.cut:
        return False
    u, v = old.unit, new.unit
    if (u is None) != (v is None) or (u is not None and (u[0] + delta != v[0] or u[1] + delta != v[1])):
        return False
    a, b = old.data or {}, new.data or {}
    for name in ("element", "body"):
        x, y = a.get(name), b.get(name)
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            if any(type(p) is not int or p + delta != q for p, q in zip(x, y)):
                return False
        elif isinstance(x, int) and isinstance(y, int):
            if x + delta != y:
                return False
        elif x is not None or y is not None:
            return False
    return True


def _graded_as(issue: Issue, old: Issue, graded: Issue) -> Issue:
    """``issue`` graded as ``old`` was (``graded``)."""
    if graded is old:
        return issue
    extra = {k: graded.data[k] for k in ("impact", "whole_in", "region") if k in graded.data}
    return regraded(issue, graded._message.why, **extra)


def grade(ctx: Context, issues: list[Issue], *, keep: bool = False) -> list[Issue]:
    """``issues`` with each loud cut issue that loses no content re-graded
    (see the module documentation). ``keep``: the grading is kept on the
    document for its next version, whose validation hands it the same issue
    objects where nothing they were graded from changed (the language
    server's)."""
    settings = ctx.settings
    loud_overlap = bool(getattr(settings, "loud_overlap", False))
    loud_decoration = bool(getattr(settings, "loud_decoration", False))
    if loud_overlap and loud_decoration:
        return issues
    holders = None
    previous = None
    limit: float = 0
    edited = edit_end = delta = 0
    moved = None
    by_id: dict[int, tuple] = {}
    out = []
    for issue in issues:
        if issue.code not in CUT_RULES or issue.severity not in _LOUD or issue.cut is None:
            out.append(issue)
            continue
        if holders is None:
            holders = _Holders(ctx.chunks)
            views = [(v.start, v.end, v.position) for v in holders.views]
            key = (loud_overlap, loud_decoration, ctx.doc.kind, getattr(ctx.doc, "path", None),
                   holders.overlap)
            if keep:
                previous, edited, edit_end, inserted = _previous(ctx.doc, key)
                if previous is not None:
                    limit = _chunk_limit(views, previous.views)
                    delta = inserted - (edit_end - edited)
        if previous is not None:
            was = previous.by_id.get(id(issue))
            if was is not None and was[0] is issue:
                # the same issue (a cut before the edit): the same grading when the
                # edit is past the text it read, the chunks that may hold its unit
                # are the same and so are the blocks around its cut
                if (was[2] <= edited and (was[3] is None or was[3] < limit)
                        and _same_blocks(ctx, issue, was[6], 0)):
                    graded = was[1]
                    if graded is not issue:
                        graded._text = ctx.text  # (its message reads this text: the same there)
                    by_id[id(issue)] = was
                    out.append(graded)
                    continue
            elif issue.cut >= edited + delta + (edit_end - edited):
                # an issue moved by the edit (a cut past it): the grading of the
                # same issue there, moved, when what it read is past the edit too
                if moved is None:
                    moved = _moved_views(views, previous.views, delta)
                was = previous.by_cut().get((issue.code, issue.cut - delta))
                # (a chunk may hold its unit in either version only among the
                # chunks that are the same, moved: those before them end too soon)
                if (was is not None and was[5] >= edit_end and _moved_issue(was[0], issue, delta)
                        and (was[3] is None or (moved[1] < was[4] + delta and moved[2] < was[4]))
                        and _same_blocks(ctx, issue, was[6], delta)):
                    graded = _graded_as(issue, was[0], was[1])
                    stamp = (issue, graded, was[2] + delta, None if was[3] is None else was[3] + delta,
                             None if was[4] is None else was[4] + delta, was[5] + delta,
                             None if was[6] is None else (
                                 [(k, a + delta, b + delta) for k, a, b in was[6][0]], was[6][1]))
                    if keep:
                        by_id[id(issue)] = stamp
                    out.append(graded)
                    continue
        read: list = []
        graded = _grade_one(ctx, issue, holders, loud_overlap, loud_decoration, read)
        if keep:
            by_id[id(issue)] = (issue, graded, *read[:4], read[4] if len(read) > 4 else None)
        out.append(graded)
    if keep and holders is not None:
        kept = _Kept(key, views, by_id)
        ctx.doc.memo("impact-grading", lambda: kept)
    return out
