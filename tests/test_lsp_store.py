"""The server's document store: what happens around a publication."""

from __future__ import annotations

import asyncio
import gc
import weakref

from lsprotocol import types

from chunkseam.lsp import diagnostics
from chunkseam.lsp.settings import EditorSettings
from chunkseam.lsp.state import DocumentStore

from lsp_support import FIXTURES, TIMEOUT

URI = "file:///virtual/store.md"


async def test_the_replaced_analysis_is_freed_after_the_new_diagnostics_are_published():
    # freeing a large document's previous analysis takes milliseconds of the
    # event loop: it waits until the new diagnostics are on their way
    store = DocumentStore(workers=1)
    store.build_diagnostics = diagnostics.build
    store.editor = EditorSettings.from_initialization_options(
        {"settings": {"debounceMs": 0, "chunker": "fixed", "unit": "chars", "size": 200}})
    store.config_ready.set()
    published: list[tuple[int, int, bool]] = []
    previous: list[weakref.ref] = []

    def publish(result) -> None:
        published.append((result.version, len(result.diagnostics),
                          bool(previous) and previous[-1]() is not None))

    store.on_publish = publish

    async def published_version(version: int) -> None:
        async def wait() -> None:
            while not any(v == version for v, _, _ in published) or URI in store._tasks:
                await asyncio.sleep(0.01)
        await asyncio.wait_for(wait(), TIMEOUT)

    try:
        text = (FIXTURES / "database.md").read_text()
        store.open(URI, text, 1, "markdown")
        store.schedule(URI, 0)
        await published_version(1)
        previous.append(weakref.ref(store.results[URI]))
        store.change(URI, 2, [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="Intro. ")])
        store.schedule(URI, 0)
        await published_version(2)
        version, count, old_alive = published[-1]
        assert version == 2 and count > 0
        assert old_alive, "the previous analysis was still held while the new one was published"
        assert store.results[URI].version == 2
        gc.collect()
        assert previous[-1]() is None, "the previous analysis is freed once the new one is published"
    finally:
        store.shutdown()
