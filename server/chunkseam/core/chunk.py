"""The chunk: a span of the source text, never a re-joined copy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, eq=True)
class Chunk:
    """``source[start:end]`` plus what a pipeline would attach to it.

    ``index`` is the chunk's position in its document's chunk list;
    ``heading_path`` the titles of the headings that enclose its start;
    ``tokens`` its size in the unit of the sizer that made it; ``oversize``
    is true when an atomic unit (a fence, a table …) was kept whole although
    it is over the budget.
    """

    start: int
    end: int
    index: int
    source: str = field(repr=False, compare=False)
    tokens: int = 0
    strategy: str = ""
    heading_path: tuple[str, ...] = ()
    oversize: bool = False
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def text(self) -> str:
        return self.source[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start

    def overlaps(self, other: "Chunk") -> bool:
        return self.start < other.end and other.start < self.end

    @property
    def approximate(self) -> bool:
        """True when the chunker could only place this chunk approximately."""
        return bool(self.meta.get("approximate"))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "tokens": self.tokens,
            "heading_path": list(self.heading_path),
            "strategy": self.strategy,
            "oversize": self.oversize,
            "text": self.text,
        }
        if self.approximate:
            out["approximate"] = True
        return out


class LazyChunk(Chunk):
    """A :class:`Chunk` whose ``tokens`` are counted when first read (a pipeline
    adapter whose size is not in tokens — Haystack by words, lines, passages —
    needs no count to chunk). Pickled, copied and compared as a plain Chunk."""

    @property  # type: ignore[override]
    def tokens(self) -> int:  # noqa: D102
        d = self.__dict__
        n = d.get("_tokens")
        if n is None:
            n = d["_tokens"] = d["_count"](self.source[self.start:self.end])
        return n

    @tokens.setter
    def tokens(self, value: int) -> None:
        self.__dict__["_tokens"] = value

    @property  # type: ignore[override]
    def oversize(self) -> bool:  # noqa: D102
        d = self.__dict__
        v = d.get("_oversize")
        if v is None:  # judged from the count, when first read
            v = d["_oversize"] = bool(d["_over"](self.tokens))
        return v

    @oversize.setter
    def oversize(self, value: bool) -> None:
        self.__dict__["_oversize"] = value

    def _key(self) -> tuple:
        return (self.start, self.end, self.index, self.tokens, self.strategy, self.heading_path,
                self.oversize)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Chunk):
            return self._key() == (other.start, other.end, other.index, other.tokens,
                                   other.strategy, other.heading_path, other.oversize)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple:
        return (Chunk, (self.start, self.end, self.index, self.source, self.tokens,
                        self.strategy, self.heading_path, self.oversize, self.meta))


def lazy_chunk(start: int, end: int, index: int, source: str, count: Any, strategy: str,
               oversize: Any, meta: dict[str, Any]) -> Chunk:
    """A chunk whose token count ``count(text)`` is taken when first asked for.
    ``oversize``: a bool, or a function of the count (``over(tokens) -> bool``),
    called when ``oversize`` is first read (so also counted only then)."""
    chunk = _new(LazyChunk)
    d = chunk.__dict__
    d.update(start=start, end=end, index=index, source=source, _count=count,
             strategy=strategy, heading_path=(), meta=meta)
    if isinstance(oversize, bool):
        d["_oversize"] = oversize
    else:
        d["_over"] = oversize
    return chunk


_new = object.__new__


def chunk_of(start: int, end: int, index: int, source: str, tokens: int, strategy: str,
             heading_path: tuple[str, ...], oversize: bool, meta: dict[str, Any]) -> Chunk:
    """``Chunk(start, end, index, source, tokens, strategy, heading_path,
    oversize, meta)``, made without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field): the same object, for a chunker that
    makes thousands of chunks on every edit. Every field is given."""
    chunk = _new(Chunk)
    chunk.__dict__.update(start=start, end=end, index=index, source=source, tokens=tokens,
                          strategy=strategy, heading_path=heading_path, oversize=oversize,
                          meta=meta)
    return chunk


def renumber(chunks: list[Chunk]) -> list[Chunk]:
    """Chunks sorted by (start, end) with ``index`` equal to their position."""
    from dataclasses import replace

    ordered = sorted(chunks, key=lambda c: (c.start, c.end))
    return [c if c.index == i else replace(c, index=i) for i, c in enumerate(ordered)]
