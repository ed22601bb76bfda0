"""``llamaindex``: the installed LlamaIndex node parsers (``chunkseam[llamaindex]``).

``SentenceSplitter`` (default), ``TokenTextSplitter`` or
``MarkdownNodeParser`` (option ``splitter``) from ``llama_index.core``.
The splitters get chunkseam's own tokenizer (``tokenizer=`` the sizer's
``encode``, or ``list`` for unit ``chars``), never LlamaIndex's default,
which would fetch a tiktoken file.

Offsets: LlamaIndex sets ``start_char_idx`` by searching each chunk's text
from the previous chunk's start + 1, so on repeated text it gives an earlier
copy or ``None``; its ``get_nodes_from_documents`` also prints to standard
output, which would corrupt the language server's channel. So the splitters
are run as ``get_nodes_from_documents`` runs them (metadata-aware: the
metadata's length comes out of the chunk size, see option ``reader``), without
its print, and each chunk is placed where LlamaIndex's merge put it: the merge
is run a second time on one marker per piece (:func:`_split_placed`), so a run
of ``x`` × 3,000 is placed at the merge's stride, not at the first copy a
search finds. ``MarkdownNodeParser`` cuts at headings without size or
overlap; its node offsets are used after verification, and a heading it
rebuilt (``#<TAB>Title`` as ``# Title``) is placed at the source line (the
text LlamaIndex embeds is ``"header_path: …\\n\\n" + text``: chunkseam shows
the source span).

Option ``reader`` (what metadata the documents carry; ``"none"`` by default, so
that a file gives the same chunks on every machine and in the editor, CI and
pre-commit alike; ``"SimpleDirectoryReader"`` when the pipeline reads files
with it — ``chunkseam init`` writes it then — or a table of keys and values)
and ``excluded-embed-metadata-keys`` / ``excluded-llm-metadata-keys``: see
:meth:`LlamaIndexAdapter.metadata_str`. The splitters count with chunkseam's
encoding, special-token strings as one special token each (``allowed_special =
"all"``), as LlamaIndex's own default tokenizer does.

``secondary_chunking_regex`` (SentenceSplitter) is a regular expression
LlamaIndex runs with Python's ``re``, which cannot be interrupted: it is taken
from a config file only in a trusted workspace, and a pattern of the user's is
run by the ``regex`` engine under the analysis' time budget instead (the
splitter's ``re.findall`` step is replaced by ``regex.findall`` with a
timeout; should LlamaIndex's internals differ, the pattern is first run over
the document that way), so a backtracking pattern ends with the budget's
message, not a hung worker.

Refused: ``tokenizer``, ``id_func``, ``chunking_tokenizer_fn``,
``callback_manager`` (code), ``CodeSplitter`` (its grammars are downloaded at
run time) and the semantic / LLM node parsers (models, network).
"""

from __future__ import annotations

import functools
import os
import re
import types
from typing import Any

from chunkseam.tokens.tiktoken import Sizer
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import Adapter, Piece, probe_regex

_CODE = "code, not a value: chunkseam passes its own tokenizer and never runs configured code"
_MODEL = "it needs an embedding model or an LLM (network), which chunkseam does not run"


