"""Memory of a long-running server stays bounded (generous bounds; the
figures for 1,000 cycles are printed by benchmarks/bench_memory.py).

The server's own document store runs in-process: documents are opened,
analysed as the worker thread analyses them, edited and closed.
"""

from __future__ import annotations

import gc
import random
import sys
from pathlib import Path

from lsprotocol import types

from chunkseam.core import cache
from chunkseam.core.cache import text_key
from chunkseam.lsp.settings import EditorSettings
from chunkseam.lsp.state import DocumentStore
from chunkseam.structure.markdown import _SEGMENTS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_memory import analyse, generated, rss_mb  # noqa: E402


def _store() -> DocumentStore:
    store = DocumentStore(workers=1)
    store.editor = EditorSettings.from_initialization_options({"settings": {"debounceMs": 0}})
    store.config_ready.set()
    return store


def _segment_keys(doc) -> list:
    st = doc.memoised("structure")
    starts = list(st._seg_starts) + [len(doc.text)]
    return [text_key(doc.text[a:b]) for a, b in zip(starts, starts[1:])]


def test_open_close_cycles_and_edits_stay_bounded() -> None:
    store = _store()
    try:
        store.open("untitled:/first.md", generated(0, 200_000), 1, "markdown")
        analyse(store, "untitled:/first.md")
        store.close("untitled:/first.md")
        gc.collect()
        steady = rss_mb()
        for i in range(1, 13):
            uri = f"untitled:/doc{i}.md"
            od = store.open(uri, generated(i, 200_000), 1, "markdown")
            analyse(store, uri)
            keys = _segment_keys(od.doc)
            assert any(_SEGMENTS.lru.get(k) is not None for k in keys)
            store.close(uri)
            # a closed document's segment parses are dropped with it
            assert all(_SEGMENTS.lru.get(k) is None for k in keys)
        uri = "untitled:/big.md"
        # one segment: every edit makes a new 500 KB segment text to parse
        store.open(uri, generated(10**6, 500_000, flat=True), 1, "markdown")
        analyse(store, uri)
        rng = random.Random(1)
        for v in range(2, 14):
            line = rng.randrange(store.docs[uri].doc.line_count)
            store.change(uri, v, [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                text=rng.choice(["word ", "x", "More text. ", "# New heading\n\n"]))])
            analyse(store, uri)
        store.close(uri)
        gc.collect()
        for name, s in cache.all_caches().items():
            assert s["bytes"] <= s["max_bytes"], (name, s)
        assert rss_mb() - steady < 150, (steady, rss_mb())
    finally:
        store.shutdown()
