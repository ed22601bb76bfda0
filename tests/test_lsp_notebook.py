"""The language server on LSP notebook documents: a Jupyter notebook's cells
analysed as one view, diagnostics pushed and pulled per cell URI."""

from __future__ import annotations

import asyncio

import pytest_lsp
from chunkseam.analysis import analyze
from chunkseam.document import Document
from chunkseam.notebook import Cell, build_view
from chunkseam.settings import Settings
from lsp_support import (
    CONFIG,
    FIXED_200,
    ROOT,
    TIMEOUT,
    capabilities,
    shutdown,
    wait_published,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

NB = "untitled:/rag.ipynb"
PROSE = ("# Retrieval\n\nChunking splits each document into passages before they are embedded. "
         "A cut in the middle of a sentence leaves two halves that no longer say what the whole "
         "sentence said, and a retriever that finds one half misses the rest of the answer.")
CODE = "\n".join(f"chunks_{i} = splitter.split(documents[{i}], size=200, overlap=20)" for i in range(6))
CELLS = [("markdown", PROSE), ("python", CODE), ("markdown", "That is all.")]


async def initialize(client: LanguageClient, *, settings: dict, pull: bool = False) -> types.InitializeResult:
    """Initialize as a client with notebook document sync (as VS Code is)."""
    caps = capabilities(pull=pull)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities())
    return await client.initialize_session(types.InitializeParams(
        capabilities=caps, initialization_options={"settings": settings}, root_uri=ROOT.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=ROOT.as_uri(), name="root")]))


def cell_uri(i: int) -> str:
    return f"vscode-notebook-cell:/rag.ipynb#W{i}sdW50aXRsZWQ%3D"


def open_notebook(client: LanguageClient, cells=CELLS, version: int = 1) -> None:
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=NB, notebook_type="jupyter-notebook", version=version,
            cells=[types.NotebookCell(kind=types.NotebookCellKind.Markup if lang == "markdown"
                                      else types.NotebookCellKind.Code, document=cell_uri(i))
                   for i, (lang, _) in enumerate(cells)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell_uri(i), language_id=lang, version=1, text=text)
                             for i, (lang, text) in enumerate(cells)]))


FIXED = Settings(chunker="fixed", unit="chars", size=200)  # FIXED_200 as engine settings


def expected(cells=CELLS, settings=FIXED):
    """The issues of the view per cell, from the engine: (cell, code, start in the cell)."""
    view, nbmap = build_view([Cell("markdown" if lang == "markdown" else "code", text, lang)
                              for lang, text in cells])
    doc = Document(view, kind="markdown")
    doc.notebook = nbmap
    return sorted((nbmap.to_cell(i.start)[0], i.code, nbmap.to_cell(i.start)[1])
                  for i in analyze(doc, settings).issues)


async def published_for(client: LanguageClient, uris: list[str], after: int) -> dict[str, list]:
    out = {}
    for u in uris:
        out[u] = list((await wait_published(client, u, after=after)).diagnostics)
    return out


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def offset_in(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: pos.line]) + pos.character


async def test_notebook_sync_is_advertised_and_diagnostics_land_on_cells(client: LanguageClient):
    result = await initialize(client, settings=FIXED_200)
    sync = result.capabilities.notebook_document_sync
    assert sync is not None
    assert [f.notebook.notebook_type for f in sync.notebook_selector] == ["jupyter-notebook"]
    open_notebook(client)
    got = await published_for(client, [cell_uri(i) for i in range(3)], 0)
    want = expected()
    assert {c for c, _, _ in want} >= {0, 1}  # the fixture has cuts in the prose and in the code
    seen = sorted((int(u.split("#W")[1][0]), d.code, offset_in(CELLS[int(u.split("#W")[1][0])][1], d.range.start))
                  for u, diags in got.items() for d in diags)
    assert seen == want
    prose = got[cell_uri(0)]
    assert any(d.code == "CS002" for d in prose)
    for d in prose:  # ranges are in the cell's own lines
        assert d.range.start.line >= 2 and d.range.end.line <= PROSE.count("\n")
    code = got[cell_uri(1)]
    assert any(d.code == "CS003" for d in code), [(d.code, d.message) for d in code]
    for d in code:
        assert 0 <= d.range.start.line <= CODE.count("\n")
        assert d.data["cell"] == 2 and d.data["notebook"] == NB
    assert got[cell_uri(2)] == []  # a cell without issues gets an empty list


async def test_editing_a_cell_updates_its_diagnostics_and_closing_clears_them(client: LanguageClient):
    await initialize(client, settings=FIXED_200)
    open_notebook(client)
    got = await published_for(client, [cell_uri(i) for i in range(3)], 0)
    assert got[cell_uri(0)]
    after = len(client.published)
    # the prose cell becomes one short sentence: no cut in it any more
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=NB, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            text_content=[types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell_uri(0), version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text="# Retrieval\n\nShort.")])]))))
    got = await published_for(client, [cell_uri(i) for i in range(3)], after)
    new_cells = [("markdown", "# Retrieval\n\nShort."), *CELLS[1:]]
    assert not any(d.code == "CS002" for d in got[cell_uri(0)])
    assert sorted((int(u.split("#W")[1][0]), d.code) for u, diags in got.items() for d in diags) == [
        (c, code) for c, code, _ in expected(new_cells)]
    # a cell removed: its diagnostics are cleared
    after = len(client.published)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=NB, version=3),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=1, delete_count=1),
                did_close=[types.TextDocumentIdentifier(uri=cell_uri(1))])))))
    got = await published_for(client, [cell_uri(1)], after)
    assert got[cell_uri(1)] == []
    after = len(client.published)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=NB),
        cell_text_documents=[types.TextDocumentIdentifier(uri=cell_uri(i)) for i in (0, 2)]))
    got = await published_for(client, [cell_uri(0), cell_uri(2)], after)
    assert got == {cell_uri(0): [], cell_uri(2): []}


async def test_pulled_diagnostics_and_hover_per_cell(client: LanguageClient):
    await initialize(client, settings=FIXED_200, pull=True)
    open_notebook(client)
    reports = {}
    for i in range(3):
        reports[i] = await asyncio.wait_for(client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=cell_uri(i)))),
            TIMEOUT)
    seen = sorted((i, d.code, offset_in(CELLS[i][1], d.range.start)) for i, r in reports.items() for d in r.items)
    assert seen == expected()
    assert list(reports[2].items) == []
    assert not [p for p in client.published if p.uri.startswith("vscode-notebook-cell:")]  # pull: nothing pushed
    # an unchanged notebook answers "unchanged"
    again = await asyncio.wait_for(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(0)), previous_result_id=reports[0].result_id)),
        TIMEOUT)
    assert again.kind == "unchanged"
    d = reports[0].items[0]
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(0)), position=d.range.start)), TIMEOUT)
    assert hover is not None and "chunk" in str(hover.contents).lower()
    if hover.range is not None:  # in the cell's lines
        assert hover.range.start.line <= PROSE.count("\n")
    lenses = await asyncio.wait_for(client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(0)))), TIMEOUT)
    assert not lenses
