"""Post-retrieval merge: join retrieved chunks that are neighbours in their document.

``merge_adjacent(retrieved)`` takes what a retriever returned — chunkseam
:class:`~chunkseam.core.chunk.Chunk` objects, LangChain ``Document`` objects or
dicts shaped like them (``page_content``, ``metadata.source``,
``metadata.start_index``), LlamaIndex nodes or ``NodeWithScore`` (``text``,
``start_char_idx``/``end_char_idx``, ``ref_doc_id``, ``score``) or plain dicts
(``doc_id``, ``index``, ``start``/``end``, ``text``, ``score``) — groups them
by document and joins runs of adjacent chunks in document order.

Adjacency and joining, per document:

* with offsets (``start``, ``start_index`` or ``start_char_idx``; the end is
  ``end``/``end_char_idx`` or start + len(text)): chunks that overlap or touch
  are joined *without repeating the overlap* (the second chunk contributes
  only its text past the first one's end); a chunk inside another adds
  nothing. Chunks separated by a gap are joined when their chunk indices are
  consecutive, or when the gap is at most ``max_gap`` characters; the gap is
  filled with the source text when ``sources`` has the document, else with a
  space for a one-character gap and ``separator`` otherwise;
* with chunk indices only: consecutive indices are joined with ``separator``;
* with neither: the chunk stays alone.

Identical chunks retrieved twice are merged into one. The merged score is
the maximum of the members' scores (None when none has one). Results come in
descending score order (``order="score"``, ties in retrieval order) or in
document order (``order="document"``).

The document of an item is, in this order: ``doc_id``, ``document_id``,
``ref_doc_id``, ``source``, ``document``, ``path``, ``file_path``, ``filename``,
``uri`` — on the item or in its ``metadata``; for a chunkseam ``Chunk``
without one of those in ``meta``, its source text (chunks of one document
share it). Items with no document at all are grouped together (assumed to
come from one document) only when ``assume_one_document=True``; otherwise
each stays alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

_DOC_KEYS = ("doc_id", "document_id", "ref_doc_id", "source", "document", "path", "file_path",
             "filename", "uri")
_START_KEYS = ("start", "start_index", "start_char_idx", "start_offset")
_END_KEYS = ("end", "end_index", "end_char_idx", "end_offset")
_INDEX_KEYS = ("index", "chunk_index", "chunk_idx", "seq_num", "position")
_TEXT_KEYS = ("text", "page_content", "content")
_SCORE_KEYS = ("score", "relevance_score", "similarity")
_MISSING = object()


@dataclass
class Merged:
    """A run of adjacent retrieved chunks of one document, joined."""

    doc_id: Any
    text: str
    score: float | None
    start: int | None = None
    end: int | None = None
    indices: tuple[int, ...] = ()
    members: list[Any] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.members)

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id if isinstance(self.doc_id, (str, int, float)) or self.doc_id is None
                else str(self.doc_id),
                "text": self.text, "score": self.score, "start": self.start, "end": self.end,
                "indices": list(self.indices), "count": len(self.members), "metadata": self.metadata}


@dataclass
class _Item:
    order: int
    obj: Any
    doc: Any
    text: str
    start: int | None
    end: int | None
    index: int | None
    score: float | None
    metadata: dict[str, Any]


def _lookup(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, _MISSING)
    try:
        return getattr(obj, key, _MISSING)
    except Exception:
        return _MISSING


def _first(obj: Any, meta: Mapping[str, Any], keys: Iterable[str]) -> Any:
    for k in keys:
        v = _lookup(obj, k)
        if v is not _MISSING and v is not None:
            return v
        if k in meta and meta[k] is not None:
            return meta[k]
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    return None


def _float(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    return None


def _read(order: int, raw: Any) -> _Item:
    obj = raw
    score = None
    inner = _lookup(raw, "node")
    if inner is not _MISSING and inner is not None:  # LlamaIndex NodeWithScore (object or dict)
        score = _float(_lookup(raw, "score"))
        obj = inner
    meta_v = _lookup(obj, "metadata")
    if meta_v is _MISSING or not isinstance(meta_v, Mapping):
        meta_v = _lookup(obj, "meta")
    meta: dict[str, Any] = dict(meta_v) if isinstance(meta_v, Mapping) else {}
    text = None
    for k in _TEXT_KEYS:
        v = _lookup(obj, k)
        if isinstance(v, str):
            text = v
            break
    if text is None:
        getter = _lookup(obj, "get_content")
        if callable(getter):
            try:
                text = getter()
            except Exception:
                text = None
    text = text if isinstance(text, str) else ""
    if score is None:
        score = _float(_first(raw, meta, _SCORE_KEYS))
    is_chunk = type(obj).__name__ == "Chunk" and isinstance(getattr(obj, "source", None), str)
    doc = None
    for k in _DOC_KEYS:
        if is_chunk and k == "source":
            continue  # a chunkseam Chunk's source is the document text, handled below
        v = _lookup(obj, k)
        if v is _MISSING or v is None:
            v = meta.get(k)
        if v is not None and v is not _MISSING:
            doc = v
            break
    if doc is None and is_chunk:
        doc = ("<source>", id(obj.source))
    start = _int(_first(obj, meta, _START_KEYS))
    end = _int(_first(obj, meta, _END_KEYS))
    if start is not None and (end is None or end < start):
        end = start + len(text)
    index = _int(_first(obj, meta, _INDEX_KEYS))
    try:
        hash(doc)
    except TypeError:
        doc = repr(doc)
    return _Item(order, raw, doc, text, start, end, index, score, meta)


def _max_score(items: list[_Item]) -> float | None:
    scores = [i.score for i in items if i.score is not None]
    return max(scores) if scores else None


def _join_offsets(items: list[_Item], *, separator: str, max_gap: int,
                  source: str | None) -> list[list[_Item]]:
    """Runs of adjacent items (sorted by start) as lists."""
    runs: list[list[_Item]] = []
    for it in sorted(items, key=lambda i: (i.start, i.end, i.order)):
        if runs:
            run = runs[-1]
            end = max(i.end for i in run)  # type: ignore[type-var]
            last = run[-1]
            consecutive = it.index is not None and last.index is not None and it.index == last.index + 1
            if it.start <= end or consecutive or it.start - end <= max_gap:  # type: ignore[operator]
                run.append(it)
                continue
        runs.append([it])
    return runs


def _offset_text(run: list[_Item], separator: str, source: str | None) -> tuple[str, int, int]:
    start = run[0].start
    end = run[0].end
    parts = [run[0].text]
    for it in run[1:]:
        if it.end <= end:  # inside what is already there
            continue
        if it.start <= end:  # overlap or touching: only the new part
            parts.append(it.text[end - it.start:])
        else:
            gap = it.start - end
            if source is not None and it.start <= len(source):
                parts.append(source[end:it.start])
            else:
                parts.append(" " if gap == 1 else separator)
            parts.append(it.text)
        end = it.end
    return "".join(parts), start, end  # type: ignore[return-value]


def merge_adjacent(retrieved: Iterable[Any], *, separator: str = "\n\n", max_gap: int = 0,
                   sources: Mapping[Any, str] | None = None, order: str = "score",
                   assume_one_document: bool = False) -> list[Merged]:
    """Join retrieved chunks that are neighbours in their document (see the module doc)."""
    if order not in ("score", "document"):
        raise ValueError(f'order must be "score" or "document", got {order!r}')
    items = [_read(i, r) for i, r in enumerate(retrieved or ())]
    groups: dict[Any, list[_Item]] = {}
    alone: list[list[_Item]] = []
    for it in items:
        if it.doc is None and not assume_one_document:
            alone.append([it])
            continue
        groups.setdefault(it.doc, []).append(it)
    runs: list[tuple[Any, list[_Item], str, int | None, int | None]] = []
    for doc, group in groups.items():
        source = sources.get(doc) if sources else None
        # identical chunks retrieved twice count once (the best score is kept)
        seen: dict[tuple, _Item] = {}
        unique: list[_Item] = []
        for it in group:
            key = (it.start, it.end, it.index, it.text) if (it.start is not None or it.index is not None) else None
            if key is not None and key in seen:
                first = seen[key]
                if it.score is not None and (first.score is None or it.score > first.score):
                    first.score = it.score
                continue
            if key is not None:
                seen[key] = it
            unique.append(it)
        with_offsets = [i for i in unique if i.start is not None]
        index_only = [i for i in unique if i.start is None and i.index is not None]
        neither = [i for i in unique if i.start is None and i.index is None]
        for run in _join_offsets(with_offsets, separator=separator, max_gap=max_gap, source=source):
            text, s, e = _offset_text(run, separator, source)
            runs.append((doc, run, text, s, e))
        cur: list[_Item] = []
        for it in sorted(index_only, key=lambda i: (i.index, i.order)):
            if cur and it.index == cur[-1].index + 1:  # type: ignore[operator]
                cur.append(it)
            else:
                if cur:
                    runs.append((doc, cur, separator.join(i.text for i in cur), None, None))
                cur = [it]
        if cur:
            runs.append((doc, cur, separator.join(i.text for i in cur), None, None))
        for it in neither:
            runs.append((doc, [it], it.text, None, None))
    for run in alone:
        it = run[0]
        runs.append((it.doc, run, it.text, it.start, it.end))
    merged: list[tuple[int, Merged]] = []
    for doc, run, text, s, e in runs:
        meta = dict(run[0].metadata)
        if s is not None and "start_index" in meta:
            meta["start_index"] = s
        doc_id = None if isinstance(doc, tuple) and doc and doc[0] == "<source>" else doc
        m = Merged(doc_id=doc_id, text=text, score=_max_score(run), start=s, end=e,
                   indices=tuple(i.index for i in run if i.index is not None),
                   members=[i.obj for i in run], metadata=meta)
        merged.append((min(i.order for i in run), m))
    if order == "score":
        merged.sort(key=lambda p: (p[1].score is None, -(p[1].score or 0.0), p[0]))
    else:
        first_seen: dict[Any, int] = {}
        for o, m in sorted(merged, key=lambda p: p[0]):
            key = m.doc_id if not isinstance(m.doc_id, (list, dict)) else repr(m.doc_id)
            first_seen.setdefault(key, o)
        merged.sort(key=lambda p: (first_seen.get(p[1].doc_id, p[0]),
                                   p[1].start if p[1].start is not None else -1,
                                   p[1].indices[0] if p[1].indices else -1, p[0]))
    return [m for _, m in merged]
