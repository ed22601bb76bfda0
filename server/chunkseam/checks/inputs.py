"""CS301–CS304: the chunk list itself, and the cuts it makes.

Bad input never crashes the validator. Each chunk is read defensively (a
:class:`~chunkseam.core.chunk.Chunk`, any object with ``start``/``end``, or a
dict with ``start``/``end`` or ``start_index``/``start_char_idx``); then

* CS302 invalid-span — offsets that are not integers, negative, past the end
  of the document, or reversed;
* CS301 offset-mismatch — the chunk carries a text that is not the source at
  its offsets (the classic pipeline bug: ``start_index`` found with
  ``str.find``, which picks the first of repeated passages);
* CS303 empty-chunk — nothing but whitespace;

such chunks are reported and left out of every other check. The rest are
sorted by ``(start, end)``; chunks out of order or overlapping arbitrarily
are fine. CS304 uncovered-text reports non-blank text that no chunk holds.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from chunkseam.core.chunk import Chunk
from chunkseam.core.issue import Issue
from chunkseam.checks.base import ChunkView, Context, Cut, snippet_after

_MISSING = object()


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        if isinstance(obj, dict):
            if name in obj:
                return obj[name]
            meta = obj.get("metadata")
            if isinstance(meta, dict) and name in meta:
                return meta[name]
        else:
            v = getattr(obj, name, _MISSING)
            if v is not _MISSING:
                return v
            meta = getattr(obj, "metadata", None)
            if isinstance(meta, dict) and name in meta:
                return meta[name]
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return v


def _text_of(obj: Any, start: int, end: int, doc_text: str) -> str | None:
    """The chunk's own text when it carries one that may differ from the source."""
    source = getattr(obj, "source", None)
    if isinstance(source, str) and not isinstance(obj, dict):
        if source is doc_text:
            return None
        try:
            return source[start:end]
        except Exception:
            return None
    t = _get(obj, "text", "page_content", "content")
    return t if isinstance(t, str) else None


def read_chunks(doc_text: str, chunks: Any, make_issue) -> tuple[list[ChunkView], list[Issue]]:
    """Valid chunk views (sorted) and the CS301/CS302/CS303 issues."""
    n = len(doc_text)
    views: list[ChunkView] = []
    issues: list[Issue] = []
    try:
        items = list(chunks or ())
    except TypeError:
        items = []
    for pos, ch in enumerate(items):
        if type(ch) is Chunk and ch.source is doc_text:
            # the engine's own chunk of this text (every chunk of a run): what
            # the general reading below finds, read directly
            start, end = ch.start, ch.end
            if (type(start) is int and type(end) is int and 0 <= start <= end <= n
                    and _NOT_SPACE.search(doc_text, start, end) is not None):
                tokens = _int(ch.tokens)
                path = ch.heading_path
                views.append(ChunkView(pos, start, end, tokens if tokens else None,
                                       tuple(path) if isinstance(path, (list, tuple)) else (),
                                       bool(ch.oversize), ch))
                continue
        start = _int(_get(ch, "start", "start_index", "start_char_idx"))
        end = _int(_get(ch, "end", "end_index", "end_char_idx"))
        own: str | None = None
        if start is not None and end is None:
            own = _get(ch, "text", "page_content", "content")
            if isinstance(own, str):
                end = start + len(own)
        if start is None or end is None or start < 0 or end > n or end < start:
            s = min(max(start if start is not None else 0, 0), n)
            e = min(max(end if end is not None else s, s), n)
            if start is None or end is None:
                why = "has no integer start/end offsets"
            elif start < 0:
                why = f"starts at a negative offset ({start})"
            elif end > n:
                why = f"ends at offset {end}, past the end of the document ({n} characters)"
            else:
                why = f"ends ({end}) before it starts ({start})"
            issues.append(make_issue("CS302", f"chunk {pos + 1} {why}", s, e, chunk=pos,
                                     hint="fix the chunker's offsets",
                                     offsets=[start, end], length=n))
            continue
        text = own if isinstance(own, str) else _text_of(ch, start, end, doc_text)
        if text is not None and text != doc_text[start:end]:
            issues.append(_mismatch(doc_text, pos, start, end, text, make_issue))
            continue
        if _NOT_SPACE.search(doc_text, start, end) is None:  # blank (without a copy of it)
            what = "is empty" if start == end else "holds only whitespace"
            issues.append(make_issue("CS303", f"chunk {pos + 1} {what}", start, end, chunk=pos,
                                     hint="drop empty chunks before embedding"))
            continue
        tokens = _int(_get(ch, "tokens"))
        path = _get(ch, "heading_path")
        views.append(ChunkView(pos, start, end, tokens if tokens else None,
                               tuple(path) if isinstance(path, (list, tuple)) else (),
                               bool(_get(ch, "oversize")), ch))
    views.sort(key=lambda v: (v.start, v.end, v.position))
    views = _wrong_copies(doc_text, views, issues, make_issue)
    return views, issues


