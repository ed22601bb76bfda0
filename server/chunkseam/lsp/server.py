"""The chunkseam language server: ``chunkseam server [--tcp HOST:PORT]``.

Thin handlers over :class:`~chunkseam.lsp.state.DocumentStore` (documents,
analyses, debounce) and one module per feature. Nothing is written to stdout
except the protocol; the server never crashes on a document: a failed
analysis is logged with its traceback and shows as one ``internal-error``
diagnostic.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import os
import sys
import traceback
import uuid
from pathlib import PurePath
from urllib.parse import unquote
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import RPCRequest

from chunkseam.core.version import __version__
from chunkseam.lsp import actions, codelens, custom, diagnostics, hover, log, notebooks, symbols, wire
from chunkseam.lsp.collector import Collector, idle_seconds_from_env
from chunkseam.lsp.log import logger
from chunkseam.lsp.settings import EditorSettings, describe_error
from chunkseam.lsp.state import DocumentStore, NotOpen, Result

CONFIG_FILE_NAMES = (".chunkseam.toml", "chunkseam.toml", "pyproject.toml")
SECTION = "chunkseam"
#: gen-1 collections between two looks at a full collection (Python's default: 10)
GC_THRESHOLD2 = 100
#: seconds a thread holds the GIL while another waits for it (Python: 0.005; see main())
SWITCH_INTERVAL = 0.001


class ChunkseamProtocol(LanguageServerProtocol):
    """pygls' protocol, except that open documents live in the
    :class:`DocumentStore` (pygls' workspace would keep a second copy of every
    text and re-split it into lines on each change), and that the lifecycle
    is enforced: before ``initialize`` a request is answered
    ``ServerNotInitialized`` and a notification dropped; after ``shutdown``
    a request is answered ``InvalidRequest`` (pygls would stay silent and the
    client would wait for ever)."""

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        is_request = isinstance(message, RPCRequest)
        if method is not None and method != types.EXIT:
            if self._shutdown:
                if is_request:
                    wire.answer_error(self, message.id, types.ErrorCodes.InvalidRequest,
                                      f"{method}: the server is shutting down")
                logger.debug("chunkseam: %s after shutdown refused", method)
                return
            if self._workspace is None and method != types.INITIALIZE:
                if is_request:
                    wire.answer_error(self, message.id, types.ErrorCodes.ServerNotInitialized,
                                      f"{method}: the server is not initialized")
                logger.info("chunkseam: %s before initialize dropped", method)
                return
        super().handle_message(message)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # a cancel for a request that has already been answered is routine
        if msg_id not in self._request_futures:
            logger.debug("chunkseam: cancel for request %r, which is no longer pending", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    def notify_json(self, method: str, params_json: str) -> None:
        """Send a notification whose params are already JSON text (see
        :func:`chunkseam.lsp.diagnostics.params_json`), as ``_send_data``
        sends one: the same framing, the same handling of a failed write."""
        if self.writer is None:
            logger.error("chunkseam: no transport to send %s", method)
            return
        body = '{"jsonrpc": "2.0", "method": ' + json.dumps(method) + ', "params": ' + params_json + "}"
        raw = body.encode(self.CHARSET)
        if self._include_headers:
            raw = (f"Content-Length: {len(raw)}\r\n"
                   f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                   ).encode(self.CHARSET) + raw
        try:
            res = self.writer.write(raw)
            if inspect.isawaitable(res):
                asyncio.ensure_future(res)
        except BrokenPipeError:
            logger.exception("chunkseam: sending %s failed (broken pipe)", method)
            raise
        except Exception as error:  # noqa: BLE001 - reported to the client, as pygls does
            logger.exception("chunkseam: sending %s failed", method)
            self._server._report_server_error(error, JsonRpcInternalError)

    def structure_message(self, data: dict[str, Any]):
        if isinstance(data, dict) and data.get("method") == types.TEXT_DOCUMENT_DID_CHANGE:
            _clamp_change_positions(data)
        return super().structure_message(data)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


_UINT_MAX = 2**31 - 1  # LSP's uinteger


def _clamp_change_positions(data: dict[str, Any]) -> None:
    """Clamp the positions of a raw ``didChange`` into LSP's uinteger range
    before it is read: a negative line or character would make the whole
    notification unreadable and dropped, and the server's copy of the text
    would silently diverge from the editor's. Clamped, it is applied like any
    other out-of-range position (see ``Document.position_to_offset``)."""
    params = data.get("params")
    changes = params.get("contentChanges") if isinstance(params, dict) else None
    if not isinstance(changes, list):
        return
    for change in changes:
        rng = change.get("range") if isinstance(change, dict) else None
        if not isinstance(rng, dict):
            continue
        for end in ("start", "end"):
            pos = rng.get(end)
            if not isinstance(pos, dict):
                continue
            for k in ("line", "character"):
                v = pos.get(k)
                if isinstance(v, int) and not isinstance(v, bool):
                    if v < 0 or v > _UINT_MAX:
                        logger.warning("chunkseam: didChange %s.%s = %d clamped", end, k, v)
                        pos[k] = min(max(v, 0), _UINT_MAX)


class ChunkseamServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("chunkseam", __version__, protocol_cls=ChunkseamProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=notebooks.sync_options(),
                         converter_factory=diagnostics.converter)
        #: open notebooks (their cells live in pygls' workspace; their view in the store)
        self.notebooks = notebooks.Notebooks()
        self.store = DocumentStore()
        self.store.on_publish = self.publish
        self.store.on_config_errors = self.report_config_errors
        self.store.on_complete = self.result_complete
        #: documents whose lenses the client asked for (refreshed when their result changes)
        self.lens_uris: set[str] = set()
        self.store.build_diagnostics = self.build_diagnostics
        self.store.head_start_params = self.head_start_params
        self.store.on_head_start = self.announce_head_start
        self.log_handler: log.LspLogHandler | None = None
        self.pull_mode = False
        self.reported: set[str] = set()
        #: config file uri -> the diagnostics published on it
        self.config_diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.shutdown_requested = False

    def build_diagnostics(self, result: Result, encoding: str) -> list[types.Diagnostic]:
        """A result's diagnostics, the JSON of those a publication holds made
        too (not when the client pulls: nothing is published then), the
        objects of those only made after the publication (the store calls
        ``made``, see :func:`chunkseam.lsp.diagnostics.build`)."""
        return diagnostics.build(result, encoding, published=self.store.editor.max_diagnostics()[0],
                                 json_templates=not self.pull_mode, deferred=not self.pull_mode)

    def head_start_params(self, result: Result) -> str | None:
        """The params of ``chunkseam/headStartDiagnostics`` for a head start
        (worker thread): its diagnostics as a publication would hold them; None
        when it has none to show (an error, a file not analysed)."""
        if result.error is not None or result.disabled or result.analysis is None:
            return None
        params = types.PublishDiagnosticsParams(
            uri=result.uri, diagnostics=list(diagnostics.cap(result.diagnostics,
                                                             self.store.editor.max_diagnostics()[0])))
        body = diagnostics.params_json(params, result.diagnostics)
        if body is None:
            body = json.dumps(self.protocol._converter.unstructure(params))
        return body

    def announce_head_start(self, uri: str, params_json: str) -> None:
        """Send a head start's diagnostics to the client that asked for them
        (loop thread; the document has not opened yet)."""
        logger.debug("chunkseam: sending the head start's diagnostics of %s", uri)
        self.protocol.notify_json(custom.HEAD_START_DIAGNOSTICS, params_json)

    # -- transport: pygls' loop with chunkseam's frame reader (see wire.py) -----------
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        from threading import Event

        from pygls.io_ import StdoutWriter

        self._stop_event = Event()
        reader = wire.StdioReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(wire.run(self._stop_event, reader, self.protocol))
        except BrokenPipeError:
            logger.error("chunkseam: the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        from threading import Event

        self._stop_event = stop_event = Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await wire.run(stop_event, wire.StreamReaderAdapter(reader), self.protocol)
            self.shutdown()

        async def serve() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(serve())
        except (KeyboardInterrupt, SystemExit, asyncio.CancelledError):
            pass
        finally:
            self.shutdown()

    # -- capabilities of the client ------------------------------------------------
    def supports(self, path: str, default: Any = None) -> Any:
        try:
            return get_capability(self.client_capabilities, path, default)
        except Exception:
            return default

    @property
    def encoding(self) -> str:
        return self.store.encoding

    # -- errors and messages ---------------------------------------------------------
    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls' default shows a message box for every failed notification; log instead
        logger.error("chunkseam: %s: %s", getattr(source, "__name__", source), error)

    def show_once(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        if message in self.reported:
            return
        self.reported.add(message)
        logger.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_config_errors(self, result: Result) -> None:
        # diagnostics on the config file itself (pushed, in either diagnostic mode)
        for uri, diags in diagnostics.config_file_diagnostics(result.config_errors).items():
            if self.config_diagnostics.get(uri) != diags:
                self.config_diagnostics[uri] = diags
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
        for err in result.config_errors:
            kind = types.MessageType.Warning if getattr(err, "warning", False) else types.MessageType.Error
            self.show_once(describe_error(err), kind)

    def apply_log_level(self) -> None:
        level, problems = self.store.editor.log_level()
        problems = problems + self.store.editor.max_diagnostics()[1]
        if self.log_handler is not None:
            log.set_level(self.log_handler, level if level is not None else log.DEFAULT_LEVEL)
        for p in problems:
            self.show_once(describe_error(p))

    # -- publishing ------------------------------------------------------------------
    def publish(self, result: Result) -> None:
        entry = self.notebooks.open.get(result.uri)
        if entry is not None:
            self.publish_notebook(result, entry)
            return
        if self.pull_mode:
            return
        diagnostics.publish(self, result, self.store.editor.max_diagnostics()[0])

    def publish_notebook(self, result: Result, entry: notebooks.OpenNotebook) -> None:
        """A notebook's diagnostics, pushed per cell (an empty list to a cell
        without any, and to cells no longer there); in pull mode, the client
        is asked to pull again (an edit in one cell can change another's)."""
        if self.pull_mode:
            if self.supports("workspace.diagnostics.refresh_support", False):
                self.workspace_diagnostic_refresh(None)
            return
        limit = self.store.editor.max_diagnostics()[0]
        per_cell = notebooks.split(result, entry, self.encoding, result.diagnostics)
        for uri in entry.published - set(per_cell):
            diagnostics.clear(self, uri)
        for uri, diags in per_cell.items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics.cap(diags, limit)))
        entry.published = set(per_cell)

    def result_complete(self, result: Result) -> None:
        """A new complete result: the client's lenses of that document were
        made from the previous one (a lens request waits for the analysis of
        the version current when it arrives; the writer has often typed on
        since). Ask the client to fetch them again now, rather than when its
        own debounce after the last edit runs out (2-4 s on a 1 MB file)."""
        owner = result.uri
        if owner in self.lens_uris and self.supports("workspace.code_lens.refresh_support", False):
            self.workspace_code_lens_refresh(None)

    def cell_diagnostics(self, result: Result, cell_uri: str) -> list[types.Diagnostic]:
        entry = self.notebooks.open.get(result.uri)
        if entry is None:
            return []
        diags = notebooks.split(result, entry, self.encoding, result.diagnostics).get(cell_uri, [])
        return diagnostics.cap(diags, self.store.editor.max_diagnostics()[0])

    def refresh_all(self) -> None:
        """Configuration changed: re-analyse and re-publish every open document."""
        self.store.bump_generation()
        self.reported.clear()
        for uri in list(self.config_diagnostics):  # re-published by the next analyses if still wrong
            diagnostics.clear(self, uri)
        self.config_diagnostics.clear()
        self.apply_log_level()
        if self.pull_mode:
            if self.supports("workspace.diagnostics.refresh_support", False):
                self.workspace_diagnostic_refresh(None)
        else:
            for uri in list(self.store.docs):
                self.store.schedule(uri, 0)
        if self.supports("workspace.code_lens.refresh_support", False):
            self.workspace_code_lens_refresh(None)

    async def fetch_configuration(self) -> bool:
        """Ask the client for the ``chunkseam`` section, for the window and for
        each workspace folder (``scopeUri``); True if it changed."""
        from chunkseam.lsp.state import uri_to_path

        folders = [(f.uri, uri_to_path(f.uri)) for f in self.workspace.folders.values()]
        folders = [(uri, path) for uri, path in folders if path]
        items = [types.ConfigurationItem(section=SECTION)]
        items += [types.ConfigurationItem(scope_uri=uri, section=SECTION) for uri, _ in folders]
        try:
            values = await asyncio.wait_for(self.workspace_configuration_async(
                types.ConfigurationParams(items=items)), 10)
        except Exception as exc:
            logger.warning("chunkseam: workspace/configuration failed: %s", exc)
            return False
        values = list(values or [])
        section = values[0] if values else None
        if not isinstance(section, dict):
            # null: the client has no such section; the initialization options stand
            return False
        per_folder = {path: values[i + 1] for i, (_, path) in enumerate(folders)
                      if i + 1 < len(values) and isinstance(values[i + 1], dict)}
        return self.store.editor.set_workspace(section, per_folder)

    async def result(self, uri: str, *, first: bool = False) -> Result:
        """The current analysis of ``uri``. Requests waiting for one analysis
        are answered together when it lands; unless ``first``, a request lets
        the others of that moment go ahead, so the diagnostics (``first``) are
        answered before the lenses, symbols and chunk lists of a large
        document are built and sent."""
        try:
            r = await self.store.result(uri)
        except NotOpen:
            raise JsonRpcInvalidParams(f"chunkseam: document is not open: {uri}") from None
        if not first:
            await asyncio.sleep(0)
        return r


