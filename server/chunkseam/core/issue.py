"""Issues: what a check reports about a cut or a chunk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info", "hint")
SEVERITY_RANK = {name: i for i, name in enumerate(SEVERITIES)}  # lower = more severe


@dataclass
class Issue:
    """One finding.

    ``start``/``end`` is the offset range the squiggle covers, where every
    output reports the issue: for a cut, the word (CS001) or the line(s) at
    the cut within the broken unit (the part of the sentence, fence, table or
    item on the cut's line, or on the two lines either side of a cut at a line
    start), never the whole unit; ``unit`` is the whole broken unit (the
    sentence, fence, table, item, span, heading or HTML block) and ``cut`` the
    offset of the cut itself. ``chunk`` is the chunk on the left of the cut (or
    the chunk concerned), ``other_chunk`` the one on the right; ``related`` the
    part of the unit on the other side of the cut. ``data`` carries what a
    quick fix needs (JSON-serialisable).

    ``message`` may be given as a callable that writes it from the issue (a
    cut's message, :class:`chunkseam.checks.base.CutMessage`, written from
    the document's text the issue then holds as ``_text``): it is written
    when first read (most issues of a large document are never shown), then
    kept.
    """

    code: str
    name: str
    severity: str
    message: str
    start: int
    end: int
    chunk: int | None = None
    other_chunk: int | None = None
    cut: int | None = None
    related: tuple[int, int] | None = None
    related_message: str | None = None
    fix: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    unit: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "start_offset": self.start,
            "end_offset": self.end,
            "chunk": self.chunk,
            "other_chunk": self.other_chunk,
            "cut": self.cut,
            "related": list(self.related) if self.related else None,
            "unit": list(self.unit) if self.unit else None,
            "fix": self.fix,
            "data": self.data,
        }

    def __getstate__(self) -> dict[str, Any]:
        # a pickled or copied issue holds its message written out, never
        # what it would be written from (the document's text)
        state = dict(self.__dict__)
        state["_message"] = self.message
        state.pop("_text", None)
        state.pop("_written", None)
        return state

    def same_message(self, other: Issue) -> bool:
        """``self.message == other.message``, without writing either when
        both are to be written from one and the same judgement (a
        :class:`~chunkseam.checks.base.CutMessage` or one moved from it): a
        version shares it with the next for a cut judged the same where the
        text is the same, and the cut cache with the same neighbourhood
        elsewhere (see :mod:`chunkseam.engine.validate`), so their messages are
        equal."""
        a, b = self._message, other._message
        if a is b and type(a) is not str:
            return True
        same = getattr(a, "same", None) if type(a) is not str else None
        if same is not None and same(b):
            return True  # (one judgement: one message, written once for both)
        return self.message == other.message


def _get_message(self: Issue) -> str:
    message = self._message
    if type(message) is str:
        return message
    written = self._written
    if written is None:  # written once (two threads: the same text)
        written = self._written = message(self)
    return written


def _set_message(self: Issue, value: Any) -> None:
    self._message = value
    self._written = None


# set after the dataclass is made: its __init__, __eq__, __repr__, asdict and
# replace read and write ``message`` through the property
Issue.message = property(_get_message, _set_message,  # type: ignore[assignment,method-assign]
                         doc="The message (written on first read when given as a callable).")
