"""An editor opening a document asks for much at once: the server analyses it once.

VS Code sends, with ``didOpen``, the extension's ``chunkseam/chunks`` and
``chunkseam/stats``, code actions at the cursor, document symbols twice,
folding ranges, the pulled diagnostics and the code lenses. Every one of them
needs the analysis of the new version: they wait for the one in flight, none
starts its own (a second analysis of a large document would compete with the
first for the interpreter and delay the diagnostics). Analyses are counted
from the server's debug log ("analysed URI vN in … ms", "reused the analysis
of URI vN for vM")."""

from __future__ import annotations

import asyncio
import re

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, TIMEOUT, as_dict, initialize, open_doc, request, shutdown,
    wait_published,
)

DATABASE = FIXTURES / "database.md"
TD = types.TextDocumentIdentifier


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def analyses(client: LanguageClient, uri: str) -> list[str]:
    """The versions of ``uri`` the server's log says it analysed, or for which
    it re-used an earlier analysis (a same-text re-run, still a queued job)."""
    pattern = re.compile(r"(?:analysed|reused the analysis of) (\S+) v(\d+)")
    out = []
    for m in client.log_messages:
        found = pattern.search(m.message)
        if found and found.group(1) == uri:
            out.append(found.group(2))
    return out


def burst(client: LanguageClient, uri: str, *, pull: bool) -> list:
    """What the workbench asks while a document opens, sent without waiting."""
    td = TD(uri)
    near_top = types.Range(types.Position(0, 0), types.Position(6, 0))
    sent = []
    for _ in range(2):
        sent.append(client.protocol.send_request_async("chunkseam/chunks", {"textDocument": {"uri": uri}}))
        sent.append(client.protocol.send_request_async("chunkseam/stats", {"textDocument": {"uri": uri}}))
        sent.append(client.text_document_code_action_async(types.CodeActionParams(
            td, near_top, types.CodeActionContext(diagnostics=[]))))
        sent.append(client.text_document_document_symbol_async(types.DocumentSymbolParams(td)))
    sent.append(client.text_document_folding_range_async(types.FoldingRangeParams(td)))
    if pull:
        sent.append(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(td)))
    sent.append(client.text_document_code_lens_async(types.CodeLensParams(td)))
    return sent


@pytest.mark.parametrize("pull", [True, False], ids=["pull", "push"])
async def test_requests_that_arrive_with_did_open_wait_for_its_one_analysis(client: LanguageClient, pull):
    # 40 copies of the fixture: every request has chunks, issues and fixes to compute
    text = "\n".join([DATABASE.read_text()] * 40)
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")}, pull=pull)
    uri = (DATABASE.parent / "opened-with-requests.md").as_uri()
    open_doc(client, uri, text)
    answers = await asyncio.wait_for(asyncio.gather(*burst(client, uri, pull=pull)), TIMEOUT)
    if not pull:
        await wait_published(client, uri, version=1)
    # all answers are about the opened version and its issues
    chunks, stats = as_dict(answers[0]), as_dict(answers[1])
    assert chunks["version"] == 1 and len(chunks["chunks"]) > 40
    assert stats["issues"] > 0
    assert answers[2], "a quick fix for the cut near the top"
    # a further request, answered after every log line the analysis wrote
    await request(client, "chunkseam/stats", uri)
    assert analyses(client, uri) == ["1"]

    # asked again for the same version: answered from the stored analysis
    again = await asyncio.wait_for(asyncio.gather(*burst(client, uri, pull=pull)), TIMEOUT)
    assert as_dict(again[0]) == chunks
    await request(client, "chunkseam/stats", uri)
    assert analyses(client, uri) == ["1"]


async def _log_says(client: LanguageClient, needle: str) -> None:
    async def wait() -> None:
        while not any(needle in m.message for m in client.log_messages):
            await asyncio.sleep(0.02)
    await asyncio.wait_for(wait(), TIMEOUT)


def _wire_items(report: object) -> list:
    """A pulled report's diagnostics, without what names the file they are in."""
    items = default_converter().unstructure(report)["items"]
    for d in items:
        for r in d.get("relatedInformation") or []:
            r["location"].pop("uri")
    return items


