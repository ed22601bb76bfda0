"""CS001–CS008: a cut judged against the Markdown (or plain-text) source.

A cut strictly inside a block (``block.start < cut < block.end``) breaks that
block; a cut at a block's first character, at its end, or in the whitespace
between blocks is clean. Each cut gets at most one issue: the checks run in
this precedence order and the first enabled rule that applies wins, so one
cut is one squiggle of its most serious kind:

    CS003 split-code-fence > CS008 split-raw-block > CS004 split-table >
    CS001 mid-word > CS006 split-brackets (brackets, links, code spans, tags,
    then link reference definitions) > CS005 split-list-item > CS002
    mid-sentence > CS006 (emphasis); CS007 orphan-heading only at an
    otherwise clean cut.

Rules switched off by configuration drop out of the order (with CS003 off, a
mid-word cut inside code reports CS001); an inline suppression silences the
cut's winner and does not promote the next rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunkseam.core.issue import Issue
from chunkseam.structure.markdown import LEAF_KINDS, lead_in_end
from chunkseam.checks.base import Context, Cut, code_spans, has_prose, heading_as_written, sentence_spans, word_span

_FENCE_MARK = re.compile(r"[ \t>]*(`{3,}|~{3,})")


@dataclass(slots=True)
class Where:
    """The blocks that strictly contain a cut, outermost first."""

    blocks: list
    leaf: object | None


def locate(ctx: Context, offset: int) -> Where:
    blocks = ctx.structure.strictly_containing(offset)
    leaf = blocks[-1] if blocks and blocks[-1].kind in LEAF_KINDS else None
    return Where(blocks, leaf)


def _line_start(text: str, offset: int) -> int:
    """Start of the line holding ``offset``. A carriage return is looked for
    only after the last line feed (the nearer break wins): searching back to
    the text's start for one that a document without carriage returns never
    holds read the whole document before ``offset`` per call."""
    n = text.rfind("\n", 0, offset)
    return max(n, text.rfind("\r", n + 1, offset)) + 1


def _next_line_start(text: str, offset: int) -> int:
    """Start of the line after the one holding ``offset`` (or ``offset`` when
    it is already at a line start)."""
    if offset == 0 or text[offset - 1] in "\r\n":
        return offset
    m = re.compile(r"\r\n|\r|\n").search(text, offset)
    return m.end() if m else len(text)


def _eol(text: str) -> str:
    m = re.search(r"\r\n|\r|\n", text)
    return m.group() if m else "\n"


def _paragraph_data(leaf) -> dict:
    """The paragraph a cut is in. Its sentences are not computed here (pysbd
    is the validator's main cost and these rules do not need them); a quick
    fix gets them lazily with :func:`chunkseam.checks.base.sentence_spans`."""
    if leaf is None or leaf.kind != "paragraph":
        return {}
    return {"paragraph": [leaf.start, leaf.end]}


def _finish(ctx: Context, code: str, cut: Cut, what: str, lo: int, hi: int,
            snip_lo: int | None = None, snip_hi: int | None = None, hint: str | None = None,
            **data) -> Issue:
    return _cut_issue(ctx, code, cut, what, lo, hi, lo if snip_lo is None else snip_lo,
                      hi if snip_hi is None else snip_hi, hint, data)


def _cut_issue(ctx: Context, code: str, cut: Cut, what: str, lo: int, hi: int, snip_lo: int,
               snip_hi: int, hint: str | None, data: dict) -> Issue:
    """:func:`_finish` with its excerpt bounds given and ``data`` as a dict
    (the issue's own: not copied). The message is written when first read
    (:class:`~chunkseam.checks.base.CutMessage`)."""
    related, rel_msg = ctx.related_for(cut, lo, hi)
    msg = ctx.cut_message_later(cut, what, snip_lo, snip_hi)
    issue = ctx.cut_issue(code, msg, lo, hi, cut, related, rel_msg, hint, data)
    issue._text = ctx.text  # (the message is written from it when first read)
    return issue


# -- CS003 split-code-fence ---------------------------------------------------------------

#: an MkDocs admonition or content tab opener ("!!! note", '=== "Tab"')
_ADMONITION = re.compile(r"(?:!!!|\?\?\?\+?|===\+?)[ \t]+\S")


def _in_admonition(text: str, start: int) -> bool:
    """Whether the indented block at ``start`` is the body of an MkDocs
    admonition or tab: the nearest line before it at column 0 opens one."""
    pos = start
    floor = max(0, start - 20000)
    while pos > floor:
        ls = max(text.rfind("\n", 0, pos - 1), -1) + 1
        line = text[ls : pos - 1] if pos - 1 >= ls else ""
        if line.strip() and line[:1] not in " \t":
            return _ADMONITION.match(line) is not None
        if ls == 0:
            break
        pos = ls
    return False
_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})([^\r\n]*)")


def _is_mdx(ctx: Context) -> bool:
    path = getattr(ctx.doc, "path", None) or getattr(ctx.doc, "uri", None) or ""
    return str(path).lower().endswith(".mdx")


_RST_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+[\w:.+-]+[ \t]*::")


def _is_rst(ctx: Context) -> bool:
    return ctx.rst


def _fence_in(text: str, start: int, end: int, cut: int) -> tuple[int, int, str, str] | None:
    """The fence inside ``text[start:end]`` (indented content) holding ``cut``
    strictly between its opening and closing lines: ``(start, end, marker, info)``."""
    pos = start
    open_: tuple[int, str, str] | None = None
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        m = _FENCE_LINE.fullmatch(text, pos, line_end)
        if m:
            mark = m.group(1)
            if open_ is None:
                open_ = (pos + len(m.group(0)) - len(m.group(0).lstrip()), mark, m.group(2).strip())
            elif mark[0] == open_[1][0] and len(mark) >= len(open_[1]) and not m.group(2).strip():
                if open_[0] < cut < line_end:
                    return (open_[0], line_end, open_[1], open_[2])
                open_ = None
        if open_ is not None and pos > cut:
            break
        pos = line_end + 1
    if open_ is not None and open_[0] < cut:
        return (open_[0], end, open_[1], open_[2])
    return None


def _code_cell(ctx: Context, cut: Cut, b) -> Issue | None:
    """CS003 for a cut in a notebook's code cell (a fence of the view): named
    as the cell, and for Python the definition or string it falls in (the
    code checks, on the cell's source); the unit is the cell's source."""
    nb = ctx.doc.notebook
    c = cut.offset
    cell, off = nb.to_cell(c)
    if cell < 0 or nb.kinds[cell] != "code":
        return None
    s, e = nb.span(cell)
    if not (b.start <= s and e <= b.end and s < c < e):
        return None
    what = f"inside code cell {cell + 1}"
    data: dict = {"block": [b.start, b.end], "cell": cell + 1, "language": nb.languages[cell]}
    if nb.languages[cell] == "python":
        from chunkseam.structure.python import python_structure

        py = ctx.doc.memo(("checks:cell-python", cell), lambda: python_structure(ctx.text[s:e]))
        if py is not None and py.ok:
            lit = py.string_at(off)
            d = py.split_definition(off)
            if lit is not None:
                what = f"inside a string literal of code cell {cell + 1}"
                data["string"] = [s + lit.start, s + lit.end]
            elif d is not None:
                kind = "class" if d.kind == "class" else "function"
                name = ".".join(d.qualname) if d.qualname else d.name
                what = f"inside {kind} {name} of code cell {cell + 1}"
                data.update(definition=[s + d.start, s + d.end], name=name)
    return _finish(ctx, "CS003", cut, what, s, e,
                   hint="keep the cell in one chunk (a bigger size, or split the cell in two)", **data)


_QUOTE_MARKS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}")
_CODE_MARK = re.compile(r"[{}\[\]=;<>$`|\\#@]|->|::|\w\(|\w\.\w+\(")
_SENTENCE_JOIN = re.compile(r"[^\W\d_]{2,}[.,;:!?][\s>]+[^\W\d_]")


def _reads_as_prose(text: str, start: int, end: int) -> bool:
    """Whether an indented block reads as prose, not code: many words,
    sentence punctuation between them, hardly a mark of code (``{ } = ;``,
    calls, operators)."""
    piece = _QUOTE_MARKS.sub("", text[start:end])
    words = len(_PROSE_WORD.findall(piece))
    return (words >= 12 and len(_CODE_MARK.findall(piece)) * 40 <= words
            and _SENTENCE_JOIN.search(piece) is not None)


def _admonition_fence(ctx: Context, cut: Cut, para) -> Issue | None:
    """CS003 for a cut in a fence inside the paragraph ``para`` that an MkDocs
    admonition or tab opener starts, its indented content right under it
    ('???+ example "…"' then "    ```python"): CommonMark reads the content as
    the opener's paragraph, MkDocs as Markdown, where a fence is code."""
    text = ctx.text
    if not _ADMONITION.match(text, para.start) or _is_rst(ctx):
        return None
    inner = _fence_in(text, para.start, para.end, cut.offset)
    if inner is None:
        return None
    fs, fe, marker, info = inner
    lang = info.split()[0] if info.split() else ""
    what = f"inside a {marker}{lang} code block" if lang else "inside a code block"
    return _finish(ctx, "CS003", cut, what, fs, fe,
                   hint="split the code block in two complete fences, or let the chunker keep it whole",
                   block=[fs, fe], marker=marker, info=info, closed=fe < para.end)


def split_code_fence(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    for b in where.blocks:
        if b.kind == "paragraph":
            found = _admonition_fence(ctx, cut, b)
            if found is not None:
                return found
            continue
        if b.kind not in ("fence", "code"):
            continue
        text = ctx.text
        c = cut.offset
        if b.kind == "fence" and getattr(ctx.doc, "notebook", None) is not None:
            found = _code_cell(ctx, cut, b)
            if found is not None:
                return found
        if b.kind == "code":
            if not text[b.start : c].strip() or not text[c : b.end].strip():
                continue  # in the indentation before the block (or after it): the block is whole
            if any(o.kind == "blockquote" for o in where.blocks) and _reads_as_prose(text, b.start, b.end):
                # prose indented inside a block quote (a quoted licence, a
                # letter): code to the parser, text to its writer and reader
                if word_span(text, c) is not None:
                    return None  # (CS001)
                for x, y in sentence_spans(text, b.start, b.end):
                    if x < c < y:
                        return _finish(ctx, "CS002", cut, "mid-sentence", x, y,
                                       hint="cut at a sentence or paragraph boundary", sentence=[x, y])
                return None
            if _is_mdx(ctx) or _in_admonition(text, b.start):
                # MDX has no indented code (indentation there is layout), and
                # MkDocs admonition or tab content ("!!! note", '=== "Tab"') is
                # Markdown: only a fence inside it is code
                inner = _fence_in(text, b.start, b.end, c)
                if inner is None:
                    continue
                fs, fe, marker, info = inner
                lang = info.split()[0] if info.split() else ""
                what = f"inside a {marker}{lang} code block" if lang else "inside a code block"
                return _finish(ctx, "CS003", cut, what, fs, fe,
                               hint="split the code block in two complete fences, or let the chunker keep it whole",
                               block=[fs, fe], marker=marker, info=info, closed=True)
        data: dict = {"block": [b.start, b.end]}
        if b.kind == "fence" and _is_rst(ctx):
            # a `.. code-block:: lang` directive or a `::` literal block: no
            # fence marks to split it with
            lang = b.info.split()[0] if b.info else ""
            if _RST_DIRECTIVE.match(text, b.start):
                what = f"inside a {lang} code block" if lang else "inside a code block"
            else:
                what = "inside a literal block"
            return _finish(ctx, "CS003", cut, what, b.start, b.end,
                           hint="let the chunker keep the code block whole", **data)
        if b.kind == "fence":
            m = _FENCE_MARK.match(text, _line_start(text, b.start))
            marker = m.group(1) if m else "```"
            lang = f" {b.info.split()[0]}" if b.info else ""
            what = f"inside a {marker}{lang.strip()} code block" if lang else "inside a code block"
            data.update(marker=marker, info=b.info, closed=b.closed)
            first_body = _next_line_start(text, b.start + 1)
            split_at = _next_line_start(text, c)
            closing_line = _line_start(text, b.end) if b.closed else b.end + 1
            prefix = text[_line_start(text, b.start) : b.start]
            if first_body < split_at < closing_line and not prefix.strip():
                nl = _eol(text)
                close = marker[0] * len(marker)
                data.update(fix="split-fence", offset=split_at,
                            insert=f"{prefix}{close}{nl}{nl}{prefix}{marker}{b.info}{nl}")
        else:
            what = "inside an indented code block"
        hint = ("split the code block in two complete fences, or let the chunker keep it whole"
                if b.kind == "fence" else "let the chunker keep the code block whole")
        return _finish(ctx, "CS003", cut, what, b.start, b.end, hint=hint, **data)
    return None


# -- CS008 split-raw-block ------------------------------------------------------------------


_TAG = re.compile(
    r"<!--.*?-->"
    r"|<(/?)([A-Za-z][\w.:-]*)((?:\s+[^\s\"'<>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|\{[^{}]*\}|[^\s\"'=<>`]+))?)*)\s*(/?)>",
    re.S)
#: HTML elements that have no closing tag
VOID_ELEMENTS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                           "param", "source", "track", "wbr"})


def html_cut(text: str, start: int, end: int, cut: int) -> tuple[str, int, int] | None:
    """What a cut at ``cut`` opens in the HTML of ``text[start:end]``: a tag
    (``("tag", s, e)`` — its attributes are cut), a comment (``("comment", s,
    e)``) or an element whose start tag is before the cut and whose end tag is
    not (``("element", s, e)``, the innermost, ``e`` its end or ``end``).
    None when the cut falls between complete, balanced elements."""
    stack: list[tuple[str, int, int]] = []  # (name, start of the start tag, end of it)
    pos = start
    while pos < end:
        lt = text.find("<", pos, end)
        if lt < 0 or lt >= cut:
            break
        m = _TAG.match(text, lt, end)
        if m is None:
            if text.startswith("<!--", lt):
                return ("comment", lt, end)  # an unterminated comment runs to the block's end
            pos = lt + 1
            continue
        if m.end() > cut:
            return ("comment" if m.group(2) is None else "tag", m.start(), m.end())
        pos = m.end()
        name = m.group(2)
        if name is None:
            continue  # a comment, complete before the cut
        low = name.lower()
        if m.group(1):  # an end tag: close up to its start tag
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0].lower() == low:
                    del stack[k:]
                    break
        elif not m.group(4) and low not in VOID_ELEMENTS:
            stack.append((name, m.start(), m.end()))
    if not stack:
        return None
    name, s, _e = stack[-1]
    close = re.compile(r"</" + re.escape(name) + r"\s*>", re.I).search(text, cut, end)
    return ("element", s, close.end() if close else end)


#: HTML elements whose children are items of a row or a list, each whole in
#: itself: the badges of a ``<p align="center">``, the logos of a sponsors
#: ``<div>``, the ``<li>`` of a ``<ul>``, the paragraphs of a ``<blockquote>``.
#: Not here: elements whose children are parts of one thing — the sources and
#: the image of a ``<picture>``, a figure and its caption, a ``<summary>`` and
#: what it hides, the cells and rows of a table, a term and its definition.
ROW_ELEMENTS = frozenset({"p", "div", "center", "span", "section", "nav", "header", "footer", "aside",
                          "main", "article", "ul", "ol", "blockquote"})
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z]\w*);")
_ALNUM = re.compile(r"[^\W_]")


