"""The time budget is tested inside the loops of the markdown, sentence and
fixed chunkers and of the checks, not only between stages: a document that
takes long in one of them is abandoned there with the budget's one message,
and the language server keeps answering."""

from __future__ import annotations

import os

import pytest
from chunkseam import chunkers
from chunkseam.core import budget
from chunkseam.core.budget import BudgetExceeded
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import get_sizer
from chunkseam.engine.validate import validate
from lsp_support import (
    SERVER_COMMAND,
    as_dict,
    initialize,
    make_client,
    open_doc,
    request,
    shutdown,
    wait_published,
)
from lsprotocol import types

#: many sections, paragraphs and sentences: every loop runs more than budget.STRIDE times
TEXT = "".join(f"## Part {k}\n\nThe first sentence of part {k}. And a second one, a little longer.\n\n"
               for k in range(600))


@pytest.mark.parametrize("name, stage", [
    ("markdown", "markdown chunking"),
    ("sentence", "sentence splitting"),
    ("fixed", "fixed chunking"),
])
@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_each_chunker_tests_the_deadline_in_its_loops(name, stage, unit):
    doc = Document(TEXT, path="doc.md")
    sizer = get_sizer(unit)
    chunker = chunkers.get(name)
    assert chunker.chunk(doc, sizer, size=64)  # within the budget: chunks
    # a deadline already past: the first test in a loop raises
    with budget.limits(-1.0), pytest.raises(BudgetExceeded) as info:
        chunker.chunk(Document(TEXT, path="doc.md"), sizer, size=64)
    assert stage in str(info.value) and "too large or too slow" in str(info.value)


def test_the_checks_test_the_deadline_in_their_loops():
    doc = Document(TEXT, path="doc.md")
    settings = Settings(chunker="fixed", unit="chars", size=64)
    chunks = chunkers.get("fixed").chunk(doc, get_sizer("chars"), size=64)
    assert validate(doc, chunks, settings)  # within the budget: issues
    with budget.limits(-1.0), pytest.raises(BudgetExceeded, match="checking the cuts"):
        validate(doc, chunks, settings)
    # with no cut rules selected, the chunk rules' loop tests it too
    only_chunks = Settings(chunker="fixed", unit="chars", size=64, select=("CS1",))
    with budget.limits(-1.0), pytest.raises(BudgetExceeded,
                                            match="checking the chunks|counting the chunks"):
        validate(doc, chunks, only_chunks)


async def test_the_server_reports_each_chunker_over_budget_and_keeps_answering(tmp_path):
    client = make_client()
    # a budget no analysis meets: each document stops in its chunker's first loop
    await client.start_io(*SERVER_COMMAND, env=dict(os.environ, **{budget.ENV_SECONDS: "1e-9"}))
    try:
        await initialize(client, init_options={"settings": {"debounceMs": 0, "unit": "chars",
                                                            "size": 64}}, root=tmp_path)
        for name, stage in (("markdown", "markdown chunking"), ("sentence", "sentence splitting"),
                            ("fixed", "fixed chunking")):
            folder = tmp_path / name  # its own config file names the chunker
            (folder / ".git").mkdir(parents=True)
            (folder / "chunkseam.toml").write_text(f'chunker = "{name}"\n', encoding="utf-8")
            uri = (folder / "doc.md").as_uri()
            open_doc(client, uri, TEXT)
            diags = (await wait_published(client, uri, version=1)).diagnostics
            assert len(diags) == 1, (name, diags)
            assert "too large or too slow to analyse" in diags[0].message
            assert stage in diags[0].message, (name, diags[0].message)
            stats = as_dict(await request(client, "chunkseam/stats", uri))
            assert stats["chunks"] == 0 and "too slow" in stats["error"], stats
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier((tmp_path / "fixed" / "doc.md").as_uri()),
            position=types.Position(0, 0)))
        assert hover is None or hover.contents
    finally:
        await shutdown(client)
        await client.stop()