server = ChunkseamServer()


# -- lifecycle ---------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def initialize(ls: ChunkseamServer, params: types.InitializeParams) -> None:
    enc = ls.workspace.position_encoding
    ls.store.encoding = str(getattr(enc, "value", enc) or "utf-16")
    ls.store.editor = EditorSettings.from_initialization_options(params.initialization_options)
    ls.store.root_path = ls.workspace.root_path
    if ls.store.root_path is None and params.workspace_folders:
        from chunkseam.lsp.state import uri_to_path

        ls.store.root_path = uri_to_path(params.workspace_folders[0].uri)
    ls.pull_mode = get_capability(params.capabilities, "text_document.diagnostic", None) is not None
    if ls.log_handler is not None:
        ls.log_handler.bind(asyncio.get_event_loop())
    ls.apply_log_level()
    if not get_capability(params.capabilities, "workspace.configuration", False):
        ls.store.config_ready.set()
    logger.info("chunkseam %s: position encoding %s, %s diagnostics, workspace %s", __version__,
                ls.store.encoding, "pull" if ls.pull_mode else "push",
                "trusted" if ls.store.editor.trusted else "not trusted")


@server.feature(types.INITIALIZED)
async def initialized(ls: ChunkseamServer, params: types.InitializedParams) -> None:
    loop = asyncio.get_running_loop()
    loop.run_in_executor(ls.store.executor, _warm_up)
    try:
        if ls.supports("workspace.configuration", False):
            await ls.fetch_configuration()
            ls.apply_log_level()
    finally:
        ls.store.config_ready.set()
    registrations = []
    if ls.supports("workspace.did_change_configuration.dynamic_registration", False):
        registrations.append(types.Registration(
            id=str(uuid.uuid4()), method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
            register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION)))
    if ls.supports("workspace.did_change_watched_files.dynamic_registration", False):
        registrations.append(types.Registration(
            id=str(uuid.uuid4()), method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILE_NAMES])))
    if registrations:
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations))
        except Exception as exc:
            logger.info("chunkseam: dynamic registration refused: %s", exc)


