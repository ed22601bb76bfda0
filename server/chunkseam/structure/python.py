"""Python code structure from the standard library ``ast``, as exact offsets.

Used by the ``code`` chunker (units: statements, definitions with their
decorators and leading comments) and by the validator's code checks
(CS201 split-definition, CS202 split-string).

Offsets are Python string offsets into the document text. ``ast`` reports
columns in UTF-8 *bytes* of the line; they are converted here (a line of pure
ASCII maps one to one, any other line through its encoded prefix), so CJK,
emoji and combining marks in code or strings give exact spans. Lines are split
at ``\\r\\n``, ``\\r`` and ``\\n``, as both ``ast`` and :class:`Document` do.

Spans
-----
* A *statement unit* (:class:`Statement`) runs from the start of its first
  line (indentation included) to the end of its last line (a trailing
  ``# comment`` on that line included, the line break excluded). A definition's
  unit starts at its first decorator line or, when comment lines sit directly
  above it (no blank line between, not inside the previous statement), at the
  first of those comment lines. When a statement shares a line with its
  neighbour (``a = 1; b = 2``, ``class C: x = 1``) the shared side is cut at the
  node itself instead of the line edge.
* A :class:`Definition` (function, async function, class — at any depth, also
  inside ``if``/``try`` blocks) has that unit span plus ``header_start``
  (decorator or ``def`` line), ``keyword`` (offset of ``def``/``async``/
  ``class``), ``body_start`` (first character of the first body statement) and
  the docstring span if it has one.
* A :class:`StringLiteral` is one literal token: prefix and quotes included.
  Implicitly concatenated literals (``"a" "b"``) are separate literals; an
  f-string is one literal with its replacement fields (in every Python
  version, although 3.12 tokenizes f-strings in pieces).

The structure of a document is computed once per document version
(:func:`python_structure`, memoised with ``Document.memo``). A file that does
not parse gives a structure with ``ok = False``, ``error`` set and nothing
else.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from bisect import bisect_right
from dataclasses import dataclass, field

from chunkseam.document.text import Document

_EOL = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"
_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_STR_TYPES: tuple[type, ...] = tuple(
    t for t in (ast.JoinedStr, getattr(ast, "TemplateStr", None)) if t is not None
)
#: statement fields that hold nested statement lists
_BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of a module, class or function body, as a unit span."""

    kind: str  # "function" | "class" | "import" | "docstring" | "statement"
    start: int  # unit start (leading comments / decorators included)
    end: int  # end of the last line's content (or of the node when the line is shared)
    node_start: int  # first character of the statement itself (decorator "@" included)
    node_end: int  # end of the node as ast reports it
    line: int  # 0-based line of ``start``
    end_line: int  # 0-based line of ``end``
    definition: int | None = None  # index into PyStructure.definitions for defs


@dataclass(frozen=True, slots=True)
class Definition:
    """A function or class (any depth) with exact spans."""

    kind: str  # "function" | "class"
    name: str
    qualname: tuple[str, ...]  # enclosing definition names + own name
    start: int  # unit start: leading comments, else first decorator, else def line
    end: int  # end of the last line of the body
    header_start: int  # start of the first decorator line, else of the def line
    keyword: int  # offset of "def" / "async" / "class"
    body_start: int  # first character of the first body statement
    line: int  # 0-based line of ``start``
    end_line: int
    depth: int  # number of enclosing definitions
    parent: int | None  # index of the enclosing definition
    index: int
    is_async: bool = False
    docstring: tuple[int, int] | None = None
    #: the direct body statements (units), in order
    body: tuple[Statement, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True)
class StringLiteral:
    start: int  # first character of the prefix or opening quote
    end: int  # just after the closing quote
    kind: str  # "docstring" | "string" | "bytes" | "fstring" | "tstring"
    triple: bool  # triple-quoted

    def strictly_contains(self, offset: int) -> bool:
        return self.start < offset < self.end


class _Offsets:
    """Converts ``ast`` (1-based line, UTF-8 byte column) to string offsets."""

    __slots__ = ("text", "starts", "_ascii", "_bytes")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(m.end() for m in _EOL.finditer(text))
        self._ascii: dict[int, bool] = {}
        self._bytes: dict[int, bytes] = {}

    def line_end(self, line: int) -> int:
        """End of 0-based ``line``'s content (before its line break)."""
        starts = self.starts
        if line + 1 < len(starts):
            end = starts[line + 1]
            text = self.text
            if text[end - 1] == "\n":
                end -= 1
                if end > starts[line] and text[end - 1] == "\r":
                    end -= 1
            elif text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def offset(self, lineno: int, col: int) -> int:
        line = lineno - 1
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        if col <= 0:
            return start
        ascii_ = self._ascii.get(line)
        if ascii_ is None:
            ascii_ = self._ascii[line] = self.text[start : self.line_end(line)].isascii()
        if ascii_:
            return start + col
        data = self._bytes.get(line)
        if data is None:
            data = self._bytes[line] = self.text[start : self.line_end(line)].encode(
                "utf-8", "surrogatepass"
            )
        return start + len(data[:col].decode("utf-8", "surrogatepass"))


