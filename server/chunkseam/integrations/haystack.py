"""chunkseam in Haystack 2: a document splitter, a guard and a merge component.

::

    from haystack import Pipeline
    from chunkseam.integrations.haystack import (ChunkseamDocumentSplitter, ChunkseamGuard,
                                                 MergeAdjacentDocuments)

    splitter = ChunkseamDocumentSplitter.from_config()
    indexing = Pipeline()
    indexing.add_component("splitter", splitter)
    indexing.add_component("guard", ChunkseamGuard.for_splitter(splitter, events="chunkseam.jsonl"))
    indexing.add_component("writer", DocumentWriter(store))
    indexing.connect("splitter", "guard")
    indexing.connect("guard", "writer")

Needs ``haystack-ai`` (``pip install "chunkseam[haystack]"``).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Mapping

from haystack import Document, component, default_from_dict, default_to_dict

from chunkseam.core.settings import Settings
from chunkseam.integrations._core import (Guard, Record, Splitter, chunk_metadata, issue_strings, merge, merged_metadata,
                    settings_from_config, source_of)


@component
class ChunkseamDocumentSplitter:
    """A Haystack document splitter over chunkseam's sealed structure-aware
    chunking (markdown / code / sentence by the file kind of ``meta["file_path"]``).

    Like Haystack's ``DocumentSplitter``, each split has ``source_id`` (the
    document's id), ``split_id``, ``split_idx_start`` (the true offset in the
    document), ``page_number`` (form feeds before it) and, with overlap,
    ``_split_overlap``; and chunkseam's ``heading_path``, ``heading``,
    ``chunk_index``, ``tokens``, ``chunker`` and ``oversize``. Sizes are in
    the configured unit (tokens of ``encoding`` by default)."""

    def __init__(self, chunk_size: int = 400, chunk_overlap: int = 0, overlap_unit: str = "unit",
                 unit: str = "tokens", encoding: str = "cl100k_base", strategy: str | None = None,
                 kind: str = "markdown", settings: Settings | None = None) -> None:
        base = settings or Settings()
        if settings is not None:
            chunk_size, chunk_overlap, overlap_unit, unit, encoding = (
                settings.size, settings.overlap, settings.overlap_unit, settings.unit, settings.encoding)
        self.chunk_size, self.chunk_overlap, self.overlap_unit = chunk_size, chunk_overlap, overlap_unit
        self.unit, self.encoding, self.strategy, self.kind = unit, encoding, strategy, kind
        self.splitter = Splitter(base.with_(size=chunk_size, overlap=chunk_overlap,
                                            overlap_unit=overlap_unit, unit=unit, encoding=encoding),
                                 strategy=strategy, kind=kind)

    @classmethod
    def from_config(cls, path: Any = None, *, config_file: Any = None,
                    overrides: Mapping[str, Any] | None = None, **kwargs: Any) -> "ChunkseamDocumentSplitter":
        """The splitter of the project's chunkseam configuration (nearest to ``path``)."""
        return cls(settings=settings_from_config(path, config_file=config_file, overrides=overrides),
                   **kwargs)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap,
                               overlap_unit=self.overlap_unit, unit=self.unit, encoding=self.encoding,
                               strategy=self.strategy, kind=self.kind)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChunkseamDocumentSplitter":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        out: list[Document] = []
        for doc in documents:
            if doc.content is None:
                raise ValueError(f"ChunkseamDocumentSplitter: document {doc.id} has no text content")
            text = doc.content
            chunks = self.splitter.split(text, path=source_of(doc.meta))
            made: list[Document] = []
            for c in chunks:
                meta = deepcopy(doc.meta)
                meta.update(chunk_metadata(c, len(chunks)))
                meta.update(source_id=doc.id, split_id=c.index, split_idx_start=c.start,
                            page_number=1 + text.count("\f", 0, c.start))
                made.append(Document(content=c.text, meta=meta))
            if self.chunk_overlap:
                for k, d in enumerate(made):
                    d.meta["_split_overlap"] = []
                    if k and chunks[k].start < chunks[k - 1].end:
                        prev = made[k - 1]
                        rng = (chunks[k].start - chunks[k - 1].start, len(prev.content or ""))
                        d.meta["_split_overlap"].append({"doc_id": prev.id, "range": rng})
                        prev.meta["_split_overlap"].append(
                            {"doc_id": d.id, "range": (0, rng[1] - rng[0])})
            out.extend(made)
        return {"documents": out}