def _wrong_copies(doc_text: str, views: list[ChunkView], issues: list[Issue], make_issue) -> list[ChunkView]:
    """The ``str.find`` bug: two chunks with the same offsets while their text
    also occurs, in no chunk, elsewhere — the later chunk was given the offset
    of the first copy. Reported as CS301 and dropped from the other checks."""
    # (sorted by offsets: two chunks with the same ones are neighbours; none, the commonest, is all)
    prev_start = prev_end = -1
    for v in views:
        if v.start == prev_start and v.end == prev_end:
            break
        prev_start, prev_end = v.start, v.end
    else:
        return views
    keep: list[ChunkView] = []
    seen: dict[tuple[int, int], ChunkView] = {}
    spans = [(v.start, v.end) for v in views]
    for v in views:
        first = seen.get((v.start, v.end))
        if first is None:
            seen[(v.start, v.end)] = v
            keep.append(v)
            continue
        piece = doc_text[v.start : v.end]
        other = None
        at = doc_text.find(piece)
        while at >= 0:
            if at != v.start and not _covered(spans, at, at + len(piece)):
                other = at
                break
            at = doc_text.find(piece, at + 1)
        if other is None:
            keep.append(v)  # a plain duplicate (retrieved twice …): harmless here
            continue
        msg = (f"chunk {v.position + 1} has the same offsets as chunk {first.position + 1} "
               f"({v.start}–{v.end}) although its text also occurs at {other}, which no chunk "
               f"covers: offsets found with str.find point at the first copy")
        issues.append(make_issue("CS301", msg, v.start, v.end, chunk=v.position,
                                 hint="track offsets while chunking instead of searching for the text",
                                 found=[other], occurrences=None, duplicate_of=first.position))
    return keep


