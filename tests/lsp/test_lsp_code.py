"""The language server on a Go document (tree-sitter, the ``code`` extra):
diagnostics for a fixed-size cut through a function, chunks by definition
with the ``code`` strategy."""

from __future__ import annotations

import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import CONFIG, FIXED_200, initialize, open_doc, request, shutdown, wait_published

pytest.importorskip("tree_sitter_go")

SOURCE = "package main\n\nimport \"fmt\"\n\n" + "".join(
    f"// Handler{i} handles request {i}.\nfunc Handler{i}(w int) int {{\n"
    f"\tv := w * {i}\n\tfmt.Println(\"handled 日本 🎉\", v)\n\treturn v + {i}\n}}\n\n"
    for i in range(8))


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def test_a_go_document_gets_split_definition_diagnostics(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = "untitled:/handlers.go"
    open_doc(client, uri, SOURCE, language_id="go")
    diags = (await wait_published(client, uri, version=1)).diagnostics
    split = [d for d in diags if d.code == "CS201"]
    assert split, [(d.code, d.message) for d in diags]
    for d in split:
        assert "inside function Handler" in d.message
        # the definition runs from its doc comment to its closing brace (character offsets)
        name = re.search(r"inside function (\w+)", d.message).group(1)
        assert d.data["fix"] == f"cut before or after {name}"
        assert "data" not in d.data  # (the rule's own details stay with the server)
        start, end = d.data["unit"]
        assert SOURCE[start:end].startswith("// Handler") and SOURCE[start:end].endswith("\n}")


async def test_the_code_strategy_chunks_a_go_document_by_definition(client: LanguageClient):
    await initialize(client, init_options={"settings": {"debounceMs": 0, "size": 60}})
    uri = "untitled:/handlers.go"
    open_doc(client, uri, SOURCE, language_id="go")
    published = await wait_published(client, uri, version=1)
    assert not [d for d in published.diagnostics if d.code in ("CS201", "CS202")]
    got = await request(client, "chunkseam/chunks", uri)
    assert got.chunker == "code" and got.enabled is not False
    assert len(got.chunks) == 9
    header = got.chunks[0]
    assert SOURCE[header.startOffset : header.endOffset] == 'package main\n\nimport "fmt"'
    for i, c in enumerate(got.chunks[1:]):
        assert c.headingPath == [f"Handler{i}"] and not c.oversize
        assert SOURCE[c.startOffset : c.endOffset].startswith(f"// Handler{i} handles")


async def test_hover_shows_the_chunk_as_go(client: LanguageClient):
    await initialize(client, init_options={"settings": {"debounceMs": 0, "size": 60}})
    uri = "untitled:/handlers.go"
    open_doc(client, uri, SOURCE, language_id="go")
    await wait_published(client, uri, version=1)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=6, character=2)))
    assert hover is not None and "```go" in hover.contents.value, hover


async def test_a_go_file_on_disk_is_analysed(client: LanguageClient, tmp_path):
    # a real file: the default `include` covers code, as `chunkseam lint .` does
    path = tmp_path / "pkg" / "handlers.go"
    path.parent.mkdir()
    path.write_text(SOURCE, encoding="utf-8")
    await initialize(client, init_options={"settings": {"debounceMs": 0, "size": 60}})
    uri = path.as_uri()
    open_doc(client, uri, SOURCE, language_id="go")
    await wait_published(client, uri, version=1)
    got = await request(client, "chunkseam/chunks", uri)
    assert got.enabled is not False and got.chunker == "code" and len(got.chunks) == 9
    assert got.chunks[1].headingPath == ["Handler0"]
