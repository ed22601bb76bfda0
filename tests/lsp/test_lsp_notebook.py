"""The language server on LSP notebook documents: a Jupyter notebook's cells
analysed as one view, diagnostics pushed and pulled per cell URI."""

from __future__ import annotations

import asyncio
import json
import re

import pytest_lsp
from chunkseam.engine.analysis import analyze, make_chunks
from chunkseam.document.text import Document
from chunkseam.document.notebook import Cell, build_view
from chunkseam.core.settings import Settings
from clikit import run
from conftest import corpus_files
from lsp_support import (
    CONFIG,
    FIXED_200,
    ROOT,
    TIMEOUT,
    capabilities,
    open_doc,
    request,
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
    # a Problems row names its cell (the panel lists them under the notebook, by line only),
    # and so does each related location
    for uri, diags in got.items():
        n = int(uri.split("#W")[1][0]) + 1
        for d in diags:
            assert d.message.startswith(f"cell {n}: "), d.message
            for info in d.related_information or []:
                k = int(info.location.uri.split("#W")[1][0]) + 1
                assert info.message.endswith(f" (cell {k})"), info.message


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
    # a cell inserted: it gets its list too
    after = len(client.published)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=NB, version=4),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=0, delete_count=0, cells=[
                    types.NotebookCell(kind=types.NotebookCellKind.Markup, document=cell_uri(5))]),
                did_open=[types.TextDocumentItem(uri=cell_uri(5), language_id="markdown", version=1,
                                                 text="A new first cell.")])))))
    got = await published_for(client, [cell_uri(5), cell_uri(0), cell_uri(2)], after)
    assert got[cell_uri(5)] == []
    after = len(client.published)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=NB),
        cell_text_documents=[types.TextDocumentIdentifier(uri=cell_uri(i)) for i in (5, 0, 2)]))
    got = await published_for(client, [cell_uri(5), cell_uri(0), cell_uri(2)], after)
    assert got == {cell_uri(5): [], cell_uri(0): [], cell_uri(2): []}


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
    # code lenses: one per chunk, in the cell where the chunk starts, showing the notebook's chunk
    lenses = {}
    for i in range(3):
        lenses[i] = await asyncio.wait_for(client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=cell_uri(i)))), TIMEOUT)
    view, nbmap = build_view([Cell("markdown" if lang == "markdown" else "code", text, lang)
                              for lang, text in CELLS])
    doc = Document(view, kind="markdown")
    doc.notebook = nbmap
    starts = [nbmap.to_cell(c.start) for c in make_chunks(doc, FIXED)[1]]
    assert sorted((i, offset_in(CELLS[i][1], lens.range.start)) for i, ls in lenses.items() for lens in ls) == \
        sorted(starts)
    lens = lenses[0][0]
    assert lens.command.arguments[0] == NB
    shown = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lens.command.command, arguments=lens.command.arguments[:2])), TIMEOUT)
    assert shown["text"].startswith("# Retrieval")
    # the custom requests answer for a cell: its part of the notebook's chunks, the notebook's figures
    got = await request(client, "chunkseam/chunks", cell_uri(1))
    assert got.notebook == NB and got.cell == 2 and got.chunks
    code_chunks = [c for c in make_chunks(doc, FIXED)[1] if c.start < nbmap.span(1)[1] and c.end > nbmap.span(1)[0]]
    assert [c.index for c in got.chunks] == [c.index for c in code_chunks]
    for c in got.chunks:  # clipped to the cell, in its lines
        assert 0 <= c.range.start.line <= c.range.end.line <= CODE.count("\n")
    stats = await request(client, "chunkseam/stats", cell_uri(0))
    assert stats.uri == NB and stats.chunks == len(make_chunks(doc, FIXED)[1])