def between_items(text: str, s: int, e: int, cut: int) -> bool:
    """Whether a cut at ``cut`` inside the element ``text[s:e]`` (its start
    tag at ``s``, its end tag ending at ``e``) falls between two of its
    children in a :data:`ROW_ELEMENTS` element that holds nothing else: no
    text of its own but separators (spaces, ``|``, ``·``, ``&nbsp;``), at
    least one whole child before the cut and one after. Each child is then
    whole in one chunk; one chunk keeps the container's start tag, the other
    its end tag, and neither lacks any text (``<p align="center">`` ⟨a
    badge⟩ ✂ ⟨a badge⟩ ``</p>``). Markup this cannot follow (a stray ``<``,
    an end tag without its start, an element left open) is never a row."""
    m = _TAG.match(text, s)
    if m is None or m.group(2) is None or m.group(2).lower() not in ROW_ELEMENTS:
        return False
    end_tag = text.rfind("</", m.end(), e)
    if end_tag < cut or _TAG.match(text, end_tag, e) is None:
        return False  # (not closed in the block)
    depth = 0
    at_cut = None  # the depth of the text run that holds the cut
    before = after = False
    pos = m.end()
    while True:
        lt = text.find("<", pos, end_tag)
        stop = end_tag if lt < 0 else lt
        if depth == 0 and _ALNUM.search(_ENTITY.sub(" ", text[pos:stop])):
            return False  # text of its own: the cut is in what the element says
        if at_cut is None and pos <= cut <= stop:
            at_cut = depth
        if lt < 0:
            break
        t = _TAG.match(text, lt, end_tag)
        if t is None or lt < cut < t.end():
            return False  # a stray "<", or the cut is inside a tag
        name = t.group(2)
        if name is not None:  # (a comment is neither text nor a child)
            if t.group(1):  # an end tag
                depth -= 1
                if depth < 0:
                    return False
                if depth == 0 and t.end() <= cut:
                    before = True
            elif t.group(4) or name.lower() in VOID_ELEMENTS:
                if depth == 0:
                    before = before or t.end() <= cut
                    after = after or lt >= cut
            else:
                if depth == 0 and lt >= cut:
                    after = True
                depth += 1
        pos = t.end()
    return depth == 0 and at_cut == 0 and before and after


