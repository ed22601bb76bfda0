"""Code structure of JavaScript, TypeScript, Go, Rust and Java through
tree-sitter, as exact character offsets (the ``chunkseam[code]`` extra).

The grammars come from the per-language wheels on PyPI
(``tree-sitter-javascript``, ``-typescript``, ``-go``, ``-rust``, ``-java``),
which ship compiled grammars: nothing is downloaded at run time. They are
imported lazily; :func:`available` says whether a language can be parsed.

The result is a :class:`TSStructure`, which has the interface of
:class:`chunkseam.structure.python.PyStructure` (``module`` statement units,
``definitions``, ``strings``, ``split_definition``, ``string_at``), so the
``code`` chunker and the CS201/CS202 checks treat every language alike:

* **Units** are the named children of the file (and of a container's body):
  a definition's unit starts at the comment lines (doc comments) and the
  decorators / attributes (``@Component``, ``#[derive(..)]``) directly above
  it — no blank line between — and runs to the end of its last line; a
  comment on the same line as the end of a unit stays with it.
* **Definitions**: functions, methods, constructors, classes, interfaces,
  traits, ``impl`` blocks, structs, enums, type declarations, modules /
  namespaces, ``const f = () => …`` style function bindings, and the
  bindings at file (or namespace) level — ``export const KEY = Symbol(…)``,
  ``const config = {…}``, ``let cache;``, ``export default {…}``, Go's
  ``const`` and ``var`` declarations (a ``const (…)`` group is one), Rust's
  ``const`` and ``static`` — which the code around them uses by name (a doc
  comment above one is its). A binding to an object or array literal is a
  container whose entries are its members (a big table is split between
  entries, as a class between methods). A
  *container* (class, interface, trait, impl, enum, module, namespace; kind
  ``"class"``) has member units, so the chunker can split a big one between
  its members; anything else has kind ``"function"`` and is kept whole.
* **Strings**: string literals, template strings (substitutions included),
  raw strings and Java text blocks, quotes included.

tree-sitter reports UTF-8 *byte* offsets; they are converted to ``str``
indices (CJK, emoji and combining marks in code give exact spans). A file with
a syntax error (an ``ERROR`` or missing node) gives ``ok = False`` and the
line of the first error, and the chunker falls back to ``recursive``.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from importlib import import_module
from typing import Any

from chunkseam.document.text import Document
from chunkseam.structure.languages import language_of
from chunkseam.structure.python import Definition, PyStructure, Statement, StringLiteral

#: language -> (module, function returning the grammar pointer)
_GRAMMARS = {
    "js": ("tree_sitter_javascript", "language"),
    "ts": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}

#: what a user calls each language in messages
LANGUAGE_NAMES = {"js": "JavaScript", "ts": "TypeScript", "tsx": "TypeScript (TSX)",
                  "go": "Go", "rust": "Rust", "java": "Java"}

#: labels of the bindings that are definitions (``const KEY = …``): a file's
#: header (imports, constants) may hold them, it ends at the first other one
BINDING_LABELS = frozenset({"constant", "variable", "constant block", "variable block", "export"})

#: LSP language ids
_LANGUAGE_IDS = {"javascript": "js", "javascriptreact": "js", "typescript": "ts",
                 "typescriptreact": "tsx", "go": "go", "rust": "rust", "java": "java"}

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class _Rules:
    #: node type -> label, for definitions kept whole
    functions: dict[str, str]
    #: node type -> label, for containers split between members
    containers: dict[str, str]
    #: node types that attach to the next unit (comments, decorators, attributes)
    prefix: frozenset[str]
    #: string literal node types (not descended into)
    strings: frozenset[str]
    #: node types of a container's member list
    bodies: frozenset[str]
    #: wrappers whose single declaration is the definition (``export class``)
    wrappers: frozenset[str] = frozenset()
    #: imports/package lines (header)
    imports: frozenset[str] = frozenset()


_JS_FUNCS = {"function_declaration": "function", "generator_function_declaration": "function",
             "method_definition": "method", "function_signature": "function",
             "method_signature": "method", "abstract_method_signature": "method",
             "type_alias_declaration": "type"}
_JS_CONTAINERS = {"class_declaration": "class", "abstract_class_declaration": "class",
                  "class": "class", "interface_declaration": "interface",
                  "enum_declaration": "enum", "internal_module": "namespace",
                  "module": "module"}
#: literals whose entries are a binding's members (JavaScript, TypeScript)
_TABLES = frozenset({"object", "array"})
_JS = _Rules(
    functions=_JS_FUNCS, containers=_JS_CONTAINERS,
    prefix=frozenset({"comment", "decorator"}),
    strings=frozenset({"string", "template_string"}),
    bodies=frozenset({"class_body", "interface_body", "object_type", "enum_body",
                      "statement_block"}),
    wrappers=frozenset({"export_statement", "ambient_declaration"}),
    imports=frozenset({"import_statement"}),
)
_RULES = {
    "js": _JS, "ts": _JS, "tsx": _JS,
    "go": _Rules(
        functions={"function_declaration": "function", "method_declaration": "method",
                   "type_declaration": "type"},
        containers={},
        prefix=frozenset({"comment"}),
        strings=frozenset({"interpreted_string_literal", "raw_string_literal"}),
        bodies=frozenset(),
        imports=frozenset({"package_clause", "import_declaration"}),
    ),
    "rust": _Rules(
        functions={"function_item": "function", "function_signature_item": "function",
                   "struct_item": "struct", "type_item": "type", "union_item": "union",
                   "macro_definition": "macro", "const_item": "const", "static_item": "static"},
        containers={"impl_item": "impl block", "trait_item": "trait", "mod_item": "module",
                    "enum_item": "enum"},
        prefix=frozenset({"line_comment", "block_comment", "attribute_item",
                          "inner_attribute_item"}),
        strings=frozenset({"string_literal", "raw_string_literal"}),
        bodies=frozenset({"declaration_list", "enum_variant_list"}),
        imports=frozenset({"use_declaration", "extern_crate_declaration"}),
    ),
    "java": _Rules(
        functions={"method_declaration": "method", "constructor_declaration": "constructor",
                   "compact_constructor_declaration": "constructor"},
        containers={"class_declaration": "class", "interface_declaration": "interface",
                    "enum_declaration": "enum", "record_declaration": "record",
                    "annotation_type_declaration": "annotation type"},
        prefix=frozenset({"line_comment", "block_comment"}),
        strings=frozenset({"string_literal"}),
        bodies=frozenset({"class_body", "interface_body", "enum_body",
                          "annotation_type_body", "enum_body_declarations"}),
        imports=frozenset({"package_declaration", "import_declaration"}),
    ),
}

_LANGUAGES: dict[str, Any] = {}
#: a Parser is not safe to share between threads (the server analyses in a pool)
_LOCAL = threading.local()


def _parser(language: str):
    parsers = getattr(_LOCAL, "parsers", None)
    if parsers is None:
        parsers = _LOCAL.parsers = {}
    parser = parsers.get(language)
    if parser is None:
        from tree_sitter import Language, Parser

        lang = _LANGUAGES.get(language)
        if lang is None:
            module, func = _GRAMMARS[language]
            lang = _LANGUAGES[language] = Language(getattr(import_module(module), func)())
        parser = parsers[language] = Parser(lang)
    return parser


def available(language: str | None) -> bool:
    """tree-sitter and the grammar of ``language`` are installed."""
    if language not in _GRAMMARS:
        return False
    try:
        _parser(language)
    except (ImportError, AttributeError, TypeError, ValueError):
        return False
    return True


def missing_reason(language: str | None) -> str:
    """Why ``language`` has no tree-sitter structure (for fallback messages)."""
    if language not in _GRAMMARS:
        return f"no tree-sitter grammar for {language or 'this file'}"
    module = _GRAMMARS[language][0].replace("_", "-")
    return (f"tree-sitter or {module} is not installed "
            "(pip install 'chunkseam[code]')")


class _ByteMap:
    """UTF-8 byte offsets of ``text`` to ``str`` indices."""

    __slots__ = ("_extra", "_starts")

    def __init__(self, text: str, data: bytes) -> None:
        self._starts: list[int] = []  # byte offset of each non-ASCII character
        self._extra: list[int] = []  # extra bytes of all non-ASCII characters up to and incl.
        if len(data) == len(text):
            return
        total = 0
        for i, ch in enumerate(text):
            if ch > "\x7f":
                self._starts.append(i + total)
                o = ord(ch)
                total += 1 if o < 0x800 else 2 if o < 0x10000 else 3
                self._extra.append(total)

    def __call__(self, byte: int) -> int:
        if not self._starts:
            return byte
        k = bisect_left(self._starts, byte)
        return byte - (self._extra[k - 1] if k else 0)


class TSStructure(PyStructure):
    """Definitions, member units and string literals of one file (see the module doc)."""

    def __init__(self, text: str, language: str) -> None:  # no super(): nothing for ast
        self.text = text
        self.language = language
        self.ok = False
        self.error: str | None = None
        self.error_line: int | None = None
        self.module: tuple[Statement, ...] = ()
        self.module_docstring = None
        self.definitions: list[Definition] = []
        self.labels: list[str] = []  # per definition: "function", "impl block" …
        self.comments: list[tuple[int, int]] = []  # comment spans (suppressions)
        self.strings: list[StringLiteral] = []
        self._string_starts: list[int] = []
        self._children: dict[int | None, list[Definition]] = {}
        self._child_starts: dict[int | None, list[int]] = {}
        self.rules = _RULES[language]
        data = text.encode("utf-8", "surrogatepass")
        try:
            tree = _parser(language).parse(data)
        except (ValueError, MemoryError, RecursionError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return
        self._pos = _ByteMap(text, data)
        self._line_starts = [0, *(m.end() for m in _EOL.finditer(text))]
        root = tree.root_node
        if root.has_error:
            self.error = "syntax error"
            self.error_line = self._first_error_line(root)
            return
        try:
            self.module = self._units(root, None, ())
            self._strings_of(root)
        except RecursionError as exc:
            self.error = f"RecursionError: {exc}"
            self.module, self.definitions, self.strings = (), [], []
            return
        for d in self.definitions:
            self._children.setdefault(d.parent, []).append(d)
        self._child_starts = {k: [d.start for d in v] for k, v in self._children.items()}
        self.ok = True

    # -- positions ----------------------------------------------------------------
    def _line_of(self, offset: int) -> int:
        return bisect_right(self._line_starts, offset) - 1

    def _line_end(self, line: int) -> int:
        starts, text = self._line_starts, self.text
        if line + 1 >= len(starts):
            return len(text)
        end = starts[line + 1]
        if text[end - 1] == "\n":
            end -= 1
            if end > starts[line] and text[end - 1] == "\r":
                end -= 1
        elif text[end - 1] == "\r":
            end -= 1
        return end

    def _first_error_line(self, root) -> int | None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "ERROR" or node.is_missing:
                return self._line_of(self._pos(node.start_byte)) + 1
            stack.extend(c for c in reversed(node.children) if c.has_error)
        return None

    # -- construction ---------------------------------------------------------------
    def _definition_node(self, node):
        """(node holding the definition, label, is container) or None."""
        rules = self.rules
        inner = node
        if node.type in rules.wrappers:
            inner = node.child_by_field_name("declaration") or next(
                (c for c in node.named_children
                 if c.type in rules.functions or c.type in rules.containers), None)
            if inner is None:
                inner = node  # (``export default {…}``: below)
        if inner.type in rules.containers:
            return inner, rules.containers[inner.type], True
        if inner.type in rules.functions:
            return inner, rules.functions[inner.type], False
        if inner.type in ("lexical_declaration", "variable_declaration"):
            first = None
            for decl in inner.named_children:
                value = decl.child_by_field_name("value")
                if value is not None and value.type in (
                        "arrow_function", "function_expression", "function",
                        "generator_function"):
                    return decl, "function", False
                if value is not None and value.type == "class":
                    return decl, "class", False
                if first is None and decl.type == "variable_declarator":
                    first = decl
            if first is not None:  # a named binding: a constant or a variable
                const = self.text[self._pos(inner.start_byte) : self._pos(inner.start_byte) + 5] == "const"
                value = first.child_by_field_name("value")
                # (an object or array literal is split between its entries, as a class between members)
                table = len(inner.named_children) == 1 and value is not None and value.type in _TABLES
                return first, "constant" if const else "variable", table
        if inner is node and node.type in rules.wrappers and node.child_by_field_name("value") is not None:
            value = node.child_by_field_name("value")  # ``export default {…}``: "export default"
            return node, "export", value.type in _TABLES
        if inner.type in ("const_declaration", "var_declaration"):  # Go
            specs = [c for c in inner.named_children if c.type in ("const_spec", "var_spec")]
            for c in inner.named_children:
                if c.type == "var_spec_list":
                    specs.extend(x for x in c.named_children if x.type == "var_spec")
            if specs:
                word = "constant" if inner.type == "const_declaration" else "variable"
                return (specs[0], word, False) if len(specs) == 1 else (inner, f"{word} block", False)
        return None

    def _name(self, node, label: str) -> str:
        if label == "export":
            return "default"
        if label in ("constant block", "variable block"):  # Go's ``const (…)``: "(A … Z)"
            specs = [c for c in node.named_children if c.type in ("const_spec", "var_spec")]
            for c in node.named_children:
                if c.type == "var_spec_list":
                    specs.extend(x for x in c.named_children if x.type == "var_spec")
            names = [self._name(c, "") for c in (specs[0], specs[-1])]
            return f"({names[0]} … {names[1]})"
        for field in ("name", "type"):
            n = node.child_by_field_name(field)
            if n is not None:
                name = self.text[self._pos(n.start_byte) : self._pos(n.end_byte)]
                if label == "impl block":
                    trait = node.child_by_field_name("trait")
                    if trait is not None:
                        t = self.text[self._pos(trait.start_byte) : self._pos(trait.end_byte)]
                        return f"{t} for {name}"
                return name
        if node.type == "type_declaration":
            spec = next((c for c in node.named_children if c.type in ("type_spec", "type_alias")),
                        None)
            if spec is not None:
                return self._name(spec, label)
        return "<anonymous>"

    def _body(self, node):
        if node.type in ("variable_declarator", "export_statement"):  # a table binding: its entries
            value = node.child_by_field_name("value")
            return value if value is not None and value.type in _TABLES else None
        body = node.child_by_field_name("body")
        if body is not None and body.type in self.rules.bodies:
            return body
        return next((c for c in node.named_children if c.type in self.rules.bodies), None)

    def _units(self, parent_node, parent: int | None,
               prefix: tuple[str, ...]) -> tuple[Statement, ...]:
        text, pos, rules = self.text, self._pos, self.rules
        out: list[Statement] = []
        pending: list[Any] = []  # prefix nodes waiting for the next unit
        prev_end_line = -1

        def flush_pending() -> None:
            for p in pending:
                add(p, p, None)
            pending.clear()

        def add(first, node, definition: int | None, kind: str = "statement") -> None:
            nonlocal prev_end_line
            s = pos(first.start_byte)
            ns, ne = pos(node.start_byte), pos(node.end_byte)
            line = self._line_of(s)
            start = self._line_starts[line] if not text[self._line_starts[line]:s].strip() else s
            end_line = self._line_of(max(ne - 1, ns))
            le = self._line_end(end_line)
            end = le if not text[ne:le].strip() else ne
            out.append(Statement(kind, start, end, ns, ne, line, end_line, definition))
            prev_end_line = end_line

        for child in parent_node.named_children:
            s = pos(child.start_byte)
            line = self._line_of(s)
            if child.type in rules.prefix:
                if (not pending and out and line == prev_end_line
                        and "comment" in child.type):
                    # a trailing comment stays with the unit it ends
                    last = out[-1]
                    ce = pos(child.end_byte)
                    le = self._line_end(self._line_of(max(ce - 1, s)))
                    out[-1] = Statement(last.kind, last.start, max(last.end, le), last.node_start,
                                        ce, last.line, self._line_of(max(ce - 1, s)),
                                        last.definition)
                    continue
                if pending:
                    gap_from = self._line_of(max(pos(pending[-1].end_byte) - 1, 0))
                    if line > gap_from + 1:  # a blank line: earlier ones stand alone
                        flush_pending()
                pending.append(child)
                continue
            first = child
            if pending:
                gap_from = self._line_of(max(pos(pending[-1].end_byte) - 1, 0))
                if line <= gap_from + 1:  # directly above: doc comment, decorator, attribute
                    first = pending[0]
                    pending.clear()
                else:
                    flush_pending()
            found = self._definition_node(child)
            if found is None:
                kind = "import" if child.type in rules.imports else "statement"
                add(first, child, None, kind)
                continue
            node, label, container = found
            index = len(self.definitions)
            name = self._name(node, label)
            qualname = (*prefix, name)
            # placeholder, replaced once the body is known (children come after)
            self.definitions.append(None)  # type: ignore[arg-type]
            self.labels.append(label)
            add(first, child, index, "class" if container else "function")
            unit = out[-1]
            body_units: tuple[Statement, ...] = ()
            body_start = unit.node_start
            body = self._body(node) if container else None
            if body is not None:
                body_units = self._units(body, index, qualname)
                if body_units:
                    body_start = body_units[0].node_start
                    # the closing brace goes with the last member: a cut before
                    # it would split the container
                    last = body_units[-1]
                    be = pos(body.end_byte)
                    le = self._line_end(self._line_of(max(be - 1, 0)))
                    end = le if not text[be:le].strip() else be
                    if end > last.end:
                        body_units = (*body_units[:-1], self._extend(last, end))
            header_start = self._line_starts[self._line_of(unit.node_start)]
            self.definitions[index] = Definition(
                "class" if container and body_units else "function", name, qualname,
                unit.start, unit.end, header_start, pos(node.start_byte), body_start,
                unit.line, unit.end_line, len(prefix), parent, index, body=body_units)
        flush_pending()
        return tuple(out)

    def _extend(self, unit: Statement, end: int) -> Statement:
        """``unit`` running to ``end``; a container's last member too (a split
        nested class then carries the enclosing closing braces)."""
        i = unit.definition
        if i is not None and self.definitions[i] is not None and self.definitions[i].body:
            d = self.definitions[i]
            body = (*d.body[:-1], self._extend(d.body[-1], end))
            self.definitions[i] = replace(d, body=body)
        return Statement(unit.kind, unit.start, end, unit.node_start, unit.node_end,
                         unit.line, self._line_of(end), unit.definition)

    def _strings_of(self, root) -> None:
        """String literals and comments, in order (neither is descended into)."""
        pos, kinds = self._pos, self.rules.strings
        out: list[StringLiteral] = []
        comments: list[tuple[int, int]] = []
        for node in _outermost(_literal_nodes(self.language, root)):
            s, e = pos(node.start_byte), pos(node.end_byte)
            if "comment" in node.type:
                comments.append((s, e))
            elif node.type in kinds and e - s > 1:
                triple = self.text.startswith(('"""', "r#"), s)
                out.append(StringLiteral(s, e, "string" if node.type != "template_string"
                                         else "template", triple))
        self.strings = out
        self._string_starts = [s.start for s in out]
        self.comments = comments

    # -- lookups ----------------------------------------------------------------------
    def label_of(self, d: Definition) -> str:
        return self.labels[d.index]


