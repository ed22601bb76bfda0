"""Quick fixes, proven before they are offered.

A fix is an edit plus the re-simulation that shows what it does. For an
issue, :func:`candidates` proposes edits (in offsets of the document):

- **Close the code fence** — an unterminated fence gets a closing fence
  before the next heading, or at the end;
- **Insert paragraph break** before the sentence a cut splits (CS001/CS002);
- **Move heading down to its body** (CS007);
- **Split the code block at the cut** (CS003): the fence is closed and
  reopened at the start of the line that holds the cut;
- **Repeat the table header after the cut** (CS004);
- **Remove the unused suppression** (CS900) or the unknown name (CS901);
- **Disable CSxxx for this line / for this file** (suppression comments).

:func:`verify` applies a candidate to a copy of the document, re-runs the
configured chunker and checks (the engine's caches make that an incremental
re-analysis) and measures the net effect: whether the targeted issue is gone,
how many issues of each severity appear or disappear elsewhere, and whether
the edit shifted the later cuts (a windowed chunker such as ``fixed`` moves
every cut after an insertion). The faces only display the verdict:
:attr:`Verdict.title` says the effect, :attr:`Verdict.offered` whether the fix
may be offered at all (its issue is gone) and :attr:`Verdict.clean` whether it
adds no error or warning.

:func:`fix_all` applies every clean, non-conflicting fix, re-verifying the
whole document after each one and keeping it only when the document improves
(the editor's ``source.fixAll.chunkseam`` and ``chunkseam lint --fix``).
"""

from __future__ import annotations

import io
import re
import time
import tokenize
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from chunkseam.engine.analysis import Analysis, analyze
from chunkseam.document.text import Document
from chunkseam.core.issue import SEVERITIES, Issue

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^#{1,6}(?:[ \t]|$)")
_QUOTE = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)+")
_LIST = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])([ \t]+|$)")
_MD_NEXT_LINE = re.compile(r"^(\s*(?:>\s?)*\s*)<!--\s*chunkseam-disable-next-line\b([^>]*?)\s*-->\s*$")
_RST_FILE = re.compile(r"^\.\.[ \t]+chunkseam-disable-file\b([^\r\n]*?)\s*$")
_MD_FILE = re.compile(r"^<!--\s*chunkseam-disable-file\b([^>]*?)\s*-->\s*$")
_PY_IGNORE = re.compile(r"#\s*chunkseam:\s*ignore\[([^\]]*)\]")
_PY_FILE = re.compile(r"#\s*chunkseam:\s*ignore-file\[([^\]]*)\]")
_PY_HEADER = re.compile(r"^(#!|#.*coding[:=])")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n.*?^\1[ \t]*$", re.S | re.M)
_EOL = re.compile(r"\r\n|\r|\n")
_MD_ARGS = re.compile(r"<!--[ \t]*chunkseam-[a-z-]+\b(.*?)-->", re.S)
_PY_ARGS = re.compile(r"#[ \t]*chunkseam:[ \t]*[a-z-]+[ \t]*\[([^\]]*)\]")

PARAGRAPH_RULES = frozenset({"CS001", "CS002"})
HEADING_RULES = frozenset({"CS007"})
SUPPRESSION_RULES = frozenset({"CS900", "CS901"})
#: severities whose increase makes a fix costly
COSTLY = ("error", "warning")
#: default time budget (seconds) for verifying the fixes of one request …
BUDGET = 0.12
#: … which applies once this many candidates are verified (so that what is
#: offered for one or two issues does not depend on the machine's load)
MIN_VERIFIED = 4
#: and never more than this many per request
MAX_VERIFIED = 40


@dataclass(frozen=True)
class Edit:
    """Replace ``[start, end)`` of the original text by ``text``."""

    start: int
    end: int
    text: str


@dataclass
class Candidate:
    title: str
    edits: list[Edit]
    issue: Issue
    kind: str = "fix"  # "fix" | "suppress"

    @property
    def key(self) -> tuple:
        return (self.title, tuple((e.start, e.end, e.text) for e in self.edits))


