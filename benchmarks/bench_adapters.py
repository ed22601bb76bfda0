"""Each pipeline-library adapter beside the library alone, in the same run.

On a fixed sample of ../shared/corpus/markdown (``--files``, default 60
files), at 256 tokens (cl100k_base), overlap 32 where the splitter has one,
every adapter (``llamaindex``, ``chonkie``, ``semchunk``, ``text-splitter``,
``haystack``, and ``langchain`` for reference) is timed against its library
called directly, configured the same way (the same offline tiktoken
``Encoding``) — what a user's own pipeline costs. The adapter adds option
checking, its cache lookup, span resolution (verifying native offsets, the
token windows laid out from the library's own encoding, or the tracked search)
and the ``Chunk`` objects; a chunk's token count (and its oversize flag, judged
from it) is taken when first read, so it is not in the adapter's time unless
the library gave it.

Passes are interleaved (library, adapter, library, adapter …), the garbage
collector is paused during each, each pass starts with a fresh sizer (empty
count cache), and the best of ``--repeat`` is kept. Printed: CPU seconds per
pass, MB/s and the ratio adapter / library (target <= 1.3x), per adapter and
per splitter (Haystack by word, passage and line; the token-window splitters;
CharacterTextSplitter).

    python benchmarks/bench_adapters.py [--repeat 3] [--files 60] [--only semchunk,chonkie]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"
SIZE, OVERLAP = 256, 32


def load(n: int) -> list[str]:
    files = sorted(CORPUS.rglob("*.md"))
    if not files:
        sys.exit(f"no corpus at {CORPUS}")
    return [f.read_text(encoding="utf-8") for f in random.Random(5).sample(files, min(n, len(files)))]


def fresh_sizer():
    from chunkseam.tokens import tiktoken as tokens
    tokens._sizers.clear()  # a new sizer: an empty count cache
    return tokens.get_sizer("tokens", "cl100k_base")


def cases(enc: Any) -> dict[str, tuple[Callable[[], Callable[[str], Any]], str, dict[str, Any]]]:
    """name -> (a factory of the library alone — built per pass, so its caches
    start cold as the adapter's do —, adapter name, adapter options)."""
    out: dict[str, tuple[Callable[[], Callable[[str], Any]], str, dict[str, Any]]] = {}
    try:
        from llama_index.core.node_parser import SentenceSplitter

        out["llamaindex"] = (lambda: SentenceSplitter(chunk_size=SIZE, chunk_overlap=OVERLAP,
                                                      tokenizer=enc.encode).split_text,
                             "llamaindex", {})
    except ImportError:
        pass
    try:
        from chonkie import RecursiveChunker

        out["chonkie"] = (lambda: RecursiveChunker(tokenizer=enc, chunk_size=SIZE).chunk,
                          "chonkie", {"overlap": 0})
    except ImportError:
        pass
    try:
        import semchunk

        def make_semchunk():
            sc = semchunk.chunkerify(lambda t: len(enc.encode_ordinary(t)), SIZE)
            return lambda t: sc(t, offsets=True, overlap=OVERLAP)

        out["semchunk"] = (make_semchunk, "semchunk", {})
    except ImportError:
        pass
    try:
        from semantic_text_splitter import MarkdownSplitter

        out["text-splitter"] = (lambda: MarkdownSplitter.from_tiktoken_model(
            "gpt-4", SIZE, OVERLAP).chunk_indices, "text-splitter", {})
    except ImportError:
        pass
    try:
        from haystack import Document as HD
        from haystack.components.preprocessors import DocumentSplitter

        def make_haystack():
            ds = DocumentSplitter(split_by="token", split_length=SIZE, split_overlap=OVERLAP)
            ds._tiktoken_tokenizer = enc
            ds.warm_up()
            return lambda t: ds.run([HD(content=t)])

        out["haystack"] = (make_haystack, "haystack", {"split_by": "token"})
    except ImportError:
        pass
    try:
        from haystack import Document as HD
        from haystack.components.preprocessors import DocumentSplitter

        def make_haystack_by(unit: str, length: int, overlap: int):
            def make():
                ds = DocumentSplitter(split_by=unit, split_length=length, split_overlap=overlap)
                ds.warm_up()
                return lambda t: ds.run([HD(content=t)])
            return make

        out["haystack-word"] = (make_haystack_by("word", 200, 20), "haystack",
                                {"split_by": "word", "size": 200, "overlap": 20})
        out["haystack-passage"] = (make_haystack_by("passage", 3, 0), "haystack",
                                   {"split_by": "passage", "size": 3, "overlap": 0})
        out["haystack-line"] = (make_haystack_by("line", 20, 2), "haystack",
                                {"split_by": "line", "size": 20, "overlap": 2})
    except ImportError:
        pass
    try:
        from chonkie import TokenChunker

        out["chonkie-token"] = (lambda: TokenChunker(tokenizer=enc, chunk_size=SIZE,
                                                     chunk_overlap=OVERLAP).chunk,
                                "chonkie", {"splitter": "TokenChunker"})
    except ImportError:
        pass
    try:
        from llama_index.core.node_parser import TokenTextSplitter as LlamaTokens

        out["llamaindex-token"] = (lambda: LlamaTokens(chunk_size=SIZE, chunk_overlap=OVERLAP,
                                                       tokenizer=enc.encode).split_text,
                                   "llamaindex", {"splitter": "TokenTextSplitter"})
    except ImportError:
        pass
    try:
        import tiktoken
        from langchain_text_splitters import (
            CharacterTextSplitter,
            RecursiveCharacterTextSplitter,
            TokenTextSplitter,
        )

        out["langchain-character"] = (
            lambda: CharacterTextSplitter(chunk_size=1000, chunk_overlap=100).split_text,
            "langchain", {"splitter": "CharacterTextSplitter", "unit": "chars", "size": 1000,
                          "overlap": 100})

        def make_langchain_tokens():
            return TokenTextSplitter(encoding_name=enc.name, chunk_size=SIZE,
                                     chunk_overlap=OVERLAP).split_text

        real_get = tiktoken.get_encoding
        tiktoken.get_encoding = lambda name: enc if name == enc.name else real_get(name)
        try:
            make_langchain_tokens()  # (TokenTextSplitter keeps the Encoding it was given)
        finally:
            tiktoken.get_encoding = real_get

        def make_langchain_token_splitter():
            real = tiktoken.get_encoding
            tiktoken.get_encoding = lambda name: enc if name == enc.name else real(name)
            try:
                return make_langchain_tokens()
            finally:
                tiktoken.get_encoding = real

        out["langchain-token"] = (make_langchain_token_splitter, "langchain",
                                  {"splitter": "TokenTextSplitter"})

        def make_langchain():
            real = tiktoken.get_encoding
            tiktoken.get_encoding = lambda name: enc if name == enc.name else real(name)
            try:
                return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                    encoding_name=enc.name, chunk_size=SIZE, chunk_overlap=OVERLAP).split_text
            finally:
                tiktoken.get_encoding = real

        out["langchain"] = (make_langchain, "langchain", {})
    except ImportError:
        pass
    return out