def _warm_up() -> None:
    """Import the engine before the first document. The tokenizer is not
    loaded here: the first analysis that counts tokens loads the one its
    settings name (on a cold start with a big file, loading the default one
    meanwhile only took CPU and the GIL from that analysis, and with
    ``unit = "chars"`` or another encoding it was never used)."""
    try:
        from chunkseam import chunkers
        from chunkseam.engine import analysis  # noqa: F401

        chunkers.names()
        from chunkseam.engine import validate  # noqa: F401
        from chunkseam.structure import markdown  # noqa: F401
    except Exception:
        logger.debug("chunkseam: warm-up failed:\n%s", traceback.format_exc())


@server.feature(types.SHUTDOWN)
def shutdown(ls: ChunkseamServer, params: Any = None) -> None:
    ls.shutdown_requested = True
    ls.store.shutdown()


# -- document sync -----------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: ChunkseamServer, params: types.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    logger.debug("chunkseam: didOpen of %s v%s (%d characters)", td.uri, td.version, len(td.text))
    ls.store.open(td.uri, td.text, td.version, td.language_id)
    ls.store.schedule(td.uri, 0)
    from chunkseam.document.notebook import is_notebook

    if is_notebook(uri=td.uri):
        # Its JSON is not analysed (see state._analysed): say why it stays silent.
        name = PurePath(unquote(td.uri.split("?")[0])).name
        ls.show_once(f"chunkseam: {name} is a Jupyter notebook opened as text (JSON): its chunks and issues "
                     f"belong to its cells, which reach chunkseam only from editors that open notebooks as "
                     f"notebook documents. Run `chunkseam lint {name}` for them (cell:line:column).",
                     types.MessageType.Info)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: ChunkseamServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    try:
        ls.store.change(uri, params.text_document.version, list(params.content_changes))
    except NotOpen:
        logger.warning("chunkseam: didChange for a document that is not open: %s", uri)
        return
    except Exception:
        logger.error("chunkseam: could not apply a change to %s:\n%s", uri, traceback.format_exc())
        return
    ls.store.schedule(uri, ls.store.debounce_seconds(uri))


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: ChunkseamServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if PurePath(uri).name in CONFIG_FILE_NAMES:
        ls.refresh_all()
    elif uri in ls.store.docs:
        ls.store.schedule(uri, 0)  # re-resolves the config; reuses the analysis if unchanged


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: ChunkseamServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.store.close(uri)
    ls.lens_uris.discard(uri)
    if not ls.pull_mode:
        diagnostics.clear(ls, uri)