async def test_a_file_about_to_open_is_analysed_from_disk_and_the_open_takes_it_over(
        client: LanguageClient, tmp_path):
    """``chunkseam/willOpen`` (an editor's tab is there, its text not yet
    loaded): the server analyses the file from disk; the didOpen with the
    same text takes that analysis over (no second one), and its diagnostics
    are those of a document opened without the head start."""
    text = "\n".join([DATABASE.read_text()] * 40)
    ahead, cold = tmp_path / "ahead.md", tmp_path / "cold.md"
    for f in (ahead, cold):
        f.write_text(text, encoding="utf-8")
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")}, pull=True)
    uri = ahead.as_uri()
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": uri}})
    await _log_says(client, f"analysed {uri} from disk ahead of its opening")
    open_doc(client, uri, text)
    report = await asyncio.wait_for(client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(TD(uri))), TIMEOUT)
    await request(client, "chunkseam/stats", uri)
    assert analyses(client, uri) == [], "the open analysed the text again"
    taken = [m.message for m in client.log_messages if f"reused the analysis of {uri} v(from disk) for v1" in m.message]
    assert taken, "no takeover in the log"
    # the server's own clock, for the workbench's timeline (the e2e prints it): its
    # part of the wait between the didOpen and the diagnostics
    assert re.search(r"for v1 in \d+\.\d ms \(\d+ ms after its didOpen was read\)$", taken[0]), taken[0]

    open_doc(client, cold.as_uri(), text)
    expected = await asyncio.wait_for(client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(TD(cold.as_uri()))), TIMEOUT)
    assert analyses(client, cold.as_uri()) == ["1"]
    assert len(_wire_items(report)) > 40
    assert _wire_items(report) == _wire_items(expected)
    assert {d["data"]["version"] for d in _wire_items(report) if "version" in (d.get("data") or {})} == {1}


async def test_a_file_opened_with_other_text_than_on_disk_is_analysed_as_opened(client: LanguageClient, tmp_path):
    """The head start is of the file on disk: an editor that opens other text
    (unsaved changes restored, another encoding) gets the analysis of its text."""
    on_disk = "\n".join([DATABASE.read_text()] * 10)
    opened = on_disk.replace("database", "datastore")
    assert opened != on_disk
    path = tmp_path / "changed.md"
    path.write_text(on_disk, encoding="utf-8")
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")}, pull=True)
    uri = path.as_uri()
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": uri}})
    await _log_says(client, f"analysed {uri} from disk ahead of its opening")
    open_doc(client, uri, opened)
    report = await asyncio.wait_for(client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(TD(uri))), TIMEOUT)
    assert analyses(client, uri) == ["1"]
    other = (tmp_path / "other.md").as_uri()  # (no file: only the opened text)
    open_doc(client, other, opened)
    expected = await asyncio.wait_for(client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(TD(other))), TIMEOUT)
    assert _wire_items(report) == _wire_items(expected)
    assert any("datastore" in d["message"] for d in _wire_items(report))