async def test_the_hover_in_a_cell_speaks_in_cells_and_shows_no_synthetic_fences(client: LanguageClient):
    """The hover of a cell names cells and lines in the cells (not lines of
    the notebook's combined view) and shows the cells' text: no fence line the
    view adds around a code cell, neither in the chunk nor in its neighbours."""
    await initialize(client, settings=FIXED_200, pull=True)
    open_notebook(client)
    view, nbmap = build_view([Cell("markdown" if lang == "markdown" else "code", text, lang)
                              for lang, text in CELLS])
    doc = Document(view, kind="markdown")
    doc.notebook = nbmap
    chunks = make_chunks(doc, FIXED)[1]
    assert len(chunks) >= 3 and "```python" in view
    hovers = {}
    for k, c in enumerate(chunks):
        mid = (max(c.start, nbmap.span(1)[0]) + min(c.end, nbmap.span(1)[1])) // 2
        cell, off = nbmap.to_cell(mid if 0 < k < len(chunks) - 1 else c.start + 1)
        src = CELLS[cell][1]
        line = src.count("\n", 0, off)
        pos = types.Position(line=line, character=off - (src.rfind("\n", 0, off) + 1))
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cell_uri(cell)), position=pos)), TIMEOUT)
        assert hover is not None
        hovers[k] = hover.contents.value
    for k, text in hovers.items():
        assert f"**Chunk {k + 1}/{len(chunks)}**" in text, text
        # the hover's own fence around the chunk, and no other fence line (the view's)
        assert len([line for line in text.split("\n") if line.startswith("```")]) == 2, text
        head = next(line for line in text.split("\n") if line.startswith("**Chunk"))  # (after an issue's rule)
        assert re.search(r"· (cell \d, lines? \d+(–\d+)?|cells \d–\d)( ·|$)", head), text
    # chunk 1 lies in the first (markdown) cell: its lines there; the next chunk spans cells 1-2
    assert "cell 1, lines 1–3" in hovers[0] and "next: chunk 2 (cells 1–2) starts" in hovers[0], hovers[0]
    # a chunk inside the code cell: the cell's lines, its source highlighted as Python, no view fences
    inner = next(k for k, c in enumerate(chunks) if nbmap.span(1)[0] <= c.start and c.end <= nbmap.span(1)[1])
    first = CODE.count("\n", 0, chunks[inner].start - nbmap.span(1)[0]) + 1
    last = CODE.count("\n", 0, chunks[inner].end - 1 - nbmap.span(1)[0]) + 1
    assert f"cell 2, lines {first}–{last}" in hovers[inner], hovers[inner]
    block = hovers[inner].split("```python\n", 1)[1].split("\n```", 1)[0]
    assert block == CODE[chunks[inner].start - nbmap.span(1)[0]: chunks[inner].end - nbmap.span(1)[0]].strip("\n")
    # a chunk across cells: "cells 2–3", the two cells' text with a blank line, no fence between them
    last_k = len(chunks) - 1
    assert "cells 2–3" in hovers[last_k] and "That is all." in hovers[last_k], hovers[last_k]
    assert "overlap=20)\n\nThat is all." in hovers[last_k], hovers[last_k]
    # the previous chunk's end is the code cell's text, not the view's closing fence
    assert "previous: chunk" in hovers[last_k] and "“…```" not in hovers[last_k]


async def test_notebook_messages_out_of_order_do_not_break_the_server(client: LanguageClient):
    await initialize(client, settings=FIXED_200)
    other = "untitled:/never-opened.ipynb"
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=other, version=2),
        change=types.NotebookDocumentChangeEvent()))
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=other), cell_text_documents=[]))
    # a notebook without cells, then one whose cell is not Python at all
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=other, notebook_type="jupyter-notebook", version=1, cells=[]),
        cell_text_documents=[]))
    open_notebook(client, cells=[("markdown", PROSE), ("sql", "SELECT 1;\n" * 40)])
    got = await published_for(client, [cell_uri(0), cell_uri(1)], 0)
    assert any(d.code == "CS002" for d in got[cell_uri(0)])
    assert all(d.range.start.line <= 40 for d in got[cell_uri(1)])



async def test_a_notebook_opened_as_json_text_is_not_analysed_as_markdown(client: LanguageClient):
    await initialize(client, settings=FIXED_200)
    raw = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": PROSE}], "metadata": {},
                      "nbformat": 4, "nbformat_minor": 5}, indent=1)
    open_doc(client, "untitled:/raw.ipynb", raw, language_id="json")
    published = await wait_published(client, "untitled:/raw.ipynb")
    assert list(published.diagnostics) == []


async def test_a_corpus_notebook_gets_the_diagnostics_lint_reports(client: LanguageClient, capsys):
    (path,) = [p for p in corpus_files("notebooks", "*.ipynb") if p.name == "local_search.ipynb"]
    _, out, _ = run(capsys, "lint", "--no-cache", "--chunker", "recursive", "--size", "256", "--overlap", "32",
                    "--format", "json", str(path))
    want = sorted((i["cell"], i["line"], i["column"], i["code"]) for i in json.loads(out)["issues"])
    assert any(code == "CS003" for *_, code in want)
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [("markdown" if c["cell_type"] == "markdown" else "python", "".join(c["source"])) for c in nb["cells"]]
    await initialize(client, settings={"chunker": "recursive", "size": 256, "overlap": 32, "debounceMs": 0})
    open_notebook(client, cells=cells)
    got = await published_for(client, [cell_uri(i) for i in range(len(cells))], 0)
    seen = sorted((n + 1, d.range.start.line + 1, d.range.start.character + 1, d.code)
                  for n in range(len(cells)) for d in got[cell_uri(n)])
    assert seen == want  # the editor's squiggles are lint's issues, cell for cell