def _notebook_view(ls: ChunkseamServer, uri: str, *, fresh: bool, delay: float) -> None:
    try:
        doc = ls.notebooks.view(ls.workspace, uri)
    except Exception:
        logger.error("chunkseam: could not read the notebook %s:\n%s", uri, traceback.format_exc())
        return
    if doc is None:
        return
    ls.store.put(uri, doc, fresh=fresh)
    ls.store.schedule(uri, delay)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: ChunkseamServer, params: types.DidOpenNotebookDocumentParams) -> None:
    _notebook_view(ls, params.notebook_document.uri, fresh=True, delay=0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: ChunkseamServer, params: types.DidChangeNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    if uri not in ls.notebooks.open:
        logger.warning("chunkseam: notebookDocument/didChange for a notebook that is not open: %s", uri)
        return
    _notebook_view(ls, uri, fresh=False, delay=ls.store.debounce_seconds(uri))


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: ChunkseamServer, params: types.DidCloseNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    entry = ls.notebooks.close(uri)
    ls.store.close(uri)
    if entry is not None and not ls.pull_mode:
        for cell_uri in sorted(entry.published | {c.uri for c in params.cell_text_documents}):
            diagnostics.clear(ls, cell_uri)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: ChunkseamServer,
                                   params: types.DidChangeConfigurationParams) -> None:
    if ls.supports("workspace.configuration", False):
        await ls.fetch_configuration()
    else:
        settings = params.settings
        section = settings.get(SECTION) if isinstance(settings, dict) else None
        if isinstance(section, dict):  # the client's settings now: they replace the old ones
            ls.store.editor.set_workspace(section)
    # always re-read: a config file may have changed too
    ls.refresh_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_workspace_folders(ls: ChunkseamServer,
                                       params: types.DidChangeWorkspaceFoldersParams) -> None:
    # pygls has updated ls.workspace.folders: ask for the new folders' settings
    if ls.supports("workspace.configuration", False) and await ls.fetch_configuration():
        ls.refresh_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: ChunkseamServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(PurePath(c.uri).name in CONFIG_FILE_NAMES for c in params.changes):
        ls.refresh_all()


