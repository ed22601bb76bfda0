"""CS201 split-definition and CS202 split-string: cuts in Python code.

Uses :mod:`chunkseam.pystructure` (definitions and string literals with exact
offsets) for Python and :mod:`chunkseam.tsstructure` (tree-sitter, the
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

from ..issue import Issue
from .base import Context, Cut
from .cuts import Where, mid_word

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
    from ..tsstructure import ts_structure

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


def split_definition(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    py = _structure(ctx)
    if py is None or not py.ok:
        return None
    d = py.split_definition(cut.offset)
    if d is None:
        return None
    name = ".".join(d.qualname) if d.qualname else d.name
    label = getattr(py, "label_of", None)
    if label is not None:  # tree-sitter: the language's own word (impl block, trait …)
        kind = label(d)
        hint = f"cut before or after {name}"
        if d.parent is not None:
            hint += f", or between two members of its {label(py.definitions[d.parent])}"
    else:
        kind = "class" if d.kind == "class" else "function"
        hint = f"cut before or after {name}, or between two members of its class"
    what = f"inside {kind} {name}"
    return _finish(ctx, "CS201", cut, what, d.start, d.end, hint,
                   definition=[d.start, d.end], name=name, kind=d.kind)


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
