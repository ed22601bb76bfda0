"""chunkseam in LangChain: a drop-in ``TextSplitter``, a guard and a merging retriever.

::

    from chunkseam.integrations.langchain import (ChunkseamTextSplitter, ChunkseamGuard,
                                                  MergingRetriever)

    splitter = ChunkseamTextSplitter.from_config()          # the project's [tool.chunkseam]
    chunks = ChunkseamGuard(events="chunkseam.jsonl").transform_documents(
        splitter.split_documents(docs))
    retriever = MergingRetriever(base=BM25Retriever.from_documents(chunks, k=4))

Needs ``langchain-core`` and ``langchain-text-splitters`` (``pip install "chunkseam[langchain]"``).
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping, Sequence

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import BaseDocumentTransformer, Document
from langchain_core.retrievers import BaseRetriever
from langchain_text_splitters import TextSplitter

from chunkseam.core.settings import Settings
from chunkseam.integrations._core import (Guard, Record, Splitter, chunk_metadata, issue_strings, merge, merged_metadata,
                    settings_from_config, source_of)


class ChunkseamTextSplitter(TextSplitter):
    """A LangChain ``TextSplitter`` over chunkseam's sealed structure-aware
    chunking (markdown / code / sentence by the document's file kind).

    ``chunk_size`` is counted in the configured unit (tokens of ``encoding``
    by default, or characters), ``chunk_overlap`` in that unit or, with
    ``overlap_unit="sentences"``, in whole sentences. No cut breaks a unit;
    a unit over ``chunk_size`` is one chunk, ``metadata["oversize"]``.

    Every chunk's metadata gets ``heading_path`` (list), ``heading`` (joined
    with " > "), ``chunk_index``, ``chunk_count``, ``tokens``, ``chunker`` and
    ``oversize``; with ``add_start_index`` (on by default) ``start_index`` and
    ``end_index`` — the true offsets in the source text, tracked, never found
    by searching. ``split_documents`` routes each document by the file its
    metadata names (``source``, ``file_path``)."""

    def __init__(self, chunk_size: int = 400, chunk_overlap: int = 0, *, unit: str = "tokens",
                 encoding: str = "cl100k_base", overlap_unit: str = "unit",
                 strategy: str | None = None, kind: str = "markdown", add_start_index: bool = True,
                 settings: Settings | None = None, **kwargs: Any) -> None:
        if settings is None:
            settings = Settings(size=chunk_size, overlap=chunk_overlap, unit=unit, encoding=encoding,
                                overlap_unit=overlap_unit)
        self._chunkseam = Splitter(settings, strategy=strategy, kind=kind)
        s = self._chunkseam.settings
        super().__init__(chunk_size=s.size,
                         chunk_overlap=s.overlap if s.overlap_unit != "sentences" else 0,
                         length_function=self._chunkseam.count, add_start_index=add_start_index,
                         **kwargs)

    @classmethod
    def from_config(cls, path: Any = None, *, config_file: Any = None,
                    overrides: Mapping[str, Any] | None = None, **kwargs: Any) -> "ChunkseamTextSplitter":
        """The splitter of the project's chunkseam configuration (nearest to ``path``)."""
        return cls(settings=settings_from_config(path, config_file=config_file, overrides=overrides),
                   **kwargs)

    @property
    def chunkseam(self) -> Splitter:
        return self._chunkseam

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in self._chunkseam.split(text)]

    def create_documents(self, texts: list[str],
                         metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        metadatas_ = metadatas or [{}] * len(texts)
        out: list[Document] = []
        for text, meta in zip(texts, metadatas_):
            chunks = self._chunkseam.split(text, path=source_of(meta))
            for c in chunks:
                m = copy.deepcopy(meta)
                extra = chunk_metadata(c, len(chunks))
                if not self._add_start_index:
                    extra.pop("start_index")
                    extra.pop("end_index")
                m.update(extra)
                out.append(Document(page_content=c.text, metadata=m))
        return out


def _record(doc: Document) -> Record:
    meta = doc.metadata or {}
    start = meta.get("start_index")
    end = meta.get("end_index")
    if isinstance(start, int) and not isinstance(end, int):
        end = start + len(doc.page_content)
    return Record(doc.page_content, source_of(meta), start if isinstance(start, int) else None,
                  end if isinstance(end, int) else None, meta.get("chunker"), None)


class ChunkseamGuard(BaseDocumentTransformer):
    """A LangChain document transformer that passes chunks through unchanged
    but for their metadata: ``chunkseam_issues`` (the issues of the chunk, one
    string each) and ``chunkseam_broken`` (an error- or warning-level issue).
    It writes chunkseam's JSON-line events, exports the broken-chunk rate with
    OpenTelemetry when installed, and raises
    :class:`~chunkseam.integrations._core.BrokenChunkRateExceeded` over
    ``max_rate``. The arguments are :class:`~chunkseam.integrations._core.Guard`'s."""

    def __init__(self, guard: Guard | None = None, **kwargs: Any) -> None:
        self.guard = guard or Guard(**kwargs)

    @classmethod
    def from_config(cls, path: Any = None, **kwargs: Any) -> "ChunkseamGuard":
        return cls(Guard.from_config(path, **kwargs))

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        docs = list(documents)
        report = self.guard.inspect([_record(d) for d in docs])
        for d, issues in zip(docs, report.issues):
            d.metadata["chunkseam_issues"] = issue_strings(issues)
            d.metadata["chunkseam_broken"] = any(i.severity in ("error", "warning") for i in issues)
        self.last_report = report
        return docs


class MergingRetriever(BaseRetriever):
    """Wraps a retriever and joins the chunks it returns that are neighbours in
    their document (:func:`chunkseam.merge_adjacent`): overlaps are not
    repeated, the merged chunk's metadata is its first member's with the
    run's ``start_index``/``end_index`` and ``merged_chunks``."""

    base: BaseRetriever
    max_gap: int = 0
    order: str = "score"

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.base.invoke(query, config={"callbacks": run_manager.get_child()})
        return merge_documents(hits, max_gap=self.max_gap, order=self.order)


def merge_documents(documents: Iterable[Document], **kwargs: Any) -> list[Document]:
    """LangChain documents of one or more files, adjacent ones joined."""
    return [Document(page_content=m.text, metadata=merged_metadata(m)) for m in merge(documents, **kwargs)]


__all__ = ["ChunkseamGuard", "ChunkseamTextSplitter", "MergingRetriever", "merge_documents"]