_BREAKS = re.compile(r"(?:\s|<br\s*/?>|<hr\s*/?>|&nbsp;)*</[A-Za-z][\w.:-]*\s*>", re.I)


def _only_breaks_left(text: str, at: int, e: int) -> bool:
    """Whether all that is left of an element from ``at`` to its end ``e`` is
    line breaks (``<br>``, ``<hr>``, spaces) and its closing tag: the last
    child was whole before them (a sponsor link followed by ``<br><br>``)."""
    m = _BREAKS.match(text, at, e)
    return m is not None and m.end() == e


def _prose_in_element(ctx: Context, cut: Cut, s: int, e: int):
    """A cut in the text between tags inside an element (``<Step>`` then a
    sentence, as MDX and most READMEs write it) is judged as text: mid-word is
    left to CS001 (None), mid-sentence is CS002. ``False`` when the cut is not
    inside such text (the element is what it breaks)."""
    text = ctx.text
    c = cut.offset
    lo = max(text.rfind(">", s, c), text.rfind("\n\n", s, c)) + 1
    hi = min((x for x in (text.find("<", c, e), text.find("\n\n", c, e)) if x >= 0), default=e)
    if not (has_prose(text, lo, c) and has_prose(text, c, hi)) or not text[lo:c].strip() \
            or not text[c:hi].strip():
        return False
    if word_span(text, c) is not None:
        return None
    if "CS002" not in ctx.enabled:
        return False
    a = lo + len(text[lo:c]) - len(text[lo:c].lstrip())
    b = hi - (len(text[c:hi]) - len(text[c:hi].rstrip()))
    for x, y in sentence_spans(text, a, b):
        if x < c < y:
            return _finish(ctx, "CS002", cut, "mid-sentence", x, y,
                           hint="cut at a sentence or paragraph boundary", sentence=[x, y])
    return False


