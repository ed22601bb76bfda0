"""chunkseam in LlamaIndex: a node parser, a guard and a merging node postprocessor.

::

    from llama_index.core.ingestion import IngestionPipeline
    from chunkseam.integrations.llamaindex import (ChunkseamNodeParser, ChunkseamGuard,
                                                   MergeAdjacentPostprocessor)

    parser = ChunkseamNodeParser.from_config()
    pipeline = IngestionPipeline(transformations=[
        parser, ChunkseamGuard.for_parser(parser, events="chunkseam.jsonl")])
    nodes = pipeline.run(documents=documents)
    query_engine = index.as_query_engine(node_postprocessors=[MergeAdjacentPostprocessor()])

Needs ``llama-index-core`` (``pip install "chunkseam[llamaindex]"``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import (BaseNode, Document, MetadataMode, NodeRelationship,
                                     NodeWithScore, QueryBundle, TextNode, TransformComponent)
from llama_index.core.utils import get_tqdm_iterable

from chunkseam.core.settings import Settings
from chunkseam.integrations._core import (META_KEYS, Guard, Record, Splitter, chunk_metadata, issue_strings, merge,
                    merged_metadata, settings_from_config, source_of)

#: metadata keys of the guard
GUARD_KEYS = ("chunkseam_issues", "chunkseam_broken")


class ChunkseamNodeParser(NodeParser):
    """A LlamaIndex ``NodeParser`` over chunkseam's sealed structure-aware
    chunking (markdown / code / sentence by the file kind of the document's
    ``file_path``).

    Sizes are counted in the configured unit (tokens of ``encoding`` by
    default). As LlamaIndex's metadata-aware splitters do, the budget of a
    document's chunks is ``chunk_size`` minus the size of the document's
    metadata string (the longer of its embed and LLM forms); metadata larger
    than ``chunk_size`` is an error. Each node has the exact
    ``start_char_idx``/``end_char_idx`` of its text in the document (tracked,
    not searched), prev/next relationships, and ``heading_path``, ``heading``,
    ``chunk_index``, ``tokens``, ``chunker``, ``oversize`` metadata, excluded
    from what is embedded and shown to the LLM (so they do not change the
    sizes)."""

    chunk_size: int = Field(default=400, gt=0, description="size budget, in `unit`s")
    chunk_overlap: int = Field(default=0, ge=0,
                               description="overlap, in `unit`s or (overlap_unit='sentences') sentences")
    overlap_unit: str = Field(default="unit", description="'unit' or 'sentences'")
    unit: str = Field(default="tokens", description="'tokens' or 'chars'")
    encoding: str = Field(default="cl100k_base", description="tiktoken encoding")
    strategy: Optional[str] = Field(default=None, description="markdown, code or sentence; default routed")
    kind: str = Field(default="markdown", description="kind of a document without a file path")

    _splitter: Splitter = PrivateAttr()
    _offsets: Dict[str, tuple] = PrivateAttr(default_factory=dict)

    def __init__(self, settings: Settings | None = None, **data: Any) -> None:
        if settings is not None:
            data.setdefault("chunk_size", settings.size)
            data.setdefault("chunk_overlap", settings.overlap)
            data.setdefault("overlap_unit", settings.overlap_unit)
            data.setdefault("unit", settings.unit)
            data.setdefault("encoding", settings.encoding)
        super().__init__(**data)
        base = settings or Settings()
        s = base.with_(size=self.chunk_size, overlap=self.chunk_overlap, overlap_unit=self.overlap_unit,
                       unit=self.unit, encoding=self.encoding)
        self._splitter = Splitter(s, strategy=self.strategy, kind=self.kind)

    @classmethod
    def from_config(cls, path: Any = None, *, config_file: Any = None,
                    overrides: Mapping[str, Any] | None = None, **kwargs: Any) -> "ChunkseamNodeParser":
        """The parser of the project's chunkseam configuration (nearest to ``path``)."""
        return cls(settings_from_config(path, config_file=config_file, overrides=overrides), **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "ChunkseamNodeParser"

    @property
    def chunkseam(self) -> Splitter:
        return self._splitter

    def _metadata_size(self, node: BaseNode) -> int:
        if not self.include_metadata:
            return 0
        embed = node.get_metadata_str(mode=MetadataMode.EMBED)
        llm = node.get_metadata_str(mode=MetadataMode.LLM)
        return self._splitter.count(embed if len(embed) > len(llm) else llm)

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False,
                     **kwargs: Any) -> List[BaseNode]:
        out: List[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Parsing nodes"):
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            meta_size = self._metadata_size(node)
            size = self.chunk_size - meta_size
            if size <= 0:
                raise ValueError(f"the metadata of a document is {meta_size} {self.unit} long, longer "
                                 f"than chunk_size {self.chunk_size}: raise chunk_size or exclude "
                                 "metadata keys from embedding and LLM text")
            chunks = self._splitter.split(text, path=source_of(node.metadata), size=size)
            base_start = getattr(node, "start_char_idx", None) if not isinstance(node, Document) else None
            shift = base_start or 0
            for c in chunks:
                meta = chunk_metadata(c, len(chunks), offset=shift)
                child = TextNode(
                    id_=self.id_func(c.index, node), text=c.text,
                    metadata={**(dict(node.metadata) if self.include_metadata else {}), **meta},
                    excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, *META_KEYS],
                    excluded_llm_metadata_keys=[*node.excluded_llm_metadata_keys, *META_KEYS],
                    metadata_seperator=node.metadata_separator,
                    metadata_template=node.metadata_template, text_template=getattr(
                        node, "text_template", TextNode.model_fields["text_template"].default),
                    start_char_idx=c.start + shift, end_char_idx=c.end + shift,
                    relationships={NodeRelationship.SOURCE: node.as_related_node_info()})
                self._offsets[child.node_id] = (c.start + shift, c.end + shift)
                out.append(child)
        return out

    def _postprocess_parsed_nodes(self, nodes: List[BaseNode],
                                  parent_doc_map: Dict[str, Document]) -> List[BaseNode]:
        # LlamaIndex re-finds each node's start with str.find, which lands on an
        # earlier copy of repeated text: the tracked offsets are put back
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node in nodes:
            span = self._offsets.pop(node.node_id, None)
            if span is not None and isinstance(node, TextNode):
                node.start_char_idx, node.end_char_idx = span
        return nodes