# -- features ------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(identifier=SECTION, inter_file_dependencies=False,
                                        workspace_diagnostics=False))
async def pull_diagnostics(ls: ChunkseamServer, params: types.DocumentDiagnosticParams):
    owner = ls.notebooks.owner(params.text_document.uri)
    if owner is not None:  # a notebook cell: its part of the notebook's analysis
        result = await ls.result(owner, first=True)
        if params.previous_result_id is not None and params.previous_result_id == result.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=ls.cell_diagnostics(result, params.text_document.uri), result_id=result.result_id)
    result = await ls.result(params.text_document.uri, first=True)
    return diagnostics.report(result, params.previous_result_id,
                              ls.store.editor.max_diagnostics()[0])


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
async def code_lens(ls: ChunkseamServer, params: types.CodeLensParams):
    owner = ls.notebooks.owner(params.text_document.uri)
    if owner is not None:  # a notebook cell: the lenses of the chunks that start in it
        result = await ls.result(owner)
        ls.lens_uris.add(owner)
        entry = ls.notebooks.open.get(owner)
        return [] if entry is None else notebooks.cell_lenses(result, entry, params.text_document.uri,
                                                              ls.encoding)
    result = await ls.result(params.text_document.uri)
    ls.lens_uris.add(params.text_document.uri)
    return codelens.lenses(result, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: ChunkseamServer, params: types.HoverParams):
    formats = ls.supports("text_document.hover.content_format", None)
    markdown = not formats or types.MarkupKind.Markdown in formats or "markdown" in formats
    owner = ls.notebooks.owner(params.text_document.uri)
    if owner is not None:  # a notebook cell: the hover of the view, moved into the cell
        result = await ls.result(owner)
        entry = ls.notebooks.open.get(owner)
        offset = notebooks.view_position(result, entry, params.text_document.uri, params.position,
                                         ls.encoding) if entry is not None else None
        if offset is None:
            return None
        return notebooks.cell_hover(result, entry, params.text_document.uri,
                                    hover.hover(result, offset, ls.encoding, markdown=markdown), ls.encoding)
    result = await ls.result(params.text_document.uri)
    doc = result.doc
    offset = doc.position_to_offset(params.position.line, params.position.character, ls.encoding)
    return hover.hover(result, offset, ls.encoding, markdown=markdown)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                                           actions.FIX_ALL],
                                        resolve_provider=True))