def _covered(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies inside the union of ``spans`` (sorted)."""
    pos = start
    for a, b in spans:
        if a > pos:
            break
        if b > pos:
            pos = b
            if pos >= end:
                return True
    return pos >= end


def _mismatch(doc_text: str, pos: int, start: int, end: int, text: str, make_issue) -> Issue:
    found: list[int] = []
    if text:
        at = doc_text.find(text)
        while at >= 0 and len(found) < 6:
            found.append(at)
            at = doc_text.find(text, at + 1)
    src = snippet_after(doc_text, start, end, 30)
    own = snippet_after(text, 0, len(text), 30)
    msg = (f'chunk {pos + 1}\'s text is not the source at {start}–{end}: it reads "{own}" '
           f'but the source there reads "{src}"')
    if len(found) == 1:
        msg += f"; the text is at offset {found[0]}"
    elif len(found) > 1:
        more = "+" if len(found) > 5 else ""
        msg += (f"; the text occurs {min(len(found), 5)}{more} times (offsets found with str.find "
                f"pick the first)")
    else:
        msg += "; the text is nowhere in the source"
    return make_issue("CS301", msg, start, end, chunk=pos,
                      hint="track offsets while chunking instead of searching for the text",
                      found=found[:5], occurrences=len(found) if len(found) <= 5 else None)


_NOT_SPACE = re.compile(r"\S")


def content_bounds(text: str) -> tuple[int, int] | None:
    """``(first, last)``: the offset of the text's first non-blank character
    and the end of its last one (None: a blank text)."""
    # (no stripped copies of a large text: \S is str.strip's complement)
    m = _NOT_SPACE.search(text)
    if m is None:
        return None
    last = len(text)  # offsets >= last are trailing whitespace
    while text[last - 1].isspace():
        last -= 1
    return m.start(), last


def make_cuts(text: str, views: list[ChunkView], after: int = -1) -> list[Cut]:
    """Every place where a chunk starts or ends inside the document's content
    (``after``: only those at that offset or later, as the whole list has
    them, but for a cut there merged with one before it; see
    ``chunkseam.engine.validate._cuts``, which takes the rest from an earlier version)."""
    if not views:
        return []
    bounds = content_bounds(text)
    if bounds is None:
        return []
    first, last = bounds
    if after > 0:
        # a cut at c >= after: views that end at c, start at c or cover c all end at or after it
        views = [v for v in views if v.end >= after]
        if not views:
            return []
    ends: dict[int, list[int]] = {}
    starts: dict[int, list[int]] = {}
    for i, v in enumerate(views):
        got = ends.get(v.end)
        if got is None:
            ends[v.end] = [i]
        else:
            got.append(i)
        got = starts.get(v.start)
        if got is None:
            starts[v.start] = [i]
        else:
            got.append(i)
    view_starts = [v.start for v in views]
    prefix_max: list[int] = []
    m = -1
    for v in views:
        m = max(m, v.end)
        prefix_max.append(m)

    def covering(c: int) -> list[int]:
        """Views with start < c < end (index order)."""
        out = []
        i = bisect_left(view_starts, c) - 1
        while i >= 0 and prefix_max[i] > c:
            if views[i].start < c < views[i].end:
                out.append(i)
            i -= 1
        out.reverse()
        return out

    cuts: list[Cut] = []
    for c in sorted(ends.keys() | starts.keys()):
        if c <= first or c >= last or c < after:
            continue
        e_list = ends.get(c)
        s_list = starts.get(c)
        if e_list and s_list:
            cover = ()
            side = "both"
        else:
            cover = covering(c)
            side = "end" if e_list else "start"
        if e_list:
            left = (views[e_list[0]].position if len(e_list) == 1
                    else min(views[i].position for i in e_list))
        else:
            left = views[cover[-1]].position if cover else None
        if s_list:
            right = (views[s_list[0]].position if len(s_list) == 1
                     else min(views[i].position for i in s_list))
        else:
            right = views[cover[0]].position if cover else None
        cuts.append(Cut(c, left, right, side))
    # a chunk that ends where only whitespace separates it from the next one
    # (chunkers often drop the space or blank line between): one cut
    merged: list[Cut] = []
    i = 0
    while i < len(cuts):
        a = cuts[i]
        if (i + 1 < len(cuts) and a.side == "end" and a.right is None and cuts[i + 1].side == "start"
                and cuts[i + 1].left is None and not text[a.offset : cuts[i + 1].offset].strip()):
            b = cuts[i + 1]
            merged.append(Cut(a.offset, a.left, b.right, "both", b.offset))
            i += 2
            continue
        merged.append(a)
        i += 1
    return merged


def uncovered(ctx: Context, claimed: list[tuple[int, int]] = ()) -> list[Issue]:  # type: ignore[assignment]
    """CS304: non-blank text outside every chunk. ``claimed`` spans (of chunks
    already reported as CS301/CS302) count as covered: one bad chunk is one
    issue, not two."""
    text = ctx.text
    out: list[Issue] = []
    pos = 0
    prev: ChunkView | None = None
    claimed = sorted(claimed)
    for v in ctx.chunks + [None]:  # type: ignore[operator]
        gap_end = v.start if v is not None else len(text)
        if gap_end > pos:
            piece = text[pos:gap_end]
            if claimed and piece.strip():
                chars = list(piece)
                for a, b in claimed:
                    for k in range(max(a, pos), min(b, gap_end)):
                        chars[k - pos] = " "
                piece = "".join(chars)
            if piece.strip():
                s = pos + len(piece) - len(piece.lstrip())
                e = pos + len(piece.rstrip())
                if prev is not None and v is not None:
                    where = f"between chunk {prev.position + 1} and chunk {v.position + 1}"
                elif v is not None:
                    where = f"before chunk {v.position + 1}"
                elif prev is not None:
                    where = f"after chunk {prev.position + 1}"
                else:
                    where = "in the document"
                msg = f'{e - s} characters {where} are in no chunk: "{snippet_after(text, s, e, 40, e)}"'
                out.append(ctx.issue("CS304", msg, s, e,
                                     chunk=prev.position if prev else None,
                                     other_chunk=v.position if v else None,
                                     hint="make the chunks cover the whole document"))
        if v is not None and v.end > pos:
            pos = v.end
            prev = v
    return out
