"""reStructuredText block structure, for the ``markdown`` strategy's rules.

docutils parses the document (safely: no file insertion, no raw output, no
reporting, never halting; Sphinx is never run, and a directive docutils does
not know — ``versionadded``, ``autofunction`` — is never executed, it becomes
an error node that is read here as a generic directive). The records made
here have the shape of :mod:`chunkseam.structure.markdown`'s Markdown records, so the
chunker and the cut checks ask one structure:

* section titles → ``heading`` (level = section depth, title = its text);
* paragraphs → ``paragraph``; a transition → ``hr``;
* literal blocks (``::``) and ``code-block``/``code``/``sourcecode``
  directives → ``fence`` (``info`` = the language);
* grid and simple tables → ``table`` (rows and header end);
* every other explicit-markup block (admonitions, unknown directives,
  comments, targets) → ``directive``, an atomic leaf (``info`` = its name);
* bullet, enumerated, field and definition lists → ``bullet_list`` /
  ``ordered_list`` with ``list_item`` containers; block quotes → ``blockquote``.

docutils gives line numbers, and not always the first line of a node (a
title's is its underline, a directive's literal block's the line after
it). So the spans are laid out here from the text: explicit markup, literal
blocks and tables are found by their line syntax and run as far as their
indentation (or their table borders); paragraphs and list items start at
the line docutils gives (paragraph lines are their first) and run to the
next blank line or the end of their indented body. Offsets are exact
character offsets into the text; ``end`` excludes the trailing line break.
"""

from __future__ import annotations

import re
from bisect import bisect_left

_EXPLICIT = re.compile(r"[ \t]*\.\.(?:[ \t]|$)")
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:\|[^|]+\|[ \t]+)?([\w:.+-]+)[ \t]*::")
_GRID = re.compile(r"[ \t]*\+[-=+]*[-=]\+?[ \t]*$")
_SIMPLE_BORDER = re.compile(r"[ \t]*=+(?:[ \t]+=+)*[ \t]*$")
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "ipython", "jupyter-execute"})
#: directives whose body is a table (its rows: a nested list or CSV)
_TABLE_DIRECTIVES = frozenset({"list-table", "csv-table", "flat-table"})
#: directives whose body is not reStructuredText prose: one atomic block
_OPAQUE_DIRECTIVES = frozenset({
    "raw", "math", "graphviz", "graph", "digraph", "mermaid", "plantuml", "uml", "productionlist", "toctree",
    "autosummary", "literalinclude", "include", "image", "figure", "highlight", "parsed-literal", "doctest",
    "testcode", "testoutput", "testsetup", "testcleanup", "tabularcolumns", "index", "meta", "sectionauthor",
    "codeauthor", "default-role", "role", "replace", "unicode", "date", "contents", "sectnum", "header",
    "footer", "program-output", "command-output", "kroki", "asciinema", "youtube",
})
#: characters str.splitlines breaks lines at besides \r and \n: spaces for docutils
_OTHER_BREAKS = {c: " " for c in (0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029)}
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def is_rst(path: str | None = None, uri: str | None = None, language_id: str | None = None) -> bool:
    """Whether a document is reStructuredText: language id ``restructuredtext`` or a ``.rst`` name."""
    if language_id and language_id.lower() == "restructuredtext":
        return True
    for name in (path, uri):
        if name and name.lower().endswith((".rst", ".rest")):
            return True
    return False


class _Text:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        self.ends: list[int] = []  # end of each line's content (before the break)
        for m in _LINE.finditer(text):
            if m.start() == len(text) and m.start() > 0:
                break
            s = m.start()
            body = m.group(0).rstrip("\r\n")
            self.starts.append(s)
            self.ends.append(s + len(body))
        self.n = len(self.starts)

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.ends[i]]

    def blank(self, i: int) -> bool:
        return not self.line(i).strip()

    def indent(self, i: int) -> int:
        s = self.line(i)
        return len(s) - len(s.lstrip())

    def body_end(self, i: int, ind: int) -> int:
        """The last non-blank line of the block starting at line ``i`` whose
        body is the following lines indented deeper than ``ind`` (or blank)."""
        last = i
        j = i + 1
        while j < self.n:
            if self.blank(j):
                j += 1
                continue
            if self.indent(j) <= ind:
                break
            last = j
            j += 1
        return last

    def para_end(self, i: int, stops: frozenset = frozenset()) -> int:
        """The last line of the paragraph at line ``i``: before a blank line, a
        line in ``stops`` (another paragraph) or a line indented less."""
        j = i
        ind = self.indent(i)
        while j + 1 < self.n and not self.blank(j + 1) and j + 1 not in stops and self.indent(j + 1) >= ind:
            j += 1
        return j


