"""Open documents, the analysis cache and the scheduling of analyses.

- The server keeps its own copy of every open document's text and applies
  incremental changes through :class:`chunkseam.document.text.Document` in the
  negotiated position encoding (pygls' workspace is not used for text).
- One analysis per (uri, version, text state, settings generation) is computed in a worker
  thread, shared by everyone who asks for it (diagnostics, lenses, hovers …)
  and kept until the next version replaces it. The text state (a serial
  number bumped by every didOpen and didChange) keeps a client that sends
  new text under a version number it already used from getting the old
  text's results.
- A newer version cancels older work: pending debounced publications are
  cancelled, queued analyses of stale versions are skipped when their turn
  comes, and results of stale versions are never stored or published.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from lsprotocol import types

from chunkseam.document.text import Document
from chunkseam.lsp.collector import Collector
from chunkseam.lsp.log import logger
from chunkseam.lsp.settings import EditorSettings, resolve_for, setting_layers

#: document kinds the server analyses (the router picks the strategy)
SUPPORTED_KINDS = frozenset({"markdown", "python", "text"})


def _made(result: Result) -> Result:
    """``result`` with every diagnostic made (see ``Built.made`` in
    :mod:`chunkseam.lsp.diagnostics`): a result is complete only then."""
    made = getattr(result.diagnostics, "made", None)
    if made is not None:
        made()
    return result


def _cycle_free(doc: Document) -> bool:
    """Whether analysing ``doc`` makes no reference cycles (all but
    reStructuredText, whose parse is a docutils tree of nodes that link their
    parents; tests/lsp/test_collector.py checks the others on the corpus)."""
    if doc.kind != "markdown":
        return True
    from chunkseam.structure.rst import is_rst

    return not is_rst(doc.path, doc.uri, doc.language_id)


def _analysed(doc: Document) -> bool:
    """A kind the server analyses, or code in a language the ``code`` strategy
    parses with tree-sitter (JavaScript, TypeScript, Go, Rust, Java). A
    notebook's JSON opened as a text document (an editor without notebook
    support) is not: its issues belong to cells, which only the notebook
    document sync has (see chunkseam.lsp.notebooks)."""
    if doc.notebook is None:
        from chunkseam.document.notebook import is_notebook

        if is_notebook(doc.path, doc.uri):
            return False
    if doc.kind in SUPPORTED_KINDS:
        return True
    if doc.kind != "code":
        return False
    from chunkseam.structure.treesitter import code_language

    return code_language(doc) is not None


#: at most this many files analysed ahead of their opening at a time
PREFETCH_MAX = 2
#: and only files of at most this size (larger ones wait for their didOpen)
PREFETCH_MAX_BYTES = 16 << 20
#: seconds an analysis waits for the loop thread to publish its diagnostics
#: before going on with the rest of its result (see DocumentStore._hand_over)
HAND_OVER_SECONDS = 0.05


def _reads_alike(a: Document, b: Document) -> bool:
    """Whether the analysis of ``a`` is that of ``b``: the same text, read as
    the same kind (Markdown, MDX or reStructuredText, text …)."""
    if a.text is not b.text and a.text != b.text:
        return False
    if a.kind != b.kind or a.kind == "code" or a.path != b.path:
        return False
    from chunkseam.structure.mdx import is_mdx
    from chunkseam.structure.rst import is_rst

    return (is_rst(a.path, a.uri, a.language_id) == is_rst(b.path, b.uri, b.language_id)
            and is_mdx(a.path, a.uri, a.language_id) == is_mdx(b.path, b.uri, b.language_id))


class NotOpen(Exception):
    """A request for a document the client has not opened."""


class Stale(Exception):
    """The version an analysis was queued for is no longer current."""


def uri_to_path(uri: str) -> str | None:
    if not uri.startswith("file:"):
        return None
    try:
        from pygls.uris import to_fs_path

        return to_fs_path(uri)
    except Exception:  # pragma: no cover - malformed uri
        return None


class OpenDocument:
    """The client's view of one document: text and version."""

    __slots__ = ("uri", "path", "language_id", "version", "doc", "serial", "opened")

    def __init__(self, uri: str, text: str, version: int, language_id: str | None) -> None:
        self.uri = uri
        self.path = uri_to_path(uri)
        self.language_id = language_id
        self.version = version
        self.doc = self._make(text, version)
        #: which text this is: new with every open and change, even when the
        #: client reuses a version number
        self.serial = next(_SERIALS)
        #: when the editor's text arrived (``time.perf_counter``; for the debug log)
        self.opened = time.perf_counter()

    def _make(self, text: str, version: int) -> Document:
        return Document(text, uri=self.uri, path=self.path, version=version,
                        language_id=self.language_id)

    @property
    def text(self) -> str:
        return self.doc.text

    def apply(self, changes: list[Any], version: int, encoding: str) -> None:
        """Apply ``didChange`` content changes (full or incremental, in order)."""
        doc = self.doc
        for change in changes:
            rng = getattr(change, "range", None)
            if rng is None:
                doc = self._make(change.text, version)
                continue
            start = doc.position_to_offset(rng.start.line, rng.start.character, encoding)
            end = doc.position_to_offset(rng.end.line, rng.end.character, encoding)
            # the line index is carried over, not rebuilt (a scan of the whole
            # text per keystroke on a large document)
            doc = doc.with_edit(start, end, change.text, version=version)
        self.version = version
        self.doc = doc if doc is not self.doc else self._make(doc.text, version)
        self.serial = next(_SERIALS)


