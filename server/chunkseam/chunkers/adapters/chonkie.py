"""``chonkie``: the installed chonkie (``chunkseam[chonkie]``).

``RecursiveChunker`` (default), ``SentenceChunker`` or ``TokenChunker``
(option ``splitter``), given chunkseam's own tokenizer object — the tiktoken
``Encoding`` or Hugging Face ``Tokenizer`` the encoding setting resolved
offline, or chonkie's ``CharacterTokenizer`` for unit ``chars`` — never a
tokenizer name, which chonkie would look up on the Hugging Face hub.

chonkie's ``start_index``/``end_index`` are used when they check out (they
do on ASCII text). ``RecursiveChunker`` cuts text without a separator at
token windows, which can split a character into two chunks (U+FFFD at the
cut, and chonkie's offsets drift after it): its chunks, contiguous, are then
laid on the source's bytes, the character going whole to the chunk that holds
its first byte (``offsets = "realigned"``). ``TokenChunker`` decodes token
windows, so on multibyte text a chunk can hold U+FFFD and be no source span:
each chunk is then the span of the bytes its window's tokens cover (the
window laid out at chonkie's stride, checked against chonkie's text;
``offsets = "token-windows"``), chonkie's own text kept in
``meta["library_text"]``.

Refused: ``tokenizer`` (chunkseam passes its own), ``rules`` (recipes are
loaded from the hub), and the chunkers that need a model, an embedding, an
LLM, a remote API or downloaded grammars (Semantic, Late, Neural, Slumber,
TeraflopAI, Code).
"""

from __future__ import annotations

import threading
from typing import Any

from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece

_MODEL = "it needs an embedding or language model (downloaded and run), which chunkseam does not do"