async def code_action(ls: ChunkseamServer, params: types.CodeActionParams):
    if ls.notebooks.owner(params.text_document.uri) is not None:
        return []  # the quick fixes edit the notebook's view, not a cell
    result = await ls.result(params.text_document.uri)
    doc_changes = bool(ls.supports("workspace.workspace_edit.document_changes", False))
    props = ls.supports("text_document.code_action.resolve_support.properties", None) or []
    # the fixes are verified by re-simulation: off the event loop
    return await asyncio.get_running_loop().run_in_executor(
        ls.store.executor, lambda: actions.code_actions(result, params, ls.encoding,
                                                        document_changes=doc_changes,
                                                        lazy="edit" in props))


@server.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: ChunkseamServer, action: types.CodeAction):
    data = action.data if isinstance(action.data, dict) else {}
    uri = data.get("uri")
    if not isinstance(uri, str) or uri not in ls.store.docs:
        return action
    result = await ls.result(uri)
    doc_changes = bool(ls.supports("workspace.workspace_edit.document_changes", False))
    return actions.resolve(result, action, ls.encoding, doc_changes)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: ChunkseamServer, params: types.DocumentSymbolParams):
    if ls.notebooks.owner(params.text_document.uri) is not None:
        return []
    result = await ls.result(params.text_document.uri)
    hierarchical = bool(ls.supports(
        "text_document.document_symbol.hierarchical_document_symbol_support", False))
    return symbols.document_symbols(result, ls.encoding, hierarchical=hierarchical)


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: ChunkseamServer, params: types.WorkspaceSymbolParams):
    """The chunks of the open documents (their current analyses; notebooks,
    whose chunks live in cells, are left out), filtered by the query."""
    results = []
    for uri in list(ls.store.docs):
        if uri in ls.notebooks.open:
            continue
        try:
            results.append(await ls.result(uri))
        except JsonRpcInvalidParams:  # closed while the others were awaited
            continue
    return symbols.workspace_symbols(results, params.query, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
async def folding_range(ls: ChunkseamServer, params: types.FoldingRangeParams):
    if ls.notebooks.owner(params.text_document.uri) is not None:
        return []
    result = await ls.result(params.text_document.uri)
    return symbols.folding_ranges(result)


@server.command(codelens.SHOW_CHUNK)
async def show_chunk(ls: ChunkseamServer, *args: Any) -> dict[str, Any]:
    show = False
    if len(args) == 1 and isinstance(args[0], dict):  # {"uri": …, "index": …, "show": …}
        uri, index, show = args[0].get("uri"), args[0].get("index"), bool(args[0].get("show"))
    elif len(args) >= 2:
        uri, index = args[0], args[1]
        show = len(args) >= 3 and isinstance(args[2], dict) and bool(args[2].get("show"))
    else:
        raise JsonRpcInvalidParams("chunkseam.showChunk expects [uri, chunk index]")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams("chunkseam.showChunk expects [uri, chunk index]")
    result = await ls.result(uri)
    try:
        info = codelens.show_chunk(result, index, ls.encoding)
    except IndexError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    if show:
        await _display_chunk(ls, result, info)
    return info


async def _display_chunk(ls: ChunkseamServer, result: Result, info: dict[str, Any]) -> None:
    """Show a chunk in a client that does not display the command's answer."""
    if ls.supports("window.show_document.support", False):
        try:
            path = codelens.write_preview(result, info)
            from pygls.uris import from_fs_path

            answer = await ls.window_show_document_async(types.ShowDocumentParams(
                uri=from_fs_path(path) or path, take_focus=True))
            if answer is None or getattr(answer, "success", True):
                return
        except Exception as exc:
            logger.info("chunkseam: could not show the chunk as a document: %s", exc)
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info,
                                                   message=codelens.message_text(info)))