_COMMENTS = {"js": ("comment",), "ts": ("comment",), "tsx": ("comment",), "go": ("comment",),
             "rust": ("line_comment", "block_comment"), "java": ("line_comment", "block_comment")}
_QUERIES: dict[str, Any] = {}


def _literal_nodes(language: str, root) -> list:
    """The string and comment nodes under ``root``, found by a tree-sitter query
    (in C), else by walking the tree."""
    types = (*_RULES[language].strings, *_COMMENTS[language])
    try:
        from tree_sitter import Query

        query = _QUERIES.get(language)
        if query is None:
            pattern = "[" + " ".join(f"({t})" for t in types) + "] @n"
            query = _QUERIES[language] = Query(_LANGUAGES[language], pattern)
        try:
            from tree_sitter import QueryCursor
        except ImportError:  # tree-sitter < 0.25
            captures = query.captures(root)  # type: ignore[union-attr]
        else:
            captures = QueryCursor(query).captures(root)
        nodes = captures.get("n", []) if isinstance(captures, dict) else [n for n, _ in captures]
        return sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))
    except Exception:  # noqa: BLE001 - any API difference: walk instead
        pass
    found = []
    stack = [root]
    wanted = set(types)
    while stack:
        node = stack.pop()
        if node.is_named and node.type in wanted:  # not the keyword `string`
            found.append(node)
        else:
            stack.extend(reversed(node.children))
    return found


