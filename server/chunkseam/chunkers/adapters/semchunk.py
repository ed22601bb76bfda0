"""``semchunk``: the installed semchunk (``chunkseam[semchunk]``).

``semchunk.chunkerify(counter, chunk_size)(text, offsets=True, overlap=...)``
with chunkseam's own counter (the sizer's ``count``; ``len`` for unit
``chars``), so no tokenizer or model name is ever resolved by semchunk.
semchunk returns each chunk's offsets (correct by construction: it slices
the source); they are still verified, and the tracked search is the fallback.

Options: ``splitter`` (only ``chunkerify``), ``memoize``, ``max_token_chars``.
Memoizing is chunkseam's, for one chunking call (``memoize = false`` turns it
off; ``cache_maxsize`` is accepted and has nothing left to bound): semchunk's
own memo is an unbounded ``lru_cache`` kept in a module-level dict for every
counter ever given to it, which in a long-running server grows with every
document, edit and setting.
``chunking_model``, ``isaacus_client``, ``tokenizer_kwargs`` and a tokenizer
name are refused: they name a model or a hub tokenizer (network, code).
"""

from __future__ import annotations

import threading
from typing import Any

from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece


class SemchunkAdapter(Adapter):
    name = "semchunk"
    description = "your installed semchunk (chunkerify), offsets verified"
    module = "semchunk"
    extra = "semchunk"
    classes = {"chunkerify": "chunkerify"}
    default = "chunkerify"
    reserved = {
        "chunk_size": "use the size setting",
        "overlap": "use the overlap setting",
        "tokenizer_or_token_counter": "chunkseam passes its own tokenizer (the encoding setting)",
    }
    forbidden = {
        "chunking_model": "it names a model chunkseam would have to download and run",
        "isaacus_client": "it calls a remote API",
        "tokenizer_kwargs": "it configures a tokenizer chunkseam does not load",
    }

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        options = dict(options)
        memoize = options.pop("memoize", True)
        options.pop("cache_maxsize", None)
        if not isinstance(memoize, bool):
            raise ValueError(f"{self.name}: option 'memoize' must be true or false")
        count = self.atomic(self.counter(sizer))
        local = threading.local()  # the memo of the chunking call running on this thread

        def counter(text: str) -> int:
            memo = getattr(local, "memo", None)
            if memo is None:
                return count(text)
            n = memo.get(text)
            if n is None:
                n = memo[text] = count(text)
            return n

        return (cls(counter, size, memoize=False, **options), overlap, local if memoize else None)

    @staticmethod
    def atomic(count: Any) -> Any:
        """``count``, except that one character counts 1: semchunk splits text down
        to single characters and recurses without end on a character larger than
        its chunk size (one emoji is several tokens; with an overlap semchunk's
        working size is ``min(overlap, size - overlap)``, as small as 1). Such a
        character then becomes a chunk of its own, which chunkseam counts with
        the sizer and marks ``oversize`` as every strategy does."""
        return lambda text: count(text) if len(text) > 1 else min(count(text), 1)

    @staticmethod
    def counter(sizer: Sizer) -> Any:
        """chunkseam's own count as a plain function (semchunk memoizes it itself):
        ``len`` for characters, the offline tiktoken encoding's
        ``encode_ordinary`` length (what the sizer counts, without its wrappers,
        which would cost more than the count on semchunk's many short calls)."""
        if sizer.unit == "chars":
            return len
        encoding = getattr(sizer, "encoding", None)
        if encoding is not None and type(sizer).__name__ == "TokenSizer":
            encode = encoding.encode_ordinary
            return lambda text: len(encode(text))
        return sizer.count

    def split(self, built: Any, text: str) -> list[Piece]:
        chunker, overlap, local = built
        if local is not None:
            local.memo = {}
        try:
            return self._split(chunker, overlap, text)
        finally:
            if local is not None:
                local.memo = None

    def _split(self, chunker: Any, overlap: int, text: str) -> list[Piece]:
        texts, offsets = chunker(text, offsets=True, overlap=overlap or None)
        # the chunker's own (memoized) counter is chunkseam's count: most chunk texts
        # were measured while merging, so their sizes cost nothing more
        count = getattr(chunker, "token_counter", None)
        # (a single character's count is the clamped one: the sizer counts it again)
        return [Piece(t, s, e, count(t) if count is not None and len(t) > 1 else None)
                for t, (s, e) in zip(texts, offsets)]


register(SemchunkAdapter())
