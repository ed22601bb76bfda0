"""Server features the VS Code extension relies on, through a real client:
the cap on diagnostics per document and ``chunkseam/compare`` (the buffer's
text, the document's settings)."""

from __future__ import annotations

import asyncio
import re

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, TIMEOUT, as_dict, initialize, open_doc, shutdown, wait_published,
)

DATABASE = FIXTURES / "database.md"


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def _diag(line: int, severity: types.DiagnosticSeverity) -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(types.Position(line, 0), types.Position(line, 1)),
                            message=f"line {line}", severity=severity, code="CS000")


def test_cap_keeps_the_most_severe_in_document_order_and_says_what_is_left_out():
    from chunkseam.lsp.diagnostics import TOO_MANY, cap

    E, W, H = (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning,
               types.DiagnosticSeverity.Hint)
    diags = [_diag(i, H if i % 3 == 0 else (E if i % 5 == 0 else W)) for i in range(30)]
    assert cap(diags, 0) is diags and cap(diags, 30) is diags
    out = cap(diags, 8)
    assert len(out) == 8
    summary, kept = out[0], out[1:]
    assert summary.code == TOO_MANY and summary.range.start == types.Position(0, 0)
    errors = [d for d in diags if d.severity == E]
    assert [d for d in kept if d.severity == E] == errors  # every error is kept
    assert all(d.severity != H for d in kept)  # hints go first
    assert [d.range.start.line for d in kept] == sorted(d.range.start.line for d in kept)
    omitted = len(diags) - len(kept)
    assert f"{omitted:,} more chunkseam issues are not shown" in summary.message
    assert f"of {len(diags):,}" in summary.message and "hints" in summary.message
    assert summary.data["omitted"] == omitted


async def _published(client: LanguageClient, settings: dict) -> list[types.Diagnostic]:
    await initialize(client, settings=settings)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    return list((await wait_published(client, uri, version=1)).diagnostics)


SMALL = dict(FIXED_200, size=40, severity={"CS002": "error"})


async def test_all_diagnostics_without_a_cap(client: LanguageClient):
    diags = await _published(client, dict(SMALL, maxDiagnostics=0))
    assert len(diags) > 6 and not any(d.code == "too-many-issues" for d in diags)


async def test_max_diagnostics_caps_with_a_summary(client: LanguageClient):
    full = await _published(client, dict(SMALL, maxDiagnostics=0))
    start = len(client.published)
    client.set_configuration(dict(SMALL, maxDiagnostics=5), section="chunkseam")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    capped = list((await wait_published(client, DATABASE.as_uri(), after=start)).diagnostics)
    assert len(capped) == 5
    summary = [d for d in capped if d.code == "too-many-issues"]
    assert len(summary) == 1
    assert f"{len(full) - 4:,} more chunkseam issues" in summary[0].message
    n_errors = sum(d.severity == types.DiagnosticSeverity.Error for d in full)
    kept_errors = sum(d.severity == types.DiagnosticSeverity.Error for d in capped)
    assert kept_errors == min(n_errors, 4)


async def test_bad_max_diagnostics_is_reported(client: LanguageClient):
    diags = await _published(client, dict(SMALL, maxDiagnostics="lots"))
    assert len(diags) > 6  # the default cap (1,000) applies
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not any("maxDiagnostics" in m.message for m in client.messages):
        assert asyncio.get_running_loop().time() < deadline, "no message about maxDiagnostics"
        await asyncio.sleep(0.05)


async def _compare(client: LanguageClient, uri: str, strategies=None):
    params = {"textDocument": {"uri": uri}}
    if strategies is not None:
        params["strategies"] = strategies
    return as_dict(await asyncio.wait_for(
        client.protocol.send_request_async("chunkseam/compare", params), TIMEOUT))


async def test_compare_uses_the_buffer_and_the_documents_settings(client: LanguageClient):
    from chunkseam.engine.compare import run_strategy
    from chunkseam.document.text import Document
    from chunkseam.lsp.settings import EditorSettings, resolve_for

    settings = dict(FIXED_200, size=120)
    await initialize(client, settings=settings)
    # unsaved text that is not on disk: the comparison must see it
    text = DATABASE.read_text() + "\nAn unsaved paragraph about zanzibarite ore, long enough to matter.\n"
    uri = DATABASE.as_uri()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    available = (await _compare(client, uri))["available"]
    assert {"fixed", "recursive", "langchain", "sentence", "markdown"} <= set(available)
    answer = await _compare(client, uri, ["fixed", "recursive", "langchain"])
    assert answer["strategies"] == ["fixed", "recursive", "langchain"] and not answer["errors"]
    html = answer["html"]
    assert "zanzibarite" in html
    resolved = resolve_for(str(DATABASE), EditorSettings(workspace=settings)).settings
    for strategy in ("fixed", "recursive"):
        chunks, _ = run_strategy(Document(text, path=str(DATABASE)), resolved, strategy)
        column = re.search(rf'data-strategy="{strategy}"><h2>{strategy}</h2><div class="cs-meta">(\d+) chunks', html)
        assert column and int(column.group(1)) == len(chunks), strategy


@pytest.mark.parametrize("strategies", [["fixed"], [], ["fixed", "nope"]])
async def test_compare_needs_two_known_strategies(client: LanguageClient, strategies):
    await initialize(client, settings=dict(FIXED_200))
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    with pytest.raises(JsonRpcException) as info:
        await _compare(client, uri, strategies)
    assert "at least two" in str(info.value) or "unknown strategy nope" in str(info.value)


async def test_broken_config_file_is_an_error_state_never_a_silent_default(client: LanguageClient, tmp_path):
    (tmp_path / ".git").mkdir()
    config = tmp_path / "chunkseam.toml"
    config.write_text('chunker = "fixed"\nsize = = 3\n')
    doc = tmp_path / "database.md"
    doc.write_text(DATABASE.read_text())
    await initialize(client, root=tmp_path)
    uri = doc.as_uri()
    open_doc(client, uri, doc.read_text())
    published = list((await wait_published(client, uri, version=1)).diagnostics)
    assert [d.code for d in published] == ["internal-error"]
    assert "configuration file cannot be used" in published[0].message
    answer = as_dict(await asyncio.wait_for(client.protocol.send_request_async(
        "chunkseam/chunks", {"textDocument": {"uri": uri}}), TIMEOUT))
    assert answer["chunks"] == [] and "not valid TOML" in answer["error"]
    assert any("not valid TOML" in e for e in answer["configErrors"])
    # the error on the config file itself, where the parser stopped
    on_file = await wait_published(client, config.as_uri())
    assert len(on_file.diagnostics) == 1
    d = on_file.diagnostics[0]
    assert d.severity == types.DiagnosticSeverity.Error and d.range.start.line == 1
    assert "not valid TOML" in d.message
    # fixed: the file's diagnostics go, the document is analysed with it
    config.write_text('chunker = "fixed"\nunit = "chars"\nsize = 200\n')
    start = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
    cleared = await wait_published(client, config.as_uri(), after=start)
    assert list(cleared.diagnostics) == []
    fresh = await wait_published(client, uri, after=start)
    assert all(d.code != "internal-error" for d in fresh.diagnostics)
    answer = as_dict(await asyncio.wait_for(client.protocol.send_request_async(
        "chunkseam/chunks", {"textDocument": {"uri": uri}}), TIMEOUT))
    assert answer["chunker"] == "fixed" and answer["unit"] == "chars" and answer["configErrors"] == []