_SERIALS = itertools.count(1)


def _carry_line_index(old: Document, new: Document, start: int, end: int, inserted: int) -> None:
    """Give ``new`` (``old`` with ``[start, end)`` replaced by ``inserted``
    characters) its line index from ``old``'s (see
    :meth:`chunkseam.document.text.Document.carry_line_index`)."""
    new.carry_line_index(old, start, end, inserted)


@dataclass
class Result:
    """One analysis of one document version, with what the features need."""

    uri: str
    version: int
    generation: int
    doc: Document
    settings: Any = None
    analysis: Any = None  # chunkseam.engine.analysis.Analysis
    error: str | None = None  # one line; the traceback went to the log
    disabled: bool = False  # not analysed (enable = false or unsupported kind)
    config_errors: list[Any] = field(default_factory=list)
    #: chunk index -> issues that concern it (either side of a cut)
    issues_by_chunk: dict[int, list[Any]] = field(default_factory=dict)
    #: size (in the sizer's unit) of the overlap of each chunk with the previous one
    overlap_prev: list[int] = field(default_factory=list)
    #: the sizer of :attr:`overlap_prev` and its sizes by overlap text (the
    #: next version counts only the overlaps it has not seen)
    overlap_counts: tuple[Any, dict[str, int]] | None = None
    #: heading path of each chunk (the chunker's, else the headings enclosing its start)
    heading_paths: list[tuple[str, ...]] = field(default_factory=list)
    unit: str = "tokens"
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    #: which chunker is simulated and where that came from (for a status bar)
    simulated: str | None = None
    #: where each setting that matters came from (see :func:`setting_layers`)
    layers: list[dict[str, Any]] = field(default_factory=list)
    #: the text state analysed (see :attr:`OpenDocument.serial`)
    serial: int = 0
    #: a head start's diagnostics as the params of ``chunkseam/headStartDiagnostics``
    #: (JSON), made in the worker for a client that asked for them; taken (and
    #: dropped) by the event loop when the head start is done
    announce: str | None = field(default=None, repr=False, compare=False)

    @property
    def chunks(self) -> list[Any]:
        return self.analysis.chunks if self.analysis is not None else []

    @property
    def issues(self) -> list[Any]:
        return self.analysis.issues if self.analysis is not None else []

    @property
    def result_id(self) -> str:
        return f"{self.version}.{self.generation}.{self.serial}"


