"""Placing a library's chunk texts in the source: the tracked search every
adapter whose library returns plain strings uses (LangChain's splitters first)."""

from __future__ import annotations

import re

from chunkseam.tokens.tiktoken import Sizer

#: how many preceding chunks `locate` re-places one by one before all at once
_BACKTRACK = 32
_NON_SPACE = re.compile(r"\S")


def _preview(s: str, n: int = 60) -> str:
    return repr(s if len(s) <= n else s[: n - 1] + "…")


def _token_floor(sizer: Sizer, text: str, start: int, end: int, budget: int) -> int:
    """The start of the last ``budget`` tokens of ``text[start:end]`` (a char
    offset, rounded down; ``start`` when it has no more tokens or cannot tell)."""
    encoding = getattr(sizer, "encoding", None)
    if encoding is None:
        return start
    chunk = text[start:end]
    ids = encoding.encode_ordinary(chunk)
    if len(ids) <= budget:
        return start
    try:
        raw = chunk.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: tiktoken replaced them
        return start
    tail = sum(len(encoding.decode_single_token_bytes(t)) for t in ids[-budget:])
    cut = len(raw) - tail
    if cut <= 0:
        return start
    return start + len(raw[:cut].decode("utf-8", "ignore"))


def locate(text: str, pieces: list[str], sizer: Sizer, *, overlap: int = 0,
           splitter: str = "RecursiveCharacterTextSplitter", label: str = "langchain") -> list[tuple[int, int]]:
    """The spans of ``pieces`` (chunk texts, in order) in ``text`` by tracked search.

    Chunk ``i`` is never looked for before chunk ``i - 1``'s start. LangChain's
    overlap is the tail of the previous chunk that measures at most
    ``overlap`` (characters, or tokens — with a little slack, as a region is
    tokenized in context), so the search first starts where that tail starts:
    a copy of the chunk's text earlier inside the previous chunk (repeated
    text) is not taken for it. Within that window, and no later than the
    first non-space character after the previous chunk (the splitters leave
    no text out), an occurrence that ends after the previous chunk is
    preferred (every LangChain chunk but a whitespace-stripped corner case
    adds new text), and a chunk equal to the previous one is looked for after
    the previous start; when nothing is found so, the search widens to the
    previous start and then to the rest of the document.

    Those preferences can, on highly repetitive text, put a chunk too late for
    a following one (LangChain can even emit one span twice). Then the
    preceding chunks are placed again, nearest first, at their earliest
    positions from the chunk before them, until the failing chunk fits. Only
    when no placement at all keeps the starts in order is it an error.
    """
    pieces = [p for p in pieces if p]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(pieces):
        prev = spans[-1] if spans else None
        found = _place(text, pieces[i], prev, pieces[i - 1] if i else None, sizer, overlap)
        if found < 0:
            found = _replace_back(text, pieces, spans, i)
        if found < 0:
            prev_start = prev[0] if prev else 0
            where = "in the document" if text.find(pieces[i]) < 0 else (
                f"at or after the previous chunk's start (offset {prev_start})")
            if "\ufffd" in pieces[i] and "\ufffd" not in text:
                why = ("the library decoded a window of tokens that cuts a character in two: "
                       "U+FFFD stands for its bytes")
            elif label == "langchain" and getattr(splitter, "startswith", None) and \
                    "Token" not in splitter:
                why = ("the splitter re-joined pieces with text that is not in the document, "
                       "e.g. keep_separator = false over a run of separators")
            else:
                why = "the library rewrote its text"
            raise ValueError(
                f"{label}: chunk {i} of {splitter} is not a span of the source: "
                f"its text {_preview(pieces[i])} does not occur {where} ({why}); "
                "chunkseam cannot give it true offsets"
            )
        spans.append((found, found + len(pieces[i])))
        i += 1
    return spans


def _place(text: str, piece: str, prev: tuple[int, int] | None, prev_text: str | None,
           sizer: Sizer, overlap: int) -> int:
    """Where ``piece`` starts after the chunk at ``prev`` (-1: nowhere)."""
    if prev is None:
        return text.find(piece)
    prev_start, prev_end = prev
    if overlap == 0:
        floor = prev_end
    elif sizer.unit == "chars":
        floor = max(prev_start, prev_end - overlap)
    else:
        budget = overlap + max(4, overlap // 4)
        floor = _token_floor(sizer, text, prev_start, prev_end, budget)
    if piece == prev_text:
        floor = max(floor, prev_start + 1)
    # LangChain's splitters leave no text out, so a chunk starts no later than the
    # first non-space character after the previous chunk: search up to there first
    gap = _NON_SPACE.search(text, prev_end)
    limit = (gap.start() if gap else len(text)) + len(piece)
    windows = ((max(floor, prev_end - len(piece) + 1), limit), (floor, limit),
               (prev_start, limit), (floor, len(text)), (prev_start, len(text)))
    for lo, hi in dict.fromkeys(windows):
        found = text.find(piece, lo, hi)
        if found >= 0:
            return found
    return -1


def _replace_back(text: str, pieces: list[str], spans: list[tuple[int, int]], i: int) -> int:
    """Place chunks ``j..i-1`` again at their earliest in-order positions, for
    ``j = i-1, i-2, …``, until chunk ``i`` can be found; updates ``spans`` and
    returns chunk ``i``'s start (-1 when no placement allows it)."""
    if text.find(pieces[i]) < 0:
        return -1
    # the nearest chunks one by one (bounded), then all of them at once
    for j in dict.fromkeys([*range(i - 1, max(i - 1 - _BACKTRACK, -1), -1), 0]):
        cursor = spans[j - 1][0] if j else 0
        placed: list[tuple[int, int]] = []
        for k in range(j, i + 1):
            found = text.find(pieces[k], cursor)
            if found < 0:
                break
            placed.append((found, found + len(pieces[k])))
            cursor = found
        else:
            spans[j:] = placed[:-1]
            return placed[-1][0]
    return -1
