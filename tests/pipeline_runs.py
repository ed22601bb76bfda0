"""Each pipeline library run directly, as a user's pipeline code calls it, next
to chunkseam's adapter for the same settings (for tests/chunkers/test_pipeline_differential.py
and benchmarks/bench_adapters.py).

A *case* is (adapter name, setting id, chunkseam settings, run) where ``run(path)``
returns the library's chunk texts for the file at ``path``, read as the
pipeline reads it (UTF-8, a BOM kept as U+FEFF, newlines as they are).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tiktoken
from chunkseam.tokens import tiktoken as tokens
def read(path: Path) -> str:
    # what open(path, encoding="utf-8").read() gives, without newline translation:
    # a pipeline that reads bytes and decodes them (LlamaIndex's reader) sees "\r\n"
    return path.read_bytes().decode("utf-8")


def _enc(name: str) -> Any:
    return tokens.get_encoding(name)


@contextlib.contextmanager
def offline_tiktoken():
    """``tiktoken.get_encoding`` answered by chunkseam's offline resolution (the same
    hash-checked files) while a library builds its tokenizer."""
    original = tiktoken.get_encoding
    tiktoken.get_encoding = lambda name: tokens.get_encoding(name)  # type: ignore[assignment]
    try:
        yield
    finally:
        tiktoken.get_encoding = original  # type: ignore[assignment]


@dataclass
class Case:
    adapter: str
    setting: str
    unit: str
    size: int
    overlap: int
    options: dict[str, Any]
    run: Callable[[Path], list[str]]
    encoding: str = "cl100k_base"

    @property
    def id(self) -> str:
        return f"{self.adapter}-{self.setting}"


def _quiet(fn: Callable[[], Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


def llamaindex_cases() -> list[Case]:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter, TokenTextSplitter
    from llama_index.core.schema import Document as LlamaDocument

    def ingest(parser: Any) -> Callable[[Path], list[str]]:
        def run(path: Path) -> list[str]:
            if path.stat().st_size == 0:  # the reader skips nothing, but an empty file ...
                docs = [LlamaDocument(text="", metadata={})]
                docs = SimpleDirectoryReader(input_files=[str(path.resolve())]).load_data()
            else:
                docs = SimpleDirectoryReader(input_files=[str(path.resolve())]).load_data()
            nodes = _quiet(lambda: IngestionPipeline(transformations=[parser]).run(documents=docs))
            return [n.text for n in nodes]
        return run

    def plain(parser: Any) -> Callable[[Path], list[str]]:
        def run(path: Path) -> list[str]:
            nodes = _quiet(lambda: parser.get_nodes_from_documents([LlamaDocument(text=read(path))]))
            return [n.text for n in nodes]
        return run

    reader = {"reader": "SimpleDirectoryReader"}
    return [
        Case("llamaindex", "reader-sentence-128-16", "tokens", 128, 16, reader,
             ingest(SentenceSplitter(chunk_size=128, chunk_overlap=16))),
        Case("llamaindex", "reader-sentence-512-50", "tokens", 512, 50, reader,
             ingest(SentenceSplitter(chunk_size=512, chunk_overlap=50))),
        Case("llamaindex", "reader-token-128-16", "tokens", 128, 16,
             {**reader, "splitter": "TokenTextSplitter"},
             ingest(TokenTextSplitter(chunk_size=128, chunk_overlap=16))),
        Case("llamaindex", "sentence-64-8", "tokens", 64, 8, {},
             plain(SentenceSplitter(chunk_size=64, chunk_overlap=8))),
        Case("llamaindex", "markdown", "tokens", 1024, 0, {"splitter": "MarkdownNodeParser"},
             plain(MarkdownNodeParser())),
    ]


def langchain_cases() -> list[Case]:
    from langchain_text_splitters import (
        CharacterTextSplitter,
        RecursiveCharacterTextSplitter,
        TokenTextSplitter,
    )

    def texts(splitter: Any) -> Callable[[Path], list[str]]:
        return lambda path: splitter.split_text(read(path))

    with offline_tiktoken():
        token = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=64, chunk_overlap=8)
        rec_tok = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=128, chunk_overlap=16)
    return [
        Case("langchain", "recursive-1000-200", "chars", 1000, 200, {},
             texts(RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200))),
        Case("langchain", "recursive-tokens-128-16", "tokens", 128, 16, {}, texts(rec_tok)),
        Case("langchain", "character-500-50", "chars", 500, 50,
             {"splitter": "CharacterTextSplitter"},
             texts(CharacterTextSplitter(chunk_size=500, chunk_overlap=50))),
        Case("langchain", "token-64-8", "tokens", 64, 8, {"splitter": "TokenTextSplitter"},
             texts(token)),
    ]


def chonkie_cases() -> list[Case]:
    from chonkie import RecursiveChunker, TokenChunker

    enc = _enc("cl100k_base")

    def texts(chunker: Any) -> Callable[[Path], list[str]]:
        return lambda path: [c.text for c in chunker.chunk(read(path))]

    return [
        Case("chonkie", "recursive-512", "chars", 512, 0, {},
             texts(RecursiveChunker(chunk_size=512))),
        Case("chonkie", "token-64-8", "tokens", 64, 8, {"splitter": "TokenChunker"},
             texts(TokenChunker(tokenizer=enc, chunk_size=64, chunk_overlap=8))),
    ]


def semchunk_cases() -> list[Case]:
    import semchunk

    enc = _enc("cl100k_base")
    chunker = semchunk.chunkerify(lambda s: len(enc.encode_ordinary(s)), 128)
    return [
        Case("semchunk", "128", "tokens", 128, 0, {}, lambda p: chunker(read(p))),
        Case("semchunk", "128-overlap-16", "tokens", 128, 16, {},
             lambda p: chunker(read(p), overlap=16)),
    ]


def text_splitter_cases() -> list[Case]:
    from semantic_text_splitter import MarkdownSplitter, TextSplitter

    md = MarkdownSplitter(800)
    text = TextSplitter(400, overlap=40)
    return [
        Case("text-splitter", "markdown-800", "chars", 800, 0, {"splitter": "MarkdownSplitter"},
             lambda p: md.chunks(read(p))),
        Case("text-splitter", "text-400-40", "chars", 400, 40, {"splitter": "TextSplitter"},
             lambda p: text.chunks(read(p))),
    ]


def haystack_cases() -> list[Case]:
    from haystack import Document as HaystackDocument
    from haystack.components.preprocessors import DocumentSplitter

    def texts(splitter: Any) -> Callable[[Path], list[str]]:
        def run(path: Path) -> list[str]:
            docs = splitter.run([HaystackDocument(content=read(path))])["documents"]
            return [d.content for d in docs]
        return run

    word = DocumentSplitter(split_by="word", split_length=100, split_overlap=10)
    passage = DocumentSplitter(split_by="passage", split_length=3, split_overlap=0)
    for s in (word, passage):
        if hasattr(s, "warm_up"):
            s.warm_up()
    return [
        Case("haystack", "word-100-10", "tokens", 100, 10, {"split_by": "word"}, texts(word)),
        Case("haystack", "passage-3", "tokens", 3, 0, {"split_by": "passage"}, texts(passage)),
    ]


def chunkipy_cases() -> list[Case]:
    from chunkipy import FixedSizeTextChunker
    from chunkipy.size_estimators.char_size_estimator import CharSizeEstimator

    def texts(chunker: Any) -> Callable[[Path], list[str]]:
        def run(path: Path) -> list[str]:
            text = read(path)
            if not text.strip():  # chunkipy refuses a blank text (ValueError): no chunks
                return []
            return [c.text for c in chunker.chunk(text) if c.text]
        return run

    return [
        Case("chunkipy", "fixed-300-30", "chars", 300, 30, {"splitter": "FixedSizeTextChunker"},
             texts(FixedSizeTextChunker(chunk_size=300, size_estimator=CharSizeEstimator(),
                                        overlap_ratio=0.1))),
        Case("chunkipy", "fixed-120", "chars", 120, 0, {},
             texts(FixedSizeTextChunker(chunk_size=120, size_estimator=CharSizeEstimator()))),
    ]


def all_cases() -> list[Case]:
    out: list[Case] = []
    for make in (llamaindex_cases, langchain_cases, chonkie_cases, semchunk_cases,
                 text_splitter_cases, haystack_cases, chunkipy_cases):
        out.extend(make())
    return out


#: the synthetic hard cases: name -> text
HARD: dict[str, str] = {
    "cjk.md": ("# 标题\n\n" + "这是一个测试句子，用来检查中文的切分。日本語の文も入れます。" * 40 + "\n"),
    "emoji.md": ("Family: 👨‍👩‍👧‍👦 and flags 🇫🇷🇩🇪 and skin 👍🏽. " * 60),
    "crlf.md": ("# Title\r\n\r\n" + "A line with CRLF endings here.\r\n" * 80),
    "tabs.md": ("#\tTitle\n\n" + "\tindented\twith\ttabs and words.\n" * 80
                + "\n#\tSecond\n\nMore text.\n"),
    "long-run.md": "x" * 3000,
    "long-run-2.md": "ab" * 1500,
    "repeated.md": ("The same sentence again and again. " * 120),
    "empty.md": "",
    "blank.md": "   \n\n\t \n",
    "combining.md": ("e\u0301cole cafe\u0301 nai\u0308ve " * 150),
    "special-tokens.md": ("Stop at <|endoftext|> here. " * 40),
    "odd-spaces.md": ("word\u00a0word\u2009word\u3000word\u200bword " * 120),
    "bom.md": "\ufeff# Title\n\nSome text after a byte order mark. " * 1 + "More words. " * 200,
    "newline-runs.md": ("Paragraph one is here.\n\n\n\n\nParagraph two is here.\n\n\n\n" * 30),
}


def write_hard(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in HARD.items():
        path = directory / name
        path.write_bytes(text.encode("utf-8"))
        out.append(path)
    return out