class LlamaIndexAdapter(Adapter):
    name = "llamaindex"
    description = ("your installed LlamaIndex node parser (SentenceSplitter, TokenTextSplitter, "
                   "MarkdownNodeParser), chunks located by tracked search")
    module = "llama_index.core.node_parser"
    extra = "llamaindex"
    classes = {"SentenceSplitter": "SentenceSplitter", "TokenTextSplitter": "TokenTextSplitter",
               "MarkdownNodeParser": "MarkdownNodeParser"}
    default = "SentenceSplitter"
    excluded = {
        "CodeSplitter": "tree-sitter-language-pack downloads its grammars at run time; use the "
                        "`code` chunker",
        "SemanticSplitterNodeParser": _MODEL, "SemanticDoubleMergingSplitterNodeParser": _MODEL,
        "HierarchicalNodeParser": "it returns nested nodes of several sizes, not one chunk list",
    }
    reserved = {"chunk_size": "use the size setting", "chunk_overlap": "use the overlap setting"}
    forbidden = {"tokenizer": _CODE, "id_func": _CODE, "chunking_tokenizer_fn": _CODE,
                 "callback_manager": _CODE}
    own_options = ("splitter", "approximate", "reader", "excluded-embed-metadata-keys",
                   "excluded-llm-metadata-keys",
                   # (configuration files give chunker options in snake_case)
                   "excluded_embed_metadata_keys", "excluded_llm_metadata_keys")
    untrusted = {"secondary_chunking_regex": "LlamaIndex runs it as a regular expression with "
                                             "Python's re, which cannot be interrupted"}

    def accepted(self, cls: Any) -> set[str]:
        fields = getattr(cls, "model_fields", None)
        names = set(fields) if fields else super().accepted(cls)
        return names - {"include_metadata", "include_prev_next_rel", "class_name"}

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        if splitter == "MarkdownNodeParser":
            if overlap:
                raise ValueError(f"{self.name}: MarkdownNodeParser cuts at headings, without "
                                 "overlap: set overlap = 0")
            return cls(**options)
        encoding = getattr(sizer, "encoding", None)
        if sizer.unit != "chars" and encoding is not None and hasattr(encoding, "encode"):
            # LlamaIndex's own tokenizer encodes with every special token allowed:
            # "<|endoftext|>" in a document is one token to it, not seven
            tokenizer = functools.partial(encoding.encode, allowed_special="all")
        else:
            tokenizer = list if sizer.unit == "chars" else getattr(sizer, "encode", None)
        if tokenizer is None:  # an approximate sizer has counts but no tokens
            raise ValueError(f"{self.name}: {splitter} needs an exact tokenizer, not "
                             f"approximate counts of {sizer.name}")
        try:
            built = cls(chunk_size=size, chunk_overlap=overlap, tokenizer=tokenizer, **options)
        except Exception as exc:  # pydantic validation errors
            if isinstance(exc, (TypeError, ValueError)):
                raise ValueError(f"{self.name}: cannot build {splitter}: {exc}") from None
            raise
        pattern = options.get("secondary_chunking_regex")
        if pattern:
            self._interruptible(built, pattern)
        return built

    def _interruptible(self, built: Any, pattern: str) -> None:
        """Replace SentenceSplitter's ``re.findall(pattern, text)`` step by the
        ``regex`` engine's ``findall`` under the time budget (same matches:
        ``regex`` is ``re``-compatible). Marks the splitter so that
        :meth:`split` needs no probe."""
        import regex

        from chunkseam.core import budget
        fns = getattr(built, "_sub_sentence_split_fns", None)
        first = fns[0] if isinstance(fns, list) and fns else None
        cells = getattr(first, "__closure__", None) or ()
        if not any(getattr(c, "cell_contents", None) == pattern for c in cells):
            return  # other LlamaIndex internals: split() probes the pattern instead
        try:
            compiled = regex.compile(pattern)
        except (regex.error, TypeError) as exc:
            raise ValueError(f"{self.name}: secondary_chunking_regex {pattern!r} is not a valid "
                             f"regular expression: {exc}") from None

        def findall(text: str) -> list[Any]:
            try:
                return compiled.findall(text, timeout=budget.remaining())
            except TimeoutError:
                raise budget.timed_out(
                    f"{self.name}: secondary_chunking_regex {pattern[:60]!r}") from None

        findall.chunkseam_timed = True  # type: ignore[attr-defined]
        fns[0] = findall

    def split(self, built: Any, text: str) -> list[Piece]:
        if type(built).__name__ == "MarkdownNodeParser":
            from llama_index.core.schema import Document as LlamaDocument

            nodes = built.get_nodes_from_documents([LlamaDocument(text=text)])
            return [Piece(n.text, n.start_char_idx, n.end_char_idx) for n in nodes]
        pattern = getattr(built, "secondary_chunking_regex", None)
        field = getattr(type(built), "model_fields", {}).get("secondary_chunking_regex")
        fns = getattr(built, "_sub_sentence_split_fns", None) or [None]
        if (pattern is not None and (field is None or pattern != field.default)
                and not getattr(fns[0], "chunkseam_timed", False)):
            probe_regex(pattern, text, f"{self.name}: secondary_chunking_regex")
        return _split_placed(built, text, self._effective(built))

    def overlap_check(self, built: Any, splitter: str, text: str, sizer: Sizer, size: int,
                      overlap: int, options: dict[str, Any]) -> Any:
        tokenizer = getattr(built, "_tokenizer", None)
        if overlap == 0 or sizer.unit == "chars" or tokenizer is None:
            return super().overlap_check(built, splitter, text, sizer, size, overlap, options)
        slack = overlap + max(4, overlap // 4)  # a region counted in context can differ
        # counted as the splitter counts (special-token strings are one token to it)
        return lambda _s, e, start: e - start <= slack or len(tokenizer(text[start:e])) <= slack

    def resolve_spans(self, text: str, pieces: list[Piece], **kw: Any
                      ) -> tuple[list[tuple[int, int]], str]:
        if kw["splitter"] == "MarkdownNodeParser" and text.strip():
            spans = _markdown_spans(text, [p.text for p in pieces if p.text])
            if spans is not None:
                return spans, "native"
        return super().resolve_spans(text, pieces, **kw)

    def split_document(self, built: Any, text: str, doc: Any,
                       options: dict[str, Any]) -> list[Piece]:
        if type(built).__name__ == "MarkdownNodeParser":
            return self.split(built, text)
        metadata_str = self.metadata_str(doc, options)
        if not metadata_str:
            return self.split(built, text)
        self.split(built, "")  # the checks and the regular expression's probe
        pattern = getattr(built, "secondary_chunking_regex", None)
        if pattern and text:
            fns = getattr(built, "_sub_sentence_split_fns", None) or [None]
            field = getattr(type(built), "model_fields", {}).get("secondary_chunking_regex")
            if (field is None or pattern != field.default) and \
                    not getattr(fns[0], "chunkseam_timed", False):
                probe_regex(pattern, text, f"{self.name}: secondary_chunking_regex")
        return _split_placed(built, text, self._effective(built, metadata_str))

    def metadata_str(self, doc: Any, options: dict[str, Any]) -> str:
        """The metadata text LlamaIndex's metadata-aware splitting takes out of the
        chunk size: the longer of the embed and LLM renderings of the document's
        metadata (``key: value`` lines), as ``get_nodes_from_documents`` computes it.

        ``reader`` says where the metadata comes from: ``"none"`` (the default: a
        ``Document(text=...)`` made by the pipeline, and the same chunks on every
        machine), ``"SimpleDirectoryReader"`` (the metadata that reader attaches to
        the file — its absolute path, name, MIME type, size and dates — computed by
        LlamaIndex's own ``default_file_metadata_func``, with the keys it excludes
        from embedding and LLM text: only ``file_path`` remains) or a table of keys
        and values. ``excluded-embed-metadata-keys`` / ``excluded-llm-metadata-keys``
        replace the excluded keys."""
        reader = options.get("reader", "none")
        embed_ex = options.get("excluded-embed-metadata-keys",
                               options.get("excluded_embed_metadata_keys"))
        llm_ex = options.get("excluded-llm-metadata-keys",
                             options.get("excluded_llm_metadata_keys"))
        for key, value in (("excluded-embed-metadata-keys", embed_ex),
                           ("excluded-llm-metadata-keys", llm_ex)):
            if value is not None and not (isinstance(value, list)
                                          and all(isinstance(v, str) for v in value)):
                raise ValueError(f"{self.name}: option {key!r} must be a list of metadata keys")
        if reader == "none" or reader is None:
            return ""
        if isinstance(reader, dict):
            metadata = dict(reader)
            default_ex: list[str] = []
        elif reader == "SimpleDirectoryReader":
            path = getattr(doc, "path", None)
            if not path or not os.path.isfile(path):
                return ""  # no file (an unsaved buffer, standard input): no file metadata
            from llama_index.core.readers.file.base import (
                SimpleDirectoryReader,
                default_file_metadata_func,
            )

            metadata = default_file_metadata_func(os.path.abspath(path))
            default_ex = _reader_excluded(SimpleDirectoryReader)
        else:
            raise ValueError(f"{self.name}: option 'reader' must be \"SimpleDirectoryReader\", "
                             f"\"none\" or a table of metadata keys and values: got {reader!r}")
        from llama_index.core.schema import Document as LlamaDocument
        from llama_index.core.schema import MetadataMode

        ldoc = LlamaDocument(text="", metadata=metadata,
                             excluded_embed_metadata_keys=list(
                                 default_ex if embed_ex is None else embed_ex),
                             excluded_llm_metadata_keys=list(
                                 default_ex if llm_ex is None else llm_ex))
        embed = ldoc.get_metadata_str(mode=MetadataMode.EMBED)
        llm = ldoc.get_metadata_str(mode=MetadataMode.LLM)
        return embed if len(embed) > len(llm) else llm

    def _effective(self, built: Any, metadata_str: str = "") -> int:
        """The chunk size ``get_nodes_from_documents`` uses for a document without
        metadata (``split_text_metadata_aware(text, "")``: TokenTextSplitter keeps
        room for the metadata format), computed without that method, which prints
        to standard output when the room left is small."""
        reserved = len(built._tokenizer(metadata_str))
        if type(built).__name__ == "TokenTextSplitter":
            from llama_index.core.node_parser.text.token import (
                DEFAULT_METADATA_FORMAT_LEN,
            )

            reserved += DEFAULT_METADATA_FORMAT_LEN
        effective = built.chunk_size - reserved
        if effective <= 0:
            raise ValueError(f"{self.name}: size {built.chunk_size} leaves no room: "
                             f"{type(built).__name__} keeps {reserved} tokens for metadata")
        return effective


_MARK = 0x20000  # markers: one code point per split, never whitespace


def _split_placed(built: Any, text: str, chunk_size: int) -> list[Piece]:
    """The splitter's chunks of ``text`` with their offsets in it.

    LlamaIndex splits the text into pieces (which tile it) and merges them into
    chunks by their token sizes only; the merge is run a second time on one
    marker character per piece, same sizes, which says which pieces each chunk
    joined — so each chunk is placed where the merge put it (on a run of
    ``x`` × 3,000 every shift of a chunk is a copy; no search can tell). The
    offsets are checked by :func:`~chunkseam.chunkers.adapters.common.verified_native`;
    with other LlamaIndex internals the chunks come without them (searched)."""
    if not text:
        return [Piece(t, 0, 0) for t in built._split_text(text, chunk_size=chunk_size)]
    try:  # _split_text is _split then _merge: the splits are made once, merged twice
        raw = built._split(text, chunk_size)
        sizes: dict[str, int] | None = None
        if type(built).__name__ == "TokenTextSplitter":
            # its own _merge, with its tokenizer's count of each split kept for the
            # second merge (and for the splits it counts again as it pops them)
            sizes = {}
            tokenizer = built._tokenizer

            def counted(split: str) -> Any:
                n = sizes.get(split)  # type: ignore[union-attr]
                if n is None:
                    n = sizes[split] = len(tokenizer(split))  # type: ignore[index]
                return range(n)  # (only its length is used)

            chunks = type(built)._merge(_merge_proxy(built, counted), raw, chunk_size)
        else:
            chunks = built._merge(raw, chunk_size)
        spans = _merge_spans(built, text, chunk_size, raw, sizes)
    except Exception:  # other internals: the chunks are searched for instead
        chunks = built._split_text(text, chunk_size=chunk_size)
        spans = None
    if spans is None or len(spans) != len(chunks) or any(
            text[s:e] != t for (s, e), t in zip(spans, chunks)):
        return [Piece(t) for t in chunks]
    return [Piece(t, s, e) for (s, e), t in zip(spans, chunks)]


def _merge_proxy(built: Any, tokenizer: Any) -> Any:
    """What TokenTextSplitter's ``_merge`` reads of its splitter, with another tokenizer."""
    return types.SimpleNamespace(_tokenizer=tokenizer, chunk_overlap=built.chunk_overlap,
                                 keep_whitespaces=built.keep_whitespaces)


def _merge_spans(built: Any, text: str, chunk_size: int, raw: list[Any],
                 counts: dict[str, int] | None = None) -> list[tuple[int, int]] | None:
    texts = [getattr(r, "text", r) for r in raw]
    if "".join(texts) != text or len(texts) > 0x10FFFF - _MARK:
        return None
    starts = [0]
    for t in texts:
        starts.append(starts[-1] + len(t))
    if type(built).__name__ == "SentenceSplitter":
        marked = [type(r)(chr(_MARK + i), is_sentence=r.is_sentence, token_size=r.token_size)
                  for i, r in enumerate(raw)]
        merged = built._merge(marked, chunk_size)
    else:  # TokenTextSplitter: sizes from its tokenizer, the markers standing for the pieces
        tokenizer = built._tokenizer  # (one count per split, as _merge; kept by it)
        sizes = [counts[t] if counts is not None and t in counts else len(tokenizer(t))
                 for t in texts]

        def sized(s: str) -> range:  # (only its length is used)
            if len(s) == 1:
                return range(sizes[ord(s) - _MARK])
            return range(sum(sizes[ord(c) - _MARK] for c in s))

        merged = type(built)._merge(_merge_proxy(built, sized),
                                    [chr(_MARK + i) for i in range(len(texts))], chunk_size)
    spans = []
    for m in merged:
        if not m:
            continue
        first, last = ord(m[0]) - _MARK, ord(m[-1]) - _MARK
        start, end = starts[first], starts[last + 1]
        while start < end and text[start].isspace():  # the chunk's text is stripped
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append((start, end))
    return spans


_HEADING = re.compile(r"(#+)\s")


def _markdown_spans(text: str, texts: list[str]) -> list[tuple[int, int]] | None:
    """Spans of MarkdownNodeParser's sections when it rewrote a heading: it
    writes a heading line ``#<whitespace>Title`` (outside code fences) as
    ``# Title``, one character for one, so its sections are found in the source
    with those characters made spaces, at the same offsets. None when nothing
    was rewritten or a section is not found so."""
    chars = list(text)
    fence = False
    pos = 0
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence:
            m = _HEADING.match(line)
            if m and line[m.end() - 1] != " ":
                chars[pos + m.end() - 1] = " "
        pos += len(line) + 1
    norm = "".join(chars)
    if norm == text:
        return None
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in texts:
        start = norm.find(piece, cursor)
        if start < 0:
            return None
        spans.append((start, start + len(piece)))
        cursor = start + len(piece)
    return spans


@functools.lru_cache(maxsize=1)
def _reader_excluded_cached() -> tuple[str, ...]:
    """The metadata keys SimpleDirectoryReader excludes from embedding and LLM
    text, read off the reader itself (it extends both lists alike)."""
    from llama_index.core.readers.file.base import SimpleDirectoryReader
    from llama_index.core.schema import Document as LlamaDocument

    doc = LlamaDocument(text="")
    SimpleDirectoryReader._exclude_metadata(None, [doc])  # type: ignore[arg-type]
    return tuple(doc.excluded_embed_metadata_keys)


def _reader_excluded(_cls: Any) -> list[str]:
    return list(_reader_excluded_cached())


register(LlamaIndexAdapter())