#: the deepest nesting read (block quotes, directive bodies, list items):
#: docutils parses each level's body again with a state machine of its own
#: (work grows with depth × size, and Python's recursion limit is met a few
#: hundred levels down); real documents nest a dozen levels at most
MAX_NESTING = 64
#: a list or enumeration marker at the start of a line's content (``- ``, ``1. ``, ``(a) ``, ``#. ``)
_MARKER = re.compile(r"(?:[-*+\u2022\u2023\u2043]|\(?(?:\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)])[ \t]+(?=\S)")


#: docutils' node tree, measured (``benchmarks/bench_parsers.py``): some 2 to 4.5 KB for each
#: block a line starts (a paragraph, a list item, a field, a title, a definition), the
#: deeper-nested a little more; the estimate takes 4 KB a block plus 16 bytes a level of the
#: file's deepest nesting, an upper bound of every shape measured (a flat list of one-word
#: items costs docutils 500 times its text, prose 9 times)
DOCUTILS_BYTES_PER_BLOCK = 4096
DOCUTILS_BYTES_PER_LEVEL = 16
#: the most memory docutils' tree may be estimated to take: this many bytes for each
#: character of the document, and at least :data:`DOCUTILS_FLOOR_BYTES` (any ordinary
#: document of a few megabytes parses within it); above it, the document gets the budget's
#: message instead of a parse that would take gigabytes
DOCUTILS_BYTES_PER_CHAR = 24
DOCUTILS_FLOOR_BYTES = 256 * 1024 * 1024


def shape(t: "_Text") -> tuple[int, int]:
    """``(depth, blocks)``: how deeply ``t`` nests — the most blocks open at once,
    judged from the lines' indentation and the list markers that start them
    (``- - - x`` is three lists deep) — and how many blocks its lines start (a
    line that starts no list item after a blank line, or indented otherwise than
    the line before, or a field; and each list marker). One pass over the lines."""
    stack: list[int] = []  # the content columns of the open blocks
    deepest = 0
    blocks = 0
    prev = -1  # the previous line's indentation (-1: blank)
    text = t.text
    for i in range(t.n):
        a, e = t.starts[i], t.ends[i]
        m = a
        while m < e and text[m] in " \t":
            m += 1
        if m == e:
            prev = -1
            continue
        ind = m - a
        mk = _MARKER.match(text, m, e)
        if mk is None and (ind != prev or text[m] == ":"):
            blocks += 1
        prev = ind
        while stack and stack[-1] > ind:
            stack.pop()
        if ind > (stack[-1] if stack else 0):
            stack.append(ind)
        while mk is not None:
            stack.append(mk.end() - a)
            blocks += 1
            mk = _MARKER.match(text, mk.end(), e)
        deepest = max(deepest, len(stack))
    return deepest, blocks


def nesting(t: "_Text") -> int:
    """How deeply ``t`` nests (see :func:`shape`)."""
    return shape(t)[0]


def docutils_estimate(depth: int, blocks: int) -> int:
    """The bytes docutils' tree of a document of this shape is estimated to take (an upper bound)."""
    return blocks * (DOCUTILS_BYTES_PER_BLOCK + DOCUTILS_BYTES_PER_LEVEL * depth)


def docutils_limit(length: int) -> int:
    """The most bytes docutils' tree may be estimated to take for a document of ``length`` characters."""
    return max(DOCUTILS_FLOOR_BYTES, DOCUTILS_BYTES_PER_CHAR * length)


_SETTINGS = None
_LOOKUP_PATCHED = False


