"""``chunkipy``: the installed chunkipy (``chunkseam[chunkipy]``).

``FixedSizeTextChunker`` (the default) or ``RecursiveTextChunker`` (option
``splitter``), built with chunkseam's own size estimator: a
``BaseSizeEstimator`` whose ``estimate_size`` is the sizer's count (``len`` for
unit ``chars``) and whose ``segment`` yields the source's own pieces — one
character each for ``chars``, one token each for a tiktoken or Hugging Face
encoding (the characters a token's bytes decode to, cut at its offsets) — so
no tokenizer is resolved by the library and ``FixedSizeTextChunker``'s units
concatenate back to the source. The overlap is chunkipy's ``overlap_ratio``
(``overlap / size``); the overlap in units is then set to the setting exactly,
which the ratio, a float, can miss by one.

chunkipy returns chunk texts without offsets, so they are placed by the tracked
search. Its recursive splitters drop the empty and single-space pieces a
separator leaves (``"a  b"`` split at spaces, an indented line), so on such
text a chunk is not a span of the source: the run stops with a message unless
``approximate = true``. ``text_splitters`` is refused (splitter objects, which
a configuration cannot name safely); a blank document is refused by the library
and has no chunks.
"""

from __future__ import annotations

from typing import Any, Iterator

from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece
from chunkseam.tokens.tiktoken import Sizer


def segments(sizer: Sizer, text: str) -> list[str]:
    """``text`` cut into the sizer's units, every character kept: their
    concatenation is ``text``. A token inside a character (one of an emoji's
    several byte tokens) is an empty piece, so each unit counts once."""
    if sizer.unit == "chars":
        return list(text)
    encoding = getattr(sizer, "encoding", None)
    if encoding is not None:  # tiktoken: each token's first character (offsets into the text)
        tokens = encoding.encode_ordinary(text)
        decoded, starts = encoding.decode_with_offsets(tokens)
        if decoded != text:  # (lone surrogates: replaced before the library sees the text)
            raise ValueError("chunkipy: the text does not decode back from its tokens")
    else:
        tokenizer = getattr(sizer, "tokenizer", None)
        if tokenizer is None:
            raise ValueError("chunkipy: FixedSizeTextChunker needs unit chars, a tiktoken "
                             "encoding or a Hugging Face tokenizer")
        starts = [s for s, _ in tokenizer.encode(text, add_special_tokens=False).offsets]
    bounds = [min(max(s, 0), len(text)) for s in starts] + [len(text)]
    if bounds:
        bounds[0] = 0
    for k in range(1, len(bounds)):  # offsets never go back
        bounds[k] = max(bounds[k], bounds[k - 1])
    return [text[bounds[k]:bounds[k + 1]] for k in range(len(bounds) - 1)]


class ChunkipyAdapter(Adapter):
    name = "chunkipy"
    description = "your installed chunkipy (RecursiveTextChunker, FixedSizeTextChunker), placed by search"
    module = "chunkipy"
    extra = "chunkipy"
    classes = {"RecursiveTextChunker": "RecursiveTextChunker",
               "FixedSizeTextChunker": "FixedSizeTextChunker"}
    default = "FixedSizeTextChunker"
    reserved = {"chunk_size": "use the size setting",
                "overlap_ratio": "use the overlap setting (chunkseam passes overlap / size)",
                "size_estimator": "chunkseam passes its own (the unit and encoding settings)"}
    forbidden = {"text_splitters": "it takes splitter objects, which a configuration cannot pass"}
    rewrites_text = True

    def accepted(self, cls: Any) -> set[str]:
        return set()

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        from chunkipy.size_estimators import BaseSizeEstimator

        count = len if sizer.unit == "chars" else sizer.count

        class Estimator(BaseSizeEstimator):
            def estimate_size(self, text: str) -> int:
                return count(text)

            def segment(self, text: str) -> Iterator[str]:
                return iter(segments(sizer, text))

        if size <= 0:
            raise ValueError(f"{self.name}: the size must be positive")
        built = cls(chunk_size=size, size_estimator=Estimator(), overlap_ratio=min(overlap / size, 1.0))
        built.overlap_size = min(overlap, size)  # the setting itself, not int(size * ratio)
        built.overlap_enabled = built.overlap_size > 0
        return built

    def split(self, built: Any, text: str) -> list[Piece]:
        if not text.strip():
            return []  # chunkipy refuses a blank text (ValueError): no chunks
        return [Piece(chunk.text) for chunk in built.chunk(text)]


register(ChunkipyAdapter())
