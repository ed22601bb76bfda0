"""CS201 split-definition and CS202 split-string: cuts in Python code.

Uses :mod:`chunkseam.pystructure` (definitions and string literals with exact
offsets). Precedence for Python documents: CS202 split-string > CS001
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
                 "string": "inside a string literal"}


def _finish(ctx: Context, code: str, cut: Cut, what: str, lo: int, hi: int, hint: str,
            **data) -> Issue:
    related, rel_msg = ctx.related_for(cut, lo, hi)
    msg = ctx.cut_message(cut, what, lo, hi)
    return ctx.issue(code, msg, lo, hi, cut=cut, related=related, related_message=rel_msg,
                     hint=hint, **data)


def split_string(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    py = ctx.python
    if not py.ok:
        return None
    lit = py.string_at(cut.offset)
    if lit is None:
        return None
    what = _STRING_WORDS.get(lit.kind, "inside a string literal")
    return _finish(ctx, "CS202", cut, what, lit.start, lit.end,
                   "keep the string in one chunk", string=[lit.start, lit.end], kind=lit.kind)


def split_definition(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    py = ctx.python
    if not py.ok:
        return None
    d = py.split_definition(cut.offset)
    if d is None:
        return None
    name = ".".join(d.qualname) if d.qualname else d.name
    kind = "class" if d.kind == "class" else "function"
    what = f"inside {kind} {name}"
    return _finish(ctx, "CS201", cut, what, d.start, d.end,
                   f"cut before or after {name}, or between two members of its class",
                   definition=[d.start, d.end], name=name, kind=d.kind)


def python_mid_word(ctx: Context, cut: Cut, where: Where | None = None) -> Issue | None:
    return mid_word(ctx, cut, Where([], None))


PYTHON_ORDER = (
    ("CS202", split_string),
    ("CS001", python_mid_word),
    ("CS201", split_definition),
)

#: other code files (no parser): only words
CODE_ORDER = (("CS001", python_mid_word),)