def _closing_tag_after(text: str, start: int, end: int) -> bool:
    """Is there a closing tag (``</…>``) in ``text[start:end]`` (the element's own end)?"""
    return "</" in text[start:end]


_CLOSING_TAG = re.compile(r"</(?:[A-Za-z][\w.:-]*)?[ \t\r\n]*>")


def skip_closing_tags(text: str, start: int, end: int) -> int:
    """The end of the run of closing tags (``</details>``, ``</Tabs>``,
    ``</>``) and whitespace at ``text[start:end]``."""
    pos = start
    while pos < end:
        if text[pos].isspace():
            pos += 1
            continue
        m = _CLOSING_TAG.match(text, pos, end)
        if m is None:
            break
        pos = m.end()
    return pos


def only_closing_tags(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds nothing but closing tags and
    whitespace. A unit whose only part across a cut is its closing tag is
    whole for a reader: a tag carries no text, so the chunk that holds the
    content lacks nothing, and the other one holds a stray closing tag (a
    chunk of nothing else is CS102's fragment, not a split unit)."""
    return skip_closing_tags(text, start, end) >= end


#: the JSX elements of an HTML table whose children (rows, cells) are not split cleanly
_TABLE_TAGS = frozenset({"table", "thead", "tbody", "tfoot", "tr"})


def split_raw_block(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    for b in where.blocks:
        if b.kind == "front_matter":
            return _finish(ctx, "CS008", cut, "inside the front matter", b.start, b.end,
                           hint="keep the front matter in one chunk (or out of the chunks)",
                           block=[b.start, b.end], kind="front_matter")
        if b.kind == "html_block":
            if any(o.kind == "list_item" for o in where.blocks):
                return None  # HTML inside a list item: the item is the unit it breaks (CS005)
            got = html_cut(ctx.text, b.start, b.end, cut.offset)
            at = cut.offset  # where what encloses the cut is judged
            while got is not None and got[0] == "element" and only_closing_tags(ctx.text, cut.offset, got[2]):
                # only the element's closing tag(s) after the cut: the element
                # is whole; what encloses it is judged past those tags, as a
                # cut there (`<img …>⟂</a>` in a badge row: between two badges)
                at = skip_closing_tags(ctx.text, got[2], b.end)
                got = html_cut(ctx.text, b.start, b.end, at) if at < b.end else None
            if got is None:
                return None  # between complete elements: a clean place to cut
            what, s, e = got
            if what == "element":
                prose = _prose_in_element(ctx, cut, s, e)
                if prose is not False:
                    return prose  # text inside the element: judged as text (None: clean)
                if between_items(ctx.text, s, e, at) or (at > cut.offset and _only_breaks_left(ctx.text, at, e)):
                    return None  # a row of whole badges, logos or items: cut between two
            if what == "comment":
                words = "inside an HTML comment"
            elif what == "tag":
                m = _TAG.match(ctx.text, s)
                words = f"inside the tag <{(m.group(1) + m.group(2)) if m else ''}…>"
            else:
                m = _TAG.match(ctx.text, s)
                words = f"inside the HTML element <{m.group(2) if m else ''}>"
            return _finish(ctx, "CS008", cut, words, b.start, b.end,
                           hint="keep the HTML element in one chunk", block=[b.start, b.end],
                           kind="html_block", element=[s, e])
        if b.kind == "explicit":
            what = {"comment": "a reStructuredText comment", "target": "a reStructuredText link target"}.get(
                b.info, f"the reStructuredText directive \"{b.info}\"")
            return _finish(ctx, "CS008", cut, f"inside {what}", b.start, b.end,
                           hint="keep the block in one chunk", block=[b.start, b.end], kind="explicit")
        if b.kind == "esm" and b.info == "expression":
            return _finish(ctx, "CS008", cut, "inside an MDX expression {…}", b.start, b.end,
                           hint="keep the expression in one chunk", block=[b.start, b.end], kind="esm")
        if b.kind == "esm":
            return _finish(ctx, "CS008", cut, "inside an MDX import/export block", b.start, b.end,
                           hint="keep the import/export statements in one chunk",
                           block=[b.start, b.end], kind="esm")
    # a JSX element or a reStructuredText directive: reported when the cut falls
    # in its own markup — its opening tag or directive head and what is before
    # its first child, its closing tag — so that a chunk is left with a bare
    # `<Tab title="…">` or `.. note::`; a cut between two whole children
    # (`</Step>⟂<Step>`, two paragraphs of a long note) is a clean place to cut,
    # and a cut inside a child block is judged by that block's rule
    jsx = [b for b in where.blocks if b.kind in ("jsx", "directive")]
    if jsx and any(o.kind == "list_item" for o in where.blocks):
        return None  # an element in a list item, or a list in the element: the item is the unit (CS005)
    while jsx and only_closing_tags(ctx.text, cut.offset, jsx[-1].end):
        jsx.pop()  # only its closing tag after the cut: the element is whole (see only_closing_tags)
    if jsx and not any(b.is_leaf for b in where.blocks):
        b = jsx[-1]
        kids = ctx.structure.children(b)
        if kids and kids[0].start < cut.offset and (
                b.kind == "directive" or cut.offset < kids[-1].end
                or not _closing_tag_after(ctx.text, kids[-1].end, b.end)):
            # between two whole children: clean, but for the rows and cells
            # of a table (`<tr>`, `<td>`: a row cut from its header, a cell
            # from its row), the unit CS004 keeps whole in a Markdown table
            table = [j for j in jsx if j.kind == "jsx" and j.info in _TABLE_TAGS]
            if not table:
                return None
            b = b if b.info == "tr" else table[0]
        if b.kind == "directive":  # a reStructuredText directive: in its head or between its body blocks
            return _finish(ctx, "CS008", cut, f"inside the reStructuredText directive \"{b.info}\"", b.start,
                           b.end, hint="keep the directive in one chunk", block=[b.start, b.end],
                           kind="directive")
        tag = f"<{b.info}>" if b.info else "<>"
        return _finish(ctx, "CS008", cut, f"inside the JSX element {tag}", b.start, b.end,
                       hint=f"keep the {tag} element in one chunk", block=[b.start, b.end],
                       kind="jsx")
    if where.leaf is None and not jsx and not _is_mdx(ctx) and not _is_rst(ctx):
        return _bare_wrapper(ctx, cut)
    return None


#: an HTML block that is one opening tag alone on its line (``<PagesOnly>``, ``<div align="center">``)
_BARE_OPEN = re.compile(r"[ \t]{0,3}<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?(?<!/)>[ \t]*")


#: an element whose wrapping says something about what it wraps: a component
#: (`<PagesOnly>`, `<Tabs>`: capitalised, as JSX names them), a custom element
#: (`<docs-only>`), a disclosure (`<details>`)
_SCOPING = re.compile(r"[A-Z][\w.:-]*|[a-z][\w]*-[\w.:-]+|details")


def _bare_wrapper(ctx: Context, cut: Cut) -> Issue | None:
    """A cut right after an element's bare opening tag on its own line in a
    Markdown file (``<PagesOnly>``, then a blank line and the list it wraps):
    the chunk ends with a tag that wraps nothing, and what it wraps starts the
    next chunk without it — in MDX the same is a JSX element's own markup
    (reported above); in Markdown the parser keeps the tag as an HTML block
    of its own, the content as Markdown blocks after it."""
    if cut.side == "start" or cut.left is None:
        return None
    c = cut.offset
    h, body = ctx.structure.leaves_around(c)
    if h is None or body is None or h.kind != "html_block" or h.end > c or body.start < c:
        return None
    text = ctx.text
    if text[h.end : c].strip():
        return None
    m = _BARE_OPEN.fullmatch(text, h.start, h.end)
    if m is None or not _SCOPING.fullmatch(m.group(1)):
        return None  # (a styling wrapper, `<div align="center">`, carries no meaning for what it wraps)
    if body.kind == "html_block" and _CLOSING_TAG.match(text, body.start):
        return None  # nothing wrapped before the closing tag
    return _finish(ctx, "CS008", cut, f"right after the bare opening tag <{m.group(1)}>, before what it wraps",
                   h.start, body.end, hint=f"cut before <{m.group(1)}> so it travels with what it wraps",
                   block=[h.start, h.end], kind="html_block", wrapper=[h.start, h.end])


# -- CS004 split-table -------------------------------------------------------------------------


def split_table(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    table = next((b for b in where.blocks if b.kind == "table"), None)
    if table is None:
        return None
    text = ctx.text
    c = cut.offset
    if not text[c : table.end].strip() or not text[table.start : c].strip():
        return None  # only the spaces after its last row (or before it) on one side: the table is whole
    rows = table.rows or [(table.start, table.end)]
    header_end = table.header_end or rows[0][1]
    data: dict = {"table": [table.start, table.end], "header": [rows[0][0], header_end]}
    body = rows[1:]
    before = sum(1 for r in body if r[1] <= c)  # body rows wholly before the cut
    data["rows_before"] = before
    if c <= header_end:
        what = "inside the table header"
    elif any(rs < c < re_ for rs, re_ in body):
        what = f"inside body row {before + 1} of a table"
    elif before == 0:
        what = "right after a table header: the body rows lose it"
    elif before == len(body) and c > body[-1][1]:
        what = "in the border line that closes a table"  # (reStructuredText: all its rows before the cut)
    else:
        what = f"between body rows {before} and {before + 1} of a table: the rows after it lose their header"
    nxt = _next_line_start(text, c)
    prefix = text[_line_start(text, table.start) : table.start]
    # (not in reStructuredText: a header pasted between rows leaves the rows
    # above without the border that closes a simple or grid table)
    if before >= 1 and c > header_end and nxt < table.end and not prefix.strip() and not _is_rst(ctx):
        nl = _eol(text)
        header = text[_line_start(text, table.start) : header_end]
        data.update(fix="repeat-header", offset=nxt, insert=f"{nl}{header}{nl}")
    return _finish(ctx, "CS004", cut, what, table.start, table.end,
                   hint="keep the table whole, or repeat its header in each piece", **data)


# -- CS001 mid-word -----------------------------------------------------------------------------


def mid_word(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    span = word_span(ctx.text, cut.offset)
    if span is None:
        return None
    leaf = where.leaf
    lo = leaf.start if leaf is not None else _line_start(ctx.text, cut.offset)
    hi = leaf.end if leaf is not None else span[1]
    data = {"word": [span[0], span[1]]}
    if leaf is not None and leaf.kind == "paragraph":  # (_paragraph_data)
        data["paragraph"] = [leaf.start, leaf.end]
    return _cut_issue(ctx, "CS001", cut, "mid-word", span[0], span[1], lo, hi,
                      "cut at a sentence or paragraph boundary", data)


# -- CS006 split-brackets -------------------------------------------------------------------------

_SPAN_WORDS = {"link": "inside a link", "code": "inside inline code",
               "literal": "inside an inline literal", "role": "inside a role",
               "interpreted": "inside interpreted text",
               "parentheses": "inside parentheses", "brackets": "inside square brackets",
               "braces": "inside braces", "html": "inside an HTML tag"}


def split_brackets(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    leaf = where.leaf
    if leaf is None or leaf.kind not in ("paragraph", "heading"):
        return None
    best = ctx.innermost_span(leaf, cut.offset)
    if best is None:
        return None
    return _finish(ctx, "CS006", cut, _SPAN_WORDS[best.kind], best.start, best.end,
                   hint="cut outside the brackets", span=[best.start, best.end], kind=best.kind,
                   **_paragraph_data(leaf))


_LINK_DEF = re.compile(
    r"[ \t]{0,3}\[((?:[^\]\\\r\n]|\\.){1,999})\]:[ \t]*(?:<[^>\r\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\r\n]*\"|'[^'\r\n]*'|\([^)\r\n]*\)))?[ \t]*(?=\r|\n|$)")


def split_link_definition(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    """A cut inside a link reference definition (``[label]: https://…``): the
    parser keeps no block for it, so it is found on the cut's line."""
    if where.leaf is not None:
        return None
    text = ctx.text
    c = cut.offset
    ls = _line_start(text, c)
    m = _LINK_DEF.match(text, ls)
    if m is None:
        return None
    s = ls
    while s < m.end() and text[s] in " \t":
        s += 1
    e = m.end()
    while e > s and text[e - 1] in " \t":
        e -= 1
    if not (s < c < e):
        return None
    label = " ".join(m.group(1).split())
    return _finish(ctx, "CS006", cut, f"inside the link reference definition [{label}]", s, e,
                   hint="cut before or after the definition", span=[s, e], kind="link_definition")


_EMPHASIS = re.compile(
    r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"
    r"|(?<![\w*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])"
    r"|(?<![\w_\\])_(?=[^\s_])(.+?)(?<=[^\s_\\])_(?![\w_])", re.S)


#: a sentence end inside an emphasis span: a whole passage in italics, not a phrase
_SENTENCE_BREAK = re.compile(r"[.!?][\"')\]]*\s+\S")


def split_emphasis(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    """A cut inside ``**strong**`` or ``*emphasis*`` that no other rule took
    (``**Remove the config.⟂**``: the sentence is whole, the span is not)."""
    leaf = where.leaf
    if leaf is None or leaf.kind not in ("paragraph", "heading"):
        return None
    text = ctx.text
    c = cut.offset
    lo, hi = max(leaf.start, c - 2000), min(leaf.end, c + 2000)
    piece = text[lo:hi]
    if "*" not in piece and "_" not in piece:
        return None
    rst = ctx._rst_literals(piece)  # (reStructuredText: its literals and roles)
    for a, b in ([(x[0], x[1]) for x in rst] if rst is not None else code_spans(piece)):
        piece = piece[:a] + "x" * (b - a) + piece[b:]  # markers inside inline code are literal
    for m in _EMPHASIS.finditer(piece):
        s, e = lo + m.start(), lo + m.end()
        if s >= c:
            break
        inner = piece[m.start() : m.end()]
        if c < e and "\n\n" not in inner and not _SENTENCE_BREAK.search(inner):
            return _finish(ctx, "CS006", cut, "inside emphasis", s, e,
                           hint="cut outside the emphasis", span=[s, e], kind="emphasis",
                           **_paragraph_data(leaf))
    return None


# -- CS005 split-list-item --------------------------------------------------------------------------


def split_list_item(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    blocks = where.blocks
    k = len(blocks) - 1  # the innermost list item
    while k >= 0 and blocks[k].kind != "list_item":
        k -= 1
    if k < 0:
        return None
    item = blocks[k]
    # inside a nested list of the item but in no sub-item: between two sibling
    # sub-items, a clean cut
    for b in blocks[k + 1 :]:
        if b.kind in ("bullet_list", "ordered_list"):
            return None
    if only_closing_tags(ctx.text, cut.offset, item.end):
        # only the item's trailing spaces (a hard break's "  ") or the closing
        # tags of HTML or JSX in it (`</details>`) after the cut: the item is whole
        return None
    return _finish(ctx, "CS005", cut, "inside a list item", item.start, item.end,
                   hint="cut between list items", item=[item.start, item.end],
                   **_paragraph_data(where.leaf))


# -- CS002 mid-sentence -------------------------------------------------------------------------------


def mid_sentence(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    leaf = where.leaf
    if leaf is None:
        return None
    c = cut.offset
    if leaf.kind == "heading":
        if not ctx.text[c : leaf.end].strip():
            return None  # before the heading's trailing spaces: after the heading (CS007's cut)
        if in_underline(ctx.text, leaf, c):
            return None  # in the underline only: the title is whole (CS007 judges the cut)
        title = heading_as_written(ctx.text, leaf)
        return _finish(ctx, "CS002", cut, f'inside the heading "{title}"', leaf.start, leaf.end,
                       hint="cut before or after the heading", heading=[leaf.start, leaf.end])
    if leaf.kind != "paragraph":
        return None
    found = _admonition_fence(ctx, cut, leaf)
    if found is not None:  # (a paragraph with no structural block around it is judged without CS003)
        return found
    sent = ctx.sentence_at(leaf, c)
    if sent is None or not (sent[0] < c < sent[1]):
        return None
    a, b = sent
    if not has_prose(ctx.text, a, c) or not has_prose(ctx.text, c, b):
        return None  # badges, avatars, <br>: markup on one side of the cut is not a sentence
    if _at_hard_break(ctx.text, c) and not _is_rst(ctx):
        return None  # lines the writer broke on purpose (a list of entries, an address)
    return _finish(ctx, "CS002", cut, "mid-sentence", a, b,
                   hint="cut at a sentence or paragraph boundary",
                   **{"fix": "paragraph-break", "offset": a, "sentence": [a, b], "sentence_start": a,
                      "paragraph": [leaf.start, leaf.end]})


_ADORNMENT_LINE = re.compile(r"[ \t]*([!-/:-@\[-`{-~])\1*[ \t]*")


def in_underline(text: str, heading, c: int) -> bool:
    """Whether ``c`` falls in the underline of a setext or reStructuredText
    heading (its last line, one punctuation character repeated), after the
    title's line."""
    ls = max(text.rfind("\n", heading.start, c), text.rfind("\r", heading.start, c))
    if ls < 0:
        return False  # on the title's first line
    line_end = heading.end
    for eol in ("\n", "\r"):
        k = text.find(eol, c, heading.end)
        if k >= 0:
            line_end = min(line_end, k)
    if line_end < heading.end and text[line_end:heading.end].strip():
        return False  # not the heading's last line (an overline)
    return _ADORNMENT_LINE.fullmatch(text, ls + 1, line_end) is not None


def _at_hard_break(text: str, c: int) -> bool:
    """Whether cut ``c`` is at a Markdown hard line break: in the spaces that
    end a line closing with two or more of them (or a backslash), or at the
    start of the line after one. The line before it ends where its writer
    ended it (``<br>``), as a list's entries do."""
    eol = text.find("\n", c)
    if eol >= 0 and not text[c:eol].strip(" \t\r"):
        line = text[text.rfind("\n", 0, c) + 1 : eol].rstrip("\r")
    elif c > 0 and text[c - 1] == "\n":
        line = text[text.rfind("\n", 0, c - 1) + 1 : c - 1].rstrip("\r")
    else:
        return False
    return bool(line.strip()) and (line.endswith("  ") or line.endswith("\\"))


# -- CS007 orphan-heading ---------------------------------------------------------------------------------


#: what a lead-in introduces: a block, not more prose
_INTRODUCED = frozenset({"fence", "code", "table", "bullet_list", "ordered_list", "jsx"})


def _lead_in_body(ctx: Context, lead, body) -> bool:
    """Whether ``lead`` (a top-level paragraph) is a lead-in to the block that
    ``body`` (the next leaf) starts: a code block, a table, a list or a JSX
    element (a ``<CodeGroup>``) that begins after it."""
    if lead.kind != "paragraph" or lead.depth != 0 or lead_in_end(ctx.text, lead.start, lead.end) is None:
        return False
    top = body
    st = ctx.structure
    while top.parent is not None:
        top = st.parent(top)
    return top.start >= lead.end and top.kind in _INTRODUCED


def orphan_heading(ctx: Context, cut: Cut, where: Where) -> Issue | None:
    if cut.side == "start" or cut.left is None:
        return None
    c = cut.offset
    # the last leaf starting before the cut, and the leaf after it
    h, body = ctx.structure.leaves_around(c)
    if h is None:
        return None
    if h.kind != "heading":
        # (the cut right after the paragraph first: a long paragraph is not read per cut)
        if body is not None and h.kind == "paragraph" and h.end <= c and not ctx.text[h.end : c].strip() \
                and _lead_in_body(ctx, h, body):
            return _orphan_lead_in(ctx, cut, h, body)
        return None
    h_end = h.start + len(ctx.text[h.start : h.end].rstrip())
    if h_end > c and in_underline(ctx.text, h, c):
        h_end = c  # in a setext or reStructuredText underline: after the title, as a reader sees it
    if h_end > c or ctx.text[h_end : c].strip():
        return None
    if not _left_only(ctx, cut, h.start):
        return None  # the heading is not in the left chunk, or the right one carries it too
    if body is None:
        return None
    if body.kind == "heading" and body.level <= h.level:
        return None  # an empty section: nothing to orphan
    title = heading_as_written(ctx.text, h)
    right = f"chunk {cut.right + 1}" if cut.right is not None else "no chunk"
    first = ctx.snippet_right(body.start, body.end, chunk=cut.right)
    msg = f'chunk {cut.left + 1} ends with the heading "{title}": its section "{first}" is in {right}'
    return ctx.issue("CS007", msg, h.start, h.end, cut=cut, related=(body.start, body.end),
                     related_message=f"the section's body starts {right}",
                     hint="cut before the heading so it travels with its body",
                     **{"fix": "move-heading", "heading": [h.start, h.end], "body": body.start})


def _left_only(ctx: Context, cut: Cut, start: int) -> bool:
    """Whether the chunk left of ``cut`` holds ``start`` (a heading's or a
    lead-in's) and the chunk right of it does not (no overlap carries it)."""
    if ctx.by_position[cut.left].start > start:
        return False
    return cut.right is None or ctx.by_position[cut.right].start > start


def _orphan_lead_in(ctx: Context, cut: Cut, h, body) -> Issue | None:
    """A lead-in ("Run it like so:") that ends a chunk whose next chunk holds
    what it introduces: CS007, as a heading is (the lead-in is the heading of
    that block)."""
    text = ctx.text
    h_end = lead_in_end(text, h.start, h.end)
    if not _left_only(ctx, cut, h.start):
        return None  # the left chunk starts inside the lead-in (that cut is judged on its own), or overlap
    s = max(h.start, h_end - 60)
    sp = text.find(" ", s, h_end)
    lead = " ".join(text[(sp + 1 if s > h.start and sp >= 0 else s) : h_end].split())
    lead = ("…" if s > h.start else "") + lead
    right = f"chunk {cut.right + 1}" if cut.right is not None else "no chunk"
    first = ctx.snippet_right(body.start, body.end, chunk=cut.right)
    msg = f'chunk {cut.left + 1} ends with the lead-in "{lead}": what it introduces ("{first}") is in {right}'
    return ctx.issue("CS007", msg, h.start, h.end, cut=cut, related=(body.start, body.end),
                     related_message=f"what the lead-in introduces starts {right}",
                     hint="cut before the lead-in so it travels with what it introduces",
                     lead_in=[h.start, h.end], body=body.start)


#: precedence order for Markdown documents (first match wins)
MARKDOWN_ORDER = (
    ("CS003", split_code_fence),
    ("CS008", split_raw_block),
    ("CS004", split_table),
    ("CS001", mid_word),
    ("CS006", split_brackets),
    ("CS006", split_link_definition),
    ("CS005", split_list_item),
    ("CS002", mid_sentence),
    ("CS006", split_emphasis),
    ("CS007", orphan_heading),
)

#: plain text: paragraphs only
TEXT_ORDER = (
    ("CS001", mid_word),
    ("CS006", split_brackets),
    ("CS002", mid_sentence),
)
