"""``haystack``: the installed Haystack ``DocumentSplitter`` (``chunkseam[haystack]``).

``DocumentSplitter`` (default) or ``RecursiveDocumentSplitter`` (option
``splitter``). ``split_length`` is the size setting and ``split_overlap``
the overlap, counted in Haystack's own unit: option ``split_by``
(``word`` — Haystack's default —, ``passage``, ``line``, ``period``,
``page`` or ``token``) or ``split_unit`` for ``RecursiveDocumentSplitter``
(``word``, ``char`` or ``token``). With ``token`` chunkseam's unit must be
``tokens`` and the splitter gets the sizer's own tiktoken ``Encoding`` (never
a name Haystack would download); with other units the chunk sizes chunkseam
reports are in its own unit, so the oversize flag is off (``char`` under unit
``chars`` is chunkseam's unit: a chunk over the size is oversize).

Offsets: ``split_idx_start`` is verified and used; the tracked search is the
fallback (``RecursiveDocumentSplitter`` gives none).

Refused: ``splitting_function`` / ``split_by = "function"`` (code),
``from_dict`` (never called), ``split_by = "sentence"`` and
``respect_sentence_boundary`` (NLTK data downloaded at run time),
``sentence_splitter_params``.
"""

from __future__ import annotations

from typing import Any

from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece

_NLTK = "Haystack downloads NLTK's punkt data at run time for it (network)"


class HaystackAdapter(Adapter):
    name = "haystack"
    description = ("your installed Haystack DocumentSplitter / RecursiveDocumentSplitter, "
                   "offsets verified")
    module = "haystack.components.preprocessors"
    extra = "haystack"
    classes = {"DocumentSplitter": "DocumentSplitter",
               "RecursiveDocumentSplitter": "RecursiveDocumentSplitter"}
    default = "DocumentSplitter"
    reserved = {"split_length": "use the size setting", "split_overlap": "use the overlap setting",
                "tokenizer_encoding": "use the encoding setting"}
    forbidden = {"splitting_function": "it is code; chunkseam never runs configured code",
                 "respect_sentence_boundary": _NLTK,
                 "sentence_splitter_params": _NLTK}
    UNITS = {"DocumentSplitter": ("split_by", ("word", "passage", "line", "period", "page", "token")),
             "RecursiveDocumentSplitter": ("split_unit", ("word", "char", "token"))}

    def _unit(self, splitter: str, options: dict[str, Any]) -> str:
        key, _ = self.UNITS[splitter]
        return options.get(key, "word")

    def check_options(self, cls: Any, splitter: str, options: dict[str, Any]) -> None:
        super().check_options(cls, splitter, options)
        key, allowed = self.UNITS[splitter]
        unit = options.get(key, "word")
        if unit == "function":
            raise ValueError(f"{self.name}: {key} = \"function\" is not accepted: it runs code")
        if unit == "sentence":
            raise ValueError(f"{self.name}: {key} = \"sentence\" is not supported: {_NLTK}")
        if unit not in allowed:
            raise ValueError(f"{self.name}: option {key!r} must be one of {', '.join(allowed)}: "
                             f"got {unit!r}")
        seps = options.get("separators")
        if seps is not None and (not isinstance(seps, list)
                                 or not all(isinstance(s, str) for s in seps)):
            raise ValueError(f"{self.name}: option 'separators' must be a list of strings")
        if splitter == "RecursiveDocumentSplitter" and not seps:
            raise ValueError(f"{self.name}: RecursiveDocumentSplitter's default separators "
                             f"include \"sentence\" ({_NLTK}): set option separators, e.g. "
                             '["\\n\\n", "\\n", " "]')
        if seps and "sentence" in seps:
            raise ValueError(f"{self.name}: separator \"sentence\" is not supported: {_NLTK}")

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        self.library()
        unit = self._unit(splitter, options)
        encoding = getattr(sizer, "encoding", None)
        if unit == "token" and (sizer.unit != "tokens" or encoding is None):
            raise ValueError(f"{self.name}: {self.UNITS[splitter][0]} = \"token\" counts "
                             "tiktoken tokens: use unit = tokens with a tiktoken encoding")
        kwargs = dict(options)
        if splitter == "DocumentSplitter" and unit == "token":
            kwargs["tokenizer_encoding"] = encoding.name
        built = cls(split_length=size, split_overlap=overlap, **kwargs)
        if splitter == "DocumentSplitter":
            if unit == "token":  # chunkseam's offline encoding, not tiktoken.get_encoding's
                built._tiktoken_tokenizer = encoding
            built.warm_up()
        else:
            if unit == "token":
                if encoding.name != "o200k_base":
                    raise ValueError(f"{self.name}: RecursiveDocumentSplitter counts tokens "
                                     "with o200k_base: set encoding = \"o200k_base\"")
                built.tiktoken_tokenizer = encoding
            built._is_warmed_up = True  # nothing left to load: no NLTK, no download
        return built

    def split(self, built: Any, text: str) -> list[Piece]:
        from haystack import Document as HaystackDocument

        docs = built.run([HaystackDocument(content=text)])["documents"]
        out = []
        for d in docs:
            start = d.meta.get("split_idx_start")
            content = d.content or ""
            out.append(Piece(content, start, start + len(content) if isinstance(start, int) else None))
        return out

    def overlap_check(self, built: Any, splitter: str, text: str, sizer: Sizer, size: int,
                      overlap: int, options: dict[str, Any]) -> Any:
        unit = self._unit(splitter, options)
        if unit == "token" or (unit == "char" and sizer.unit == "chars"):
            return super().overlap_check(built, splitter, text, sizer, size, overlap, options)
        return None  # words, lines …: the overlap is in Haystack's unit; starts in order suffice

    def tracked_overlap(self, splitter: str, sizer: Sizer, overlap: int,
                        options: dict[str, Any]) -> int:
        unit = self._unit(splitter, options)
        if unit == "token" or (unit == "char" and sizer.unit == "chars") or not overlap:
            return overlap
        return 10**9  # an overlap in words or lines: any start within the previous chunk

    def meta(self, splitter: str, built: Any) -> dict[str, Any]:
        out = super().meta(splitter, built)
        unit = getattr(built, "split_by", None) or getattr(built, "split_units", None) or "word"
        if unit != "token":  # size and overlap count Haystack's units, not chunkseam's
            out["size_unit"] = unit
        return out

    def oversize_counts(self, splitter: str, options: dict[str, Any], sizer: Sizer) -> bool:
        unit = self._unit(splitter, options)
        return unit == "token" or (unit == "char" and sizer.unit == "chars")

    def oversize(self, tokens: int, size: int, splitter: str, options: dict[str, Any],
                 sizer: Sizer | None = None) -> bool:
        # Haystack's size is in chunkseam's unit for tokens and for characters
        # (RecursiveDocumentSplitter's "char" under unit = chars): a chunk over
        # it is oversize as for every strategy; words, lines … are not comparable
        unit = self._unit(splitter, options)
        same = unit == "token" or (unit == "char" and sizer is not None and sizer.unit == "chars")
        return same and tokens > size


register(HaystackAdapter())
