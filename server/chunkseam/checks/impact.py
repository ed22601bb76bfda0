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

Only a cut that loses content keeps its rule's severity. The settings
``loud-overlap`` and ``loud-decoration`` (both false by default) keep the
rule's severity for these too. A rule graded below info (``hint``) stays
there. CS101 has its own: a chunk that is over the size only because the
chunker kept an atomic unit whole (a code block, a table) is info up to twice
the size (``loud-kept-whole``), see :func:`chunkseam.checks.chunks.oversize`.

Runs after the cut judgements (which are cached by their neighbourhood, see
:mod:`chunkseam.validate`) on the issues of one validation, so both read the
same chunks; it never changes an issue it is given (the cache may hold it):
a re-graded issue is a new one.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ..issue import SEVERITY_RANK, Issue
from .base import Context
from .decoration import licence_file, region

#: the cut rules whose issues are graded by impact
CUT_RULES = frozenset({"CS001", "CS002", "CS003", "CS004", "CS005", "CS006", "CS007", "CS008"})
#: the rules whose unit may be whole but for a few marks on one side of the cut
_JUNK_RULES = frozenset({"CS002", "CS005", "CS006"})
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
        self.views = sorted(views, key=lambda v: (v.start, v.end))
        self.starts = [v.start for v in self.views]
        self.reach = []
        top = -1
        for v in self.views:
            top = max(top, v.end)
            self.reach.append(top)
        # chunks overlap at all (else no chunk can hold a unit that a cut splits)
        self.overlap = any(self.views[k].start < self.reach[k - 1] for k in range(1, len(self.views)))

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
        t = _CODE_TAIL.search(text, s, e)
        if t is not None:
            e = t.start()
    return (s, max(s, e))


def junk_side(text: str, issue: Issue) -> str | None:
    """The text on one side of the cut inside the unit when it holds no letter
    or digit ("``).``", a closing fence's "}"): the unit is whole for a reader
    but for those marks. None otherwise."""
    unit = issue.unit
    c = issue.cut
    if unit is None or c is None or not unit[0] < c < unit[1]:
        return None
    for a, b, marks in ((unit[0], c, _OPENING), (c, unit[1], _CLOSING)):
        piece = text[a:b]
        if len(piece) <= 12 and marks.fullmatch(piece):
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
    first cell (a name, a code span, a link) and a cell of prose (three words
    or more, images and link targets left out). Such rows read the same
    without the header ("Name | Description"); rows of figures do not."""
    body = rows[1:]
    if not body:
        return False
    for rs, re_ in body:
        cells = _cells(text[rs:re_])
        if len(cells) < 2:
            return False
        name = len(_CELL_WORD.findall(_TARGET.sub("]", _REF_IMAGE.sub(" ", cells[0]))))
        prose = max(len(_CELL_WORD.findall(_TARGET.sub("]", _REF_IMAGE.sub(" ", c)))) for c in cells[1:])
        linked = "](" in cells[0] or "][" in cells[0] or "<a " in cells[0]  # (a linked logo names it too)
        if not (1 <= name <= 6 or (name == 0 and linked)) or prose < 3:
            return False
    return True


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
        if inside is not None:
            if holders is None or not holders.overlap or holders.holder(*inside) is None:
                return False
            if any(v.start == c for v in ctx.chunks):
                return False  # a chunk starts with the row's tail: a description without its name
    return self_describing(text, rows)


def _decoration(ctx: Context, issue: Issue) -> str:
    """The decoration the issue's cut falls in ("" for content)."""
    whole = ctx.__dict__.get("_licence_file")
    if whole is None:  # (asked once per validation)
        whole = ctx.__dict__["_licence_file"] = licence_file(getattr(ctx.doc, "path", None))
    if whole:
        return "licence text"
    if ctx.doc.kind not in ("markdown", "text"):
        return ""
    at = issue.cut
    if issue.code == "CS007":  # the heading's body is what the cut separates it from
        body = (issue.data or {}).get("body")
        at = body + 1 if isinstance(body, int) else at
    if at is None:
        return ""
    st = ctx.structure
    text = ctx.text
    seen = ctx.__dict__.setdefault("_regions", {})  # each block judged once per validation
    for b in st.strictly_containing(at):
        key = (b.kind, b.start, b.end)
        got = seen.get(key)
        if got is None:
            got = seen[key] = region(b.kind, text[b.start : b.end])
        if got:
            return got
    return ""


def grade(ctx: Context, issues: list[Issue]) -> list[Issue]:
    """``issues`` with each loud cut issue that loses no content re-graded
    (see the module documentation)."""
    settings = ctx.settings
    loud_overlap = bool(getattr(settings, "loud_overlap", False))
    loud_decoration = bool(getattr(settings, "loud_decoration", False))
    if loud_overlap and loud_decoration:
        return issues
    holders = None
    out = []
    for issue in issues:
        if issue.code not in CUT_RULES or issue.severity not in _LOUD or issue.cut is None:
            out.append(issue)
            continue
        if not loud_overlap and issue.code != "CS007":  # (CS007 reads the overlap itself)
            if holders is None:
                holders = _Holders(ctx.chunks)
            unit = _unit(issue) if holders.overlap else None
            if unit is not None:
                k = holders.holder(*core(ctx.text, issue.code, unit))
                if k is not None and k not in (None,):
                    what = _UNIT.get(issue.code, "unit")
                    out.append(regraded(issue, f"the {what} is whole in chunk {k + 1} (overlap)",
                                        impact="whole-elsewhere", whole_in=k))
                    continue
        if not loud_overlap and issue.code == "CS004":
            if holders is None:
                holders = _Holders(ctx.chunks)
            if _header_only(ctx, issue, holders):
                out.append(regraded(issue, "its rows name what they describe: they read the same "
                                           "without the header", impact="self-describing"))
                continue
        if not loud_overlap and issue.code in _JUNK_RULES:
            junk = junk_side(ctx.text, issue)
            if junk:
                what = _UNIT.get(issue.code, "unit")
                out.append(regraded(issue, f"only \u201c{junk}\u201d of the {what} is on one side of the cut",
                                    impact="whole-elsewhere"))
                continue
        if not loud_decoration:
            where = _decoration(ctx, issue)
            if where:
                out.append(regraded(issue, f"in {where} (decoration)", impact="decoration",
                                    region=where))
                continue
        out.append(issue)
    return out