def _node_start(off: _Offsets, node: ast.AST) -> int:
    return off.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]


def _node_end(off: _Offsets, node: ast.AST) -> int:
    return off.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


class PyStructure:
    """Definitions, body statements and string literals of one Python text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ok = False
        self.error: str | None = None
        self.error_line: int | None = None  # 1-based, when known
        self.module: tuple[Statement, ...] = ()
        self.module_docstring: tuple[int, int] | None = None
        self.definitions: list[Definition] = []
        self.strings: list[StringLiteral] = []
        self._string_starts: list[int] = []
        self._children: dict[int | None, list[Definition]] = {}
        self._child_starts: dict[int | None, list[int]] = {}
        base = 1 if text.startswith(_BOM) else 0
        source = text[base:]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarning: invalid escape sequence …
                tree = ast.parse(source)
        except SyntaxError as exc:
            self.error = f"{type(exc).__name__}: {exc.msg}"
            self.error_line = exc.lineno
            return
        except (ValueError, RecursionError, MemoryError, UnicodeError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return
        self._off = _Offsets(source)
        self._base = base
        try:
            self._build(tree)
        except RecursionError as exc:  # pathological nesting
            self.error = f"RecursionError: {exc}"
            self.module, self.definitions, self.strings = (), [], []
            return
        self.ok = True

    # -- construction -----------------------------------------------------------
    def _build(self, tree: ast.Module) -> None:
        off = self._off
        self._docstrings: set[int] = set()  # id() of docstring Constant nodes
        self.module = self._walk_body(tree.body, -1, None, ())
        if tree.body and _is_docstring(tree.body[0]):
            d = tree.body[0].value  # type: ignore[attr-defined]
            self._docstrings.add(id(d))
            self.module_docstring = self._span(_node_start(off, d), _node_end(off, d))
        # definitions with the same parent are disjoint and in order
        for d in self.definitions:
            self._children.setdefault(d.parent, []).append(d)
        self._child_starts = {k: [d.start for d in v] for k, v in self._children.items()}
        self._collect_strings(tree, self._docstrings)

    def _walk_body(self, body: list[ast.stmt], bound_line: int, parent: int | None,
                   prefix: tuple[str, ...]) -> tuple[Statement, ...]:
        """Units of one statement list; definitions found in it (at any depth)
        are appended to ``self.definitions`` in pre-order. Recursion depth is
        bounded by Python's own limit on indentation levels (100)."""
        off = self._off
        units: list[Statement] = []
        prev_end_line = bound_line
        prev_node_end: int | None = None
        for i, node in enumerate(body):
            nxt = body[i + 1] if i + 1 < len(body) else None
            unit = self._unit(node, prev_end_line, prev_node_end, nxt)
            if isinstance(node, _DEF_TYPES):
                index = len(self.definitions)
                self.definitions.append(None)  # type: ignore[arg-type]  # keeps pre-order
                qual = (*prefix, node.name)
                inner = self._walk_body(node.body, node.lineno - 1, index, qual)
                doc = None
                if node.body and _is_docstring(node.body[0]):
                    d = node.body[0].value  # type: ignore[attr-defined]
                    self._docstrings.add(id(d))
                    doc = self._span(_node_start(off, d), _node_end(off, d))
                self.definitions[index] = Definition(
                    kind="class" if isinstance(node, ast.ClassDef) else "function",
                    name=node.name,
                    qualname=qual,
                    start=unit.start,
                    end=unit.end,
                    header_start=self._base + off.starts[off.line_of(unit.node_start - self._base)],
                    keyword=self._base + _node_start(off, node),
                    body_start=self._base + _node_start(off, node.body[0]),
                    line=unit.line,
                    end_line=unit.end_line,
                    depth=len(prefix),
                    parent=parent,
                    index=index,
                    is_async=isinstance(node, ast.AsyncFunctionDef),
                    docstring=doc,
                    body=inner,
                )
                unit = Statement(unit.kind, unit.start, unit.end, unit.node_start, unit.node_end,
                                 unit.line, unit.end_line, index)
            else:
                for name in _BODY_FIELDS:
                    value = getattr(node, name, None)
                    if not value:
                        continue
                    stmts: list[ast.stmt] = [x for x in value if isinstance(x, ast.stmt)]
                    if stmts:
                        self._walk_body(stmts, node.lineno - 1, parent, prefix)
                    for item in value:  # except handlers, match cases
                        inner_body = getattr(item, "body", None)
                        if not isinstance(item, ast.stmt) and inner_body:
                            line = getattr(item, "lineno", node.lineno) - 1
                            self._walk_body(inner_body, line, parent, prefix)
            units.append(unit)
            prev_end_line = node.end_lineno - 1  # type: ignore[operator]
            prev_node_end = unit.node_end - self._base
        return tuple(units)

    def _decorator_at(self, node: ast.stmt) -> int | None:
        """Offset of the ``@`` of the first decorator (it may sit on an earlier
        line than the expression after a backslash continuation)."""
        decorators = getattr(node, "decorator_list", None)
        if not decorators:
            return None
        text = self._off.text
        first = min(decorators, key=lambda d: (d.lineno, d.col_offset))
        i = _node_start(self._off, first) - 1
        while i >= 0 and text[i] != "@":
            if not (text[i].isspace() or text[i] == "\\"):
                return None
            i -= 1
        return i if i >= 0 else None

    def _unit(self, node: ast.stmt, prev_end_line: int, prev_node_end: int | None,
              next_node: ast.stmt | None) -> Statement:
        off = self._off
        text = off.text
        node_start = _node_start(off, node)
        node_end = _node_end(off, node)
        at = self._decorator_at(node)
        if at is not None:
            node_start = at
        first_line = off.line_of(node_start)
        line_start = off.starts[first_line]
        start_line = first_line
        if (prev_node_end is not None and prev_node_end > line_start) or text[
            line_start:node_start
        ].strip():
            start = node_start  # shares its first line (``a = 1; b = 2``, ``class C: x = 1``)
        else:
            # comment lines directly above (no blank line in between, not
            # inside the previous statement) belong to the statement
            line = first_line - 1
            while line > prev_end_line and line >= 0:
                if not text[off.starts[line] : off.line_end(line)].lstrip().startswith("#"):
                    break
                start_line = line
                line -= 1
            start = off.starts[start_line]
        last_line = node.end_lineno - 1  # type: ignore[operator]
        line_end = off.line_end(last_line)
        rest = text[node_end:line_end].strip()
        shares_next = next_node is not None and next_node.lineno - 1 == last_line
        end = node_end if shares_next or (rest and not rest.startswith("#")) else line_end
        if isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind = "function"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            kind = "import"
        elif _is_docstring(node):
            kind = "docstring"
        else:
            kind = "statement"
        b = self._base
        return Statement(kind, b + start, b + end, b + node_start, b + node_end, start_line,
                         last_line)

    def _span(self, start: int, end: int) -> tuple[int, int]:
        return (self._base + start, self._base + end)

    def _collect_strings(self, tree: ast.Module, docstrings: set[int]) -> None:
        off = self._off
        out: list[StringLiteral] = []
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                if getattr(node, "end_lineno", None) is None:
                    continue
                kind = (
                    "docstring" if id(node) in docstrings
                    else "bytes" if isinstance(node.value, bytes) else "string"
                )
                self._add_literals(out, _node_start(off, node), _node_end(off, node), kind)
                continue
            if isinstance(node, _STR_TYPES):
                kind = "fstring" if isinstance(node, ast.JoinedStr) else "tstring"
                self._add_literals(out, _node_start(off, node), _node_end(off, node), kind)
                continue  # parts of an f-string have unreliable positions before 3.12
            stack.extend(ast.iter_child_nodes(node))
        out.sort(key=lambda s: s.start)
        self.strings = out
        self._string_starts = [s.start for s in out]

    def _add_literals(self, out: list[StringLiteral], start: int, end: int, kind: str) -> None:
        text = self._off.text
        single = _literal_end(text, start)
        pieces = [(start, end)] if single == end else _literal_pieces(text, start, end)
        b = self._base
        for s, e in pieces:
            prefix = len(text[s:e]) - len(text[s:e].lstrip("rRbBuUfFtT"))
            triple = text.startswith(('"""', "'''"), s + prefix)
            piece_kind = kind
            if kind in ("string", "fstring", "tstring", "bytes"):
                letters = text[s : s + prefix].lower()
                piece_kind = (
                    "fstring" if "f" in letters else "tstring" if "t" in letters
                    else "bytes" if "b" in letters else "string"
                )
            out.append(StringLiteral(b + s, b + e, piece_kind, triple))

    # -- lookups ------------------------------------------------------------------
    def definitions_containing(self, offset: int) -> list[Definition]:
        """Definitions whose unit span contains ``offset``, outermost first."""
        found: list[Definition] = []
        parent: int | None = None
        while parent in self._children:
            level = self._children[parent]
            i = bisect_right(self._child_starts[parent], offset) - 1
            if i < 0 or not (level[i].start <= offset < level[i].end):
                break
            found.append(level[i])
            parent = level[i].index
        return found

    def definition_at(self, offset: int) -> Definition | None:
        """The innermost definition whose unit span contains ``offset``."""
        found = self.definitions_containing(offset)
        return found[-1] if found else None

    def _inside(self, d: Definition, offset: int) -> bool:
        """``offset`` has content of ``d`` on both sides (not in its edge whitespace)."""
        text = self.text
        return bool(text[d.start : offset].strip()) and bool(text[offset : d.end].strip())

    def _between_members(self, d: Definition, offset: int) -> bool:
        """``offset`` lies between two body statements of class ``d`` (the place
        where the ``code`` chunker splits a big class)."""
        body = d.body
        text = self.text
        for a, b in zip(body, body[1:]):
            # (in the indentation before the next member is before it too)
            if a.end <= offset and (offset <= b.start or not text[b.start : offset].strip()):
                return True
            if offset < a.end:
                return False
        return False

    def split_definition(self, offset: int) -> Definition | None:
        """The definition a cut at ``offset`` splits, or None.

        A cut splits a definition when content of the definition's unit (its
        leading comments and decorators included) lies on both sides of it.
        A cut between two statements of a class body (after the first) does
        not split the class — that is where a class too big for one chunk is
        divided — but a cut inside a method splits the method, and a cut
        between the class line and its first statement splits the class. The
        innermost split definition is returned.
        """
        chain = [d for d in self.definitions_containing(offset) if self._inside(d, offset)]
        for i in range(len(chain) - 1, -1, -1):
            d = chain[i]
            if d.kind == "class" and (
                self._between_members(d, offset)
                or (i + 1 < len(chain) and chain[i + 1].parent == d.index
                    and self._is_member(d, chain[i + 1]))
            ):
                continue
            return d
        return None

    def _is_member(self, cls: Definition, inner: Definition) -> bool:
        """``inner`` is a direct body statement of ``cls`` (not nested in an if)."""
        return any(s.definition == inner.index for s in cls.body)

    def string_at(self, offset: int) -> StringLiteral | None:
        """The string literal that strictly contains ``offset`` (a cut there
        splits the literal), or None."""
        i = bisect_right(self._string_starts, offset) - 1
        if i >= 0 and self.strings[i].strictly_contains(offset):
            return self.strings[i]
        return None

    def top_level_definitions(self) -> list[Definition]:
        return [d for d in self.definitions if d.parent is None]