def _record(node: BaseNode) -> Record:
    meta = node.metadata or {}
    return Record(node.get_content(metadata_mode=MetadataMode.NONE),
                  source_of(meta) or getattr(node, "ref_doc_id", None),
                  getattr(node, "start_char_idx", None), getattr(node, "end_char_idx", None),
                  meta.get("chunker"), None)


class ChunkseamGuard(TransformComponent):
    """A LlamaIndex ``TransformComponent`` for an ``IngestionPipeline``: nodes
    pass through unchanged but for the metadata ``chunkseam_issues`` (one
    string per issue) and ``chunkseam_broken`` (excluded from embedding and
    LLM text). It writes chunkseam's JSON-line events, exports the
    broken-chunk rate with OpenTelemetry when installed, and raises
    :class:`~chunkseam.integrations._core.BrokenChunkRateExceeded` over
    ``max_rate``. The arguments are :class:`~chunkseam.integrations._core.Guard`'s."""

    _guard: Guard = PrivateAttr()

    def __init__(self, guard: Guard | None = None, **kwargs: Any) -> None:
        super().__init__()
        self._guard = guard or Guard(**kwargs)

    @classmethod
    def from_config(cls, path: Any = None, **kwargs: Any) -> "ChunkseamGuard":
        return cls(Guard.from_config(path, **kwargs))

    @classmethod
    def for_parser(cls, parser: ChunkseamNodeParser, **kwargs: Any) -> "ChunkseamGuard":
        """A guard judging with ``parser``'s settings, its events tagged with its parameters."""
        return cls(Guard(splitter=parser.chunkseam, **kwargs))

    @classmethod
    def class_name(cls) -> str:
        return "ChunkseamGuard"

    @property
    def guard(self) -> Guard:
        return self._guard

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        nodes = list(nodes)
        if not nodes:
            return nodes
        report = self._guard.inspect([_record(n) for n in nodes])
        for node, issues in zip(nodes, report.issues):
            node.metadata["chunkseam_issues"] = issue_strings(issues)
            node.metadata["chunkseam_broken"] = any(i.severity in ("error", "warning") for i in issues)
            for keys in (node.excluded_embed_metadata_keys, node.excluded_llm_metadata_keys):
                keys.extend(k for k in GUARD_KEYS if k not in keys)
        return nodes


class MergeAdjacentPostprocessor(BaseNodePostprocessor):
    """A node postprocessor that joins retrieved nodes that are neighbours in
    their document (:func:`chunkseam.merge_adjacent`, by ``ref_doc_id`` and
    ``start_char_idx``/``end_char_idx``): overlaps are not repeated, the score
    is the best member's."""

    max_gap: int = Field(default=0, ge=0, description="join chunks at most this many characters apart")
    order: str = Field(default="score", description="'score' or 'document'")

    @classmethod
    def class_name(cls) -> str:
        return "MergeAdjacentPostprocessor"

    def _postprocess_nodes(self, nodes: List[NodeWithScore],
                           query_bundle: Optional[QueryBundle] = None) -> List[NodeWithScore]:
        out: List[NodeWithScore] = []
        for m in merge(nodes, max_gap=self.max_gap, order=self.order):
            first = m.members[0]
            first_node = first.node if isinstance(first, NodeWithScore) else first
            if len(m.members) == 1:
                out.append(first if isinstance(first, NodeWithScore) else NodeWithScore(node=first))
                continue
            rel = {}
            src = first_node.relationships.get(NodeRelationship.SOURCE)
            if src is not None:
                rel[NodeRelationship.SOURCE] = src
            node = TextNode(text=m.text, metadata=merged_metadata(m), start_char_idx=m.start,
                            end_char_idx=m.end, relationships=rel,
                            excluded_embed_metadata_keys=list(first_node.excluded_embed_metadata_keys),
                            excluded_llm_metadata_keys=list(first_node.excluded_llm_metadata_keys))
            out.append(NodeWithScore(node=node, score=m.score))
        return out


__all__ = ["ChunkseamGuard", "ChunkseamNodeParser", "MergeAdjacentPostprocessor"]
