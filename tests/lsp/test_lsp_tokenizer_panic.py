"""A Hugging Face tokenizer.json whose Rust code panics on every text (pyo3's
PanicException, a BaseException) through the real server: the document gets one
diagnostic that says so, and its requests and the other documents still answer."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import CONFIG, FIXED_200, TIMEOUT, initialize, open_doc, shutdown, wait_published
from tokenizer_panic import panicking_tokenizer


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def test_a_tokenizer_that_panics_is_a_diagnostic_and_requests_answer(client: LanguageClient,
                                                                          tmp_path_factory):
    path = panicking_tokenizer(tmp_path_factory.mktemp("hf"))
    settings = dict(FIXED_200, unit="tokens", encoding=f"hf:{path}")
    await initialize(client, init_options={"settings": settings})
    uri = "untitled:/panics.md"
    open_doc(client, uri, "# Title\n\nHello world, the tokenizer cannot count this text.\n")
    published = await wait_published(client, uri, version=1)
    messages = [d.message for d in published.diagnostics]
    assert any("the tokenizer failed on this document in its native code (PanicException" in m
               for m in messages), messages
    # requests on that document answer (a result or an error), they do not hang
    doc = types.TextDocumentIdentifier(uri=uri)
    asks = {
        "chunkseam/chunks": client.protocol.send_request_async("chunkseam/chunks", {"textDocument": {"uri": uri}}),
        "chunkseam/stats": client.protocol.send_request_async("chunkseam/stats", {"textDocument": {"uri": uri}}),
        "codeLens": client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)),
        "hover": client.text_document_hover_async(types.HoverParams(
            text_document=doc, position=types.Position(line=2, character=3))),
        "documentSymbol": client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=doc)),
    }
    for method, pending in asks.items():
        try:
            await asyncio.wait_for(pending, TIMEOUT)
        except asyncio.TimeoutError:  # the failure this test is about
            pytest.fail(f"{method} on the document did not answer within {TIMEOUT}s")
        except Exception:  # an error response is an answer
            pass
    # and the server goes on with other documents
    open_doc(client, "untitled:/other.md", "# Other\n\nHello world.\n")
    await wait_published(client, "untitled:/other.md", version=1)