class DocumentStore:
    """Open documents and their analyses; owned by the event loop thread."""

    def __init__(self, *, workers: int = 2) -> None:
        self.docs: dict[str, OpenDocument] = {}
        self.results: dict[str, Result] = {}
        self.encoding: str = "utf-16"
        #: where the config of documents without a file path (untitled:) is looked up
        self.root_path: str | None = None
        self.editor = EditorSettings()
        #: bumped on configuration changes (editor settings or config files)
        self.generation = 0
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chunkseam")
        self._inflight: dict[tuple[str, int, int, int], asyncio.Future[Result]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        #: the latest queued or running analysis of each document
        self._running: dict[str, asyncio.Future[Result]] = {}
        #: the result a fresh one replaced, kept until the fresh one is published:
        #: freeing a large document's analysis (~100k objects, up to ~15 ms) then
        #: does not delay the diagnostics
        self._retired: dict[str, Result] = {}
        #: analyses of files read from disk when an editor said it was about to
        #: open them (``chunkseam/willOpen``), by uri, until the open takes them
        self._prefetched: dict[str, Result] = {}
        self._prefetching: set[str] = set()
        #: the loop analyses are awaited on, and its thread (set on that thread)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        #: uri -> ((version, generation, serial), task): the version a publication
        #: task is waiting for the analysis of (loop thread only)
        self._awaiting: dict[str, tuple[tuple[int, int, int], Any]] = {}
        #: uri -> (result, its diagnostics) published as soon as the worker had
        #: them, before the rest of the result (loop thread only)
        self._published_early: dict[str, tuple[Result, Any]] = {}
        self.config_ready = asyncio.Event()
        #: called on the loop thread with every fresh result that is still current
        self.on_publish: Callable[[Result], None] | None = None
        #: called on the loop thread with a result whose config errors should be reported
        self.on_config_errors: Callable[[Result], None] | None = None
        #: a complete result replaced an older one of its document (loop thread):
        #: what was derived from the older (lenses) is out of date
        self.on_complete: Callable[[Result], None] | None = None
        #: called on the loop thread with (uri, params JSON) when a head start asked
        #: to be announced is ready and the document has not opened (see prefetch)
        self.on_head_start: Callable[[str, str], None] | None = None
        #: called in the worker with a head start's result: its announcement's params
        self.head_start_params: Callable[[Result], str | None] | None = None
        #: called with (result, build) to turn issues into diagnostics (set by the server)
        self.build_diagnostics: Callable[[Result, str], list[types.Diagnostic]] | None = None
        #: pauses the cycle collector during analyses (the server process's, see
        #: chunkseam.lsp.collector; None: Python's collector runs as usual)
        self.collector: Collector | None = None

    # -- document sync -----------------------------------------------------------
    def open(self, uri: str, text: str, version: int, language_id: str | None) -> OpenDocument:
        od = OpenDocument(uri, text, version, language_id)
        self.docs[uri] = od
        self.results.pop(uri, None)
        return od

    def put(self, uri: str, doc: Document, *, fresh: bool = False) -> OpenDocument:
        """Open or replace ``uri`` with a document built elsewhere (a notebook's
        view, see :mod:`chunkseam.lsp.notebooks`); ``fresh``: a new opening,
        whose earlier result is dropped."""
        od = self.docs.get(uri)
        if od is None or fresh:
            od = OpenDocument.__new__(OpenDocument)
            od.uri, od.path, od.language_id = uri, uri_to_path(uri), None
            self.docs[uri] = od
            self.results.pop(uri, None)
        od.version = doc.version if doc.version is not None else 0
        od.doc = doc
        od.serial = next(_SERIALS)
        return od

    def change(self, uri: str, version: int, changes: list[Any]) -> OpenDocument:
        od = self.get(uri)
        od.apply(changes, version, self.encoding)
        return od

    def close(self, uri: str) -> None:
        self.cancel(uri)
        od = self.docs.pop(uri, None)
        self.results.pop(uri, None)
        self._retired.pop(uri, None)
        self._prefetched.pop(uri, None)
        self._awaiting.pop(uri, None)
        self._published_early.pop(uri, None)
        if od is not None and not any(o.doc.text == od.doc.text for o in self.docs.values()):
            # what only this document's text needed goes with it (the caches
            # are bounded anyway; this returns the memory now)
            try:
                from chunkseam.structure.markdown import forget

                forget(od.doc)
            except Exception:  # pragma: no cover - never fail a close
                logger.debug("chunkseam: could not drop the caches of %s", uri, exc_info=True)

    def get(self, uri: str) -> OpenDocument:
        od = self.docs.get(uri)
        if od is None:
            raise NotOpen(uri)
        return od

    def bump_generation(self) -> None:
        self.generation += 1
        self._prefetched.clear()  # analysed with the old settings

    # -- a head start for a document about to open -------------------------------
    def prefetch(self, uri: str, *, announce: bool = False) -> None:
        """Start analysing the file of ``uri`` from disk: an editor said it is
        about to open it, and will send its text (``didOpen``) only once it has
        loaded the file (0.3-0.5 s for 1 MB in VS Code). The analysis is that
        of the text the editor sends only if the file holds the same text (and
        is read as the same kind); the open then takes it over (see
        :meth:`_compute`) instead of starting from nothing. Nothing happens for
        an open document, a uri that is not a file, a file that is not a
        regular UTF-8 file of at most :data:`PREFETCH_MAX_BYTES`, or while
        :data:`PREFETCH_MAX` others are pending.

        ``announce``: the client wants the head start's diagnostics before the
        document opens (``chunkseam/headStartDiagnostics``, see
        :attr:`on_head_start`), to show them as the editor appears; they are
        sent only if the document has not opened by the time they are ready."""
        path = uri_to_path(uri)
        if path is None or uri in self.docs or uri in self._running or uri in self._prefetched:
            return
        while self._prefetched and len(self._prefetched) + len(self._prefetching) >= PREFETCH_MAX:
            self._prefetched.pop(next(iter(self._prefetched)))  # the oldest, never opened
        if len(self._prefetching) >= PREFETCH_MAX:
            return
        logger.debug("chunkseam: %s is about to open: analysing the file from disk", uri)
        fut = asyncio.ensure_future(self._prefetch(uri, path, self.generation, announce))
        self._prefetching.add(uri)
        self._running[uri] = fut

        def done(f: asyncio.Future[Result]) -> None:
            self._prefetching.discard(uri)
            if self._running.get(uri) is f:
                self._running.pop(uri, None)
            if f.cancelled() or f.exception() is not None:
                return
            r = f.result()
            if r is not None and r.generation == self.generation and uri not in self.results:
                self._prefetched[uri] = r
                params, r.announce = r.announce, None
                if params is not None and uri not in self.docs and self.on_head_start is not None:
                    self.on_head_start(uri, params)

        fut.add_done_callback(done)

    async def _prefetch(self, uri: str, path: str, generation: int, announce: bool = False) -> Result | None:
        if not self.config_ready.is_set():
            try:
                await asyncio.wait_for(self.config_ready.wait(), timeout=3.0)
            except asyncio.TimeoutError:
                return None
        loop = asyncio.get_running_loop()
        if self.collector is not None:
            self.collector.bind(loop)
        editor, encoding = dataclasses.replace(self.editor), self.encoding
        try:
            return await loop.run_in_executor(self.executor, self._prefetch_compute, uri, path, generation,
                                              editor, encoding, announce)
        except Exception:  # noqa: BLE001 - a head start only: never fail anything for it
            logger.debug("chunkseam: no head start for %s:\n%s", uri, traceback.format_exc())
            return None

    def _prefetch_compute(self, uri: str, path: str, generation: int, editor: EditorSettings,
                          encoding: str, announce: bool = False) -> Result | None:
        """Runs in a worker thread."""
        import os
        import stat

        from chunkseam.audit.dump import SourceError, decode_source

        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_size > PREFETCH_MAX_BYTES:
                return None
            with open(path, "rb") as f:
                text = decode_source(f.read(PREFETCH_MAX_BYTES + 1))
        except (OSError, SourceError):
            return None
        doc = Document(text, uri=uri, path=path, version=None, language_id=None)
        if doc.kind == "code" or uri in self.docs:  # (code: its language comes with didOpen)
            return None
        snapshot = (uri, None, generation, doc, None, editor, encoding, 0)
        result = self._compute(snapshot, prefetch=True)
        logger.debug("chunkseam: analysed %s from disk ahead of its opening", uri)
        if announce and self.head_start_params is not None and uri not in self.docs:
            try:
                result.announce = self.head_start_params(result)
            except Exception:  # noqa: BLE001 - a nicety: the open publishes them anyway
                logger.debug("chunkseam: no early diagnostics for %s:\n%s", uri, traceback.format_exc())
        return result

    # -- analysis ----------------------------------------------------------------
    def current(self, uri: str) -> Result | None:
        """The stored result if it is for the current version and settings."""
        od = self.docs.get(uri)
        r = self.results.get(uri)
        if od is None or r is None:
            return None
        if (r.version == od.version and r.serial == od.serial
                and r.generation == self.generation):
            return r
        return None

    async def result(self, uri: str) -> Result:
        """The analysis of the current version of ``uri`` (computed if needed).

        Raises :class:`NotOpen` when the document is not (or no longer) open."""
        if not self.config_ready.is_set():
            try:
                await asyncio.wait_for(self.config_ready.wait(), timeout=3.0)
            except asyncio.TimeoutError:
                self.config_ready.set()
        while True:
            od = self.get(uri)
            r = self.current(uri)
            if r is not None:
                return r
            key = (uri, od.version, self.generation, od.serial)
            fut = self._inflight.get(key)
            if fut is None:
                fut = self._submit(od, key)
            try:
                return await asyncio.shield(fut)
            except Stale:
                continue  # a newer version arrived while queued: analyse that one

    def _submit(self, od: OpenDocument, key: tuple[str, int, int, int]) -> asyncio.Future[Result]:
        """Queue the analysis of ``od``'s current version.

        Analyses of one document run one after the other: a new version waits
        for the one in progress (whose work the engine's content caches keep)
        and is skipped if it has itself become stale by the time its turn comes.
        """
        snapshot = (od.uri, od.version, self.generation, od.doc, od.language_id,
                    dataclasses.replace(self.editor), self.encoding, od.serial)
        previous = self._running.get(od.uri)
        fut = asyncio.ensure_future(self._run_after(previous, snapshot))
        self._inflight[key] = fut
        self._running[od.uri] = fut

        def done(f: asyncio.Future[Result]) -> None:
            self._inflight.pop(key, None)
            if self._running.get(od.uri) is f:
                self._running.pop(od.uri, None)
            if f.cancelled() or f.exception() is not None:
                return
            r = f.result()
            if self._is_current(r.uri, r.version, r.generation, r.serial):
                old = self.results.get(r.uri)
                self.results[r.uri] = r
                if old is not None and old is not r:
                    self._retired[r.uri] = old
                if r.config_errors and self.on_config_errors is not None:
                    self.on_config_errors(r)
                if old is not None and old is not r and self.on_complete is not None:
                    self.on_complete(r)

        fut.add_done_callback(done)
        return fut

    async def _run_after(self, previous: asyncio.Future[Result] | None, snapshot: tuple) -> Result:
        if previous is not None and not previous.done():
            await asyncio.wait([previous])
        uri, version, generation = snapshot[:3]
        if not self._is_current(uri, version, generation, snapshot[7]):
            raise Stale(uri)
        ahead = self._prefetched.pop(uri, None)
        loop = asyncio.get_running_loop()
        self._loop, self._loop_thread = loop, threading.get_ident()
        if self.collector is not None:
            self.collector.bind(loop)
        return await loop.run_in_executor(self.executor, lambda: self._compute(snapshot, ahead=ahead))

    def _is_current(self, uri: str, version: int, generation: int, serial: int | None = None) -> bool:
        cur = self.docs.get(uri)
        return (cur is not None and cur.version == version and generation == self.generation
                and (serial is None or cur.serial == serial))

    def _compute(self, snapshot: tuple, *, ahead: Result | None = None, prefetch: bool = False) -> Result:
        """Runs in a worker thread: :meth:`_analyse`, with the cycle collector
        paused meanwhile when the server has a :attr:`collector`."""
        if self.collector is None:
            return _made(self._analyse(snapshot, ahead=ahead, prefetch=prefetch))
        with self.collector.analysis(cycle_free=_cycle_free(snapshot[3])):
            return _made(self._analyse(snapshot, ahead=ahead, prefetch=prefetch))

    def _analyse(self, snapshot: tuple, *, ahead: Result | None = None, prefetch: bool = False) -> Result:
        """Runs in a worker thread. ``ahead``: the analysis of the file made
        before it opened (see :meth:`prefetch`), taken over if it is of the
        same text, read the same way, with the same settings; ``prefetch``:
        that analysis (of a document that is not open)."""
        uri, version, generation, doc, _language_id, editor, encoding = snapshot[:7]
        serial = snapshot[7] if len(snapshot) > 7 else None
        if not prefetch and not self._is_current(uri, version, generation, serial):
            raise Stale(uri)
        t0 = time.perf_counter()
        cpu0 = time.thread_time()
        result = Result(uri, version, generation, doc, serial=serial or 0)
        resolved_file = None
        try:
            resolved = resolve_for(doc.path or self.root_path, editor)
            result.settings = resolved.settings
            result.config_errors = list(resolved.errors)
            resolved_file = resolved.config_file
            from chunkseam.engine.analysis import describe_chunker

            result.simulated = describe_chunker(resolved.settings, resolved.sources)
            result.layers = setting_layers(resolved)
            if getattr(resolved, "unusable", None):
                # a broken config file: no analysis rather than a silent default
                result.error = f"the configuration file cannot be used: {resolved.unusable}"
                if self.build_diagnostics is not None:
                    result.diagnostics = self.build_diagnostics(result, encoding)
                result.seconds = time.perf_counter() - t0
                return result
        except Exception as exc:
            logger.error("chunkseam: could not resolve the configuration for %s:\n%s",
                         uri, traceback.format_exc())
            from chunkseam.core.settings import Settings

            result.settings = Settings()
            result.config_errors = [f"could not resolve the configuration: {exc}"]
        settings = result.settings
        if doc.path and settings.exclude and _excluded(doc.path, settings.exclude, resolved_file,
                                                       self.root_path):
            # the project's `exclude` setting applies in the editor as on the command line
            result.disabled = True
            result.seconds = time.perf_counter() - t0
            return result
        if doc.path and not _included(doc.path, settings.include, resolved_file, self.root_path):
            # a file `chunkseam lint .` would not look at (LICENSE, chunkseam.toml …)
            result.disabled = True
            result.seconds = time.perf_counter() - t0
            return result
        if not getattr(settings, "enable", True) or not _analysed(doc):
            result.disabled = True
            result.seconds = time.perf_counter() - t0
            return result
        prev = None if prefetch else self.results.get(uri)
        if prev is None and ahead is not None and _reads_alike(ahead.doc, doc):
            prev = ahead
        if (
            prev is not None
            and prev.error is None
            and not prev.disabled
            and prev.analysis is not None
            and prev.settings == settings
            and (prev.doc.text is doc.text or prev.doc.text == doc.text)
        ):
            # same text and settings (a save, an undo back, a no-op settings change)
            if prev is ahead:
                # the head start's diagnostics (and line index) are carried over
                # as to a new version of the same text: only their data changes
                doc.follows(ahead.doc)
            # (where the settings come from is this resolution's: the same values
            # may now come from another layer, e.g. a config file that appeared)
            reused = dataclasses.replace(prev, version=version, generation=generation, doc=doc,
                                         config_errors=result.config_errors, serial=result.serial,
                                         simulated=result.simulated, layers=result.layers)
            if self.build_diagnostics is not None:
                # each diagnostic's data names the version it is for (as a cold open's does)
                reused.diagnostics = self.build_diagnostics(reused, encoding)
            reused.seconds = time.perf_counter() - t0
            od = self.docs.get(uri)
            logger.debug("chunkseam: reused the analysis of %s v%s for v%s in %.1f ms%s", uri,
                         "(from disk)" if prev is ahead else prev.version, version, reused.seconds * 1000,
                         "" if od is None or prev is not ahead else
                         f" ({(time.perf_counter() - od.opened) * 1000:.0f} ms after its didOpen was read)")
            return reused
        from chunkseam.core.budget import BudgetExceeded

        try:
            from chunkseam.engine.analysis import analyze, sizer_for

            # (counted after the publication; the issues, which nothing here changes, not copied)
            analysis = analyze(doc, settings, stats=False, share=True)
            result.analysis = analysis
            if self.build_diagnostics is not None:
                # (a head start's: for no version; the open renews them, see above)
                result.diagnostics = self.build_diagnostics(result, encoding)
                if not prefetch:
                    self._hand_over(result)
                _made(result)  # (what a publication did not need: made once it has gone)
            # what lenses, hovers, views and the status read (after the diagnostics: see _hand_over)
            from chunkseam.engine.validate import statistics

            analysis.stats = statistics(analysis.chunks, analysis.issues)
            _index(result, sizer_for(settings) if any(
                c.start < p.end for p, c in zip(analysis.chunks, analysis.chunks[1:])) else None,
                   prev)
        except Exception as exc:
            result.analysis = None
            result.issues_by_chunk = {}
            result.overlap_prev = []
            result.heading_paths = []
            if isinstance(exc, BudgetExceeded):  # not a bug: one clear message, no traceback
                result.error = str(exc)
                logger.warning("chunkseam: %s (version %s): %s", uri, version, exc)
            else:
                result.error = f"{type(exc).__name__}: {exc}".strip()
                logger.error("chunkseam: analysis of %s (version %s) failed:\n%s", uri, version,
                             traceback.format_exc())
            if self.build_diagnostics is not None:
                try:
                    result.diagnostics = self.build_diagnostics(result, encoding)
                except Exception:  # pragma: no cover - never let the error path fail
                    result.diagnostics = []
        result.seconds = time.perf_counter() - t0
        logger.debug("chunkseam: analysed %s v%s in %.1f ms (%.1f ms of CPU; %d chunks, %d issues)", uri,
                     version, result.seconds * 1000, (time.thread_time() - cpu0) * 1000, len(result.chunks),
                     len(result.issues))
        return result

    # -- debounced publication ---------------------------------------------------
    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the publication of ``uri``'s diagnostics after ``delay`` s."""
        self.cancel(uri)
        self._tasks[uri] = asyncio.ensure_future(self._publish_later(uri, delay))

    def cancel(self, uri: str) -> None:
        task = self._tasks.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    async def _publish_later(self, uri: str, delay: float) -> None:
        task = asyncio.current_task()
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            od = self.docs.get(uri)
            if od is not None:
                self._awaiting[uri] = ((od.version, self.generation, od.serial), task)
            r = await self.result(uri)
            early = self._published_early.get(uri)
            if not self._is_current(uri, r.version, r.generation, r.serial):
                return  # a newer edit has its own pending publication
            if early is not None and early[0] is r and early[1] is r.diagnostics:
                return  # published as soon as the worker had them (see _hand_over)
            if self.on_publish is not None:
                self.on_publish(r)
        except (asyncio.CancelledError, NotOpen):
            pass
        except Exception:
            logger.error("chunkseam: publishing diagnostics for %s failed:\n%s", uri,
                         traceback.format_exc())
        finally:
            if self._tasks.get(uri) is task:
                self._tasks.pop(uri, None)
            waiting = self._awaiting.get(uri)
            if waiting is None or waiting[1] is task:  # (no newer publication is waiting)
                self._awaiting.pop(uri, None)
                self._published_early.pop(uri, None)
            self._retired.pop(uri, None)  # the replaced analysis, freed after the publication

    def _hand_over(self, result: Result) -> None:
        """Runs in the worker once ``result``'s diagnostics are built, before
        what only lenses, hovers and views read (:func:`_index`): a publication
        waiting for this version gets them now (on the loop thread, see
        :meth:`_publish_early`). The worker waits for that (at most
        :data:`HAND_OVER_SECONDS`) so the two do not share the interpreter
        meanwhile; the result itself is handed over when complete, as before."""
        loop = self._loop
        if (loop is None or self.on_publish is None or loop.is_closed()
                or threading.get_ident() == self._loop_thread):
            return
        done = threading.Event()

        def publish() -> None:
            try:
                self._publish_early(result)
            except Exception:  # noqa: BLE001 - the complete result is published then
                logger.error("chunkseam: early publication of %s failed:\n%s", result.uri,
                             traceback.format_exc())
            finally:
                done.set()

        try:
            loop.call_soon_threadsafe(publish)
        except RuntimeError:  # the loop closed meanwhile
            return
        done.wait(HAND_OVER_SECONDS)

    def _publish_early(self, result: Result) -> None:
        """Loop thread: publish ``result``'s diagnostics if a publication task
        is waiting for its version and it is still current (see
        :meth:`_hand_over`); that task then does not publish them again."""
        uri = result.uri
        waiting = self._awaiting.get(uri)
        key = (result.version, result.generation, result.serial)
        if (waiting is None or waiting[0] != key or self.on_publish is None
                or not self._is_current(uri, *key)):
            return
        if result.config_errors and self.on_config_errors is not None:
            # reported before the diagnostics, as when the result is complete
            # (which reports them again: the reporting skips what it has said)
            self.on_config_errors(result)
        self.on_publish(result)
        # (only once published: a publication that failed is made again with the complete result)
        self._published_early[uri] = (result, result.diagnostics)

    def debounce_seconds(self, uri: str) -> float:
        r = self.results.get(uri)
        ms = getattr(r.settings, "debounce_ms", None) if r is not None and r.settings is not None else None
        if not isinstance(ms, int) or isinstance(ms, bool) or not 0 <= ms <= _max_debounce():
            ms = _editor_debounce(self.editor)
        return ms / 1000.0

    def shutdown(self) -> None:
        for uri in list(self._tasks):
            self.cancel(uri)
        if self.collector is not None:
            self.collector.close()
        self.executor.shutdown(wait=False, cancel_futures=True)


def _max_debounce() -> int:
    from chunkseam.config.loader import MAX_DEBOUNCE_MS

    return MAX_DEBOUNCE_MS


def _editor_debounce(editor: EditorSettings) -> int:
    from chunkseam.lsp.settings import norm_key

    from chunkseam.config.loader import MAX_DEBOUNCE_MS

    for k, v in editor.overrides().items():
        # the same range the settings validation accepts (it reports the rest)
        if (norm_key(k) == "debounce_ms" and isinstance(v, int) and not isinstance(v, bool)
                and 0 <= v <= MAX_DEBOUNCE_MS):
            return v
    return 300


def _index(result: Result, sizer: Any, previous: Result | None = None) -> None:
    """Issues per chunk, and each chunk's overlap with its predecessor (an
    overlap text the ``previous`` result counted with the same sizer keeps
    its size: the chunks before an edit, and those an edit only moved)."""
    chunks = result.analysis.chunks
    by_chunk: dict[int, list[Any]] = {}
    for issue in result.analysis.issues:
        a, b = issue.chunk, issue.other_chunk
        if b is None or b == a:  # (one chunk: no set to make)
            if a is not None:
                got = by_chunk.get(a)
                if got is None:
                    by_chunk[a] = [issue]
                else:
                    got.append(issue)
            continue
        for idx in {a, b}:
            if idx is not None:
                by_chunk.setdefault(idx, []).append(issue)
    result.issues_by_chunk = by_chunk
    overlap = [0] * len(chunks)
    if sizer is not None:
        known = previous.overlap_counts if previous is not None else None
        known = known[1] if known is not None and known[0] is sizer else {}
        counts: dict[str, int] = {}
        from chunkseam.chunkers.fixed import kept_counts

        # (the fixed chunker counts its overlaps: an edit moves them all)
        kept = kept_counts(result.doc, sizer) or {}
        for i in range(1, len(chunks)):
            prev, cur = chunks[i - 1], chunks[i]
            if cur.start < prev.end:
                end = min(prev.end, cur.end)
                piece = cur.source[cur.start:end]
                n = counts.get(piece)
                if n is None:
                    n = known.get(piece)
                    if n is None:
                        n = kept.get((cur.start, end))
                    counts[piece] = n = sizer.count(piece) if n is None else n
                overlap[i] = n
        result.overlap_counts = (sizer, counts)
    result.overlap_prev = overlap
    paths = [tuple(c.heading_path) for c in chunks]
    if result.doc.kind == "markdown" and any(not p for p in paths):
        try:
            from chunkseam.structure.markdown import structure

            st = structure(result.doc)
            at = st.heading_paths_at([c.start for c in chunks])
            paths = [p or at[k] for k, p in enumerate(paths)]
        except Exception:  # the outline is a nicety; never fail the analysis for it
            logger.debug("chunkseam: no heading paths:\n%s", traceback.format_exc())
    result.heading_paths = paths
    result.unit = getattr(sizer, "unit", None) or result.settings.unit


def _included(path: str, include, config_file, root_path: str | None) -> bool:
    """``include`` patterns are matched as ``chunkseam lint .`` matches them
    when it walks the config file's directory (else the workspace root)."""
    from pathlib import Path

    from chunkseam.config.discover import file_included

    base = Path(config_file).parent if config_file else (Path(root_path) if root_path else None)
    if base is not None:
        try:
            Path(path).relative_to(base)
        except ValueError:
            base = None  # a file outside the project: matched by its name
    try:
        return file_included(path, include, base=base)
    except Exception:  # a bad pattern must not stop the analysis
        logger.warning("chunkseam: include check failed for %s", path, exc_info=True)
        return True


def _excluded(path: str, exclude, config_file, root_path: str | None) -> bool:
    """``exclude`` patterns are relative to the config file's directory (else
    the workspace root), as ``chunkseam lint`` reads them."""
    from pathlib import Path

    from chunkseam.config.discover import file_excluded

    base = Path(config_file).parent if config_file else (Path(root_path) if root_path else None)
    try:
        return file_excluded(path, exclude, base=base, cwd=base)
    except Exception:  # a bad pattern must not stop the analysis
        logger.debug("chunkseam: exclude check failed for %s", path, exc_info=True)
        return False