async def test_will_open_for_what_cannot_be_read_changes_nothing(client: LanguageClient, tmp_path):
    """A missing file, a directory, a file that is not UTF-8, a uri that is not
    a file, a document already open: no head start, no error, the server answers."""
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")}, pull=True)
    (tmp_path / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    opened = (tmp_path / "open.md").as_uri()
    open_doc(client, opened, "# Open\n\nAlready open.\n")
    for uri in [(tmp_path / "missing.md").as_uri(), tmp_path.as_uri(), (tmp_path / "latin1.md").as_uri(),
                "untitled:Untitled-1", opened, "file:///dev/zero"]:
        client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": uri}})
    client.protocol.notify("chunkseam/willOpen", {"no": "uri"})
    stats = as_dict(await request(client, "chunkseam/stats", opened))
    assert stats["chunks"] >= 1
    assert not any("from disk ahead" in m.message for m in client.log_messages)
    assert analyses(client, opened) == ["1"]


def _head_starts(client: LanguageClient) -> list:
    """The ``chunkseam/headStartDiagnostics`` the client has received (params as JSON)."""
    got = getattr(client, "head_starts", None)
    if got is None:
        got = client.head_starts = []  # type: ignore[attr-defined]

        @client.feature("chunkseam/headStartDiagnostics")
        def on_head_start(_client: object, params: object) -> None:
            got.append(_plain(params))
    return got


def _plain(value: object) -> object:
    """Params of a method pygls has no type for, as plain JSON values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_asdict"):
        return [_plain(v) for v in value]
    if hasattr(value, "_asdict"):  # (pygls' namedtuple for an object)
        return {k: _plain(v) for k, v in value._asdict().items()}
    return value


def _shown(items: list) -> list:
    """What an editor shows of diagnostics (as JSON): range, severity, code, message."""
    return [(d["range"], d.get("severity"), d.get("code"), d["message"]) for d in items]


@pytest.mark.parametrize("pull", [True, False], ids=["pull", "push"])
async def test_a_head_start_asked_with_diagnostics_sends_them_before_the_document_opens(
        client: LanguageClient, tmp_path, pull):
    """``chunkseam/willOpen`` with ``"diagnostics": true``: once the file is
    analysed from disk (and not open yet), the server sends its diagnostics
    (``chunkseam/headStartDiagnostics``), and they are what the opened
    document then gets, capped the same way."""
    text = "\n".join([DATABASE.read_text()] * 40)
    path = tmp_path / "early.md"
    path.write_text(text, encoding="utf-8")
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug", maxDiagnostics=50)},
                     pull=pull)
    received = _head_starts(client)
    uri = path.as_uri()
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": uri}, "diagnostics": True})

    async def announced() -> None:
        while not received:
            await asyncio.sleep(0.02)
    await asyncio.wait_for(announced(), TIMEOUT)
    early = received[0]
    assert early["uri"] == uri and "version" not in early
    assert len(early["diagnostics"]) == 50  # 49 and the summary of the rest, as published
    open_doc(client, uri, text)
    if pull:
        report = await asyncio.wait_for(client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(TD(uri))), TIMEOUT)
        items = default_converter().unstructure(report)["items"]
    else:
        items = default_converter().unstructure(await wait_published(client, uri, version=1))["diagnostics"]
    assert _shown(early["diagnostics"]) == _shown(items)
    assert len(received) == 1


async def test_a_head_start_sends_no_diagnostics_unless_asked_or_for_an_open_document(
        client: LanguageClient, tmp_path):
    """Without ``"diagnostics": true`` nothing is sent; nor for a document
    already open (no head start: its own diagnostics are there)."""
    text = "\n".join([DATABASE.read_text()] * 10)
    quiet, opened = tmp_path / "quiet.md", tmp_path / "opened.md"
    for f in (quiet, opened):
        f.write_text(text, encoding="utf-8")
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")}, pull=False)
    received = _head_starts(client)
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": quiet.as_uri()}})
    await _log_says(client, f"analysed {quiet.as_uri()} from disk ahead of its opening")
    open_doc(client, quiet.as_uri(), text)
    await wait_published(client, quiet.as_uri(), version=1)
    # the head start was taken over: had it been announced, that came before
    assert any(f"reused the analysis of {quiet.as_uri()} v(from disk)" in m.message for m in client.log_messages)
    open_doc(client, opened.as_uri(), text)
    await wait_published(client, opened.as_uri(), version=1)
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": opened.as_uri()}, "diagnostics": True})
    # a flag that is not `true` is no request for them (the head start still runs)
    odd = tmp_path / "odd.md"
    odd.write_text(text, encoding="utf-8")
    client.protocol.notify("chunkseam/willOpen", {"textDocument": {"uri": odd.as_uri()}, "diagnostics": "yes"})
    await _log_says(client, f"analysed {odd.as_uri()} from disk ahead of its opening")
    open_doc(client, odd.as_uri(), text)
    await wait_published(client, odd.as_uri(), version=1)
    await request(client, "chunkseam/stats", opened.as_uri())  # (after the willOpens, in order)
    assert not any(f"{opened.as_uri()} is about to open" in m.message for m in client.log_messages)
    assert any(f"reused the analysis of {odd.as_uri()} v(from disk)" in m.message for m in client.log_messages)
    assert received == []