@dataclass
class Verdict:
    """What a candidate does once applied and re-simulated."""

    candidate: Candidate
    fixed: bool  # the targeted issue is gone
    #: severity -> issues added (net, not counting the target) / removed besides it
    added: dict[str, int] = field(default_factory=dict)
    removed: int = 0
    #: cuts after the edit that moved (in the text's own terms)
    moved_cuts: int = 0
    shifts_rest: bool = False  # the moved cuts reach the end of the document
    before: int = 0  # issues before / after
    after: int = 0

    @property
    def offered(self) -> bool:
        return self.fixed

    @property
    def clean(self) -> bool:
        return self.fixed and not any(self.added.get(s, 0) > 0 for s in COSTLY)

    @property
    def title(self) -> str:
        c = self.candidate
        parts: list[str] = []
        if c.kind == "fix":
            what = "fixes this cut" if c.issue.cut is not None else "fixes this issue"
            parts.append(what + (f" and {self.removed} more" if self.removed else ""))
        if self.shifts_rest:
            parts.append(f"shifts all {self.moved_cuts} later cuts" if self.moved_cuts > 1
                         else "shifts the next cut")
        for sev in SEVERITIES:
            n = self.added.get(sev, 0)
            if n > 0:
                parts.append(f"{n} new {sev}" + ("" if n == 1 else "s"))
        if c.kind != "fix":
            # what the re-simulation lost: the targeted issue and every other one
            # (the title of a suppression counts them all; a fix says "this cut")
            gone = self.removed + (1 if self.fixed else 0)
            if gone:
                parts.append(f"{gone} fewer issue" + ("" if gone == 1 else "s"))
        if c.kind == "suppress" and not parts:
            return c.title
        return f"{c.title} ({'; '.join(parts)})" if parts else c.title

    @property
    def rank(self) -> tuple:
        """Sort key: clean fixes first, then clean suppressions, then costly ones."""
        cost = sum(self.added.get(s, 0) * (10 if s == "error" else 1) for s in COSTLY)
        return (0 if self.clean else 1, 0 if self.candidate.kind == "fix" else 1, cost,
                -self.removed, self.moved_cuts)


# -- helpers ----------------------------------------------------------------------------


def _eol(text: str) -> str:
    m = _EOL.search(text)
    return m.group() if m else "\n"


def _structure(doc: Document):
    try:
        from chunkseam.structure.markdown import structure

        return structure(doc)
    except Exception:
        return None


def anchor(issue: Issue) -> int:
    """Where an issue is: its cut, else its start."""
    return issue.cut if issue.cut is not None else issue.start


def unit_span(issue: Issue) -> tuple[int, int]:
    """The broken unit an issue is about: its range, the cut, and the unit the
    issue's data names (sentence, word, block, list item, table, heading, bracket span,
    definition, string)."""
    lo, hi = issue.start, issue.end
    data = issue.data or {}
    for v in (data.get(k) for k in ("sentence", "word", "block", "item", "table", "heading", "span",
                                    "definition", "string")):
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) for x in v):
            lo, hi = min(lo, v[0]), max(hi, v[1])
    if issue.cut is not None:
        lo, hi = min(lo, issue.cut), max(hi, issue.cut)
    return lo, hi


# -- candidates ---------------------------------------------------------------------------


def _unclosed_fence(doc: Document, offset: int) -> tuple[int, str] | None:
    """(opening line, fence marker) of an unterminated fence containing ``offset``."""
    if doc.kind != "markdown":
        return None
    st = _structure(doc)
    if st is None:
        return None
    for b in st.containing(offset):
        if b.kind == "fence" and not getattr(b, "closed", True):
            line = doc.line_of(b.start)
            m = _FENCE_OPEN.match(doc.line_text(line).lstrip(" >"))
            return line, (m.group(2) if m else "```")
    return None


