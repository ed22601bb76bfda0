"""What the framework integrations share: the sealed splitter, chunk metadata,
the guard's bookkeeping and the merge of retrieved chunks.

Nothing here imports LangChain, LlamaIndex or Haystack; each framework module
imports its framework when it is itself imported.

The sealed splitter
-------------------
:class:`Splitter` runs chunkseam's structure-aware strategies — ``markdown``,
``code`` or ``sentence``, routed by file kind exactly as ``chunkseam lint``
routes them — and then *seals* the result with the validator as the judge:

1. the strategy's chunks (made without overlap) are validated with chunkseam's
   default rules; every cut with an error- or warning-level cut issue (a cut
   rule, ``CS001``–``CS008``, or a code rule, ``CS201``/``CS202``) is moved to
   a boundary of the unit it breaks (the issue's ``unit``): to its start when
   the chunk after the cut still fits ``size`` with the unit, else to its end
   when the chunk before it does, else the unit becomes a chunk of its own
   (which, over ``size``, is an atomic unit kept whole: ``CS101``, never cut);
2. this repeats (a unit inside a list item may need the item's boundary next)
   until the validator finds no such issue; a cut that keeps coming back after
   :data:`ROUNDS` rounds is removed by joining its two chunks, so the loop
   always ends;
3. with an overlap, each chunk is extended backwards by whole sentences
   (:mod:`chunkseam.chunkers.overlap`): up to ``overlap`` of them with
   ``overlap-unit = "sentences"``, else as many as fit in ``overlap`` tokens
   (or characters); the strategy ran with a budget that leaves room for it, so
   a chunk with its overlap fits ``size``. A chunk whose extended start draws
   a loud cut issue gets one sentence fewer until none does.

So the output of a splitter never holds a loud cut issue under the rules it
was sealed with, at any size: what does not fit is a whole unit, reported as
oversize.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from chunkseam.core.version import __version__
from chunkseam.core.chunk import Chunk, chunk_of
from chunkseam.document.text import Document, kind_for
from chunkseam.core.issue import Issue
from chunkseam.core.settings import Settings
from chunkseam.checks.registry import RULES

#: the strategies a splitter runs (structure-aware; the ones the guarantee is about)
STRATEGIES = ("markdown", "code", "sentence")
#: per-chunk rules: not about a cut (oversize is how an atomic unit is reported)
_CHUNK_RULES = frozenset(code for code, rule in RULES.items() if rule.family == "chunk")
LOUD = frozenset({"error", "warning"})
#: rounds of cut moving before a cut that keeps being judged broken is removed
ROUNDS = 12


def is_loud_cut(issue: Issue) -> bool:
    """An error- or warning-level issue about a cut or the chunk list (not a
    per-chunk rule such as oversize, not a suppression notice)."""
    return (issue.severity in LOUD and issue.code not in _CHUNK_RULES
            and not issue.code.startswith("CS9"))


def _judge_settings(settings: Settings) -> Settings:
    """The settings the seal validates with: the user's sizes, tokenizer and
    language, chunkseam's default cut rules (CS0xx, the code rules CS2xx and
    the chunk-list rules CS3xx; the per-chunk rules judge no cut) at their
    default severities."""
    return replace(settings, select=("CS0", "CS2", "CS3"), extend_select=(), ignore=(), severity={},
                   per_file_ignores={}, model_max_tokens=0, embedding_model=None)


def _doc_key(path: str | None) -> str | None:
    return os.fspath(path) if path is not None else None


@dataclass
class Splitter:
    """Framework-neutral sealed splitter (see the module doc).

    ``settings`` are chunkseam settings (``size``, ``overlap``,
    ``overlap_unit``, ``unit``, ``encoding``, ``language``, ``chunkers``
    routes); ``strategy`` forces one of :data:`STRATEGIES` (default: routed by
    the document's kind, ``markdown`` for text without a path); ``kind`` is
    the kind of a document without a path ("markdown", "text", "python")."""

    settings: Settings = field(default_factory=Settings)
    strategy: str | None = None
    kind: str = "markdown"

    def __post_init__(self) -> None:
        s = self.settings
        if self.strategy is not None and self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)} (structure-aware), "
                             f"got {self.strategy!r}")
        if s.chunker is not None and s.chunker not in STRATEGIES:
            # the project simulates another splitter (its pipeline's); the drop-in
            # replaces it with the structure-aware strategies, routed by file kind
            self.settings = s = replace(s, chunker=None)
        if s.overlap_unit != "sentences" and s.overlap:
            if s.overlap >= s.size:
                raise ValueError(f"overlap ({s.overlap}) must be smaller than size ({s.size})")
        from chunkseam.engine.analysis import sizer_for

        self.sizer = sizer_for(s)
        self._judge = _judge_settings(s)

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_config(cls, path: str | os.PathLike[str] | None = None, *, config_file: Any = None,
                    overrides: Mapping[str, Any] | None = None, trusted: bool = False,
                    **kwargs: Any) -> "Splitter":
        """The splitter of the project's chunkseam configuration: the
        ``[tool.chunkseam]`` / ``chunkseam.toml`` nearest to ``path`` (default:
        the current directory), or ``config_file``; ``overrides`` win over the
        file (keys as in the file, e.g. ``{"size": 512}``)."""
        return cls(settings_from_config(path, config_file=config_file, overrides=overrides,
                                        trusted=trusted), **kwargs)

    # -- properties ---------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.settings.size

    def count(self, text: str) -> int:
        """The size of ``text`` in the configured unit (tokens of the configured encoding)."""
        return self.sizer.count(text)

    def parameters(self) -> dict[str, Any]:
        s = self.settings
        return {"size": s.size, "overlap": s.overlap, "overlap_unit": s.overlap_unit, "unit": s.unit,
                "encoding": s.encoding, "strategy": self.strategy or "routed"}

    def document(self, text: str, path: str | None = None, kind: str | None = None) -> Document:
        if kind is None and path is None:
            kind = self.kind
        return Document(text, path=_doc_key(path), kind=kind or kind_for(_doc_key(path)))

    def strategy_for(self, doc: Document) -> str:
        if self.strategy:
            return self.strategy
        from chunkseam.engine.analysis import chunker_name

        name = chunker_name(doc, self.settings)
        return name if name in STRATEGIES else {"markdown": "markdown", "python": "code",
                                                "code": "code"}.get(doc.kind, "sentence")

    # -- splitting -------------------------------------------------------------------
    def split(self, text: str, *, path: str | None = None, kind: str | None = None,
              size: int | None = None) -> list[Chunk]:
        """Sealed chunks of ``text`` (offsets into ``text``); ``size`` overrides
        the budget (LlamaIndex's metadata-aware sizing)."""
        doc = self.document(text, path, kind)
        return self.split_document(doc, size=size)

    def split_document(self, doc: Document, *, size: int | None = None) -> list[Chunk]:
        from chunkseam import chunkers
        from chunkseam.structure.sentences import language

        size = size or self.settings.size
        if not doc.text.strip():
            return []
        name = self.strategy_for(doc)
        s = self.settings
        with language(s.language):
            budget = size
            if s.overlap:  # room for the overlap (chunkseam.chunkers.overlap)
                from chunkseam.chunkers.overlap import reserve

                room = (reserve(doc, self.sizer, size, s.overlap) if s.overlap_unit == "sentences"
                        else min(s.overlap, size // 2))
                budget = max(1, size - room)
            chunks = chunkers.get(name).chunk(doc, self.sizer, size=budget, overlap=0,
                                              **(s.chunker_options if name == s.chunker else {}))
            chunks = self._seal(doc, chunks, budget)
            if s.overlap:
                chunks = self._overlap(doc, chunks, size)
        return chunks

    # -- the seal -----------------------------------------------------------------------
    def _issues(self, doc: Document, chunks: list[Chunk], size: int) -> list[Issue]:
        from chunkseam.engine.validate import validate

        judge = self._judge if size == self._judge.size else replace(self._judge, size=size)
        return validate(doc, chunks, judge, sizer=self.sizer)

    def _chunk(self, doc: Document, start: int, end: int, k: int, name: str, size: int) -> Chunk:
        from chunkseam.structure.markdown import structure

        text = doc.text
        n = self.sizer.count(text[start:end])
        path = structure(doc).heading_path_at(start) if doc.kind == "markdown" else ()
        return chunk_of(start, end, k, text, n, name, tuple(path), n > size, {"sealed": True})

    def _seal(self, doc: Document, chunks: list[Chunk], size: int) -> list[Chunk]:
        text = doc.text
        chunks = list(chunks)
        for round_ in range(ROUNDS + len(chunks) + 1):
            loud = [i for i in self._issues(doc, chunks, size) if is_loud_cut(i)]
            if not loud:
                return chunks
            by_cut: dict[int, Issue] = {}
            for i in loud:
                k = i.chunk
                if k is None:
                    continue
                if i.other_chunk is not None and i.other_chunk == k - 1:
                    k = i.other_chunk
                by_cut.setdefault(k, i)
            if not by_cut:  # nothing a cut can be moved for (the guard reports what is left)
                return chunks
            name = chunks[0].strategy if chunks else ""
            for k in sorted(by_cut, reverse=True):
                if k + 1 >= len(chunks):
                    continue
                issue = by_cut[k]
                left, right = chunks[k], chunks[k + 1]
                merge = round_ >= ROUNDS
                new: list[tuple[int, int]] | None = None
                if not merge:
                    new = self._move(text, issue, left, right, size)
                if new is None:  # join the two chunks: no cut, nothing broken
                    new = [(left.start, right.end)]
                made = [self._chunk(doc, a, b, k, left.strategy or name, size) for a, b in new]
                chunks[k:k + 2] = made
            chunks = [c if c.index == i else replace(c, index=i) for i, c in enumerate(chunks)]
        raise RuntimeError("chunkseam could not seal the chunks")  # pragma: no cover - merge ends it

    def _move(self, text: str, issue: Issue, left: Chunk, right: Chunk,
              size: int) -> list[tuple[int, int]] | None:
        unit = issue.unit or issue.related or (issue.start, issue.end)
        us, ue = unit
        us = max(us, left.start)
        ue = min(ue, right.end)
        count = self.sizer.count
        # the unit's start, the whitespace before it going to neither chunk
        a_end = _rstrip(text, us, left.start)
        if a_end > left.start and us < right.end and count(text[us:right.end]) <= size:
            return [(left.start, a_end), (us, right.end)]
        b_start = _lstrip(text, ue, right.end)
        if ue > left.start and b_start < right.end and count(text[left.start:ue]) <= size:
            return [(left.start, _rstrip(text, ue, left.start)), (b_start, right.end)]
        # the unit alone, between what is left of both sides
        parts = []
        if a_end > left.start:
            parts.append((left.start, a_end))
        parts.append((_lstrip(text, us, ue), _rstrip(text, ue, us)))
        if b_start < right.end:
            parts.append((b_start, right.end))
        parts = [(a, b) for a, b in parts if b > a]
        if len(parts) < 2 or parts == [(left.start, left.end), (right.start, right.end)]:
            return None
        return parts

    def _overlap(self, doc: Document, chunks: list[Chunk], size: int) -> list[Chunk]:
        from chunkseam.chunkers.overlap import sentence_overlap

        s = self.settings
        # in sentences: that many; in tokens or characters: whole sentences within that many
        limit = None if s.overlap_unit == "sentences" else s.overlap
        want = [s.overlap if limit is None else size] * len(chunks)
        for _ in range(min(max(want, default=0), 64) + 1):
            out = sentence_overlap(doc, chunks, want, self.sizer, size, limit=limit)
            bad = {i.other_chunk if i.other_chunk is not None and i.chunk is not None
                   and out[i.other_chunk].start < out[i.chunk].end else i.chunk
                   for i in self._issues(doc, out, size) if is_loud_cut(i)}
            bad = {k for k in bad if k is not None and 0 < k < len(out)
                   and out[k].start != chunks[k].start}
            if not bad:
                return out
            for k in bad:
                want[k] = max(0, min(want[k], out[k].meta.get("overlap_sentences", 0)) - 1)
        return sentence_overlap(doc, chunks, 0, self.sizer, size)  # no overlap rather than a broken one


def _rstrip(text: str, end: int, floor: int) -> int:
    while end > floor and text[end - 1].isspace():
        end -= 1
    return end


def _lstrip(text: str, start: int, ceiling: int) -> int:
    while start < ceiling and text[start].isspace():
        start += 1
    return start


def settings_from_config(path: str | os.PathLike[str] | None = None, *, config_file: Any = None,
                         overrides: Mapping[str, Any] | None = None, trusted: bool = False) -> Settings:
    """The resolved chunkseam settings of the project around ``path`` (a file or
    directory; default the current directory). Untrusted by default: a
    config's plugins are not imported."""
    from chunkseam.config.loader import resolve

    target = Path(path) if path is not None else Path.cwd()
    if target.is_dir():
        target = target / "_"
    return resolve(target, overrides, trusted=trusted, config_file=config_file).settings


# -- chunk metadata ------------------------------------------------------------------

#: the metadata keys a splitter adds to each chunk
META_KEYS = ("chunk_index", "chunk_count", "start_index", "end_index", "heading_path", "heading",
             "tokens", "chunker", "oversize")


def chunk_metadata(chunk: Chunk, count: int, *, offset: int = 0) -> dict[str, Any]:
    """The metadata a splitter attaches to ``chunk`` (offsets shifted by ``offset``)."""
    return {"chunk_index": chunk.index, "chunk_count": count, "start_index": chunk.start + offset,
            "end_index": chunk.end + offset, "heading_path": list(chunk.heading_path),
            "heading": " > ".join(chunk.heading_path), "tokens": chunk.tokens,
            "chunker": chunk.strategy, "oversize": bool(chunk.oversize)}


def source_of(metadata: Mapping[str, Any] | None) -> str | None:
    """The file a framework document came from, by the keys the frameworks' loaders use."""
    for key in ("file_path", "source", "path", "file_name", "filename"):
        v = (metadata or {}).get(key)
        if isinstance(v, str) and v:
            return v
    return None


__all__ = ["Splitter", "STRATEGIES", "chunk_metadata", "is_loud_cut", "settings_from_config",
           "source_of", "__version__"]


# -- the guard -------------------------------------------------------------------------


class BrokenChunkRateExceeded(RuntimeError):
    """The broken-chunk rate of an ingestion run is over the guard's ``max_rate``."""

    def __init__(self, rate: float, max_rate: float, run: str | None) -> None:
        super().__init__(f"chunkseam: broken-chunk rate {rate:.1%} is over the limit {max_rate:.1%}"
                         f"{f' (run {run})' if run else ''}")
        self.rate = rate
        self.max_rate = max_rate
        self.run = run


@dataclass
class Record:
    """One chunk as the guard reads it from a framework object."""

    text: str
    source: str | None = None  # the document's file (or id)
    start: int | None = None
    end: int | None = None
    chunker: str | None = None
    params: dict[str, Any] | None = None


@dataclass
class GuardReport:
    """What one call of a guard found: per record its issues, and the totals."""

    issues: list[list[Issue]]
    stats: Any  # chunkseam.engine.validate.Stats
    events: list[dict[str, Any]]

    @property
    def rate(self) -> float:
        return self.stats.rate


def issue_strings(issues: Sequence[Issue]) -> list[str]:
    return [f"{i.code} {i.name} ({i.severity}): {i.message}" for i in issues]


class Guard:
    """Validates chunks as they are ingested, without changing them.

    ``settings``: chunkseam settings the chunks are judged with (the project's,
    see :func:`settings_from_config`); ``events``: a path or a text stream the
    JSON-line events (:mod:`chunkseam.events`) are appended to; ``run``: the
    run id they are tagged with (default: the time of the guard's creation);
    ``max_rate``: a broken-chunk rate (0–1) over which a call raises
    :class:`BrokenChunkRateExceeded` (after the events are written);
    ``metrics``: export the rate through OpenTelemetry (``None``: when
    ``opentelemetry-api`` is installed; ``meter``: an OpenTelemetry meter to
    use instead of the global provider's); ``splitter``: the
    :class:`Splitter` that made the chunks — its settings judge them and its
    parameters tag the events; ``chunker`` and ``params``: the name and the
    parameters of another splitter, to tag the events with (the chunks'
    ``chunker`` metadata otherwise; the size they are judged against is
    ``settings.size``); ``sources``: the documents' texts by
    path (default: read from the file a chunk's metadata names). A chunk whose
    document cannot be read, or whose offsets do not point at its text, is
    judged by the text-only checks."""

    def __init__(self, settings: Settings | None = None, *, events: Any = None, run: str | None = None,
                 max_rate: float | None = None, metrics: bool | None = None,
                 sources: Mapping[str, str] | None = None, meter: Any = None,
                 splitter: Splitter | None = None, chunker: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        from datetime import datetime, timezone

        self.params = dict(params) if params is not None else (
            splitter.parameters() if splitter is not None else None)
        self.chunker = chunker
        if settings is None and splitter is not None:
            settings = splitter.settings
        if max_rate is not None and not (0.0 <= float(max_rate) <= 1.0):
            raise ValueError(f"max_rate must be a rate between 0 and 1, got {max_rate!r}")
        self.settings = settings or Settings()
        self.events = events
        self.run = run or datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        self.max_rate = None if max_rate is None else float(max_rate)
        self.sources = dict(sources or {})
        self._instruments = _otel_instruments(meter) if metrics is not False else None
        if metrics is True and self._instruments is None:
            raise ValueError("metrics=True needs opentelemetry-api (pip install opentelemetry-api)")
        from chunkseam.engine.analysis import sizer_for

        self.sizer = sizer_for(self.settings)
        self.totals = None

    @classmethod
    def from_config(cls, path: Any = None, *, config_file: Any = None,
                    overrides: Mapping[str, Any] | None = None, **kwargs: Any) -> "Guard":
        return cls(settings_from_config(path, config_file=config_file, overrides=overrides), **kwargs)

    def _source_text(self, source: str | None) -> str | None:
        if source is None:
            return None
        if source in self.sources:
            return self.sources[source]
        try:
            p = Path(source)
            if p.is_file():  # read for this batch only (a long-running ingestion keeps nothing)
                return Document.from_path(p).text
        except (OSError, ValueError):
            return None
        return None

    def inspect(self, records: Sequence[Record]) -> GuardReport:
        """Judge ``records`` (grouped by source document), write the events,
        export the metrics, and raise when the rate is over ``max_rate``."""
        from chunkseam import events as ev
        from chunkseam.engine.validate import statistics, total, validate, validate_text_only

        groups: dict[Any, list[int]] = {}
        for n, r in enumerate(records):
            # chunks without a document are judged together, in order, as one dump
            groups.setdefault(r.source if r.source is not None else ("<no source>",), []).append(n)
        per_record: list[list[Issue]] = [[] for _ in records]
        all_events: list[dict[str, Any]] = []
        stats = []
        for key, members in groups.items():
            path = key if isinstance(key, str) else None
            text = self._source_text(path)
            recs = [records[n] for n in members]
            located = text is not None and all(
                r.start is not None and r.end is not None and 0 <= r.start <= r.end <= len(text)
                and text[r.start:r.end] == r.text for r in recs)
            first = recs[0]
            settings = self.settings
            params = first.params or self.params
            if located:
                doc = Document(text, path=path, kind=kind_for(path))
                order = sorted(range(len(recs)), key=lambda m: (recs[m].start, recs[m].end))
                chunks = [Chunk(recs[m].start, recs[m].end, i, text, strategy=recs[m].chunker or "")
                          for i, m in enumerate(order)]
                issues = validate(doc, chunks, settings, sizer=self.sizer)
                from chunkseam.engine.validate import charged_chunk

                for i in issues:
                    c = charged_chunk(i)
                    if c is not None and 0 <= c < len(order):
                        per_record[members[order[c]]].append(i)
            else:
                doc = Document("", path=path)
                chunks = [Chunk(0, len(r.text), i, r.text) for i, r in enumerate(recs)]
                issues = validate_text_only([r.text for r in recs], settings)
                for i in issues:
                    if i.chunk is not None and 0 <= i.chunk < len(recs):
                        per_record[members[i.chunk]].append(i)
            st = statistics(chunks, issues)
            stats.append(st)
            evs = ev.for_document(doc, chunks, issues, settings, chunker=self.chunker or first.chunker,
                                  run=self.run, stats=st)
            if params:
                for e in evs:
                    e["params"] = {**e["params"], **params}
            if not located:
                for e in evs:
                    e["text_only"] = True
            all_events.extend(evs)
        tot = total(stats)
        self.totals = tot if self.totals is None else self.totals + tot
        if self.events is not None:
            _append_events(self.events, all_events)
        if self._instruments is not None:
            _export(self._instruments, tot, self.run,
                    self.chunker or (records[0].chunker if records else None))
        report = GuardReport(per_record, tot, all_events)
        if self.max_rate is not None and tot.chunks and tot.rate > self.max_rate:
            raise BrokenChunkRateExceeded(tot.rate, self.max_rate, self.run)
        return report


def _append_events(target: Any, events: list[dict[str, Any]]) -> None:
    from chunkseam import events as ev

    if hasattr(target, "write"):
        ev.write(target, events)
        return
    with open(os.fspath(target), "a", encoding="utf-8") as fp:
        ev.write(fp, events)


def _otel_instruments(meter: Any = None) -> dict[str, Any] | None:
    """OpenTelemetry instruments (from ``meter`` or the global meter provider),
    or None when opentelemetry-api is not installed."""
    if meter is None:
        try:
            from opentelemetry import metrics
        except ImportError:
            return None
        meter = metrics.get_meter("chunkseam", __version__)
    out = {"chunks": meter.create_counter("chunkseam.chunks", unit="{chunk}",
                                          description="chunks checked by the chunkseam guard"),
           "broken": meter.create_counter("chunkseam.broken_chunks", unit="{chunk}",
                                          description="chunks with an error- or warning-level issue")}
    gauge = getattr(meter, "create_gauge", None)
    if gauge is not None:
        out["rate"] = gauge("chunkseam.broken_chunk_rate", unit="1",
                            description="broken chunks / chunks of the last guarded batch")
    return out


def _export(instruments: dict[str, Any], stats: Any, run: str | None, chunker: str | None) -> None:
    attrs = {"run": run or "", "chunker": chunker or ""}
    instruments["chunks"].add(stats.chunks, attrs)
    instruments["broken"].add(stats.chunks_with_issues, attrs)
    if "rate" in instruments:
        instruments["rate"].set(stats.rate, attrs)


# -- merge at retrieval ------------------------------------------------------------------


def merge(items: Iterable[Any], **kwargs: Any) -> list[Any]:
    """:func:`chunkseam.engine.merge.merge_adjacent` over framework objects."""
    from chunkseam.engine.merge import merge_adjacent

    return merge_adjacent(items, **kwargs)


def merged_metadata(m: Any) -> dict[str, Any]:
    """The metadata of a merged run: the first member's, with the run's span."""
    meta = dict(m.metadata)
    if m.start is not None:
        meta["start_index"] = m.start
        meta["end_index"] = m.end
    meta["merged_chunks"] = len(m.members)
    if m.indices:
        meta["chunk_indices"] = list(m.indices)
    return meta
