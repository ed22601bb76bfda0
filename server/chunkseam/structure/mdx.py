"""MDX flow constructs as markdown-it block rules.

MDX (Docusaurus, Astro Starlight, Next.js docs) is Markdown plus two kinds of
block that a Markdown parser reads as prose:

* **ESM** — ``import`` / ``export`` statements at the top level, starting at
  column 0. One ESM block runs to the next blank line at bracket depth 0 (an
  ``export const meta = {`` … ``}`` object may contain blank lines). It is a
  leaf block of kind ``esm``; ``closed`` is false when its brackets never
  balance (it then runs to the end of the text).
* **JSX flow elements** — a line that starts with a tag (``<Tabs>``,
  ``<Badge text="new" />``, ``<>``). A self-closing element, or one whose
  closing tag is on the line where the opening tag ends, is one line (or the
  lines of its opening tag). Otherwise the element runs to the line that
  closes it (``</Tabs>``; nested elements of the same name are counted,
  fenced code is skipped), and the lines between are Markdown, parsed as the
  element's children — so a code fence or a table inside ``<TabItem>`` is
  still a fence or a table. The element is a container block of kind ``jsx``
  whose ``info`` is the tag name and whose ``closed`` says whether the
  closing tag was found.

* **Expressions** — a block that starts with ``{`` and ends with its
  matching ``}`` at the end of a line (``{/* a comment */}``): a leaf of
  kind ``esm`` whose ``info`` is ``expression``. An unclosed ``{`` is text.

MDX also turns off indented code blocks (indentation inside JSX is layout),
and so does the parser built here. HTML comments stay HTML blocks.
"""

from __future__ import annotations

import re

from chunkseam.core import budget
#: an ESM statement line
_ESM = re.compile(r"(?:import|export)(?=[\s{*]|$)")
#: the start of a JSX tag at a line start: ``<Name``, ``<name.sub``, ``<>``
_TAG_START = re.compile(r"<([A-Za-z_$][\w$.-]*)?(?=[\s/>]|$)")
_NAME = re.compile(r"[A-Za-z_$][\w$.-]*")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")


def _line(state, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _blank(state, line: int) -> bool:
    return state.isEmpty(line)


#: the longest JSX tag read (attributes included), and the characters a
#: document may spend scanning lines that start like a tag but turn out not to
#: be one: without them every line ``<A b={`` of a file would be scanned to its
#: end (an unclosed brace hides every later ``>``), quadratic work
_TAG_MAX = 20_000
_TAG_BUDGET = 400_000


def _scan_tag(src: str, pos: int, limit: int | None = None) -> tuple[int, str, bool, bool] | None:
    """The tag starting at ``src[pos] == '<'``: (end offset after ``>``, name,
    closing, self-closing), or None when it does not end before ``limit``
    (attributes may hold strings and ``{…}`` expressions with nested braces
    and ``>``)."""
    return _scan(src, pos, len(src) if limit is None else min(limit, len(src)))[0]


def _scan(src: str, pos: int, n: int) -> tuple[tuple[int, str, bool, bool] | None, int]:
    """:func:`_scan_tag`, and the offset where the scan stopped (its cost)."""
    i = pos + 1
    closing = i < n and src[i] == "/"
    if closing:
        i += 1
    m = _NAME.match(src, i, n)
    name = m.group(0) if m else ""
    if m:
        i = m.end()
    depth = 0
    quote = ""
    while i < n:
        c = src[i]
        if quote:
            if c == quote:
                quote = ""
        elif depth:
            if c in "\"'`":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth = 1
        elif c == ">":
            return (i + 1, name, closing, src[i - 1] == "/"), i
        elif c == "<":
            return None, i  # not a tag after all
        i += 1
    return None, i


def _tags_on(src: str, start: int, end: int, name: str) -> int:
    """Net depth change of ``name`` tags in ``src[start:end]``."""
    # tags written in inline code (`` `<Aside>` ``) are text
    line = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), src[start:end])
    d = 0
    for m in re.finditer(r"<(/?)" + re.escape(name) + r"(?=[\s/>]|$)", line):
        tag = _scan_tag(line, m.start())
        if tag is None:
            continue
        if tag[2]:
            d -= 1
        elif not tag[3]:
            d += 1
    return d


def esm_rule(state, start_line: int, end_line: int, silent: bool) -> bool:
    # top level only: not in a block quote, list or JSX element (each has an
    # open token, so the level is above 0)
    if state.sCount[start_line] != 0 or state.level:
        return False
    text = _line(state, start_line)
    if not _ESM.match(text):
        return False
    if silent:
        return True
    depth = 0
    line = start_line
    while line < end_line:
        if _blank(state, line) and depth <= 0:
            break
        s = _line(state, line)
        depth += s.count("{") + s.count("(") + s.count("[")
        depth -= s.count("}") + s.count(")") + s.count("]")
        line += 1
    token = state.push("mdx_esm", "", 0)
    token.map = [start_line, line]
    token.block = True
    token.meta = {"closed": depth <= 0}
    state.line = line
    return True