def close_fence(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    found = _unclosed_fence(doc, anchor(issue)) or _unclosed_fence(doc, issue.start)
    if found is None:
        return None
    open_line, marker = found
    text = doc.text
    nl = _eol(text)
    closing = marker[0] * len(marker)
    target_line = None
    for line in range(open_line + 1, doc.line_count):
        if _ATX.match(doc.line_text(line)) and line - 1 > open_line and not doc.line_text(line - 1).strip():
            target_line = line - 1
            break
    if target_line is not None:
        while target_line - 1 > open_line and not doc.line_text(target_line - 1).strip():
            target_line -= 1
        pos = doc.line_start(target_line)
        return f"Close the code fence before line {target_line + 1}", [Edit(pos, pos, closing + nl)]
    end = len(text)
    body = text.rstrip(" \t")
    prefix = "" if body.endswith(("\n", "\r")) or not body else nl
    return "Close the code fence at the end of the document", [Edit(end, end, prefix + closing + nl)]


def _line_prefix(line_text: str) -> tuple[str, str]:
    """(prefix for a continuation line, prefix for a blank line) of the
    containers (blockquote, list item) a line is in."""
    quote = ""
    m = _QUOTE.match(line_text)
    if m:
        quote = m.group()
        line_text = line_text[len(quote):]
    lm = _LIST.match(line_text)
    if lm:
        indent = " " * len(lm.group())
    else:
        indent = line_text[: len(line_text) - len(line_text.lstrip(" \t"))]
    blank = quote.rstrip()
    if quote and not quote.endswith((" ", "\t")):
        quote += " "
    return quote + indent, blank


def _sentence_start(doc: Document, issue: Issue) -> int | None:
    data = issue.data or {}
    sentence = data.get("sentence")
    if isinstance(sentence, (list, tuple)) and len(sentence) == 2 and isinstance(sentence[0], int):
        return sentence[0]
    if isinstance(data.get("sentence_start"), int):
        return data["sentence_start"]
    cut = issue.cut
    st = _structure(doc)
    if st is not None and cut is not None:
        try:
            span = st.sentence_at(cut)
            if span is None and cut > 0:
                span = st.sentence_at(cut - 1)
        except Exception:
            span = None
        if span is not None:
            return span[0]
    return issue.start


def paragraph_break(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    if doc.kind not in ("markdown", "text"):
        return None
    start = _sentence_start(doc, issue)
    if start is None:
        return None
    text = doc.text
    line = doc.line_of(start)
    line_start = doc.line_start(line)
    line_text = doc.line_text(line)
    cont_prefix, blank_prefix = _line_prefix(line_text)
    quote = _QUOTE.match(line_text)
    markup = quote.end() if quote else 0
    lm = _LIST.match(line_text[markup:])
    markup += lm.end() if lm else len(line_text[markup:]) - len(line_text[markup:].lstrip(" \t"))
    nl = _eol(text)
    if start > line_start + markup:
        before = text[line_start:start]
        ws = len(before) - len(before.rstrip(" \t"))
        edit = Edit(start - ws, start, nl + blank_prefix + nl + cont_prefix)
    else:
        if lm is not None:
            return None  # a list item starts here
        if line == 0 or not doc.line_text(line - 1).strip(" \t>"):
            return None  # first sentence of its paragraph: nothing to split
        edit = Edit(line_start, line_start, blank_prefix + nl)
    snippet = " ".join(text[start:start + 30].split())
    more = "…" if len(text) > start + 30 else ""
    return f"Insert paragraph break before “{snippet}{more}”", [edit]


def move_heading(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    if doc.kind != "markdown":
        return None
    data = issue.data or {}
    h_end = None
    hd = data.get("heading")
    if isinstance(hd, (list, tuple)) and len(hd) == 2 and isinstance(hd[1], int):
        h_end = hd[1]
    else:
        st = _structure(doc)
        heading = None
        if st is not None:
            for off in (issue.start, (issue.cut - 1) if issue.cut else None):
                if off is None or off < 0:
                    continue
                b = st.leaf_at(off)
                if b is not None and b.kind == "heading":
                    heading = b
                    break
        if heading is not None:
            h_end = heading.end
        else:
            line = doc.line_of(issue.start)
            if not _ATX.match(doc.line_text(line).lstrip()):
                return None
            h_end = doc.line_end(line)
    text = doc.text
    rest = text[h_end:]
    body_at = h_end + (len(rest) - len(rest.lstrip()))
    gap = text[h_end:body_at]
    if body_at >= len(text) or len(_EOL.findall(gap)) < 2:
        return None
    nl = _eol(text)
    body_line = doc.line_of(body_at)
    indent = text[doc.line_start(body_line):body_at]
    return "Move heading down to its body", [Edit(h_end, body_at, nl + indent)]


def split_fence(doc: Document, issue: Issue) -> Iterator[tuple[str, list[Edit]]]:
    """Close and reopen the fence at the start of the line that holds the cut
    (then, as a second candidate, after that line)."""
    data = issue.data or {}
    block = data.get("block")
    cut = issue.cut
    if (doc.kind != "markdown" or cut is None or not isinstance(block, (list, tuple))
            or len(block) != 2 or data.get("marker") is None):
        return
    text = doc.text
    b_start, b_end = block
    marker = str(data.get("marker"))
    info = str(data.get("info") or "")
    open_line = doc.line_of(b_start)
    prefix = text[doc.line_start(open_line):b_start]
    if prefix.strip():
        return  # inside a container: leave it to the writer
    closed = bool(data.get("closed", True))
    last_body = doc.line_of(b_end) - (1 if closed else 0)
    nl = _eol(text)
    insert = f"{prefix}{marker[0] * len(marker)}{nl}{nl}{prefix}{marker}{info}{nl}"
    cut_line = doc.line_of(cut)
    for line in (cut_line, cut_line + 1):
        if open_line + 1 < line <= last_body:
            at = doc.line_start(line)
            yield f"Split the code block before line {line + 1}", [Edit(at, at, insert)]


def repeat_header(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    data = issue.data or {}
    offset, insert = data.get("offset"), data.get("insert")
    if data.get("fix") != "repeat-header" or not isinstance(offset, int) or not isinstance(insert, str):
        return None
    if not 0 <= offset <= len(doc.text):
        return None
    return "Repeat the table header after the cut", [Edit(offset, offset, insert)]


def remove_suppression(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    """CS900 (unused) / CS901 (unknown name): drop the rule from the comment, or the comment."""
    data = issue.data or {}
    if data.get("fix") not in ("remove-suppression", "remove-name"):
        return None
    text = doc.text
    start = data.get("offset", issue.start)
    length = data.get("length", issue.end - issue.start)
    if not isinstance(start, int) or not isinstance(length, int) or length <= 0:
        return None
    end = min(start + length, len(text))
    comment = text[start:end]
    name = data.get("name")
    m = (_PY_ARGS if doc.kind == "python" else _MD_ARGS).search(comment)
    if isinstance(name, str) and name and m is not None:
        args = m.group(1)
        names = [n for n in re.split(r"[\s,]+", args) if n]
        keep = [n for n in names if n.lower() != name.lower()]
        if keep and len(keep) < len(names):
            joined = (", " if "," in args else " ").join(keep)
            if doc.kind != "python":
                joined = " " + joined + " "
            return (f"Remove {name} from the suppression comment",
                    [Edit(start + m.start(1), start + m.end(1), joined)])
    line = doc.line_of(start)
    ls, le = doc.line_start(line), doc.line_end(doc.line_of(end))
    rest = (text[ls:start] + text[end:le]).strip(" \t>")
    if not rest:
        last = doc.line_of(end)
        nxt = doc.line_start(last + 1) if last + 1 < doc.line_count else le
        return "Remove the unused suppression comment", [Edit(ls, nxt, "")]
    s0 = start
    while s0 > ls and text[s0 - 1] in " \t":
        s0 -= 1
    return "Remove the unused suppression comment", [Edit(s0, end, "")]


def _front_matter_end(text: str) -> int:
    m = _FRONT_MATTER.match(text)
    if not m:
        return 0
    end = m.end()
    nl = _EOL.match(text, end)
    return nl.end() if nl else end


def _python_comment_ok(text: str, line: int) -> bool:
    """A comment can go at the end of ``line`` (it does not end inside a string)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True
    row = line + 1
    return not any(t.type == tokenize.STRING and t.start[0] <= row < t.end[0] for t in tokens)


def disable_line(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    text = doc.text
    nl = _eol(text)
    code = issue.code
    title = f"Disable {code} for this line"
    from chunkseam.structure.rst import is_rst

    if is_rst(doc.path, doc.uri, doc.language_id):
        return None  # a comment line inside a paragraph would end it: "for this file" only
    if doc.kind in ("markdown", "text"):
        line = doc.line_of(anchor(issue))
        if issue.cut is not None and issue.cut == doc.line_start(line) and line > 0 and issue.start < issue.cut:
            line -= 1  # a cut at a line start belongs to the line before it too
        if line > 0:
            m = _MD_NEXT_LINE.match(doc.line_text(line - 1))
            if m:
                if code in m.group(2).split():
                    return None
                ins = doc.line_start(line - 1) + doc.line_text(line - 1).rindex("-->")
                return title, [Edit(ins, ins, ("" if text[ins - 1] == " " else " ") + code + " ")]
        line_text = doc.line_text(line)
        quote = _QUOTE.match(line_text)
        prefix = quote.group() if quote else ""
        rest = line_text[len(prefix):]
        prefix += rest[: len(rest) - len(rest.lstrip(" \t"))]
        pos = doc.line_start(line)
        return title, [Edit(pos, pos, f"{prefix}<!-- chunkseam-disable-next-line {code} -->{nl}")]
    if doc.kind == "python":
        candidates = [doc.line_of(issue.start)]
        if issue.cut is not None:
            candidates.append(doc.line_of(issue.cut))
        line = next((ln for ln in candidates if _python_comment_ok(text, ln)), None)
        if line is None:
            return None
        line_text = doc.line_text(line)
        end = doc.line_end(line)
        m = _PY_IGNORE.search(line_text)
        if m:
            codes = [c.strip() for c in m.group(1).split(",") if c.strip()]
            if code in codes:
                return None
            ins = doc.line_start(line) + m.end(1)
            return title, [Edit(ins, ins, (", " if codes else "") + code)]
        sep = "  " if line_text.strip() else ""
        return title, [Edit(end, end, f"{sep}# chunkseam: ignore[{code}]")]
    return None


def disable_file(doc: Document, issue: Issue) -> tuple[str, list[Edit]] | None:
    text = doc.text
    nl = _eol(text)
    code = issue.code
    title = f"Disable {code} for this file"
    if doc.kind == "python":
        for ln in range(min(doc.line_count, 10)):
            m = _PY_FILE.search(doc.line_text(ln))
            if m:
                codes = [c.strip() for c in re.split(r"[,\s]+", m.group(1)) if c.strip()]
                if code in codes or not codes:
                    return None
                ins = doc.line_start(ln) + m.end(1)
                return title, [Edit(ins, ins, ", " + code)]
        line = 0
        while line < min(2, doc.line_count) and _PY_HEADER.match(doc.line_text(line)):
            line += 1
        pos = doc.line_start(line)
        if line and pos == len(text) and not text.endswith(("\n", "\r")):
            return title, [Edit(pos, pos, f"{nl}# chunkseam: ignore-file[{code}]{nl}")]
        return title, [Edit(pos, pos, f"# chunkseam: ignore-file[{code}]{nl}")]
    if doc.kind not in ("markdown", "text"):
        return None
    from chunkseam.structure.rst import is_rst

    if is_rst(doc.path, doc.uri, doc.language_id):
        # a reStructuredText comment, a block of its own (a blank line after it)
        for ln in range(min(5, doc.line_count)):
            m = _RST_FILE.match(doc.line_text(ln))
            if m:
                codes = m.group(1).split()
                if code in codes or not codes:
                    return None
                ins = doc.line_end(ln) - (len(doc.line_text(ln)) - len(doc.line_text(ln).rstrip()))
                return title, [Edit(ins, ins, " " + code)]
        return title, [Edit(0, 0, f".. chunkseam-disable-file {code}{nl}{nl}")]
    top = _front_matter_end(text) if doc.kind == "markdown" else 0
    line = doc.line_of(top)
    for ln in range(line, min(line + 5, doc.line_count)):
        m = _MD_FILE.match(doc.line_text(ln))
        if m:
            codes = m.group(1).split()
            if code in codes or not codes:
                return None
            ins = doc.line_start(ln) + doc.line_text(ln).rindex("-->")
            return title, [Edit(ins, ins, ("" if text[ins - 1] == " " else " ") + code + " ")]
    if top > 0 and top == len(text) and not text.endswith(("\n", "\r")):
        return title, [Edit(top, top, f"{nl}<!-- chunkseam-disable-file {code} -->{nl}")]
    return title, [Edit(top, top, f"<!-- chunkseam-disable-file {code} -->{nl}")]


def _safe(fn: Callable, doc: Document, issue: Issue) -> list[tuple[str, list[Edit]]]:
    try:
        made = fn(doc, issue)
        if made is None:
            return []
        if isinstance(made, tuple):
            return [made]
        return list(made)
    except Exception:
        import logging
        import traceback

        logging.getLogger("chunkseam").warning("chunkseam: fix %s failed for %s:\n%s", fn.__name__,
                                               issue.code, traceback.format_exc())
        return []


def candidates(doc: Document, issue: Issue, *, suppressions: bool = True) -> list[Candidate]:
    """The edits that may fix ``issue`` (unverified), fixes before suppressions."""
    out: list[Candidate] = []
    if issue.code in SUPPRESSION_RULES:
        makers: list[Callable] = [remove_suppression]
    else:
        makers = [close_fence]
        if issue.code == "CS003":
            makers.append(split_fence)
        if issue.code == "CS004":
            makers.append(repeat_header)
        if issue.code in PARAGRAPH_RULES:
            makers.append(paragraph_break)
        if issue.code in HEADING_RULES:
            makers.append(move_heading)
    for fn in makers:
        out += [Candidate(t, e, issue) for t, e in _safe(fn, doc, issue)]
    if suppressions and issue.code not in SUPPRESSION_RULES:
        for fn in (disable_line, disable_file):
            out += [Candidate(t, e, issue, "suppress") for t, e in _safe(fn, doc, issue)]
    return out


# -- verification ----------------------------------------------------------------------------


def apply(doc: Document, edits: Iterable[Edit]) -> Document:
    """``doc`` with ``edits`` (offsets of ``doc``, not overlapping) applied."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end), reverse=True)
    return doc.with_edits([(e.start, e.end, e.text) for e in ordered])


class _Mapper:
    """Offsets of the edited text back to the original text."""

    def __init__(self, edits: list[Edit]) -> None:
        #: (new start, new end, old start, old end) of each edit, in order
        self.spans: list[tuple[int, int, int, int]] = []
        shift = 0
        for e in sorted(edits, key=lambda e: e.start):
            ns = e.start + shift
            self.spans.append((ns, ns + len(e.text), e.start, e.end))
            shift += len(e.text) - (e.end - e.start)
        self.last_new = max((s[1] for s in self.spans), default=0)

    def back(self, offset: int) -> int:
        shift = 0
        for ns, ne, os_, oe in self.spans:
            if offset < ns:
                break
            if offset < ne:
                return os_  # inside inserted text: where it was inserted
            shift = ne - oe
        return offset - shift


def _cuts(chunks: list[Any]) -> list[int]:
    return sorted({c.end for c in chunks[:-1]})


def verify(doc: Document, settings: Any, before: Analysis, candidate: Candidate,
           *, analyse: Callable[[Document, Any], Analysis] = analyze) -> Verdict:
    """Apply ``candidate`` to a copy of ``doc`` and re-simulate."""
    new_doc = apply(doc, candidate.edits)
    after = analyse(new_doc, settings)
    mapper = _Mapper(candidate.edits)
    target = candidate.issue
    lo, hi = unit_span(target)
    # issues of the old document that are still there, at the same place
    old_keys = Counter((i.code, anchor(i)) for i in before.issues)
    unmatched: list[Issue] = []
    for i in after.issues:
        k = (i.code, mapper.back(anchor(i)))
        if old_keys[k] > 0:
            old_keys[k] -= 1
        else:
            unmatched.append(i)
    if candidate.kind == "suppress" and any(i.code in SUPPRESSION_RULES for i in unmatched):
        # the comment silences nothing (the issue went away because the
        # insertion moved the cuts) or names nothing: it would be reported itself
        still = True
    else:
        still = False
    target_key = (target.code, anchor(target))
    still = still or old_keys[target_key] == 0  # the target was matched by a new issue
    if not still:
        # the same unit still broken under another code or at a moved cut
        still = any(
            lo <= mapper.back(anchor(i)) <= hi
            and (i.code == target.code or (i.severity in COSTLY and i.code not in SUPPRESSION_RULES))
            for i in unmatched)
    # cuts after the edit that are not the old cuts shifted by it
    old_cuts = _cuts(before.chunks)
    new_cuts = [c for c in _cuts(after.chunks) if c >= mapper.last_new]
    moved = [c for c in new_cuts if not _has(old_cuts, mapper.back(c))]
    shifts_rest = bool(moved) and bool(new_cuts) and new_cuts[-1] in moved and len(moved) > 1
    added: dict[str, int] = {}
    removed = 0
    if shifts_rest:
        # the cuts after the edit all moved: only the net count per severity means anything
        before_sev = Counter(i.severity for i in before.issues)
        after_sev = Counter(i.severity for i in after.issues)
        if not still:
            before_sev[target.severity] -= 1
        for sev in SEVERITIES:
            d = after_sev[sev] - before_sev[sev]
            if d > 0:
                added[sev] = d
            elif d < 0:
                removed -= d
    else:
        for i in unmatched:
            added[i.severity] = added.get(i.severity, 0) + 1
        removed = sum(old_keys.values()) - (0 if still else 1)
    return Verdict(candidate, fixed=not still, added=added, removed=removed,
                   moved_cuts=len(moved), shifts_rest=shifts_rest,
                   before=len(before.issues), after=len(after.issues))


def _has(sorted_list: list[int], value: int) -> bool:
    i = bisect_left(sorted_list, value)
    return i < len(sorted_list) and sorted_list[i] == value


def verified(doc: Document, settings: Any, before: Analysis, issues: Iterable[Issue], *,
             budget: float | None = BUDGET, suppressions: bool = True,
             cache: dict | None = None, min_verified: int = MIN_VERIFIED) -> tuple[list[Verdict], bool]:
    """The verdicts of every candidate fix of ``issues`` that may be offered
    (its issue is gone), best first, and whether all were verified within
    ``budget`` seconds. ``cache`` (candidate key -> verdict) is read and filled."""
    t0 = time.perf_counter()
    out: list[Verdict] = []
    seen: set[tuple] = set()
    complete = True
    done = 0
    for issue in issues:
        for cand in candidates(doc, issue, suppressions=suppressions):
            key = cand.key
            if key in seen:
                continue  # the same edit already offered for another issue: one action
            ckey = (key, issue.code, anchor(issue))
            v = cache.get(ckey) if cache is not None else None
            if v is None:
                if done >= MAX_VERIFIED or (budget is not None and done >= min_verified
                                            and time.perf_counter() - t0 > budget):
                    complete = False
                    continue
                done += 1
                try:
                    v = verify(doc, settings, before, cand)
                except Exception:
                    import logging
                    import traceback

                    logging.getLogger("chunkseam").warning(
                        "chunkseam: verifying %r failed:\n%s", cand.title, traceback.format_exc())
                    continue
                if cache is not None:
                    cache[ckey] = v
            if v.offered:
                seen.add(key)
                out.append(v)
    out.sort(key=lambda v: v.rank)
    return out, complete


# -- fix all ----------------------------------------------------------------------------------


def _score(analysis: Analysis) -> tuple[int, int]:
    c = Counter(i.severity for i in analysis.issues)
    return c["error"], c["warning"]


def _improves(before: tuple[int, int], after: tuple[int, int]) -> bool:
    return after[0] <= before[0] and after[1] <= before[1] and after != before


@dataclass
class FixAllResult:
    doc: Document
    analysis: Analysis
    applied: list[str]  # titles of the fixes kept, in order
    complete: bool = True  # False when the time budget ran out

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def fix_all(doc: Document, settings: Any, analysis: Analysis | None = None, *,
            budget: float | None = None, rounds: int = 8) -> FixAllResult:
    """Apply every verified fix that does not conflict with another, one at a
    time, re-analysing after each and keeping it only when the document's
    errors and warnings go down (none goes up). Suppressions are not applied."""
    t0 = time.perf_counter()
    current = analysis or analyze(doc, settings)
    applied: list[str] = []
    rejected: set[tuple] = set()

    def out_of_time() -> bool:
        return budget is not None and time.perf_counter() - t0 > budget

    for _ in range(rounds):
        progress = False
        issues = sorted(current.issues, key=lambda i: anchor(i), reverse=True)
        # last first: a fix's edit leaves the offsets before it valid
        limit = None
        for issue in issues:
            if out_of_time():
                return FixAllResult(doc, current, applied, complete=False)
            for cand in candidates(doc, issue, suppressions=False):
                if cand.key in rejected:
                    continue
                if limit is not None and max(e.end for e in cand.edits) >= limit:
                    continue  # overlaps or follows an edit made this round: next round
                new_doc = apply(doc, cand.edits)
                try:
                    new = analyze(new_doc, settings)
                except Exception:
                    rejected.add(cand.key)
                    continue
                v_ok = _improves(_score(current), _score(new))
                if not v_ok:
                    rejected.add(cand.key)
                    continue
                # the target must be gone, not moved
                if not verify_from(current, new, cand).fixed:
                    rejected.add(cand.key)
                    continue
                doc, current = new_doc, new
                applied.append(cand.title)
                limit = min(e.start for e in cand.edits)
                progress = True
                rejected = set()
                break
        if not progress:
            break
    return FixAllResult(doc, current, applied)


def verify_from(before: Analysis, after: Analysis, candidate: Candidate) -> Verdict:
    """:func:`verify` with the re-simulation already done."""
    return verify(before.doc, before.settings, before, candidate, analyse=lambda d, s: after)
