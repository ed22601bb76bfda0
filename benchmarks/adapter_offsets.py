"""Where the libraries' own chunk offsets are wrong, and the adapters' texts and spans.

On a fixed sample of ../shared/corpus (120 Markdown files — readmes,
rag-docs, docs — and 30 code files), at 128 tokens (cl100k_base), overlap 16,
each library is run directly (as a user's pipeline would run it) and through
its chunkseam adapter. Printed per library and class: files, chunks, files
whose chunk texts are identical, chunks whose span is a true source span,
library offsets that are not the chunk's text (``None`` or another text), library
offsets that differ from chunkseam's, the offsets chunkseam used (native
verified / tracked search), and files that are an error (no true spans exist,
e.g. chonkie's TokenChunker cutting multibyte characters).

    python benchmarks/adapter_offsets.py
"""

import sys

sys.path.insert(
    0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "server")
)
import collections
import contextlib
import io
import random
from pathlib import Path

from chunkseam import chunkers
from chunkseam.document.text import Document as D
from chunkseam.tokens.tiktoken import get_encoding, get_sizer

S = get_sizer("tokens", "cl100k_base")
enc = get_encoding("cl100k_base")
C = Path(__file__).resolve().parents[2] / "shared" / "corpus"
md = sorted(p for p in (C / "markdown").rglob("*.md") if p.stat().st_size < 60000)
code = sorted(
    p for p in (C / "code").rglob("*.*") if p.is_file() and p.stat().st_size < 60000
)
files = random.Random(1).sample(md, 120) + random.Random(1).sample(code, 30)
SIZE, OV = 128, 16
import chonkie
import semantic_text_splitter as sts
import semchunk
from haystack import Document as HD
from haystack.components.preprocessors import DocumentSplitter
from llama_index.core import Document
from llama_index.core.node_parser import (
    MarkdownNodeParser,
    SentenceSplitter,
    TokenTextSplitter,
)

stats = collections.defaultdict(lambda: collections.Counter())


def rec(k, theirs_texts, theirs_spans, text, **kw):
    st = stats[k]
    try:
        ours = chunkers.get(kw.pop("lib")).chunk(D(text), S, **kw)
    except ValueError:
        st["files_error"] += 1
        return
    st["files"] += 1
    st["chunks"] += len(ours)
    st["texts_identical_files"] += [c.text for c in ours] == [
        t for t in theirs_texts if t
    ]
    st["true_spans"] += sum(text[c.start : c.end] == c.text for c in ours)
    if theirs_spans is not None:
        ts = [s for s, t in zip(theirs_spans, theirs_texts) if t]
        wrong = sum(
            1
            for (a, b), t in zip(ts, [t for t in theirs_texts if t])
            if a is None or text[a:b] != t
        )
        differ = sum(1 for (a, b), c in zip(ts, ours) if (a, b) != (c.start, c.end))
        st["native_not_source"] += wrong
        st["native_differs_from_ours"] += differ
        st["files_native_differs"] += differ > 0
    st[f"offsets_{ours[0].meta['offsets']}" if ours else "empty"] += 1


for p in files:
    text = p.read_text(encoding="utf-8", errors="replace")
    for cls in (SentenceSplitter, TokenTextSplitter):
        with contextlib.redirect_stdout(io.StringIO()):
            nodes = cls(
                chunk_size=SIZE, chunk_overlap=OV, tokenizer=enc.encode
            ).get_nodes_from_documents([Document(text=text)])
        rec(
            "llamaindex " + cls.__name__,
            [n.text for n in nodes],
            [(n.start_char_idx, n.end_char_idx) for n in nodes],
            text,
            lib="llamaindex",
            size=SIZE,
            overlap=OV,
            splitter=cls.__name__,
        )
    nodes = MarkdownNodeParser().get_nodes_from_documents([Document(text=text)])
    rec(
        "llamaindex MarkdownNodeParser",
        [n.text for n in nodes],
        [(n.start_char_idx, n.end_char_idx) for n in nodes],
        text,
        lib="llamaindex",
        size=SIZE,
        overlap=0,
        splitter="MarkdownNodeParser",
    )
    for cls in ("RecursiveChunker", "SentenceChunker", "TokenChunker"):
        kw = {} if cls == "RecursiveChunker" else {"chunk_overlap": OV}
        cs = getattr(chonkie, cls)(tokenizer=enc, chunk_size=SIZE, **kw).chunk(text)
        rec(
            "chonkie " + cls,
            [c.text for c in cs],
            [(c.start_index, c.end_index) for c in cs],
            text,
            lib="chonkie",
            size=SIZE,
            overlap=0 if not kw else OV,
            splitter=cls,
        )
    t, o = semchunk.chunkerify(enc, SIZE)(text, offsets=True, overlap=OV)
    rec(
        "semchunk",
        t,
        [tuple(x) for x in o],
        text,
        lib="semchunk",
        size=SIZE,
        overlap=OV,
    )
    for cls in ("MarkdownSplitter", "TextSplitter"):
        ci = (
            getattr(sts, cls).from_tiktoken_model("gpt-4", SIZE, OV).chunk_indices(text)
        )
        rec(
            "text-splitter " + cls,
            [x for _, x in ci],
            [(s, s + len(x)) for s, x in ci],
            text,
            lib="text-splitter",
            size=SIZE,
            overlap=OV,
            splitter=cls,
        )
    ds = DocumentSplitter(split_by="word", split_length=SIZE, split_overlap=OV)
    ds.warm_up()
    docs = ds.run([HD(content=text)])["documents"]
    rec(
        "haystack DocumentSplitter word",
        [d.content for d in docs],
        [
            (
                d.meta.get("split_idx_start"),
                (d.meta.get("split_idx_start") or 0) + len(d.content),
            )
            for d in docs
        ],
        text,
        lib="haystack",
        size=SIZE,
        overlap=OV,
    )
print(
    len(files),
    "files (120 markdown incl. readmes/rag-docs, 30 code), size 128 tokens cl100k_base, overlap 16",
)
for k, st in stats.items():
    print(k, dict(st))
