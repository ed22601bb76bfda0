"""The cycle collector is paused while analyses run (chunkseam.lsp.collector).

What an analysis keeps is frozen when the last running analysis ends, so the
collector never walks it; garbage cycles frozen that way are found by the
full collection made when the server is idle, or soon when the frozen
objects have grown. These tests use Python's real collector; each restores
its state. The last one drives the real server over stdio.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from chunkseam.document.text import Document
from chunkseam.lsp import collector as collector_mod
from chunkseam.lsp.collector import Collector
from chunkseam.lsp.state import _cycle_free
from lsp_support import (
    SERVER_COMMAND, TIMEOUT, initialize, make_client, open_doc, shutdown, wait_published,
)

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


@pytest.fixture(autouse=True)
def restore_gc():
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


class Node:
    """Something that can be in a cycle and be watched with a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_paused_during_an_analysis_frozen_after():
    gc.enable()
    c = Collector()
    before = gc.get_freeze_count()
    with c.analysis():
        assert not gc.isenabled()
        kept = [Node() for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + 1000
    assert c.active == 0
    del kept


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    c = Collector()
    with c.analysis():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_analysis_that_makes_cycles_runs_with_the_collector():
    gc.enable()
    c = Collector()
    before = gc.get_freeze_count()
    with c.analysis(cycle_free=False):
        assert gc.isenabled()
        ref = cycle()
    assert gc.get_freeze_count() == before
    gc.collect()
    assert ref() is None


def test_frozen_cycles_are_found_by_the_full_collection():
    gc.enable()
    c = Collector()
    with c.analysis():
        ref = cycle()  # garbage already, made while paused: frozen at the end
    gc.collect()
    assert ref() is not None, "a frozen cycle is out of the ordinary collections' view"
    assert c.collect("test")
    assert ref() is None
    assert c.collections == 1
    assert gc.isenabled()


def test_no_full_collection_while_an_analysis_runs():
    gc.enable()
    c = Collector()
    with c.analysis():
        assert not c.collect("test")
        assert not gc.isenabled()
    assert c.collect("test")


def test_overlapping_analyses_in_threads():
    """Eight threads, each in an analysis, all inside at once (a barrier):
    the collector is paused while they are, and on again once all have
    left; what each kept is frozen, what each dropped as a cycle is found
    by the full collection."""
    gc.enable()
    c = Collector()
    n = 8
    inside = threading.Barrier(n)
    leave = threading.Barrier(n)
    states: list[bool] = []
    refs: list[weakref.ref] = []
    kept: list[list[Node]] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            with c.analysis():
                inside.wait(TIMEOUT)
                mine = [Node() for _ in range(200)]
                ref = cycle()
                with lock:
                    states.append(gc.isenabled())
                    refs.append(ref)
                    kept.append(mine)
                leave.wait(TIMEOUT)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not errors
    assert states == [False] * n  # paused while all were inside
    assert gc.isenabled() and c.active == 0  # on again once the last left
    assert all(r() is not None for r in refs)
    assert c.collect("test")
    assert all(r() is None for r in refs)
    assert sum(len(k) for k in kept) == n * 200


def test_the_idle_timer_collects_once_the_analyses_stop():
    gc.enable()
    found: list[int] = []
    done = threading.Event()

    def on_collect(unreachable: int, ms: float) -> None:
        found.append(unreachable)
        done.set()

    async def scenario() -> weakref.ref:
        c = Collector(idle_seconds=0.05, on_collect=on_collect)
        c.bind(asyncio.get_running_loop())
        with c.analysis():
            ref = cycle()
        # the timer fires on this loop once no analysis has ended for 0.05 s
        for _ in range(int(TIMEOUT * 20)):
            if done.is_set():
                break
            await asyncio.sleep(0.05)
        c.close()
        return ref

    ref = asyncio.run(scenario())
    assert done.is_set(), "no full collection after the analyses stopped"
    assert found and found[0] >= 2
    assert ref() is None


def test_growth_makes_the_collection_come_soon(monkeypatch):
    """Frozen objects past the growth limit (over the first count): collected
    right after the analysis (on the loop), not after the idle time."""
    gc.enable()
    done = threading.Event()

    async def scenario() -> tuple[weakref.ref, int]:
        c = Collector(idle_seconds=3600, growth=(1.0, 100), check_every=1,
                      on_collect=lambda n, ms: done.set())
        c.bind(asyncio.get_running_loop())
        with c.analysis():
            pass  # the first count: what is kept so far is the baseline
        with c.analysis():
            ref = cycle()
            kept = [Node() for _ in range(500)]  # more than the limit of 100 new frozen objects
        for _ in range(int(TIMEOUT * 20)):
            if done.is_set():
                break
            await asyncio.sleep(0.05)
        c.close()
        return ref, len(kept)

    ref, n = asyncio.run(scenario())
    assert n == 500
    assert done.is_set(), "no collection although the frozen objects grew past the limit"
    assert ref() is None


def test_the_idle_seconds_from_the_environment(monkeypatch):
    monkeypatch.setenv(collector_mod.ENV_IDLE, "0.25")
    assert collector_mod.idle_seconds_from_env() == 0.25
    for bad in ("soon", "-1", ""):
        monkeypatch.setenv(collector_mod.ENV_IDLE, bad)
        assert collector_mod.idle_seconds_from_env() == collector_mod.IDLE_SECONDS


#: analyses each file twice (the first may fill caches that live on) in a
#: fresh interpreter, with no thread but its own, and prints the garbage
#: cycles the second left: a collection counts every unreachable object, so a
#: process that runs other things (this one: the test clients' threads) could
#: count theirs
_CYCLES = r"""
import gc, json, sys
from chunkseam.engine.analysis import analyze
from chunkseam.config.loader import resolve
from chunkseam.document.text import Document
from chunkseam.lsp.state import _cycle_free
language, paths = sys.argv[1], sys.argv[2:]
out = []
for chunker in (None, "fixed"):
    settings = resolve(None, {"chunker": chunker} if chunker else None, strict=False).settings
    for path in paths:
        text = open(path, encoding="utf-8", errors="replace").read()
        for attempt in range(2):
            doc = Document(text, uri="file://" + path, path=path, version=1, language_id=language)
            free = _cycle_free(doc)
            gc.collect()
            gc.disable()
            analysis = analyze(doc, settings)
            del analysis, doc
            found = gc.collect()
            gc.enable()
        out.append([path, chunker, free, found])
print(json.dumps(out))
"""


@pytest.mark.parametrize("kind, pattern, language", [
    ("markdown", "markdown/**/*.md", "markdown"),
    ("mdx", "markdown/**/*.mdx", "mdx"),
    ("python", "python/**/*.py", "python"),
    ("typescript", "code/ts/**/*.ts", "typescript"),
    ("go", "code/go/**/*.go", "go"),
])
def test_analyses_the_collector_is_paused_for_make_no_cycles(kind, pattern, language):
    """What the pause relies on: analysing these kinds leaves no garbage
    cycles; reStructuredText does, and is analysed with the collector on."""
    files = sorted(CORPUS.glob(pattern))
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    sample = [str(p) for p in random.Random(7).sample(files, min(3, len(files)))]
    proc = subprocess.run([sys.executable, "-c", _CYCLES, language, *sample], capture_output=True,
                          text=True, timeout=TIMEOUT * 5)
    assert proc.returncode == 0, proc.stderr[-2000:]
    checked = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(checked) == 2 * len(sample)
    for path, chunker, free, found in checked:
        assert free, f"{path} would be analysed with the collector on"
        assert found == 0, f"{Path(path).name} ({chunker or 'default'}): {found} objects in garbage cycles"


def test_garbage_cycles_are_counted_by_the_check_above():
    """The check can fail: reStructuredText, whose docutils trees are cyclic,
    leaves garbage cycles in it."""
    files = sorted((CORPUS / "rst").rglob("*.rst"))
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    proc = subprocess.run([sys.executable, "-c", _CYCLES, "restructuredtext", str(files[0])],
                          capture_output=True, text=True, timeout=TIMEOUT * 5)
    assert proc.returncode == 0, proc.stderr[-2000:]
    checked = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(not free for _path, _chunker, free, _found in checked)
    assert any(found > 0 for _path, _chunker, _free, found in checked)


def test_restructured_text_is_analysed_with_the_collector_on():
    files = sorted((CORPUS / "rst").rglob("*.rst"))
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    doc = Document(files[0].read_text(encoding="utf-8", errors="replace"), uri=files[0].as_uri(),
                   path=str(files[0]), version=1, language_id="restructuredtext")
    assert not _cycle_free(doc)


# -- the real server ---------------------------------------------------------------

CONFIG_IDLE = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client,
                                 server_env={collector_mod.ENV_IDLE: "0.2"})


