"""``text-splitter``: the installed semantic-text-splitter (``chunkseam[text-splitter]``).

``TextSplitter`` or ``MarkdownSplitter`` (option ``splitter``), built with
chunkseam's own sizer: ``cls(size, overlap, trim)`` for unit ``chars``;
``cls.from_huggingface_tokenizer(tokenizer, ...)`` for an ``hf:`` encoding;
``cls.from_callback(sizer.count, ...)`` for a tiktoken encoding (the same
counts as ``from_tiktoken_model``, from the encoding chunkseam resolved
offline). ``chunk_indices`` gives each chunk's character offset; it is
verified, the tracked search being the fallback.

The library's run is native code that Python cannot interrupt, so its size is
always measured through a Python callback that tests the analysis' time
budget (:func:`checked`): for unit ``chars`` ``cls.from_callback(len, ...)``
(the same count as the native ``cls(size, ...)``: code points; the same chunks,
about 1.5 times the time), for a tiktoken encoding ``sizer.count``. Over the
budget, the callback raises :class:`~chunkseam.core.budget.BudgetExceeded`, which
the library passes on, and the run ends there. A Hugging Face tokenizer is
still run natively (``from_huggingface_tokenizer``: its own counting, which a
callback would not reproduce exactly), so that run is bounded only by the
document size limit.

Options: ``trim`` (default true: the library strips whitespace around each
chunk). ``CodeSplitter`` is refused: it needs a tree-sitter grammar object,
which a configuration file cannot name safely.
"""

from __future__ import annotations

from typing import Any

from chunkseam.core import budget
from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece


def checked(count: Any) -> Any:
    """``count``, testing the time budget before each call (a test is a clock
    read, little beside a count; the library's first measures are of the
    whole text, so a stride would let a large one run on for seconds)."""

    def counted(text: str) -> int:
        budget.check("the text-splitter chunker")
        return count(text)

    return counted


class TextSplitterAdapter(Adapter):
    name = "text-splitter"
    description = ("your installed semantic-text-splitter (TextSplitter, MarkdownSplitter), "
                   "offsets verified")
    module = "semantic_text_splitter"
    extra = "text-splitter"
    classes = {"TextSplitter": "TextSplitter", "MarkdownSplitter": "MarkdownSplitter"}
    default = "MarkdownSplitter"
    excluded = {"CodeSplitter": "it needs a tree-sitter grammar object, which a configuration "
                "cannot pass; use the `code` chunker for source files"}
    reserved = {"capacity": "use the size setting", "overlap": "use the overlap setting"}
    forbidden = {"callback": "chunkseam passes its own counter",
                 "tokenizer": "chunkseam passes its own tokenizer (the encoding setting)",
                 "model": "chunkseam passes its own tokenizer (the encoding setting)"}

    def accepted(self, cls: Any) -> set[str]:
        return {"trim"}

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        trim = options.get("trim", True)
        if not isinstance(trim, bool):
            raise ValueError(f"{self.name}: option 'trim' must be true or false")
        if sizer.unit == "chars":
            return cls.from_callback(checked(len), size, overlap, trim)
        tokenizer = getattr(sizer, "tokenizer", None)
        if tokenizer is not None:  # Hugging Face tokenizers
            return cls.from_huggingface_tokenizer(tokenizer, size, overlap, trim)
        return cls.from_callback(checked(sizer.count), size, overlap, trim)

    def split(self, built: Any, text: str) -> list[Piece]:
        return [Piece(t, start, start + len(t)) for start, t in built.chunk_indices(text)]


register(TextSplitterAdapter())