def _generic_directives() -> None:
    """Make docutils read a directive it does not know (``versionadded``,
    ``autofunction``, an extension's) as a generic block whose content is
    parsed as reStructuredText, never run: for documents parsed here only (their
    settings carry ``chunkseam_generic``), and only names outside docutils' own
    registry (a directive registered in this process by other code is not run
    either). Every other docutils user in the process sees the usual lookup."""
    global _LOOKUP_PATCHED
    if _LOOKUP_PATCHED:
        return
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class _AnyOption(dict):
        def __missing__(self, key):
            return directives.unchanged

    class Generic(Directive):
        required_arguments = 0
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOption(dummy=directives.unchanged)
        has_content = True

        def run(self):
            from chunkseam.core import budget
            budget.check("reading reStructuredText")  # (each unknown directive: a nested parse)
            node = nodes.container()
            node.line = self.lineno
            # (a diagram's or a formula's body — mermaid, graphviz, math — is no prose:
            # parsed as reStructuredText, its indented lines would read as lists)
            if self.content and self.name.lower() not in _OPAQUE_DIRECTIVES:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    original = directives.directive

    def lookup(name, language_module, document):
        if getattr(document.settings, "chunkseam_generic", False):
            canonical = name.lower()
            try:
                canonical = language_module.directives.get(canonical, canonical)
            except AttributeError:
                pass
            if canonical not in directives._directive_registry:
                return Generic, []
        return original(name, language_module, document)

    directives.directive = lookup
    _LOOKUP_PATCHED = True


def _settings():
    """docutils settings that make parsing safe: no file is read or included,
    no raw output passes, nothing is reported and no error halts the parse."""
    global _SETTINGS
    if _SETTINGS is None:
        from docutils.frontend import get_default_settings
        from docutils.parsers.rst import Parser

        settings = get_default_settings(Parser)
        settings.file_insertion_enabled = False
        settings.raw_enabled = False
        settings.report_level = 5
        settings.halt_level = 5
        settings.warning_stream = False
        settings.traceback = True
        settings.syntax_highlight = "none"
        settings.character_level_inline_markup = False
        settings.chunkseam_generic = True
        _generic_directives()
        _SETTINGS = settings
    return _SETTINGS


def _docutils_tree(text: str):
    """The docutils document tree of ``text``."""
    import copy

    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from chunkseam.core import budget
    doc = new_document("<chunkseam>", copy.copy(_settings()))
    note_source = doc.note_source

    def note_and_check(source, offset):
        # docutils' state machines (the nested ones too) call the document's
        # note_source for every line they read: the time budget is tested there
        budget.check("reading reStructuredText")
        note_source(source, offset)

    doc.note_source = note_and_check
    Parser().parse(text, doc)
    return doc


def _scan_raw(t: _Text) -> list[list]:
    """Explicit markup, literal blocks and tables, found by their line syntax:
    [kind, first line, last line, info, header line or -1]."""
    out: list[list] = []
    i = 0
    prev_para_colons = False
    colons_line = -1
    no_end: dict[int, int] = {}
    while i < t.n:
        if t.blank(i):
            i += 1
            continue
        line = t.line(i)
        ind = t.indent(i)
        if prev_para_colons and _after_colons(t, i):
            end = t.body_end(i - 1 if i else i, _colon_indent(t, i))
            # the literal block: from this line to the end of the deeper-indented lines
            end = max(end, i)
            # an expanded "::" on a line of its own belongs to the block it introduces
            out.append(["fence", colons_line if colons_line >= 0 else i, end, "", -1])
            prev_para_colons = False
            i = end + 1
            continue
        if _EXPLICIT.match(line) or line.lstrip().startswith("__ "):  # ("__ url": an anonymous target)
            m = _DIRECTIVE.match(line)
            end = t.body_end(i, ind)
            prev_para_colons = False
            if m:
                name = m.group(1).lower()
                if name in _CODE_DIRECTIVES:
                    out.append(["fence", i, end, line[m.end():].strip(), -1])
                elif name in _TABLE_DIRECTIVES:
                    out.append(["table", i, end, name, -1])
                elif name in _OPAQUE_DIRECTIVES:
                    out.append(["explicit", i, end, name, -1])
                else:
                    # a body of reStructuredText (an admonition, a Sphinx object
                    # description, a directive docutils does not know): a container
                    # whose head is the directive line, its arguments and options
                    head = i
                    while head + 1 <= end and not t.blank(head + 1) and (
                            t.line(head + 1).lstrip().startswith(":")):
                        head += 1
                    if head >= end:
                        out.append(["explicit", i, end, name, -1])
                    else:
                        out.append(["directive", i, end, name, head])
                        i = head + 1  # the body is scanned like the rest
                        continue
            else:
                out.append(["explicit", i, end, "target" if line.lstrip().startswith(("__", ".. _")) else "comment", -1])
            i = end + 1
            continue
        if _GRID.match(line) and line.strip().startswith("+-"):
            end = t.para_end(i)
            header = next((j for j in range(i + 1, end + 1) if t.line(j).strip().startswith("+=")), -1)
            out.append(["table", i, end, "", header])
            prev_para_colons = False
            i = end + 1
            continue
        if _SIMPLE_BORDER.match(line) and " " in line.strip():  # (one column: a section title's overline)
            end, header = _simple_table(t, i, no_end)
            if end > i:
                out.append(["table", i, end, "", header])
                prev_para_colons = False
                i = end + 1
                continue
        # a paragraph-ish run: remember whether it ends with "::"
        j = t.para_end(i)
        prev_para_colons = t.line(j).rstrip().endswith("::")
        colons_line = i if i == j and line.strip() == "::" else -1
        i = j + 1
    return out


