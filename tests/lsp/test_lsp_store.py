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


def test_the_open_carries_the_head_starts_diagnostics_over(tmp_path):
    """A file analysed from disk ahead of its opening (chunkseam/willOpen)
    has its diagnostics built then; the open of the same text renews them
    for its version (their ranges and related information are the head
    start's objects) instead of building them again, and they are what a
    cold open builds."""
    text = "\n".join([(FIXTURES / "database.md").read_text()] * 30)
    path = tmp_path / "ahead.md"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    store = DocumentStore(workers=1)
    store.build_diagnostics = lambda r, enc: diagnostics.build(r, enc, published=40, json_templates=False)
    store.editor = EditorSettings.from_initialization_options(
        {"settings": {"chunker": "fixed", "unit": "chars", "size": 200}})
    conv = diagnostics.converter()
    try:
        ahead = store._prefetch_compute(uri, str(path), store.generation, store.editor, store.encoding)
        assert ahead is not None and len(ahead.diagnostics) == 40, "the head start built the diagnostics"
        od = store.open(uri, text, 3, "markdown")
        opened = store._compute((uri, 3, store.generation, od.doc, "markdown", store.editor, store.encoding,
                                 od.serial), ahead=ahead)
        assert opened.analysis is ahead.analysis
        carried = {id(d.range) for d in ahead.diagnostics}
        assert sum(id(d.range) in carried for d in opened.diagnostics) >= 35
        cold = DocumentStore(workers=1)
        cold.build_diagnostics = store.build_diagnostics
        cold.editor = store.editor
        try:
            cod = cold.open(uri, text, 3, "markdown")
            expected = cold._compute((uri, 3, cold.generation, cod.doc, "markdown", cold.editor, cold.encoding,
                                      cod.serial))
        finally:
            cold.shutdown()
        assert [conv.unstructure(d) for d in opened.diagnostics] == [conv.unstructure(d) for d in expected.diagnostics]
        assert {d.data["version"] for d in opened.diagnostics if "version" in d.data} == {3}
        assert [conv.unstructure(d) for d in opened.diagnostics.everything()] == [
            conv.unstructure(d) for d in expected.diagnostics.everything()]
    finally:
        store.shutdown()


def _publishing_store() -> tuple[DocumentStore, list]:
    store = DocumentStore(workers=1)
    store.build_diagnostics = diagnostics.build
    store.editor = EditorSettings.from_initialization_options(
        {"settings": {"debounceMs": 0, "chunker": "fixed", "unit": "chars", "size": 200}})
    store.config_ready.set()
    published: list = []
    store.on_publish = published.append
    return store, published


async def _settled(store: DocumentStore, published: list, version: int) -> None:
    async def wait() -> None:
        while not any(r.version == version for r in published) or URI in store._tasks:
            await asyncio.sleep(0.01)
    await asyncio.wait_for(wait(), TIMEOUT)


async def test_diagnostics_are_published_before_what_only_lenses_and_hovers_read(monkeypatch):
    """A version's diagnostics go out as soon as the worker has them: the
    index of issues per chunk, overlap sizes and heading paths (lenses,
    hovers, views) is made after, and the publication does not wait for it
    (before, it did). Each version is published once, and what the features
    read afterwards is the complete result."""
    import threading

    from chunkseam.lsp import state

    store, published = _publishing_store()
    out = threading.Event()
    store.on_publish = lambda r: (published.append(r), out.set())
    real = state._index
    seen: list[tuple[int, bool]] = []

    def index(result, sizer, previous=None):
        # (in the worker: has this version's publication gone out meanwhile?)
        seen.append((result.version, out.wait(TIMEOUT)))
        out.clear()
        real(result, sizer, previous)

    monkeypatch.setattr(state, "_index", index)
    try:
        text = (FIXTURES / "database.md").read_text()
        store.open(URI, text, 1, "markdown")
        store.schedule(URI, 0)
        await _settled(store, published, 1)
        store.change(URI, 2, [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="Intro. ")])
        store.schedule(URI, 0)
        await _settled(store, published, 2)
        assert seen == [(1, True), (2, True)], "the diagnostics were published before the index was made"
        assert [r.version for r in published] == [1, 2], "each version published once"
        result = store.results[URI]
        assert result is published[-1] and result.issues_by_chunk and result.heading_paths
        assert len(result.heading_paths) == len(result.chunks)
    finally:
        store.shutdown()


async def test_a_result_that_fails_after_its_early_publication_is_published_again(monkeypatch):
    """When what follows the diagnostics fails, the result is an error and
    its publication (the internal-error diagnostic) replaces the early one."""
    from chunkseam.lsp import state

    store, published = _publishing_store()

    def index(result, sizer, previous=None):
        raise RuntimeError("the index failed")

    monkeypatch.setattr(state, "_index", index)
    try:
        store.open(URI, (FIXTURES / "database.md").read_text(), 1, "markdown")
        store.schedule(URI, 0)
        await _settled(store, published, 1)
        assert len(published) == 2 and published[0] is published[1]
        final = published[-1]
        assert final.error and [d.code for d in final.diagnostics] == [diagnostics.INTERNAL_ERROR]
    finally:
        store.shutdown()


async def test_a_version_superseded_while_analysed_is_not_published_early(monkeypatch):
    """A version edited again while its analysis runs is not published, early
    or late: only the newer one is."""
    from chunkseam.lsp import state

    store, published = _publishing_store()
    loop = asyncio.get_running_loop()
    real = store.build_diagnostics

    def build(result, encoding):
        if result.version == 1:  # (in the worker: the editor sends an edit meanwhile)
            asyncio.run_coroutine_threadsafe(edit(), loop).result(TIMEOUT)
        return real(result, encoding)

    async def edit() -> None:
        store.change(URI, 2, [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="Intro. ")])
        store.schedule(URI, 0)

    store.build_diagnostics = build
    try:
        store.open(URI, (FIXTURES / "database.md").read_text(), 1, "markdown")
        store.schedule(URI, 0)
        await _settled(store, published, 2)
        assert [r.version for r in published] == [2]
    finally:
        store.shutdown()


async def test_an_early_publication_that_fails_is_made_again_and_nothing_is_kept():
    """A publication that fails when the diagnostics are handed over early is
    made again with the complete result; once a version is published the
    store keeps no note of it (nor after a close)."""
    store, published = _publishing_store()
    calls: list[int] = []

    def publish(result) -> None:
        calls.append(result.version)
        if len(calls) == 1:
            raise OSError("the pipe is full")
        published.append(result)

    store.on_publish = publish
    try:
        store.open(URI, (FIXTURES / "database.md").read_text(), 1, "markdown")
        store.schedule(URI, 0)
        await _settled(store, published, 1)
        assert calls == [1, 1] and len(published) == 1
        assert store._published_early == {} and store._awaiting == {}
        store.change(URI, 2, [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="Intro. ")])
        store.schedule(URI, 0)
        await _settled(store, published, 2)
        assert calls == [1, 1, 2] and store._published_early == {} and store._awaiting == {}
        store.close(URI)
        assert store._published_early == {} and store._awaiting == {}
    finally:
        store.shutdown()