def _outermost(nodes: list) -> list:
    """``nodes`` (by start) without those inside an earlier one (a string in a
    template substitution is part of the template)."""
    out = []
    end = -1
    for n in nodes:
        if n.start_byte >= end:
            out.append(n)
            end = n.end_byte
    return out


def code_language(doc: Document) -> str | None:
    """The tree-sitter language of ``doc`` (by language id, else suffix), or None."""
    lang = _LANGUAGE_IDS.get((doc.language_id or "").lower()) or language_of(doc)
    if lang == "ts" and (
        (doc.path or "").lower().endswith(".tsx")
        or (doc.language_id or "").lower() == "typescriptreact"
    ):
        return "tsx"
    if lang == "js" or (doc.language_id or "").lower() in ("javascript", "javascriptreact"):
        return "js"
    return lang if lang in _GRAMMARS else None


def ts_structure(doc: Document | str, language: str | None = None) -> TSStructure | None:
    """The structure of a code document, computed once per document version;
    None when its language has no grammar installed."""
    if isinstance(doc, str):
        return TSStructure(doc, language) if language and available(language) else None
    lang = language or code_language(doc)
    if lang is None or not available(lang):
        return None
    return doc.memo(f"tsstructure:{lang}", lambda: TSStructure(doc.text, lang))
