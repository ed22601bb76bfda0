"""Sentence-level overlap (``overlap-unit = "sentences"``).

With ``overlap = N`` and ``overlap-unit = "sentences"``, a chunk starts up to
``N`` whole sentences before the cut that ends the chunk before it, instead of
``N`` tokens or characters before it:

* the sentences are those of the prose paragraphs of the previous chunk
  (:meth:`chunkseam.structure.markdown.Structure.sentences`, pysbd); the chunk starts at
  a sentence start, never inside a sentence, a code block, a table or a list
  item (a paragraph inside a container is not a candidate);
* it starts after the previous chunk's start (only neighbours overlap, and
  every chunk brings text of its own), never across a heading (a section's
  first chunk starts at its heading) and never so early that the chunk would
  be over ``size`` (fewer sentences are taken, down to none);
* a chunk that is over ``size`` already (an atomic unit kept whole) gets no
  overlap.

The chunks are first made without overlap by the strategy, with a budget
that leaves room for the overlap — ``size`` less :func:`reserve`, ``overlap``
times the median size of the document's sentences, at most half of ``size``
— then extended at their start: the cuts of the strategy stay where they
were, the overlap is text that exists in the source right before each chunk,
and every chunk, overlap included, fits ``size`` (a chunk is oversize only
when one unit alone is over ``size``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from chunkseam.core.chunk import Chunk, chunk_of
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer

#: the strategies sentence overlap applies to (library adapters keep their own overlap)
BUILTIN = frozenset({"fixed", "recursive", "sentence", "markdown", "code"})


def sentence_starts(doc: Document, start: int, end: int) -> list[int]:
    """Starts of the sentences of top-level prose paragraphs in ``[start, end)``,
    in order, each strictly after ``start``."""
    from chunkseam.structure.markdown import structure

    st = structure(doc)
    out: list[int] = []
    first = st.leaf_at(start)
    blocks = st.blocks_between(start, end)
    if first is not None and first.start < start:  # the paragraph the chunk starts in
        blocks = [first, *blocks]
    for block in blocks:
        if block.kind != "paragraph" or block.depth:
            continue
        for a, _b in st.sentences(block):
            if start < a < end:
                out.append(a)
    return out


def reserve(doc: Document, sizer: Sizer, size: int, sentences: int) -> int:
    """Room to leave for ``sentences`` sentences of overlap in a chunk of ``size``."""
    if sentences <= 0:
        return 0
    from chunkseam.structure.markdown import structure

    st = structure(doc)
    counts: list[int] = []
    for block in st.blocks:
        if block.kind != "paragraph" or block.depth:
            continue
        counts.extend(sizer.count(doc.text[a:b]) for a, b in st.sentences(block))
        if len(counts) >= 400:  # enough for a median
            break
    if not counts:
        return 0
    counts.sort()
    return min(size // 2, sentences * counts[len(counts) // 2])


def _crosses_heading(doc: Document, start: int, end: int) -> bool:
    if doc.kind != "markdown":
        return False
    from chunkseam.structure.markdown import structure

    return any(b.kind == "heading" for b in structure(doc).blocks_between(start, end + 1))


def sentence_overlap(doc: Document, chunks: Sequence[Chunk], sentences: int | Sequence[int],
                     sizer: Sizer, size: int,
                     count: Callable[[str], int] | None = None,
                     limit: int | None = None) -> list[Chunk]:
    """``chunks`` (made without overlap, in order) with each chunk after the
    first starting up to ``sentences`` whole sentences earlier (see the module
    doc). ``sentences`` may be one number per chunk (the first is unused).
    ``limit``: the overlap (the text before the chunk's own start) counts at
    most this many units — whole sentences within a token or character
    overlap."""
    text = doc.text
    count = count or sizer.count
    per_chunk = ([sentences] * len(chunks) if isinstance(sentences, int) else list(sentences))
    out: list[Chunk] = []
    for k, c in enumerate(chunks):
        want = per_chunk[k] if k < len(per_chunk) else 0
        if k == 0 or want <= 0 or c.tokens > size:
            out.append(_renumbered(c, k, size))
            continue
        prev = chunks[k - 1]
        starts = [s for s in sentence_starts(doc, prev.start, min(prev.end, c.start)) if s < c.start]
        chosen = None
        tokens = c.tokens
        for s in starts[-want:]:  # earliest first: as many sentences as fit
            if _crosses_heading(doc, s, c.start):
                continue
            if limit is not None and count(text[s:c.start].rstrip()) > limit:
                continue
            n = count(text[s:c.end])
            if n <= size:
                chosen, tokens = s, n
                break
        if chosen is None:
            out.append(_renumbered(c, k, size))
            continue
        meta: dict[str, Any] = dict(c.meta)
        meta["overlap_sentences"] = len([s for s in starts if s >= chosen])
        out.append(chunk_of(chosen, c.end, k, text, tokens, c.strategy, c.heading_path, False, meta))
    return out


def _renumbered(c: Chunk, k: int, size: int) -> Chunk:
    """``c`` as chunk ``k``, oversize only when over ``size`` (the strategy ran on less)."""
    oversize = c.tokens > size
    if c.index == k and c.oversize == oversize:
        return c
    return chunk_of(c.start, c.end, k, c.source, c.tokens, c.strategy, c.heading_path, oversize,
                    c.meta)