def _simple_table(t: _Text, i: int, no_end: dict[int, int]) -> tuple[int, int]:
    """(last line, header border line or -1) of a simple table whose top border is line ``i``
    (``i`` when it has no bottom border). ``no_end[indent]``: a line from which no bottom
    border at that indentation was found (none is found from any later line either)."""
    ind = t.indent(i)
    if no_end.get(ind, t.n) <= i:
        return i, -1
    borders = []
    j = i + 1
    while j < t.n:
        if _SIMPLE_BORDER.match(t.line(j)) and t.indent(j) == t.indent(i):
            borders.append(j)
            if j + 1 >= t.n or t.blank(j + 1):
                return j, (borders[0] if len(borders) > 1 else -1)
        j += 1
    no_end[ind] = i
    return i, -1


_ROW_MARK = re.compile(r"[ \t]*[*+-](?:[ \t]|$)")
_DASHES = re.compile(r"[ \t]*-+(?:[ \t]+-+)*[ \t]*$")
_HEADER_ROWS = re.compile(r"[ \t]*:header-rows:[ \t]*(\d+)")


#: what may stand before inline markup's start-string and after its end-string (docutils)
_BEFORE = frozenset(" \t\r\n-:/'\"<([{\u2018\u201c\u00ab\u2019")
_AFTER = frozenset(" \t\r\n-.,:;!?\\/'\")]}>\u2019\u201d\u00bb")
_ROLE = re.compile(r":[\w.+:-]+:$")


def inline_literals(text: str) -> list[tuple[int, int]]:
    """The spans of a paragraph's inline literals (````code````) and
    interpreted text (``:role:`target```, ```target`_``), by
    reStructuredText's rules: a start-string after whitespace or an opening
    mark and before a non-space, the end-string the first one after a
    non-space and before whitespace or punctuation (so ````:kbd:`C-x````` ends
    at its last two backticks). Linear in the text (the possible ends are
    found once)."""
    if "`" not in text:
        return []
    n = len(text)
    ends1: list[int] = []  # a single backtick that can end interpreted text (offset after it)
    ends2: list[int] = []  # "``" that can end an inline literal (its offset)
    for m in re.finditer("`", text):
        e = m.start()
        if e == 0 or text[e - 1].isspace():
            continue
        if text.startswith("``", e):
            tail = e + 2
            if tail >= n or text[tail] in _AFTER:
                ends2.append(e)
        if text[e - 1] != "`" and not text.startswith("``", e):
            tail = e + 1
            while tail < n and tail < e + 3 and text[tail] == "_":
                tail += 1
            if tail >= n or text[tail] in _AFTER:
                ends1.append(e)
    out: list[tuple[int, int]] = []
    i = 0
    while True:
        a = text.find("`", i)
        if a < 0 or a + 1 >= n:
            return out
        double = text.startswith("``", a)
        body = a + (2 if double else 1)
        if (a > 0 and text[a - 1] not in _BEFORE) or body >= n or text[body].isspace() or (
                not double and text[body] == "`"):
            i = a + (2 if double else 1)
            continue
        ends = ends2 if double else ends1
        k = bisect_left(ends, body + 1)
        if k >= len(ends):
            i = body
            continue
        e = ends[k]
        if double:
            end = e + 2
        else:
            end = e + 1
            while end < n and end < e + 3 and text[end] == "_":
                end += 1
        start = a
        if not double:
            m = _ROLE.search(text, max(0, a - 40), a)
            if m and (m.start() == 0 or text[m.start() - 1] in _BEFORE):
                start = m.start()
        out.append((start, end))
        i = end