@server.feature(custom.CHUNKS)
async def chunks_request(ls: ChunkseamServer, params: Any) -> dict[str, Any]:
    uri = custom.uri_of(params)
    if uri is None:
        raise JsonRpcInvalidParams("chunkseam/chunks expects {textDocument: {uri}}")
    owner = ls.notebooks.owner(uri)
    if owner is not None:  # a notebook cell: the notebook's chunks that hold some of it, in the cell
        result = await ls.result(owner)
        entry = ls.notebooks.open.get(owner)
        answer = custom.chunks(result, ls.encoding)
        return answer if entry is None else notebooks.cell_chunks(result, entry, uri, answer, ls.encoding)
    return custom.chunks(await ls.result(uri), ls.encoding)


@server.feature(custom.STATS)
async def stats_request(ls: ChunkseamServer, params: Any) -> dict[str, Any]:
    uri = custom.uri_of(params)
    if uri is None:
        raise JsonRpcInvalidParams("chunkseam/stats expects {textDocument: {uri}}")
    owner = ls.notebooks.owner(uri)  # a notebook cell: the notebook's figures
    return custom.stats(await ls.result(owner or uri))


@server.feature(custom.WILL_OPEN)
def will_open(ls: ChunkseamServer, params: Any) -> None:
    uri = custom.uri_of(params)
    if uri is not None and ls.notebooks.owner(uri) is None and uri not in ls.notebooks.open:
        ls.store.prefetch(uri, announce=custom.wants_diagnostics(params))


