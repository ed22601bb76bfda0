"""Diagnostics through a real client: push on open/change/save/close, versions,
stale results, pull diagnostics, the fields a diagnostic carries."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, change_doc, edit, initialize, open_doc, replace_all, request,
    shutdown, wait_published,
)

DATABASE = FIXTURES / "database.md"


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def codes(diags) -> set[str]:
    return {d.code for d in diags}


async def test_open_publishes_versioned_diagnostics(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    text = DATABASE.read_text()
    open_doc(client, uri, text, version=7)
    published = await wait_published(client, uri)
    assert published.version == 7
    diags = published.diagnostics
    # "configuring conne|ction strings" and "from the |project root"
    assert {"CS001", "CS002"} <= codes(diags), [(d.code, d.message) for d in diags]
    lines = text.split("\n")
    for d in diags:
        assert d.source == "chunkseam"
        assert d.code_description is not None and d.code in d.code_description.href
        assert isinstance(d.data, dict) and d.data["code"] == d.code
        assert d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning,
                              types.DiagnosticSeverity.Information, types.DiagnosticSeverity.Hint)
        for pos in (d.range.start, d.range.end):
            assert 0 <= pos.line < len(lines) and 0 <= pos.character <= len(lines[pos.line])
    mid_word = next(d for d in diags if d.code == "CS001")
    # the squiggle is on the cut word, and the other side of the cut is related information
    assert mid_word.range.start.line == 4 and "conne" in text.split("\n")[4]
    assert mid_word.data["cut"] == 200
    related = [d for d in diags if d.related_information]
    assert related, "cuts point at the other side of the cut"
    for d in related:
        for info in d.related_information:
            assert info.location.uri == uri and info.message


async def test_change_republishes_and_never_publishes_stale_versions(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    text = DATABASE.read_text()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    start = len(client.published)
    # twenty quick edits with no debounce: whatever gets published must be in
    # version order, and the last one must be for the final version
    for v in range(2, 22):
        change_doc(client, uri, v, [edit(0, 0, 0, 0, "x")])
    final = await wait_published(client, uri, version=21, after=start)
    versions = [p.version for p in client.published[start:] if p.uri == uri]
    assert versions == sorted(versions) and len(set(versions)) == len(versions), versions
    assert versions[-1] == 21
    # the document the server analysed is the edited one
    chunks = await request(client, "chunkseam/chunks", uri)
    assert chunks.version == 21
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="chunkseam.showChunk", arguments=[uri, 0]))
    assert shown["text"] == ("x" * 20 + text)[:200]
    assert final.diagnostics is not None


async def test_debounce_coalesces_a_burst_of_edits(client: LanguageClient):
    settings = dict(FIXED_200, debounceMs=1500)
    await initialize(client, init_options={"settings": settings})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    start = len(client.published)
    for v in range(2, 7):  # sent back to back, well inside the debounce window
        change_doc(client, uri, v, [edit(1, 0, 1, 0, "y")])
    await wait_published(client, uri, version=6, after=start)
    assert [p.version for p in client.published[start:] if p.uri == uri] == [6]


async def test_close_clears_diagnostics(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    first = await wait_published(client, uri, version=1)
    assert first.diagnostics
    start = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    cleared = await wait_published(client, uri, after=start)
    assert list(cleared.diagnostics) == []
    # and the document is gone: requests about it are errors now
    with pytest.raises(Exception):
        await request(client, "chunkseam/chunks", uri)


async def test_save_publishes_again(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    first = await wait_published(client, uri, version=1)
    start = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    again = await wait_published(client, uri, version=1, after=start)
    assert [(d.code, d.range) for d in again.diagnostics] == [(d.code, d.range) for d in first.diagnostics]


async def test_edit_that_fixes_the_text_clears_its_diagnostics(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = "untitled:/clean.md"
    open_doc(client, uri, DATABASE.read_text())
    assert (await wait_published(client, uri, version=1)).diagnostics
    # a document shorter than one chunk has no cuts at all
    change_doc(client, uri, 2, [replace_all("# Short\n\nOne chunk only.\n")])
    assert list((await wait_published(client, uri, version=2)).diagnostics) == []


async def test_python_and_plain_text_documents_are_routed(client: LanguageClient):
    await initialize(client, init_options={"settings": {"debounceMs": 0, "size": 40}})
    py = "untitled:/handler.py"
    source = "".join(f"def handler_{i}(event):\n    total = compute(event, {i})\n"
                     f"    return total * {i}\n\n\n" for i in range(12))
    open_doc(client, py, source, language_id="python")
    txt = "untitled:/notes.txt"
    prose = " ".join(f"Sentence number {i} says something about the system." for i in range(40))
    open_doc(client, txt, prose, language_id="plaintext")
    other = "untitled:/script.lua"
    open_doc(client, other, "function f() return 1 end\n", language_id="lua")
    for uri in (py, txt):
        await wait_published(client, uri, version=1)
    py_chunks = await request(client, "chunkseam/chunks", py)
    txt_chunks = await request(client, "chunkseam/chunks", txt)
    assert py_chunks.chunker == "code" and len(py_chunks.chunks) > 1
    assert txt_chunks.chunker == "sentence" and len(txt_chunks.chunks) > 1
    # code in languages without a tree-sitter structure is left alone
    lua = await request(client, "chunkseam/chunks", other)
    assert lua.enabled is False and list(lua.chunks) == []


async def test_pull_diagnostics(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200}, pull=True)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert report.kind == "full"
    assert {"CS001", "CS002"} <= codes(report.items)
    assert report.result_id
    same = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
    assert same.kind == "unchanged" and same.result_id == report.result_id
    change_doc(client, uri, 2, [replace_all("# Short\n\nOne chunk only.\n")])
    after = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
    assert after.kind == "full" and list(after.items) == [] and after.result_id != report.result_id
    # a client that pulls is not pushed to as well (it would show every issue twice)
    await asyncio.sleep(0.3)
    assert not [p for p in client.published if p.uri == uri]
