"""chunkseam inside LangChain, LlamaIndex and Haystack.

* :mod:`chunkseam.integrations.langchain` — ``ChunkseamTextSplitter`` (a
  LangChain ``TextSplitter``), ``ChunkseamGuard`` (a document transformer) and
  ``MergingRetriever`` (a retriever wrapper that joins adjacent chunks);
* :mod:`chunkseam.integrations.llamaindex` — ``ChunkseamNodeParser``,
  ``ChunkseamGuard`` (a ``TransformComponent``) and ``MergeAdjacentPostprocessor``;
* :mod:`chunkseam.integrations.haystack` — ``ChunkseamDocumentSplitter``,
  ``ChunkseamGuard`` and ``MergeAdjacentDocuments`` (Haystack 2 components).

Each module imports its framework when it is imported; chunkseam itself never
needs any of them. The shared, framework-free parts are :class:`Splitter`
(the sealed structure-aware splitter), :class:`Guard` and :func:`merge`.
"""

from __future__ import annotations

from chunkseam.integrations._core import (STRATEGIES, BrokenChunkRateExceeded, Guard, GuardReport, Record, Splitter,
                    chunk_metadata, is_loud_cut, merge, settings_from_config)

__all__ = ["STRATEGIES", "BrokenChunkRateExceeded", "Guard", "GuardReport", "Record", "Splitter",
           "chunk_metadata", "is_loud_cut", "merge", "settings_from_config"]