@pytest_lsp.fixture(config=CONFIG_IDLE)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def test_the_server_collects_when_idle_and_its_diagnostics_stay_right(client: LanguageClient, tmp_path):
    """The server (idle time 0.2 s here) logs a full collection after the
    analyses of a document stop, and after more edits another; the
    diagnostics of each version are those of a fresh open."""
    await initialize(client, init_options={"settings": {"trace": "debug", "debounceMs": 0,
                                                        "chunker": "fixed", "size": 120}})
    text = ("The first sentence of a paragraph runs on for a while. " * 30 + "\n\n") * 20
    path = tmp_path / "idle.md"
    path.write_text(text)
    uri = path.as_uri()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)

    def collections() -> int:
        return sum("full collection (idle)" in m.message for m in client.log_messages)

    async def wait_for(count: int) -> None:
        for _ in range(int(TIMEOUT * 10)):
            if collections() >= count:
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"no idle collection (log: {[m.message for m in client.log_messages][-5:]})")

    await wait_for(1)
    version = 1
    for k in range(3):
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(2 * k, 5), types.Position(2 * k, 5)), text="word ")]))
        await wait_published(client, uri, version=version)
        text = _insert(text, 2 * k, 5, "word ")
    await wait_for(2)
    edited = [p for p in client.published if p.uri == uri and p.version == version][-1]
    # a fresh open of the same text gives the same diagnostics
    fresh = (tmp_path / "fresh.md")
    fresh.write_text(text)
    open_doc(client, fresh.as_uri(), text)
    await wait_published(client, fresh.as_uri(), version=1)
    opened = [p for p in client.published if p.uri == fresh.as_uri()][-1]
    assert len(edited.diagnostics) > 10
    assert [(d.range, d.code, d.message) for d in edited.diagnostics] == \
        [(d.range, d.code, d.message) for d in opened.diagnostics]


def _insert(text: str, line: int, col: int, what: str) -> str:
    lines = text.split("\n")
    lines[line] = lines[line][:col] + what + lines[line][col:]
    return "\n".join(lines)
