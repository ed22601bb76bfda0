"""Suppression comments, and CS900/CS901 for the ones that do nothing.

Markdown (and plain text):

* ``<!-- chunkseam-disable CS002 -->`` … ``<!-- chunkseam-enable -->`` —
  a region: issues whose cut (or, for chunk issues, start) lies between the
  end of the ``disable`` comment and the start of the matching ``enable``
  comment (or the end of the file). A bare ``enable`` ends every region; an
  ``enable`` naming rules ends the regions opened for those rules.
* ``<!-- chunkseam-disable-next-line CS004 -->`` — issues whose range starts
  on the line after the comment, or whose cut lies on it (a cut at the very
  start of a line also counts as on the line before it).
* ``<!-- chunkseam-disable-line CS002 -->`` — issues whose range starts on
  the comment's own line, or whose cut lies on it (markdownlint's
  ``disable-line``).
* ``<!-- chunkseam-disable-file -->`` / ``<!-- chunkseam-disable-file CS002 -->``
  — the whole file.

reStructuredText (and other plain text): the same verbs as comment lines,
``.. chunkseam-disable CS002``, ``.. chunkseam-enable``,
``.. chunkseam-disable-next-line CS004``, ``.. chunkseam-disable-file``; a
comment line stands alone, so ``disable-line`` there covers its own line only.

Python: ``# chunkseam: ignore[CS201]`` (or bare ``# chunkseam: ignore``) in
a comment covers issues whose range starts on that line or whose cut lies on
it — put it on the ``def`` line to silence every CS201 of that function, or
on the line where the cut is for that cut alone; ``# chunkseam:
ignore-file[CS201]`` covers the file.

Jupyter notebooks: the Markdown comments in markdown cells (a region runs
on through the following cells); in code cells, ``# chunkseam: ignore[CS003]``
(``//`` in languages that comment so) as in a Python file.

Rules are named by code, code prefix or name, separated by spaces or commas;
no rule means every rule. Comments inside code blocks or inline code are
text, not suppressions.

Each suppression that silences nothing is reported as CS900
unused-suppression (info, like ruff's unused ``noqa``): per rule named, when
it names rules. A name that is no rule is reported as CS901
unknown-suppression. Both can be turned off like any rule, or with an
explicit ``<!-- chunkseam-disable-file CS900 -->``.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.checks.base import code_spans
from chunkseam.checks.registry import RULES, match_selector

_MD_COMMENT = re.compile(
    r"<!--[ \t]*chunkseam-(disable-next-line|disable-line|disable-file|disable|enable)\b(.*?)-->", re.S)
#: a reStructuredText comment line: ``.. chunkseam-disable CS002``
_RST_COMMENT = re.compile(
    r"^[ \t]*\.\.[ \t]+chunkseam-(disable-next-line|disable-line|disable-file|disable|enable)\b([^\r\n]*)$",
    re.M)
_PY_COMMENT = re.compile(
    r"#[ \t]*chunkseam:[ \t]*(ignore-file|disable-file|ignore)\b(?:[ \t]*\[([^\]]*)\])?")
#: the same in a ``//`` or ``/* */`` comment of JavaScript, TypeScript, Go, Rust, Java
_CODE_COMMENT = re.compile(
    r"(?://|/\*)[ \t]*chunkseam:[ \t]*(ignore-file|disable-file|ignore)\b(?:[ \t]*\[([^\]]*)\])?")
_SPLIT = re.compile(r"[\s,]+")


@dataclass
class Suppression:
    kind: str  # "disable" | "enable" | "next-line" | "file" | "line"
    start: int  # the comment's span
    end: int
    names: tuple[str, ...]  # as written (known ones)
    codes: frozenset[str] | None  # None = every rule
    unknown: tuple[str, ...] = ()
    line: int = -1  # the line it covers (next-line / line)
    region: tuple[int, int] | None = None  # disable: offsets covered
    used: set[str] = field(default_factory=set)  # codes it suppressed

    def covers_code(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def _names(raw: str) -> tuple[tuple[str, ...], frozenset[str] | None, tuple[str, ...]]:
    tokens = [t for t in _SPLIT.split(raw.strip()) if t]
    if not tokens:
        return (), None, ()
    known: list[str] = []
    unknown: list[str] = []
    codes: set[str] = set()
    for t in tokens:
        found, spec = match_selector(t)
        if spec < 0:
            unknown.append(t)
        else:
            known.append(t)
            codes.update(found)
    return tuple(known), frozenset(codes), tuple(unknown)


def _in_code(doc: Document, offset: int) -> bool:
    """Whether ``offset`` is inside a code block or an inline code span."""
    if doc.kind != "markdown":
        return False
    from chunkseam.structure.markdown import structure

    st = structure(doc)
    leaf = st.leaf_at(offset)
    if leaf is None:
        return False
    if leaf.kind in ("fence", "code"):
        return True
    if leaf.kind in ("paragraph", "heading"):
        rel = offset - leaf.start
        return any(a <= rel < b for a, b in code_spans(doc.text[leaf.start : leaf.end]))
    return False


def parse(doc: Document) -> list[Suppression]:
    """The suppression comments of a document, in order."""
    text = doc.text
    if "chunkseam" not in text:
        return []
    if doc.kind == "python":
        return _parse_python(doc)
    if doc.kind == "code":
        return _parse_code(doc)
    if doc.kind not in ("markdown", "text"):
        return []
    out: list[Suppression] = []
    open_regions: list[Suppression] = []
    found = list(_MD_COMMENT.finditer(text))
    from chunkseam.structure.rst import is_rst

    if doc.kind == "text" or is_rst(doc.path, doc.uri, doc.language_id):
        found = sorted(found + list(_RST_COMMENT.finditer(text)), key=lambda m: m.start())
    for m in found:
        if _in_code(doc, m.start()):
            continue
        verb = m.group(1)
        names, codes, unknown = _names(m.group(2))
        if unknown and not names:
            codes = frozenset()  # names nothing it knows: suppresses nothing
        if verb == "enable":
            for r in list(open_regions):
                if codes is None or (r.codes is not None and r.codes <= codes):
                    r.region = (r.region[0], m.start()) if r.region else None
                    open_regions.remove(r)
            out.append(Suppression("enable", m.start(), m.end(), names, codes, unknown))
            continue
        s = Suppression({"disable": "disable", "disable-next-line": "next-line", "disable-line": "line",
                         "disable-file": "file"}[verb], m.start(), m.end(), names, codes, unknown)
        if verb == "disable":
            s.region = (m.end(), len(text))
            open_regions.append(s)
        elif verb == "disable-next-line":
            s.line = doc.line_of(m.end()) + 1
        elif verb == "disable-line":
            s.line = doc.line_of(m.start())
        out.append(s)
    if getattr(doc, "notebook", None) is not None:
        out = sorted(out + _notebook_code_cells(doc), key=lambda s: s.start)
    return out


def _notebook_code_cells(doc: Document) -> list[Suppression]:
    """A notebook's code cells: ``# chunkseam: ignore[CS003]`` (or ``//``) in
    their comments, as in a Python or other code file (the cell is a fenced
    block of the view, where Markdown comments are text)."""
    nbmap = doc.notebook
    out: list[Suppression] = []
    for i, kind in enumerate(nbmap.kinds):
        if kind != "code":
            continue
        start, end = nbmap.span(i)
        comments = [(m.start(), m.group()) for m in _CELL_COMMENT.finditer(doc.text, start, end)]
        if comments:
            py = [(a, c) for a, c in comments if c.startswith("#")]
            out += _comment_suppressions(doc, py, _PY_COMMENT)
            out += _comment_suppressions(doc, [(a, c) for a, c in comments if not c.startswith("#")],
                                         _CODE_COMMENT)
    return out


#: a comment of a code cell that may be a suppression (``#`` or ``//`` to the end of the line)
_CELL_COMMENT = re.compile(r"(?:#|//)[ \t]*chunkseam:[^\r\n]*")


def _parse_code(doc: Document) -> list[Suppression]:
    """``// chunkseam: ignore[CS201]`` in the comments tree-sitter finds (none
    without the ``code`` extra)."""
    from chunkseam.structure.treesitter import ts_structure

    ts = ts_structure(doc)
    if ts is None or not ts.ok:
        return []
    return _comment_suppressions(doc, [(a, doc.text[a:b]) for a, b in ts.comments
                                       if "chunkseam" in doc.text[a:b]], _CODE_COMMENT)


def _parse_python(doc: Document) -> list[Suppression]:
    text = doc.text
    comments: list[tuple[int, str]] = []
    try:
        starts = doc.line_starts
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and "chunkseam" in tok.string:
                line, col = tok.start
                comments.append((starts[line - 1] + col, tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError, IndexError):
        comments = [(m.start(), m.group()) for m in re.finditer(r"#[^\r\n]*", text)
                    if "chunkseam" in m.group()]
    return _comment_suppressions(doc, comments, _PY_COMMENT)


def _comment_suppressions(doc: Document, comments: list[tuple[int, str]],
                          pattern: re.Pattern[str]) -> list[Suppression]:
    out: list[Suppression] = []
    for at, comment in comments:
        m = pattern.search(comment)
        if not m:
            continue
        names, codes, unknown = _names(m.group(2) or "")
        if unknown and not names:
            codes = frozenset()
        kind = "line" if m.group(1) == "ignore" else "file"
        s = Suppression(kind, at + m.start(), at + m.end(), names, codes, unknown)
        s.line = doc.line_of(at)
        out.append(s)
    return out


def _covers(doc: Document, s: Suppression, issue: Issue) -> bool:
    if not s.covers_code(issue.code):
        return False
    if s.kind == "file":
        return True
    if s.kind in ("next-line", "line"):
        if doc.line_of(issue.start) == s.line or (
                issue.unit is not None and doc.line_of(issue.unit[0]) == s.line):
            return True  # the line reported, or the line the broken unit starts on
        if issue.cut is None:
            return False
        line = doc.line_of(issue.cut)
        # a cut at a line's very start is also "at the end" of the line before
        return line == s.line or (line - 1 == s.line and issue.cut == doc.line_start(line))
    if s.kind == "disable" and s.region is not None:
        at = issue.cut if issue.cut is not None else issue.start
        return s.region[0] <= at < s.region[1] or (at == s.region[1] == len(doc.text))
    return False


def apply(doc: Document, issues: list[Issue], enabled: dict[str, str],
          make_issue) -> list[Issue]:
    """Issues left after suppressions, plus CS900/CS901 findings."""
    sups = parse(doc)
    if not sups:
        return issues
    kept: list[Issue] = []
    active = [s for s in sups if s.kind != "enable"]
    for issue in issues:
        hit = False
        for s in active:
            if _covers(doc, s, issue):
                s.used.add(issue.code)
                hit = True
        if not hit:
            kept.append(issue)
    extra: list[Issue] = []
    for s in sups:
        for name in s.unknown:
            extra.append(make_issue(
                "CS901", f'unknown rule "{name}" in a suppression comment', s.start, s.end,
                hint="name a rule by code (CS002) or name (mid-sentence); see `chunkseam rule`",
                fix="remove-name", name=name))
        if s.kind == "enable" or (s.codes is not None and not s.codes):
            continue
        if s.codes is None:
            if not s.used:
                extra.append(make_issue(
                    "CS900", "unused suppression: no issue here to silence", s.start, s.end,
                    hint="remove the comment", fix="remove-suppression", offset=s.start,
                    length=s.end - s.start))
            continue
        for name in s.names:
            codes = set(match_selector(name)[0])
            if codes & s.used:
                continue
            off = sorted(c for c in codes if c not in enabled)
            why = (f" ({', '.join(off)} not enabled)" if off and len(off) == len(codes)
                   else "")
            label = name if name.upper() in RULES else name
            extra.append(make_issue(
                "CS900", f"unused suppression of {label}: no {label} issue here{why}",
                s.start, s.end, hint="remove the comment or the rule from it",
                fix="remove-suppression", offset=s.start, length=s.end - s.start, name=name))
    # CS900/CS901 can be silenced by an explicit file-level suppression naming them
    files = [s for s in sups if s.kind == "file" and s.codes]
    extra = [i for i in extra if "CS900" in enabled or i.code != "CS900"]
    extra = [i for i in extra if "CS901" in enabled or i.code != "CS901"]
    extra = [i for i in extra if not any(i.code in s.codes for s in files)]  # type: ignore[operator]
    return kept + extra