class ChonkieAdapter(Adapter):
    name = "chonkie"
    description = ("your installed chonkie (RecursiveChunker, SentenceChunker, TokenChunker), "
                   "offsets verified")
    module = "chonkie"
    extra = "chonkie"
    classes = {"RecursiveChunker": "RecursiveChunker", "SentenceChunker": "SentenceChunker",
               "TokenChunker": "TokenChunker"}
    default = "RecursiveChunker"
    excluded = {
        "SemanticChunker": _MODEL, "LateChunker": _MODEL, "NeuralChunker": _MODEL,
        "SlumberChunker": "it asks an LLM where to cut (network)",
        "TeraflopAIChunker": "it calls a remote API",
        "CodeChunker": "it downloads tree-sitter grammars at run time; use the `code` chunker",
    }
    reserved = {"chunk_size": "use the size setting", "chunk_overlap": "use the overlap setting"}
    forbidden = {
        "tokenizer": "chunkseam passes its own tokenizer (the encoding setting); a tokenizer "
                     "name would be looked up on the Hugging Face hub",
        "tokenizer_or_token_counter": "chunkseam passes its own tokenizer",
        "rules": "recursive rules and recipes are loaded from the hub; use the default rules",
        "recipe": "recipes are loaded from the hub",
    }
    rewrites_text = True

    def check_options(self, cls: Any, splitter: str, options: dict[str, Any]) -> None:
        super().check_options(cls, splitter, options)
        if options.get("include_delim", "prev") not in ("prev", "next", None):
            raise ValueError(f"{self.name}: option 'include_delim' must be \"prev\" or \"next\"")

    def tokenizer(self, sizer: Sizer) -> Any:
        if sizer.unit == "chars":
            from chonkie.tokenizer import CharacterTokenizer

            return CharacterTokenizer()
        for attr in ("encoding", "tokenizer"):
            obj = getattr(sizer, attr, None)
            if obj is not None:
                return obj
        return sizer.count  # an approximate sizer: counting only

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        self.library()
        kwargs = dict(options)
        if splitter == "RecursiveChunker":
            if overlap:
                raise ValueError(f"{self.name}: RecursiveChunker has no overlap: set overlap = 0")
        else:
            kwargs["chunk_overlap"] = overlap
        return cls(tokenizer=self.tokenizer(sizer), chunk_size=size, **kwargs)

    def __init__(self) -> None:
        super().__init__()
        #: per thread: TokenChunker's own encoding of the document last split
        self._recorded = threading.local()

    def split(self, built: Any, text: str) -> list[Piece]:
        # chonkie's token_count is not the count of the chunk text: RecursiveChunker
        # sums its pieces' counts (tokens across a join differ), so the sizer counts
        running, recording = built, None
        if type(built).__name__ == "TokenChunker":
            # its encoding of the text kept, to lay out its windows without encoding again
            from chunkseam.chunkers.windows import recording_copy

            running, recording = recording_copy(built, "_tokenizer")
        self._recorded.value = (built, recording)
        return [Piece(c.text, c.start_index, c.end_index) for c in running.chunk(text)]


    def resolve_spans(self, text: str, pieces: list[Piece], **kw: Any) -> tuple[list[tuple[int, int]], str]:
        if kw["splitter"] == "TokenChunker" and text.strip():
            built, recording = getattr(self._recorded, "value", (None, None))
            self._recorded.value = (None, None)
            ids = recording.ids_of(text) if recording is not None and built is kw["built"] \
                else None
            spans = self._windows(text, pieces, kw["built"], kw["sizer"], ids)
            if spans is not None:
                return spans, "token-windows"
        try:
            return super().resolve_spans(text, pieces, **kw)
        except ValueError:
            if kw["splitter"] != "RecursiveChunker":
                raise
            spans = split_characters(text, [p.text for p in pieces if p.text])
            if spans is None:
                raise
            return spans, "realigned"


    def oversize_counts(self, splitter: str, options: dict[str, Any], sizer: Sizer) -> bool:
        # TokenChunker's windows hold at most `size` of the sizer's own tokens: none is
        # oversize, so no chunk needs counting to chunk (counted when asked for)
        return not (splitter == "TokenChunker" and sizer.unit == "tokens")

    @staticmethod
    def _windows(text: str, pieces: list[Piece], built: Any, sizer: Sizer,
                 ids: Any = None) -> list[tuple[int, int]] | None:
        """TokenChunker's chunks as the token windows they were decoded from
        (``ids``: chonkie's own encoding of ``text``, else it is encoded again)."""
        from chunkseam.chunkers.windows import tiktoken_bytes, token_lengths, token_window_spans

        token_bytes = tiktoken_bytes(getattr(sizer, "encoding", None))
        if token_bytes is None or sizer.unit != "tokens":
            return None
        try:
            if ids is None:
                ids = built.tokenizer.encode(text)
            size, overlap = int(built.chunk_size), int(built.chunk_overlap)
        except Exception:  # other chonkie internals: the verified search instead
            return None
        return token_window_spans(text, ids, token_bytes, size, overlap,
                                  [p.text for p in pieces if p.text],
                                  lengths=token_lengths(getattr(sizer, "encoding", None)))


def split_characters(text: str, texts: list[str]) -> list[tuple[int, int]] | None:
    """Spans of RecursiveChunker's chunks when it cut a character in two.

    Text without a separator is cut at token windows and each window decoded:
    a character whose UTF-8 bytes fall in two windows ends one chunk and starts
    the next as U+FFFD. The chunks are contiguous, so they are laid on the
    source's bytes in turn: the character cut in two belongs to the chunk that
    holds its first byte, and the next chunk's leading U+FFFD (its other bytes)
    are skipped (a chunk left empty by that is dropped). None when the chunks
    do not fit the source."""
    data = text.encode("utf-8")
    spans: list[tuple[int, int]] = []
    pos = 0  # byte cursor
    chars = 0  # the character offset of pos
    owed = False  # the previous chunk took a whole character it had only the head of
    for piece in texts:
        rest = piece.lstrip("\ufffd") if owed else piece
        owed = False
        start, first = pos, chars
        for k, ch in enumerate(rest):
            if owed:  # a cut character's head is the last thing in a window
                return None
            raw = ch.encode("utf-8")
            if data.startswith(raw, pos):
                pos += len(raw)
            elif ch == "\ufffd" and pos < len(data) and data[pos] >= 0xC0 and k == len(rest) - 1:
                pos += 1
                while pos < len(data) and 0x80 <= data[pos] <= 0xBF:
                    pos += 1
                owed = True
            else:
                return None
            chars += 1
        if pos > start:
            spans.append((first, chars))
    return spans if pos == len(data) else None


register(ChonkieAdapter())