def _span(t: _Text, first: int, last: int) -> tuple[int, int]:
    return t.starts[first] + t.indent(first), t.ends[last]


def _table_rows(t: _Text, a: int, b: int, info: str, header: int) -> tuple[list, int]:
    """The rows of the table on lines ``a``..``b`` as character spans, the
    first being its header (what a reader needs to read the others), and the
    end of that header. A row is what reStructuredText makes one: the lines
    between two borders of a grid table, a line of a simple table with the
    continuation lines under it (first column blank), an item of a
    ``list-table``; a table with no header has its top border (or a table
    directive's head: its line and options) as its first "row"."""
    groups: list[tuple[int, int]] = []  # (first line, last line) of each row
    head = (a, a)
    hrows = 0
    if info in _TABLE_DIRECTIVES:
        k = a
        while k + 1 <= b and not t.blank(k + 1) and t.line(k + 1).lstrip().startswith(":"):
            k += 1
            m = _HEADER_ROWS.match(t.line(k))
            if m:
                hrows = int(m.group(1))
        head = (a, k)
        body = [j for j in range(k + 1, b + 1) if not t.blank(j)]
        ind = min((t.indent(j) for j in body), default=0)
        for j in body:
            starts_row = t.indent(j) == ind and (info == "csv-table" or _ROW_MARK.match(t.line(j)))
            if starts_row or not groups:
                groups.append((j, j))
            else:
                groups[-1] = (groups[-1][0], j)
    elif _GRID.match(t.line(a)):
        first = -1
        for j in range(a + 1, b + 1):
            if _GRID.match(t.line(j)):
                if first >= 0:
                    groups.append((first, j - 1))
                first = -1
                if j == header:
                    hrows = len(groups)
            elif first < 0:
                first = j
        if first >= 0:
            groups.append((first, b))
    else:  # a simple table: a row starts where its first column has text
        col = len(t.line(a)) - len(t.line(a).lstrip())
        width = len(t.line(a).strip().split()[0]) if t.line(a).strip() else 0
        for j in range(a + 1, b + 1):
            line = t.line(j)
            if t.blank(j) or _SIMPLE_BORDER.match(line):
                if j == header:
                    hrows = len(groups)
                continue
            if groups and (_DASHES.match(line) or not line[col:col + width].strip()):
                groups[-1] = (groups[-1][0], j)  # a column-span underline, a continuation line
            else:
                groups.append((j, j))
    hrows = min(hrows, len(groups))
    if hrows:
        first = head[0] if info in _TABLE_DIRECTIVES else groups[0][0]
        rows = [_span(t, first, groups[hrows - 1][1])] + [_span(t, f, la) for f, la in groups[hrows:]]
        # the header ends with its border (`+===+`, `=== ===`) when it has one
        return rows, t.ends[header] if header > 0 else rows[0][1]
    rows = [_span(t, *head)] + [_span(t, f, la) for f, la in groups]
    return rows, rows[0][1]


def _after_colons(t: _Text, i: int) -> bool:
    return t.indent(i) > _colon_indent(t, i)


def _colon_indent(t: _Text, i: int) -> int:
    j = i - 1
    while j >= 0 and t.blank(j):
        j -= 1
    k = j
    while k > 0 and not t.blank(k - 1):
        k -= 1
    return t.indent(k) if j >= 0 else 0


