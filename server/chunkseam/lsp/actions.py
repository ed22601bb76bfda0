"""Code actions: quick fixes for cuts, and suppression comments.

Fixes (each a ``WorkspaceEdit`` whose ranges come from
:meth:`chunkseam.document.Document.offset_to_position` in the negotiated
encoding):

- **Close the code fence** — an unterminated fence (it swallows the rest of
  the document) gets a closing fence before the next heading, or at the end;
- **Insert paragraph break** before the sentence a cut splits (CS001/CS002), so
  a paragraph-aware chunker cuts there cleanly;
- **Move heading down to its body** (CS007) — the blank lines between an
  orphaned heading and its body are removed, so the heading travels with it;
- **Split the code block at the cut** / **Repeat the table header after the
  cut** — the insertions the validator computes (``Issue.data``: ``fix``,
  ``offset``, ``insert``) for CS003 / CS004;
- **Remove the unused suppression** (CS900) or the unknown rule name (CS901);
- **Disable CSxxx for this line / for this file** for every issue:
  ``<!-- chunkseam-disable-next-line CSxxx -->`` / ``<!-- chunkseam-disable-file CSxxx -->``
  in Markdown and plain text, ``# chunkseam: ignore[CSxxx]`` at the end of the
  line / ``# chunkseam: ignore-file[CSxxx]`` at the top in Python (the syntax of
  :mod:`chunkseam.checks.suppress`).
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import TYPE_CHECKING, Any, Iterable

from lsprotocol import types

from .diagnostics import SOURCE, to_diagnostic

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^#{1,6}(?:[ \t]|$)")
_QUOTE = re.compile(r"^(?:[ \t]{0,3}>[ \t]?)+")
_LIST = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])([ \t]+|$)")
_MD_NEXT_LINE = re.compile(r"^(\s*(?:>\s?)*\s*)<!--\s*chunkseam-disable-next-line\b([^>]*?)\s*-->\s*$")
_MD_FILE = re.compile(r"^<!--\s*chunkseam-disable-file\b([^>]*?)\s*-->\s*$")
_PY_IGNORE = re.compile(r"#\s*chunkseam:\s*ignore\[([^\]]*)\]")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n.*?^\1[ \t]*$", re.S | re.M)
_EOL = re.compile(r"\r\n|\r|\n")

PARAGRAPH_RULES = frozenset({"CS001", "CS002"})
HEADING_RULES = frozenset({"CS007"})
SUPPRESSION_RULES = frozenset({"CS900", "CS901"})


class _Edits:
    """Text edits on one document, in offsets, turned into LSP at the end."""

    def __init__(self, result: "Result", encoding: str) -> None:
        self.result = result
        self.doc = result.doc
        self.encoding = encoding

    def edit(self, start: int, end: int, new_text: str) -> types.TextEdit:
        s = self.doc.offset_to_position(start, self.encoding)
        e = self.doc.offset_to_position(end, self.encoding)
        return types.TextEdit(range=types.Range(types.Position(s.line, s.character),
                                                types.Position(e.line, e.character)),
                              new_text=new_text)


def _eol(text: str) -> str:
    m = _EOL.search(text)
    return m.group() if m else "\n"


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    if a0 == a1:
        return b0 <= a0 <= b1
    if b0 == b1:
        return a0 <= b0 <= a1
    return a0 < b1 and b0 < a1


# -- fixes -------------------------------------------------------------------------


def _structure(result: "Result"):
    try:
        from ..structure import structure

        return structure(result.doc)
    except Exception:
        return None


def _unclosed_fence(result: "Result", offset: int) -> tuple[int, str] | None:
    """(opening line, fence marker) of an unterminated fence containing ``offset``."""
    doc = result.doc
    if doc.kind != "markdown":
        return None
    st = _structure(result)
    if st is not None:
        for b in st.containing(offset):
            if b.kind == "fence" and not getattr(b, "closed", True):
                line = doc.line_of(b.start)
                m = _FENCE_OPEN.match(doc.line_text(line).lstrip(" >"))
                marker = m.group(2) if m else "```"
                return line, marker
        return None
    # no structure module: scan the lines (fences outside containers only)
    open_line, marker = None, ""
    for line in range(doc.line_count):
        text = doc.line_text(line)
        if open_line is None:
            m = _FENCE_OPEN.match(text)
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                open_line, marker = line, m.group(2)
        else:
            stripped = text.strip()
            if (len(text) - len(text.lstrip(" ")) <= 3 and stripped
                    and set(stripped) == {marker[0]} and len(stripped) >= len(marker)):
                open_line = None
    if open_line is not None and doc.line_start(open_line) <= offset:
        return open_line, marker
    return None


def close_fence(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    doc = result.doc
    at = issue.cut if issue.cut is not None else issue.start
    found = _unclosed_fence(result, at) or _unclosed_fence(result, issue.start)
    if found is None:
        return None
    open_line, marker = found
    text = doc.text
    nl = _eol(text)
    closing = marker[0] * len(marker)
    # close before the first heading that follows a blank line, else at the end
    target_line = None
    for line in range(open_line + 1, doc.line_count):
        if _ATX.match(doc.line_text(line)) and line - 1 > open_line and not doc.line_text(line - 1).strip():
            target_line = line - 1
            break
    ed = _Edits(result, enc)
    if target_line is not None:
        # insert the closing fence on its own line at the blank line before the heading
        while target_line - 1 > open_line and not doc.line_text(target_line - 1).strip():
            target_line -= 1
        pos = doc.line_start(target_line)
        return (f"Close the code fence (before line {target_line + 1})",
                [ed.edit(pos, pos, closing + nl)])
    end = len(text)
    body = text.rstrip(" \t")
    prefix = "" if body.endswith(("\n", "\r")) or not body else nl
    return ("Close the code fence (at the end of the document)",
            [ed.edit(end, end, prefix + closing + nl)])


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


def _sentence_start(result: "Result", issue: Any) -> int | None:
    data = issue.data or {}
    sentence = data.get("sentence")
    if isinstance(sentence, (list, tuple)) and len(sentence) == 2 and isinstance(sentence[0], int):
        return sentence[0]
    if isinstance(data.get("sentence_start"), int):
        return data["sentence_start"]
    cut = issue.cut
    st = _structure(result)
    if st is not None and cut is not None:
        try:
            span = st.sentence_at(cut)
        except Exception:
            span = None
        if span is None and cut > 0:
            span = st.sentence_at(cut - 1)
        if span is not None:
            return span[0]
    return issue.start


def paragraph_break(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    doc = result.doc
    if doc.kind not in ("markdown", "text"):
        return None
    start = _sentence_start(result, issue)
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
    ed = _Edits(result, enc)
    if start > line_start + markup:
        # the sentence starts mid-line: break the line there
        before = text[line_start:start]
        ws = len(before) - len(before.rstrip(" \t"))
        edit = ed.edit(start - ws, start, nl + blank_prefix + nl + cont_prefix)
    else:
        # the sentence starts the line: the paragraph must go on above it
        if lm is not None:
            return None  # a list item starts here
        if line == 0 or not doc.line_text(line - 1).strip(" \t>"):
            return None  # first sentence of its paragraph: nothing to split
        edit = ed.edit(line_start, line_start, blank_prefix + nl)
    snippet = " ".join(text[start:start + 30].split())
    more = "…" if len(text) > start + 30 else ""
    return (f"Insert paragraph break before “{snippet}{more}”", [edit])


def move_heading(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    doc = result.doc
    if doc.kind != "markdown":
        return None
    data = issue.data or {}
    st = _structure(result)
    heading = None
    h_end = None
    hd = data.get("heading")
    if isinstance(hd, (list, tuple)) and len(hd) == 2 and isinstance(hd[1], int):
        h_end = hd[1]
    elif st is not None:
        for off in (issue.start, issue.cut - 1 if issue.cut else None):
            if off is None or off < 0:
                continue
            b = st.leaf_at(off)
            if b is not None and b.kind == "heading":
                heading = b
                break
        if heading is None:
            hs = [h for h in st.blocks if h.kind == "heading" and issue.start <= h.start < max(issue.end, issue.start + 1)]
            heading = hs[0] if hs else None
    text = doc.text
    if h_end is not None:
        pass
    elif heading is not None:
        h_end = heading.end
    else:
        line = doc.line_of(issue.start)
        if not _ATX.match(doc.line_text(line).lstrip()):
            return None
        h_end = doc.line_end(line)
    # the heading's own line ends at h_end; the body is the next non-blank text
    rest = text[h_end:]
    body_at = h_end + (len(rest) - len(rest.lstrip()))
    gap = text[h_end:body_at]
    if body_at >= len(text) or len(_EOL.findall(gap)) < 2:
        return None
    nl = _eol(text)
    # keep the indentation of the body's first line
    body_line = doc.line_of(body_at)
    indent = text[doc.line_start(body_line):body_at]
    ed = _Edits(result, enc)
    return ("Move heading down to its body", [ed.edit(h_end, body_at, nl + indent)])


# -- suppressions -------------------------------------------------------------------


def _front_matter_end(text: str) -> int:
    m = _FRONT_MATTER.match(text)
    if not m:
        return 0
    end = m.end()
    nl = _EOL.match(text, end)
    return nl.end() if nl else end


def disable_line(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    doc = result.doc
    text = doc.text
    nl = _eol(text)
    ed = _Edits(result, enc)
    line = doc.line_of(issue.start)
    code = issue.code
    title = f"Disable {code} for this line"
    if doc.kind in ("markdown", "text"):
        if line > 0:
            m = _MD_NEXT_LINE.match(doc.line_text(line - 1))
            if m:
                codes = m.group(2).split()
                if code in codes:
                    return None
                ins = doc.line_start(line - 1) + doc.line_text(line - 1).rindex("-->")
                return title, [ed.edit(ins, ins, ("" if text[ins - 1] == " " else " ") + code + " ")]
        line_text = doc.line_text(line)
        quote = _QUOTE.match(line_text)
        prefix = quote.group() if quote else ""
        rest = line_text[len(prefix):]
        prefix += rest[: len(rest) - len(rest.lstrip(" \t"))]
        pos = doc.line_start(line)
        return title, [ed.edit(pos, pos, f"{prefix}<!-- chunkseam-disable-next-line {code} -->{nl}")]
    if doc.kind == "python":
        candidates = [line]
        if issue.cut is not None:
            candidates.append(doc.line_of(issue.cut))
        line = next((ln for ln in candidates if _python_comment_line(text, doc, ln) is not None), None)
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
            return title, [ed.edit(ins, ins, (", " if codes else "") + code)]
        sep = "  " if line_text.strip() else ""
        return title, [ed.edit(end, end, f"{sep}# chunkseam: ignore[{code}]")]
    return None


def _python_comment_line(text: str, doc: Any, line: int) -> int | None:
    """``line`` if a comment can go at its end (it does not end inside a string)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return line
    row = line + 1
    for tok in tokens:
        if tok.type == tokenize.STRING and tok.start[0] <= row < tok.end[0]:
            return None  # the line ends inside a multi-line string
    return line