_PREFIX = re.compile(r"[rRbBuUfFtT]{0,3}")


def _literal_end(text: str, start: int) -> int:
    """End of the string literal token at ``start`` (plain scan: escapes and
    triple quotes; an f-string's nested quotes of the same kind (3.12) stop it
    early, which only sends the caller to the tokenizer)."""
    m = _PREFIX.match(text, start)
    i = m.end() if m else start
    if i >= len(text) or text[i] not in "'\"":
        return -1
    q = text[i]
    quote = q * 3 if text.startswith(q * 3, i) else q
    i += len(quote)
    j = text.find(quote, i)
    while j >= 0:
        k = j
        while k > i and text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:  # not escaped
            return j + len(quote)
        j = text.find(quote, j + 1)
    return -1


def _literal_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The literal tokens of an implicitly concatenated string expression
    ``text[start:end]``, found with the tokenizer (character columns)."""
    segment = text[start:end]
    wrapped = "(" + segment + ")"
    # tokenize reads lines split at "\n" only (io.StringIO readline)
    line_starts = [0]
    line_starts.extend(m.end() for m in re.finditer("\n", wrapped))
    pieces: list[tuple[int, int]] = []
    depth = 0
    open_at = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(wrapped).readline):
            name = tokenize.tok_name.get(tok.type, "")
            if name not in ("STRING", "FSTRING_START", "FSTRING_END", "TSTRING_START",
                            "TSTRING_END"):
                continue
            s = line_starts[tok.start[0] - 1] + tok.start[1] - 1
            e = line_starts[tok.end[0] - 1] + tok.end[1] - 1
            if name == "STRING" and depth == 0:
                pieces.append((start + s, start + e))
            elif name in ("FSTRING_START", "TSTRING_START"):
                if depth == 0:
                    open_at = s
                depth += 1
            elif name in ("FSTRING_END", "TSTRING_END"):
                depth -= 1
                if depth == 0:
                    pieces.append((start + open_at, start + e))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [(start, end)]
    pieces = [(s, e) for s, e in pieces if start <= s < e <= end]
    return pieces or [(start, end)]


def python_structure(doc: Document | str) -> PyStructure:
    """The structure of a Python document, computed once per document version."""
    if isinstance(doc, str):
        return PyStructure(doc)
    return doc.memo("pystructure", lambda: PyStructure(doc.text))
