"""CS201 split-definition and CS202 split-string: cuts in Python code.

Uses :mod:`chunkseam.structure.python` (definitions and string literals with exact
offsets) for Python and :mod:`chunkseam.structure.treesitter` (tree-sitter, the
``chunkseam[code]`` extra) for JavaScript, TypeScript, Go, Rust and Java; the
messages name the language's own kind of definition (``inside impl block
Router``, ``inside method Gson.toJson``). Precedence for Python documents: CS202 split-string > CS001
mid-word > CS201 split-definition (the string is the most specific unit a cut
can break; a cut inside an identifier in a function reports mid-word).

A cut *between two members of a class* (two methods, a method and an
attribute) does not split the class: that is where a class too big for one
chunk is divided, and each method stays whole. A cut inside a method or
function body, in a signature or among a definition's decorators does. A file
that does not parse gets no code checks (only CS001).
"""

from __future__ import annotations

import re

from chunkseam.core.issue import Issue
from chunkseam.checks.base import Context, Cut
from chunkseam.checks.cuts import Where, mid_word

_STRING_WORDS = {"docstring": "inside a docstring", "fstring": "inside an f-string",
                 "tstring": "inside a t-string", "bytes": "inside a bytes literal",
                 "string": "inside a string literal", "template": "inside a template string"}


def _finish(ctx: Context, code: str, cut: Cut, what: str, lo: int, hi: int, hint: str,
            **data) -> Issue:
    related, rel_msg = ctx.related_for(cut, lo, hi)
    msg = ctx.cut_message(cut, what, lo, hi)
    return ctx.issue(code, msg, lo, hi, cut=cut, related=related, related_message=rel_msg,
                     hint=hint, **data)


def _structure(ctx: Context):
    """The Python structure of a Python document, the tree-sitter structure of
    another code document (None without the ``code`` extra or a grammar)."""
    if ctx.doc.kind == "python":
        return ctx.python
    from chunkseam.structure.treesitter import ts_structure

    return ctx.doc.memo("checks:tsstructure", lambda: ts_structure(ctx.doc))


def split_string(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    py = _structure(ctx)
    if py is None or not py.ok:
        return None
    lit = py.string_at(cut.offset)
    if lit is None:
        return None
    what = _STRING_WORDS.get(lit.kind, "inside a string literal")
    return _finish(ctx, "CS202", cut, what, lit.start, lit.end,
                   "keep the string in one chunk", string=[lit.start, lit.end], kind=lit.kind)


_GO_RECEIVER = re.compile(r"func[ \t]*\([ \t]*(?:\w+[ \t]+)?(\*?[ \t]*\w+)(?:\[[^\]]*\])?[ \t]*\)")


def kind_word(py, d) -> str:
    """What a definition is called: the tree-sitter label (``impl block``,
    ``struct``), ``method`` for a function directly in a class (an impl block
    or trait in Rust; not a module), else ``class``/``function``."""
    label = getattr(py, "label_of", None)
    word = label(d) if label is not None else ("class" if d.kind == "class" else "function")
    if word == "function" and d.parent is not None:
        parent = py.definitions[d.parent]
        where = label(parent) if label is not None else parent.kind
        if parent.kind == "class" and where not in ("module", "namespace") and any(
                st.definition == d.index for st in parent.body):
            return "method"
    return word


def display_name(py, d) -> str:
    """A definition's name as its language writes a path: ``Router.get`` in
    Python, TypeScript and Java, ``Container::from_ast`` in Rust (a method of
    ``impl Visitor for Seq`` is ``<Seq as Visitor>::visit``; an impl block is
    named by its own head, not its module)."""
    parts = list(d.qualname) if d.qualname else [d.name]
    language = getattr(py, "language", None)
    if language == "go":  # a method by its receiver: (*Mux).ServeHTTP, Mux.Routes
        m = _GO_RECEIVER.match(py.text, d.header_start) if d.kind != "class" else None
        if m:
            typ = m.group(1).replace(" ", "")
            return f"({typ}).{d.name}" if typ.startswith("*") else f"{typ}.{d.name}"
    if language != "rust":
        return ".".join(parts)
    label = getattr(py, "label_of", None)
    if label is not None and label(d) == "impl block":
        return d.name
    out = []
    for part in parts[:-1] if len(parts) > 1 else []:
        if " for " in part:  # a trait impl: <Type as Trait>
            trait, _, typ = part.partition(" for ")
            out = [f"<{typ.strip()} as {trait.strip()}>"]
        else:
            out.append(part)
    return "::".join([*out, parts[-1]])


def split_definition(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    py = _structure(ctx)
    if py is None or not py.ok:
        return None
    d = py.split_definition(cut.offset)
    if d is None:
        return None
    name = display_name(py, d)
    label = getattr(py, "label_of", None)
    kind = kind_word(py, d)  # the language's own word (method, impl block, trait …)
    if label is not None:
        hint = f"cut before or after {name}"
        if d.parent is not None:
            hint += f", or between two members of its {label(py.definitions[d.parent])}"
    else:
        hint = f"cut before or after {name}, or between two members of its class"
    what = f"inside {kind} {name}"
    return _finish(ctx, "CS201", cut, what, d.start, d.end, hint,
                   definition=[d.start, d.end], name=name, kind=d.kind)


def kept_whole(ctx: Context, start: int, end: int) -> str | None:
    """What a code chunk ``text[start:end]`` kept whole is, in the words of
    CS201 (``function get_dependant``, ``method Gson.toJson``): the largest
    definition inside it that fills most of it; None for other documents."""
    if ctx.doc.kind not in ("python", "code"):
        return None
    py = _structure(ctx)
    if py is None or not py.ok:
        return None
    best = None
    for d in py.definitions:
        if d.start >= end:
            break
        if d.start >= start and d.end <= end and (best is None or d.end - d.start > best.end - best.start):
            best = d
    if best is None or (best.end - best.start) * 2 < end - start:
        return None
    return f"{kind_word(py, best)} {display_name(py, best)}"


def python_mid_word(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    return mid_word(ctx, cut, Where([], None))


PYTHON_ORDER = (
    ("CS202", split_string),
    ("CS001", python_mid_word),
    ("CS201", split_definition),
)

#: other code files: strings and definitions through tree-sitter (the ``code``
#: extra; without it those two checks find nothing), then words
CODE_ORDER = PYTHON_ORDER
