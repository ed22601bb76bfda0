"""``code``: chunks along definitions — Python through the standard library
``ast`` (via :mod:`chunkseam.structure.python`), JavaScript, TypeScript, Go, Rust
and Java through tree-sitter (:mod:`chunkseam.structure.treesitter`), other languages
through the ``recursive`` strategy with that language's separators.

Python
------
* **Units** are the top-level statements, each with its decorators and the
  comment lines directly above it (see :mod:`chunkseam.structure.python`).
* **Header**: the statements before the first function or class — module
  docstring, imports, ``__all__``, constants, ``if TYPE_CHECKING:`` blocks —
  form the header chunk(s), never packed with a definition.
* **After the header**, consecutive units are packed greedily up to ``size``.
* **A class over** ``size`` is split between its members (methods,
  attributes, nested classes) into chunks of its own: the class line (with its
  decorators) is glued to its first member — usually the docstring — so the
  first chunk is the class line, docstring and as many members as fit. A
  nested class over ``size`` is split the same way.
* **A function over** ``size`` (and any other statement over ``size``) stays
  whole, ``oversize=True``: a cut inside a function body is exactly what the
  validator reports as CS201 split-definition, so the chunker never makes one.
* **Overlap** repeats whole trailing units of the previous chunk of the same
  group (header, top-level run, or one class's members) that fit in
  ``overlap``; it never crosses into another group.
* Comment lines separated from the next unit by a blank line, and anything
  else between units, stay with the previous chunk; chunks start at the start
  of a line (indentation kept, so a method's chunk dedents cleanly).
* **heading_path** is the qualified name of the innermost definition holding
  the whole chunk: ``("Router", "add_route")`` for a chunk that is one method,
  ``("Router",)`` for a chunk of several members of ``Router``, and the module
  name (the file's stem, else ``"<module>"``) for the header and for chunks
  of several top-level units.
* **A file that does not parse** (``SyntaxError``, null bytes …) is chunked by
  ``recursive`` with LangChain's Python separators (``"\\nclass "``,
  ``"\\ndef "``, ``"\\n\\tdef "``, paragraph, line, space, character); every
  chunk's ``meta["fallback"]`` says so and why.

JavaScript, TypeScript, Go, Rust, Java
--------------------------------------
With the ``chunkseam[code]`` extra, :mod:`chunkseam.structure.treesitter` parses them
with tree-sitter (grammars from the per-language wheels, offline) into the
same statement units and definitions, and the rules above apply unchanged:
the header is the package clause, imports and whatever precedes the first
definition; a definition's unit carries its doc comments and its decorators /
attributes / annotations (file-level constants and variables are definitions
too, for CS201, but stay in the header like Python's); a container over ``size`` (class, interface, trait,
``impl`` block, enum, module) is split between its members, its closing brace
going with the last one; functions and methods stay whole. ``.tsx`` is parsed
with the TSX grammar.

Other languages
---------------
Without the extra, on a syntax error (the reason names the line), and for
languages without a grammar, a code document is chunked by ``recursive`` with
the separators of its language, chosen by file suffix (``.js``, ``.ts``,
``.go``, ``.rs``, ``.java``, ``.c``, ``.cpp``, ``.rb`` …; an unknown language
gets the default paragraph/line/space separators); ``meta["fallback"]`` names
the separators and ``meta["reason"]`` says why (``pip install
'chunkseam[code]'`` when the grammar is missing).

Options: ``language`` — ``"python"`` to parse any document as Python, or a
language name for the ``recursive`` separators. Other options are ignored.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Callable

from chunkseam.structure.languages import language_of
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.structure.python import Definition, PyStructure, Statement, python_structure
from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import get, register
from chunkseam.chunkers.markdown import (
    Atom, check_size, fill_gaps, glue_atoms, make_measure, pack, rstrip_end, tidy_bounds,
)

name = "code"
description = (
    "Python (ast) and JS/TS/Go/Rust/Java (tree-sitter) by definitions: header, functions and "
    "classes whole, big classes split between members; otherwise recursive with separators"
)

def module_name(doc: Document) -> str:
    if doc.path:
        return PurePath(doc.path).stem or "<module>"
    return "<module>"


class _Group:
    """A run of atoms packed together, with what their chunks are called."""

    __slots__ = ("atoms", "path", "defs")

    def __init__(self, path: tuple[str, ...]) -> None:
        self.atoms: list[Atom] = []
        self.path = path  # enclosing definition path (or the module name)
        self.defs: list[tuple[str, ...] | None] = []  # per atom: its own qualname if a def


class _Run:
    def __init__(self, doc: Document, ps: PyStructure, size: int,
                 measure: Callable[[str], int]) -> None:
        self.text = doc.text
        self.ps = ps
        self.size = size
        self.measure = measure
        self.module = (module_name(doc),)

    def count(self, s: Statement) -> int:
        return self.measure(self.text[s.start : s.end])

    def groups(self) -> list[_Group]:
        ps = self.ps
        body = list(ps.module)
        label = getattr(ps, "label_of", None)
        if label is None:
            first_def = next((i for i, s in enumerate(body) if s.definition is not None), len(body))
        else:  # (tree-sitter: constants and variables belong to the header, as in Python)
            from chunkseam.structure.treesitter import BINDING_LABELS

            first_def = next((i for i, s in enumerate(body) if s.definition is not None
                              and label(ps.definitions[s.definition]) not in BINDING_LABELS), len(body))
        out: list[_Group] = []
        if first_def:
            header = _Group(self.module)
            for s in body[:first_def]:
                header.atoms.append(Atom(s.start, s.end, self.count(s)))
                header.defs.append(None)
            out.append(header)
        self._members(body[first_def:], self.module, out)
        return out

    def _members(self, stmts: list[Statement], path: tuple[str, ...], out: list[_Group]) -> None:
        """Pack ``stmts`` into groups; a class over budget becomes groups of its own."""
        current = _Group(path)
        for s in stmts:
            n = self.count(s)
            d = self.ps.definitions[s.definition] if s.definition is not None else None
            if d is not None and d.kind == "class" and n > self.size and d.body:
                if current.atoms:
                    out.append(current)
                    current = _Group(path)
                self._split_class(d, out)
                continue
            current.atoms.append(Atom(s.start, s.end, n))
            current.defs.append(d.qualname if d is not None else None)
        if current.atoms:
            out.append(current)

    def _split_class(self, d: Definition, out: list[_Group]) -> None:
        text = self.text
        first = d.body[0]
        head_end = d.start + len(text[d.start : first.start].rstrip())
        if head_end <= d.start or first.start < d.start:  # degenerate: keep whole
            g = _Group(d.qualname[:-1] or self.module)
            g.atoms.append(Atom(d.start, d.end, self.measure(text[d.start : d.end])))
            g.defs.append(d.qualname)
            out.append(g)
            return
        groups: list[_Group] = []
        self._members(list(d.body), d.qualname, groups)
        header = Atom(d.start, head_end, self.measure(text[d.start:head_end]), glue=True)
        # the class line goes with the first member, in the first group
        groups[0].atoms.insert(0, header)
        groups[0].defs.insert(0, None)
        out.extend(groups)


def _fallback(doc: Document, sizer: Sizer, size: int, overlap: int, language: str | None,
              reason: str) -> list[Chunk]:
    options: dict[str, Any] = {}
    if language:
        from chunkseam.chunkers.recursive import separators_for_language

        try:
            separators_for_language(language)
            options["language"] = language
        except ValueError:
            pass
    chunks = get("recursive").chunk(doc, sizer, size=size, overlap=overlap, **options)
    how = f"recursive ({options.get('language', 'default')} separators)"
    return [
        Chunk(c.start, c.end, c.index, source=c.source, tokens=c.tokens, strategy=name,
              heading_path=c.heading_path, oversize=c.tokens > size,
              meta={**c.meta, "fallback": how, "reason": reason})
        for c in chunks
    ]


class CodeChunker:
    name = name
    description = description

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        check_size(name, size, overlap)
        text = doc.text
        if not text.strip():
            return []
        language = language_of(doc, options.get("language"))
        if language == "python":
            ps: PyStructure = python_structure(doc)
        else:
            from chunkseam.structure.treesitter import code_language, missing_reason, ts_structure

            ts_lang = code_language(doc) if language in (None, "js", "ts") else language
            ts = ts_structure(doc, ts_lang) if ts_lang else None
            if ts is None:
                reason = (missing_reason(ts_lang) if ts_lang in ("js", "ts", "tsx", "go",
                                                                 "rust", "java")
                          else "not Python" if language is None
                          else f"{language} is chunked by separators")
                return _fallback(doc, sizer, size, overlap, language, reason)
            ps = ts
        if not ps.ok:
            where = f" (line {ps.error_line})" if ps.error_line else ""
            return _fallback(doc, sizer, size, overlap, language, f"{ps.error}{where}")
        if not ps.module:  # only comments
            return _fallback(doc, sizer, size, overlap, language, "no statements")
        measure = make_measure(sizer)
        run = _Run(doc, ps, size, measure)
        spans: list[list] = []
        groups = run.groups()
        lead = len(text) - len(text.lstrip())
        for k, group in enumerate(groups):
            atoms = group.atoms
            # own qualname of a chunk that is exactly one definition
            own = {(a.start, a.end): q for a, q in zip(atoms, group.defs) if q is not None}
            lo = atoms[0].start
            if k == 0:  # comments before the first statement start the first chunk
                lo = min(lo, doc.line_start(doc.line_of(lead)))
            nxt = groups[k + 1].atoms[0].start if k + 1 < len(groups) else len(text)
            hi = rstrip_end(text, nxt, atoms[-1].end)
            atoms = fill_gaps(text, atoms, lo, hi, size, measure, line_starts=doc.line_starts,
                              code=True)
            glued = glue_atoms(text, atoms, measure)
            for a, b, n in pack(text, glued, size, overlap, measure,
                                tokens=sizer.unit == "tokens"):
                s, e = glued[a].start, glued[b].end
                path = own.get((s, e), group.path)
                spans.append([s, e, n, path])
        before = [(s[0], s[1]) for s in spans]
        tidy_bounds(text, spans, line_starts=doc.line_starts, code=True)
        chunks: list[Chunk] = []
        for (start, end, count, path), (s0, e0) in zip(spans, before):
            if (start, end) != (s0, e0):
                count = measure(text[start:end])
            chunks.append(
                Chunk(start, end, len(chunks), source=text, tokens=count, strategy=name,
                      heading_path=path, oversize=count > size)
            )
        return chunks


register(CodeChunker())