@server.feature(custom.COMPARE)
async def compare_request(ls: ChunkseamServer, params: Any) -> dict[str, Any]:
    uri = custom.uri_of(params)
    if uri is None:
        raise JsonRpcInvalidParams("chunkseam/compare expects {textDocument: {uri}, strategies: [...]}")
    try:
        strategies = custom.strategies_of(params)
    except ValueError as exc:
        raise JsonRpcInvalidParams(f"chunkseam/compare: {exc}") from None
    result = await ls.result(ls.notebooks.owner(uri) or uri)  # a notebook cell: the whole notebook
    try:
        return await asyncio.get_running_loop().run_in_executor(
            ls.store.executor, custom.compare, result, strategies)
    except ValueError as exc:
        raise JsonRpcInvalidParams(f"chunkseam/compare: {exc}") from None


# -- entry point -------------------------------------------------------------------------------


def _parse_tcp(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def _protocol_stdout():
    """A private handle on stdout for the protocol; stray output goes to stderr.

    File descriptor 1 is pointed at stderr, so that neither a ``print()`` nor
    a native library writing to fd 1 can corrupt the JSON-RPC stream."""
    try:
        fd = os.dup(sys.stdout.fileno())
        out = os.fdopen(fd, "wb")
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptors (embedded)
        out = sys.stdout.buffer
    sys.stdout = sys.stderr
    return out


def main(argv: list[str] | None = None) -> int:
    """``chunkseam server [--tcp HOST:PORT] [--log-file PATH]``; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "server":
        argv = argv[1:]
    parser = argparse.ArgumentParser(
        prog="chunkseam server",
        description="Start the chunkseam language server (stdio by default).")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", type=_parse_tcp,
                        help="listen on a TCP socket instead (for debugging)")
    parser.add_argument("--log-file", metavar="PATH", help="also write a debug log to PATH")
    args = parser.parse_args(argv)

    handler = log.setup(server, args.log_file)
    server.log_handler = handler
    # the modules and caches loaded so far live as long as the process: move
    # them out of the collector's view so full collections during editing
    # only walk what each analysis allocates
    gc.collect()
    gc.freeze()
    # a full collection walks every live object (a 1 MB document's structure,
    # chunks, issues and diagnostics: ~150k objects, 50-100 ms); with the
    # default thresholds the objects one edit's analysis leaves behind trigger
    # one per edit. Considered every 10th time instead: the engine keeps no
    # reference cycles (old versions are freed by reference counting, see
    # tests/chunkers/test_incremental.py), so little waits for the collector meanwhile.
    gc.set_threshold(700, 10, GC_THRESHOLD2)
    # and while analyses run, no collections at all: what they keep is frozen
    # when they end, the rest collected when the server is idle (see collector)
    server.store.collector = Collector(idle_seconds_from_env())
    # while an analysis thread runs, the frame reader (blocking reads in a pool
    # thread) and the event loop take the GIL back after every read of the
    # pipe: each waits up to the switch interval. At Python's 5 ms a 1 MB
    # didOpen written in pipe-sized pieces took ~100 ms to read beside a busy
    # thread, ~10 ms at 1 ms (benchmarks/bench_gil_read.py). The interval only
    # matters when a second thread wants the GIL, so lone analyses lose nothing.
    sys.setswitchinterval(SWITCH_INTERVAL)
    if args.tcp:
        host, port = args.tcp
        server.start_tcp(host, port)
    else:
        stdin, stdout = sys.stdin.buffer, _protocol_stdout()
        try:
            server.start_io(stdin, stdout)
        finally:
            sys.stdout = sys.__stdout__
    return 0 if server.shutdown_requested else 1