def _record(doc: Document) -> Record:
    meta = doc.meta or {}
    start = meta.get("split_idx_start")
    text = doc.content or ""
    ok = isinstance(start, int)
    return Record(text, source_of(meta) or meta.get("source_id"), start if ok else None,
                  start + len(text) if ok else None, meta.get("chunker"), None)


@component
class ChunkseamGuard:
    """Passes documents through unchanged but for ``meta["chunkseam_issues"]``
    (one string per issue) and ``meta["chunkseam_broken"]``; writes
    chunkseam's JSON-line events, exports the broken-chunk rate with
    OpenTelemetry when installed, and raises
    :class:`~chunkseam.integrations._core.BrokenChunkRateExceeded` over
    ``max_rate``. The arguments are :class:`~chunkseam.integrations._core.Guard`'s."""

    def __init__(self, events: str | None = None, run: str | None = None, max_rate: float | None = None,
                 metrics: bool | None = None, guard: Guard | None = None) -> None:
        self.guard = guard or Guard(events=events, run=run, max_rate=max_rate, metrics=metrics)

    @classmethod
    def for_splitter(cls, splitter: ChunkseamDocumentSplitter, **kwargs: Any) -> "ChunkseamGuard":
        """A guard judging with ``splitter``'s settings, its events tagged with its parameters."""
        return cls(guard=Guard(splitter=splitter.splitter, **kwargs))

    @component.output_types(documents=list[Document], rate=float)
    def run(self, documents: list[Document]) -> dict[str, Any]:
        if not documents:
            return {"documents": [], "rate": 0.0}
        report = self.guard.inspect([_record(d) for d in documents])
        for d, issues in zip(documents, report.issues):
            d.meta["chunkseam_issues"] = issue_strings(issues)
            d.meta["chunkseam_broken"] = any(i.severity in ("error", "warning") for i in issues)
        return {"documents": documents, "rate": report.rate}


@component
class MergeAdjacentDocuments:
    """Joins retrieved documents that are neighbours in their source document
    (by ``source_id`` and ``split_idx_start``; :func:`chunkseam.merge_adjacent`):
    overlaps are not repeated, the score is the best member's."""

    def __init__(self, max_gap: int = 0, order: str = "score") -> None:
        if order not in ("score", "document"):
            raise ValueError(f'order must be "score" or "document", got {order!r}')
        self.max_gap = max_gap
        self.order = order

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        items = []
        for d in documents:
            meta = d.meta or {}
            start = meta.get("split_idx_start")
            item = {"doc_id": meta.get("source_id") or source_of(meta), "text": d.content or "",
                    "score": d.score, "metadata": meta, "_doc": d}
            if isinstance(start, int):
                item["start"] = start
                item["end"] = start + len(d.content or "")
            if isinstance(meta.get("split_id"), int):
                item["index"] = meta["split_id"]
            items.append(item)
        out = []
        for m in merge(items, max_gap=self.max_gap, order=self.order):
            if len(m.members) == 1:
                out.append(m.members[0]["_doc"])
                continue
            meta = merged_metadata(m)
            if m.start is not None:
                meta["split_idx_start"] = m.start
            meta.pop("_split_overlap", None)
            out.append(Document(content=m.text, meta=meta, score=m.score))
        return {"documents": out}


__all__ = ["ChunkseamDocumentSplitter", "ChunkseamGuard", "MergeAdjacentDocuments"]