_PY_FILE = re.compile(r"#\s*chunkseam:\s*ignore-file\[([^\]]*)\]")
_PY_HEADER = re.compile(r"^(#!|#.*coding[:=])")


def disable_file(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    doc = result.doc
    text = doc.text
    nl = _eol(text)
    ed = _Edits(result, enc)
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
                return title, [ed.edit(ins, ins, ", " + code)]
        line = 0
        while line < min(2, doc.line_count) and _PY_HEADER.match(doc.line_text(line)):
            line += 1
        pos = doc.line_start(line)
        if line and pos == len(text) and not text.endswith(("\n", "\r")):
            return title, [ed.edit(pos, pos, f"{nl}# chunkseam: ignore-file[{code}]{nl}")]
        return title, [ed.edit(pos, pos, f"# chunkseam: ignore-file[{code}]{nl}")]
    if doc.kind not in ("markdown", "text"):
        return None
    top = _front_matter_end(text) if doc.kind == "markdown" else 0
    # extend an existing file-level comment right there
    line = doc.line_of(top)
    for ln in range(line, min(line + 5, doc.line_count)):
        m = _MD_FILE.match(doc.line_text(ln))
        if m:
            codes = m.group(1).split()
            if code in codes or not codes:
                return None
            ins = doc.line_start(ln) + doc.line_text(ln).rindex("-->")
            return title, [ed.edit(ins, ins, ("" if text[ins - 1] == " " else " ") + code + " ")]
    if top > 0 and top == len(text) and not text.endswith(("\n", "\r")):
        return title, [ed.edit(top, top, f"{nl}<!-- chunkseam-disable-file {code} -->{nl}")]
    return title, [ed.edit(top, top, f"<!-- chunkseam-disable-file {code} -->{nl}")]


# -- fixes the validator computes (Issue.data) --------------------------------------------

_DATA_TITLES = {
    "split-fence": "Split the code block at the cut (close and reopen the fence)",
    "repeat-header": "Repeat the table header after the cut",
}


def data_insert(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    data = issue.data or {}
    title = _DATA_TITLES.get(data.get("fix"))
    offset, insert = data.get("offset"), data.get("insert")
    if title is None or not isinstance(offset, int) or not isinstance(insert, str):
        return None
    if not 0 <= offset <= len(result.doc.text):
        return None
    return title, [_Edits(result, enc).edit(offset, offset, insert)]


_MD_ARGS = re.compile(r"<!--[ \t]*chunkseam-[a-z-]+\b(.*?)-->", re.S)
_PY_ARGS = re.compile(r"#[ \t]*chunkseam:[ \t]*[a-z-]+[ \t]*\[([^\]]*)\]")


def remove_suppression(result: "Result", issue: Any, enc: str) -> tuple[str, list[types.TextEdit]] | None:
    """CS900 (unused) / CS901 (unknown name): drop the rule from the comment, or the comment."""
    data = issue.data or {}
    if data.get("fix") not in ("remove-suppression", "remove-name"):
        return None
    doc = result.doc
    text = doc.text
    start = data.get("offset", issue.start)
    length = data.get("length", issue.end - issue.start)
    if not isinstance(start, int) or not isinstance(length, int) or length <= 0:
        return None
    end = min(start + length, len(text))
    comment = text[start:end]
    ed = _Edits(result, enc)
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
            s0, e0 = start + m.start(1), start + m.end(1)
            return f"Remove {name} from the suppression comment", [ed.edit(s0, e0, joined)]
    # remove the whole comment, and its line when nothing else is on it
    line = doc.line_of(start)
    ls, le = doc.line_start(line), doc.line_end(doc.line_of(end))
    rest = (text[ls:start] + text[end:le]).strip(" \t>")
    if not rest:
        last = doc.line_of(end)
        nxt = doc.line_start(last + 1) if last + 1 < doc.line_count else le
        return "Remove the unused suppression comment", [ed.edit(ls, nxt, "")]
    s0 = start
    while s0 > ls and text[s0 - 1] in " \t":
        s0 -= 1
    return "Remove the unused suppression comment", [ed.edit(s0, end, "")]


# -- the request ------------------------------------------------------------------------


def _matches(diag: types.Diagnostic, issue: Any, doc: Any, enc: str) -> bool:
    if diag.code != issue.code:
        return False
    data = diag.data if isinstance(diag.data, dict) else None
    if data and data.get("start") == issue.start and data.get("end") == issue.end:
        return True
    s = doc.position_to_offset(diag.range.start.line, diag.range.start.character, enc)
    e = doc.position_to_offset(diag.range.end.line, diag.range.end.character, enc)
    return s == doc.clamp(issue.start) and e == max(doc.clamp(issue.start), doc.clamp(issue.end))


def code_actions(result: "Result", params: types.CodeActionParams, encoding: str,
                 document_changes: bool = True) -> list[types.CodeAction]:
    if result.analysis is None:
        return []
    only = params.context.only
    if only and not any(str(k) == "quickfix" or str(k).startswith("quickfix") or str(k) == ""
                        for k in (getattr(o, "value", o) for o in only)):
        return []
    doc = result.doc
    rng = params.range
    s = doc.position_to_offset(rng.start.line, rng.start.character, encoding)
    e = doc.position_to_offset(rng.end.line, rng.end.character, encoding)
    ours = [d for d in (params.context.diagnostics or []) if d.source == SOURCE]
    issues = []
    for issue in result.issues:
        diag = next((d for d in ours if _matches(d, issue, doc, encoding)), None)
        if diag is not None or _overlaps(s, e, issue.start, issue.end):
            issues.append((issue, diag))
    out: list[types.CodeAction] = []
    seen: set[tuple] = set()

    def add(made: tuple[str, list[types.TextEdit]] | None, issue: Any, diag: Any,
            preferred: bool = False) -> None:
        if made is None:
            return
        title, edits = made
        key = (title, tuple((x.range.start.line, x.range.start.character, x.range.end.line,
                             x.range.end.character, x.new_text) for x in edits))
        if key in seen:
            return
        seen.add(key)
        diag = diag or to_diagnostic(issue, doc, result.uri, encoding)
        if document_changes:
            wedit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=result.uri, version=result.version),
                edits=edits)])
        else:
            wedit = types.WorkspaceEdit(changes={result.uri: edits})
        out.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix,
                                    diagnostics=[diag], edit=wedit,
                                    is_preferred=True if preferred else None))

    for issue, diag in issues:
        for fix in _fixes(result, issue, encoding):
            add(fix, issue, diag, preferred=True)
    for issue, diag in issues:
        add(_safe(disable_line, result, issue, encoding), issue, diag)
        add(_safe(disable_file, result, issue, encoding), issue, diag)
    return out


def _safe(fn, result, issue, enc):
    try:
        return fn(result, issue, enc)
    except Exception:
        from .log import logger
        import traceback

        logger.warning("chunkseam: code action %s failed for %s:\n%s", fn.__name__, issue.code,
                       traceback.format_exc())
        return None


def _fixes(result: "Result", issue: Any, enc: str) -> Iterable[tuple[str, list[types.TextEdit]] | None]:
    if issue.code in SUPPRESSION_RULES:
        yield _safe(remove_suppression, result, issue, enc)
        return
    yield _safe(close_fence, result, issue, enc)
    yield _safe(data_insert, result, issue, enc)
    if issue.code in PARAGRAPH_RULES:
        yield _safe(paragraph_break, result, issue, enc)
    if issue.code in HEADING_RULES:
        yield _safe(move_heading, result, issue, enc)