def records(text: str) -> tuple:
    """The block records of a reStructuredText document (the record layout of
    :mod:`chunkseam.structure.markdown`)."""
    from docutils import nodes

    t = _Text(text)
    if t.n == 0 or not text.strip():
        return ()
    raw = _scan_raw(t)
    taken = [False] * t.n
    items: list[list] = []  # [kind, first, last, level, title, info, header line]
    directives: list[list] = []
    for r in raw:
        if r[0] == "directive":  # a container: only its head is taken
            directives.append(r)
            last = r[4]
        else:
            items.append([r[0], r[1], r[2], 0, None, r[3], r[4]])
            last = r[2]
        for k in range(r[1], last + 1):
            taken[k] = True
    from chunkseam.core import budget
    depth, blocks = shape(t)
    if depth > MAX_NESTING:
        raise budget.BudgetExceeded(f"the reStructuredText nests {depth:,} blocks deep "
                                    f"(at most {MAX_NESTING} are read)")
    need, limit = docutils_estimate(depth, blocks), docutils_limit(len(text))
    if need > limit:
        mb = 1024 * 1024
        raise budget.BudgetExceeded(
            f"the reStructuredText starts {blocks:,} blocks, whose docutils tree would take about "
            f"{need // mb:,} MB (at most {limit // mb:,} MB are used for a document of "
            f"{len(text):,} characters: {DOCUTILS_BYTES_PER_CHAR} bytes a character, "
            f"at least {DOCUTILS_FLOOR_BYTES // mb} MB)")
    try:
        # (docutils splits lines as str.splitlines does; the line numbers here count \r\n, \r and \n only)
        doc = _docutils_tree(text.translate(_OTHER_BREAKS))
    except budget.BudgetExceeded:
        raise
    except Exception:  # noqa: BLE001 - docutils on hostile input: fall back to the raw scan + paragraphs
        doc = None

    def first_line(node) -> int | None:
        lines = []
        for d in node.findall(nodes.paragraph):
            if d.line:
                lines.append(d.line - 1)
        for d in node.findall(nodes.Element):
            if isinstance(d, (nodes.field, nodes.definition_list_item, nodes.term)) and d.line:
                lines.append(d.line - 1)
        return min(lines) if lines else None

    containers: list[list] = []
    para_lines = frozenset(p.line - 1 for p in doc.findall(nodes.paragraph) if p.line) if doc else frozenset()
    if doc is not None:
        def walk(node, depth: int) -> None:
            budget.check("reading reStructuredText")
            for ch in node.children:
                if isinstance(ch, nodes.section):
                    walk(ch, depth + 1)
                elif isinstance(ch, nodes.title) and isinstance(node, nodes.section) and ch.line:
                    under = ch.line - 1
                    first = under - 1
                    if first - 1 >= 0 \
                            and t.line(first - 1).strip() and set(t.line(first - 1).strip()) == set(
                                t.line(under).strip()):
                        first -= 1
                    if 0 <= first < t.n and under < t.n and not taken[first]:
                        items.append(["heading", first, under, min(depth, 6), ch.astext(), "", -1])
                        for k in range(first, under + 1):
                            taken[k] = True
                elif isinstance(ch, nodes.paragraph):
                    if ch.line and 0 < ch.line <= t.n and not taken[ch.line - 1]:
                        a = ch.line - 1
                        b = t.para_end(a, para_lines)
                        if not any(taken[a : b + 1]):
                            items.append(["paragraph", a, b, 0, None, "", -1])
                            for k in range(a, b + 1):
                                taken[k] = True
                elif isinstance(ch, (nodes.term, nodes.doctest_block)) and ch.line and 0 < ch.line <= t.n:
                    # a definition list's term: one line; a doctest block (>>>): code to the blank line
                    a = ch.line - 1
                    b = a if isinstance(ch, nodes.term) else t.para_end(a)
                    if not any(taken[a : b + 1]):
                        if isinstance(ch, nodes.term):
                            items.append(["paragraph", a, b, 0, None, "", -1])
                        else:
                            items.append(["fence", a, b, 0, None, "pycon", -1])
                        for k in range(a, b + 1):
                            taken[k] = True
                elif isinstance(ch, nodes.transition) and ch.line and 0 < ch.line <= t.n:
                    a = ch.line - 1
                    if not taken[a]:
                        items.append(["hr", a, a, 0, None, "", -1])
                        taken[a] = True
                elif isinstance(ch, (nodes.bullet_list, nodes.enumerated_list, nodes.field_list,
                                     nodes.definition_list, nodes.list_item, nodes.field,
                                     nodes.definition_list_item, nodes.block_quote)):
                    kind = {nodes.enumerated_list: "ordered_list", nodes.block_quote: "blockquote"}.get(
                        type(ch), "list_item" if isinstance(
                            ch, (nodes.list_item, nodes.field, nodes.definition_list_item)) else "bullet_list")
                    a = first_line(ch)
                    if a is not None and 0 <= a < t.n:
                        containers.append([kind, a, ch, node])
                    walk(ch, depth)
                elif isinstance(ch, (nodes.Element,)) and not isinstance(
                        ch, (nodes.table, nodes.literal_block, nodes.system_message, nodes.comment,
                             nodes.target)):
                    walk(ch, depth)

        walk(doc, 0)
    # paragraphs docutils did not place (a directive's argument that runs on
    # over lines, or everything when docutils failed): runs of free lines
    i = 0
    while i < t.n:
        if t.blank(i) or taken[i]:
            i += 1
            continue
        j = i
        while j + 1 < t.n and not t.blank(j + 1) and not taken[j + 1] and t.indent(j + 1) >= t.indent(i):
            j += 1
        items.append(["paragraph", i, j, 0, None, "", -1])
        i = j + 1
    items.sort(key=lambda it: (it[1], it[2]))
    leaves_by_line = items
    # containers: their span from their first line to the last leaf inside their indentation
    conts = []
    for kind, a, node, parent in containers:
        ind = t.indent(a)
        conts.append([kind, a, t.body_end(a, ind), ind, node, parent])
    # a list's end: the end of its last item
    conts.sort(key=lambda c: (c[1], -c[2]))
    last_child: dict[int, int] = {}  # id of a docutils node -> the last line of its children here
    for d in conts:
        last_child[id(d[5])] = max(last_child.get(id(d[5]), -1), d[2])
    for c in conts:
        if c[0] in ("bullet_list", "ordered_list", "blockquote"):
            c[2] = max(c[2], last_child.get(id(c[4]), -1))
    allrecs: list[list] = []
    for c in conts:
        allrecs.append([c[0], c[1], c[2], 0, None, "", -1, True])
    for r in directives:
        allrecs.append(["directive", r[1], r[2], 0, None, r[3], -1, True])
    for it in leaves_by_line:
        allrecs.append([*it, False])
    # containers before what they contain
    allrecs.sort(key=lambda r: (r[1], -r[2], 0 if r[7] else 1))
    out = []
    stack: list[int] = []
    for r in allrecs:
        kind, a, b, level, title, info, header, is_cont = r
        while stack and out[stack[-1]][12] < a:
            stack.pop()
        if is_cont and stack and out[stack[-1]][12] < b:
            b = out[stack[-1]][12]
        s = t.starts[a] + t.indent(a)
        e = t.ends[b]
        if e <= s:
            continue
        rows: list = []
        hend = 0
        if kind == "table":
            rows, hend = _table_rows(t, a, b, info, header)
        parent = stack[-1] if stack else None
        rec = [kind, s, e, level, title, parent, len(stack), info, rows or (), hend, True, a, b]
        out.append(rec)
        if is_cont:
            stack.append(len(out) - 1)
    # a parent ends at or after its children: a child that runs over extends it
    for rec in out:
        p = rec[5]
        if p is not None and rec[2] > out[p][2]:
            out[p][2] = rec[2]
            out[p][12] = rec[12]
    return tuple(tuple(r) for r in out)


class RstBackend:
    """reStructuredText's block structure (see :mod:`chunkseam.structure.registry`): parsed whole."""

    name = "rst"
    segmented = None

    def accepts(self, doc) -> bool:
        return doc.kind == "markdown" and is_rst(doc.path, doc.uri, doc.language_id)

    def records(self, doc) -> tuple[tuple, str]:
        return records(doc.text), doc.text
