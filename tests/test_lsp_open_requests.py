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