def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            fn()
        return time.process_time() - t0
    finally:
        gc.enable()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "server"))
    from chunkseam import chunkers
    from chunkseam.document.text import Document

    texts = load(args.files)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    enc = fresh_sizer().encoding
    table = cases(enc)
    only = [s for s in args.only.split(",") if s]
    names = [n for n in table if not only or n in only]
    print(f"{len(texts)} files, {mb:.2f} MB, size {SIZE} tokens (cl100k_base), overlap {OVERLAP}, "
          f"best of {args.repeat}")
    print(f"{'adapter':<14} {'library s':>10} {'adapter s':>10} {'library MB/s':>13} "
          f"{'adapter MB/s':>13} {'ratio':>7}")
    worst = 0.0
    for name in names:
        library, adapter_name, options = table[name]
        options = dict(options)
        overlap = options.pop("overlap", OVERLAP)
        size = options.pop("size", SIZE)
        unit = options.pop("unit", "tokens")
        adapter = chunkers.get(adapter_name)
        docs = [Document(t) for t in texts]
        best_lib = best_ad = float("inf")
        def run_library(make=library):
            split = make()
            return [split(t) for t in texts]

        def run_adapter(adapter=adapter, docs=docs, overlap=overlap, options=options,
                        size=size, unit=unit):
            sizer = fresh_sizer()  # the adapter builds its splitter anew for a new sizer
            if unit == "chars":
                from chunkseam.tokens.tiktoken import get_sizer

                sizer = get_sizer("chars")
            return [adapter.chunk(d, sizer, size=size, overlap=overlap, **options) for d in docs]

        for _ in range(args.repeat):
            best_lib = min(best_lib, timed(run_library))
            best_ad = min(best_ad, timed(run_adapter))
        ratio = best_ad / best_lib if best_lib else float("nan")
        worst = max(worst, ratio)
        print(f"{name:<14} {best_lib:>10.3f} {best_ad:>10.3f} {mb / best_lib:>13.2f} "
              f"{mb / best_ad:>13.2f} {ratio:>6.2f}x")
    print(f"worst ratio adapter / library: {worst:.2f}x (target <= 1.3x)")


if __name__ == "__main__":
    main()