def jsx_rule(state, start_line: int, end_line: int, silent: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    src = state.src
    pos = state.bMarks[start_line] + state.tShift[start_line]
    m = _TAG_START.match(src, pos)
    if not m or src.startswith("</", pos):
        return False
    limit = state.eMarks[end_line - 1] if end_line > start_line else state.eMarks[start_line]
    # bounded work: a tag is read up to _TAG_MAX characters, and the scans that
    # find none share one budget per document (as expressions do, below); once
    # it is spent, only tags that end on their first line are read
    spent = state.env.setdefault("mdx_tag_budget", [_TAG_BUDGET])
    if spent[0] <= 0:
        limit = state.eMarks[start_line]
    tag, stop = _scan(src, pos, min(limit, pos + _TAG_MAX))
    if tag is None:
        spent[0] -= stop - pos
        return False
    tag_end, name, _closing, self_closing = tag
    # HTML's void elements written without the slash (``<br>``, ``<img …>``)
    # are an MDX syntax error; read them as self-closing rather than as an
    # element that swallows the rest of the file
    self_closing = self_closing or name.lower() in _VOID
    # the line where the opening tag ends
    open_last = start_line
    while open_last + 1 < end_line and state.bMarks[open_last + 1] <= tag_end - 1:
        open_last += 1
    if silent:
        return True
    closed = True
    if self_closing:
        last = open_last
    else:
        depth = 1 + _tags_on(src, tag_end, state.eMarks[open_last], name)
        last = open_last
        if depth > 0:
            fence = ""
            line = open_last + 1
            closed = False
            while line < end_line:
                if not line % budget.STRIDE:
                    budget.check("reading MDX")
                s = _line(state, line)
                f = _FENCE.match(s)
                if fence:
                    if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence):
                        fence = ""
                elif f:
                    fence = f.group(1)
                else:
                    depth += _tags_on(src, state.bMarks[line] + state.tShift[line],
                                      state.eMarks[line], name)
                    if depth <= 0:
                        closed = True
                        break
                line += 1
            last = min(line, end_line - 1)
    token = state.push("jsx_open", "", 1)
    token.map = [start_line, last + 1]
    token.block = True
    token.info = name
    token.meta = {"closed": closed}
    inner_start, inner_end = open_last + 1, (last if closed else last + 1)
    if inner_start < inner_end:
        old_parent, old_max, old_indent = state.parentType, state.lineMax, state.blkIndent
        state.parentType = "jsx"
        state.lineMax = inner_end
        # indentation inside JSX is layout: the children's common indentation is
        # their left margin (a fence indented under its `<td>` is still a fence)
        margins = [state.sCount[ln] for ln in range(inner_start, inner_end) if not state.isEmpty(ln)]
        state.blkIndent = min(margins) if margins else 0
        state.md.block.tokenize(state, inner_start, inner_end)
        state.parentType, state.lineMax, state.blkIndent = old_parent, old_max, old_indent
    token = state.push("jsx_close", "", -1)
    token.block = True
    state.line = last + 1
    return True


#: the longest flow expression read as one block, and the characters a
#: document may spend on lines that turn out not to start one
_EXPRESSION_MAX = 20_000
_EXPRESSION_BUDGET = 400_000


def _expression_end(src: str, pos: int, limit: int) -> int | None:
    """The offset after the ``}`` that closes the expression opened by
    ``src[pos] == '{'`` (strings, template literals and comments skipped), or
    None when it is not closed before ``limit``."""
    depth = 0
    i = pos
    while i < limit:
        c = src[i]
        if c in "\"'`":
            j = i + 1
            while j < limit and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2, limit)
            if j < 0:
                return None
            i = j + 2
            continue
        if src.startswith("//", i):
            j = src.find("\n", i, limit)
            i = limit if j < 0 else j
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def expression_rule(state, start_line: int, end_line: int, silent: bool) -> bool:
    """A flow expression: a line that starts with ``{`` and a block that ends
    with the matching ``}`` (``{/* a comment */}``, ``{props.items.map(…)}``),
    read as one leaf like ESM (``info`` "expression")."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    src = state.src
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if pos >= len(src) or src[pos] != "{":
        return False
    # bounded work: an expression is read up to _EXPRESSION_MAX characters,
    # and the scans that find none share one budget per document
    budget = state.env.setdefault("mdx_expression_budget", [_EXPRESSION_BUDGET])
    if budget[0] <= 0:
        return False
    limit = state.eMarks[end_line - 1] if end_line > start_line else state.eMarks[start_line]
    limit = min(limit, pos + _EXPRESSION_MAX)
    end = _expression_end(src, pos, limit)
    if end is None:  # unclosed (an MDX syntax error) or too long: not read as one
        budget[0] -= limit - pos
        return False
    last = start_line
    while last + 1 < end_line and state.bMarks[last + 1] <= end - 1:
        last += 1
    if src[end : state.eMarks[last]].strip():
        budget[0] -= end - pos
        return False  # text after the expression: a paragraph that starts with one
    closed = True
    if silent:
        return True
    token = state.push("mdx_esm", "", 0)
    token.map = [start_line, last + 1]
    token.block = True
    token.info = "expression"
    token.meta = {"closed": closed}
    state.line = last + 1
    return True


def mdx_plugin(md) -> None:
    """Add the ESM and JSX rules to a markdown-it parser and turn off
    indented code, as MDX does."""
    md.block.ruler.before("fence", "mdx_esm", esm_rule)
    md.block.ruler.before("html_block", "mdx_jsx", jsx_rule)
    md.block.ruler.before("paragraph", "mdx_expression", expression_rule)
    md.disable("code")


def is_mdx(path: str | None = None, uri: str | None = None, language_id: str | None = None) -> bool:
    """Whether a document is MDX: its language id is ``mdx`` or its name ends in ``.mdx``."""
    if language_id and language_id.lower() == "mdx":
        return True
    for name in (path, uri):
        if name and name.lower().endswith(".mdx"):
            return True
    return False


class MdxBackend:
    """MDX's block structure (see :mod:`chunkseam.structure.registry`): Markdown's
    segmented parse with the JSX and ESM rules above, updated after an edit."""

    name = "mdx"
    segmented = "mdx"

    def accepts(self, doc) -> bool:
        return doc.kind == "markdown" and is_mdx(doc.path, doc.uri, doc.language_id)

    def records(self, doc) -> tuple[tuple, str]:
        raise NotImplementedError("a segmented backend has no whole-text records")
