"""Helpers for the language-server tests (pytest-lsp, the real server over stdio)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SERVER_COMMAND = [sys.executable, "-m", "chunkseam", "server"]
TIMEOUT = 60.0  # generous: a guard against hangs, not a speed assertion

#: the settings under which tests/fixtures/database.md has mid-word and mid-sentence cuts
FIXED_200 = {"chunker": "fixed", "unit": "chars", "size": 200, "debounceMs": 0}


def _record_diagnostics(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)  # type: ignore[attr-defined]


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_diagnostics
    register_lsp_features(client, features)
    return client


CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


def capabilities(*, encodings: list[str] | None = None, pull: bool = False,
                 configuration: bool = True, markdown: bool = True,
                 hierarchical: bool = True, document_changes: bool = True,
                 resolve: bool = False, show_document: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True)) if show_document else None,
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind(e) for e in encodings] if encodings else None),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
                if markdown else [types.MarkupKind.PlainText]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True, code_description_support=True,
                data_support=True),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix])),
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
                if resolve else None, data_support=resolve or None),
            document_symbol=types.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=hierarchical),
            folding_range=types.FoldingRangeClientCapabilities(),
            code_lens=types.CodeLensClientCapabilities(),
        ),
    )


async def initialize(client: LanguageClient, *, init_options: Any = None, settings: dict | None = None,
                     root: Path | None = None, **caps: Any) -> types.InitializeResult:
    if settings is not None:
        client.set_configuration(settings, section="chunkseam")
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(**caps),
        initialization_options=init_options,
        root_uri=(root or ROOT).as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=(root or ROOT).as_uri(), name="root")],
    ))


def open_doc(client: LanguageClient, uri: str, text: str, *, version: int = 1,
             language_id: str = "markdown") -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=version,
                                             text=text)))


def change_doc(client: LanguageClient, uri: str, version: int,
               changes: list[types.TextDocumentContentChangeEvent]) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=changes))


def replace_all(text: str) -> types.TextDocumentContentChangeWholeDocument:
    return types.TextDocumentContentChangeWholeDocument(text=text)


def edit(sl: int, sc: int, el: int, ec: int, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(sl, sc), types.Position(el, ec)), text=text)


async def wait_published(client: LanguageClient, uri: str, *, version: int | None = None,
                         after: int = 0, timeout: float = TIMEOUT) -> types.PublishDiagnosticsParams:
    """The first publishDiagnostics for ``uri`` (of ``version``) among those
    received after index ``after`` of ``client.published``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for p in client.published[after:]:  # type: ignore[attr-defined]
            if p.uri == uri and (version is None or p.version == version):
                return p
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics for {uri} (version {version}) within {timeout}s; "
                                 f"got {[(p.uri, p.version) for p in client.published]}")
        await asyncio.sleep(0.02)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    """Apply LSP text edits the way an editor does (positions in ``encoding``)."""
    from chunkseam.document.text import Document

    doc = Document(text)
    spans = []
    for e in edits:
        s = doc.position_to_offset(e.range.start.line, e.range.start.character, encoding)
        t = doc.position_to_offset(e.range.end.line, e.range.end.character, encoding)
        spans.append((s, t, e.new_text))
    for s, t, new in sorted(spans, key=lambda x: (x[0], x[1]), reverse=True):
        text = text[:s] + new + text[t:]
    return text


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None
    if action.edit.document_changes:
        out = []
        for dc in action.edit.document_changes:
            assert dc.text_document.uri == uri
            out.extend(dc.edits)
        return out
    return list((action.edit.changes or {}).get(uri, []))


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


async def shutdown(client: LanguageClient) -> None:
    """Shut the server down unless the test already did (or it is gone).

    The fixture's teardown waits for the server process to end, so a server
    that was never initialized (the test skipped or failed before) or that
    ignores the session's end is sent ``exit`` and, failing that, killed:
    one early failure never hangs the suite."""
    server = getattr(client, "_server", None)
    if server is not None and server.returncode is not None:
        return
    if not getattr(client, "_shut_down", False) and client.capabilities is not None:
        try:
            await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
        except Exception:  # the server is broken: end it below
            pass
    if server is None or server.returncode is not None:
        return
    try:
        client.protocol.notify(types.EXIT)
    except Exception:
        pass
    try:
        await asyncio.wait_for(server.wait(), TIMEOUT)
    except asyncio.TimeoutError:
        server.kill()
        await server.wait()


def doc_uri(name: str) -> str:
    """A uri for an in-memory document (no file on disk: no config file applies)."""
    return f"untitled:/{name}" if not name.startswith("/") else Path(name).as_uri()


async def request(client: LanguageClient, method: str, uri: str) -> Any:
    return await asyncio.wait_for(
        client.protocol.send_request_async(method, {"textDocument": {"uri": uri}}), TIMEOUT)


def as_dict(obj: Any) -> Any:
    """pygls answers custom requests with namedtuples; turn them into dicts/lists."""
    if hasattr(obj, "_asdict"):
        return {k: as_dict(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    return obj
