"""Code lenses, hover, document and workspace symbols, folding ranges, the
custom requests and the showChunk command, through a real client."""

from __future__ import annotations

import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, as_dict, initialize, open_doc, request, shutdown, wait_published,
)

DATABASE = FIXTURES / "database.md"
TD = types.TextDocumentIdentifier


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def opened(client: LanguageClient, settings: dict = FIXED_200, text: str | None = None,
                 uri: str | None = None, **caps) -> tuple[str, str]:
    await initialize(client, init_options={"settings": settings}, **caps)
    uri = uri or DATABASE.as_uri()
    text = DATABASE.read_text() if text is None else text
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    return uri, text


def offsets(doc: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(doc):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def pos_to_offset(text: str, pos: types.Position) -> int:
    # the fixture is ASCII: characters are code points
    return offsets(text)[pos.line] + pos.character


async def test_code_lens_per_chunk(client: LanguageClient):
    uri, text = await opened(client)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=TD(uri)))
    chunks = as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    assert len(lenses) == len(chunks) == 4  # 695 characters in chunks of 200
    for i, (lens, chunk) in enumerate(zip(lenses, chunks)):
        assert lens.range.start == lens.range.end
        assert pos_to_offset(text, lens.range.start) == chunk["startOffset"] == 200 * i
        title = lens.command.title
        # the issue count first (an editor cuts a long lens off at its end), then the chunk
        count = f"{chunk['issues']} issue{'' if chunk['issues'] == 1 else 's'} · " if chunk["issues"] else ""
        assert title.startswith(f"{count}Chunk {i + 1}/4 · {chunk['tokens']} chars"), title
        assert lens.command.command == "chunkseam.showChunk"
        assert list(lens.command.arguments) == [uri, i, {"show": True}]
    # the innermost heading enclosing the chunk's start, last (the full path is in the hover)
    assert lenses[0].command.title.endswith(" · Setting Up the Database")
    assert lenses[2].command.title.endswith(" · Creating the Schema")
    assert "›" not in lenses[2].command.title
    assert any(c["issues"] for c in chunks), "the fixture has broken cuts at 200 characters"


async def test_code_lens_shows_overlap(client: LanguageClient):
    uri, text = await opened(client, dict(FIXED_200, overlap=50))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=TD(uri)))
    assert "overlap" not in lenses[0].command.title
    assert "· +50 chars overlap" in lenses[1].command.title
    chunks = as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    assert chunks[0]["overlapRange"] is None
    assert chunks[1]["overlapPrevious"] == 50
    r = chunks[1]["overlapRange"]
    assert pos_to_offset(text, types.Position(**r["start"])) == 150
    assert pos_to_offset(text, types.Position(**r["end"])) == 200


async def test_show_chunk_command_returns_text_and_metadata(client: LanguageClient):
    uri, text = await opened(client)
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="chunkseam.showChunk", arguments=[uri, 1]))
    assert shown["text"] == text[200:400]
    assert shown["index"] == 1 and shown["count"] == 4 and shown["tokens"] == 200
    assert shown["uri"] == uri and shown["version"] == 1
    assert shown["headingPath"] == ["Setting Up the Database"]
    assert shown["range"]["start"] == {"line": 4, "character": 33}
    assert isinstance(shown["issueList"], list)
    with pytest.raises(Exception, match="no chunk"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="chunkseam.showChunk", arguments=[uri, 99]))


async def test_hover_previews_the_chunk(client: LanguageClient):
    uri, text = await opened(client)
    # line 18 is "uv run alembic upgrade head", inside chunk 3 (offsets 400-600)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=TD(uri), position=types.Position(18, 3)))
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    value = hover.contents.value
    assert "**Chunk 3/4**" in value and "200 chars" in value
    assert "Setting Up the Database › Creating the Schema" in value
    assert "```markdown\n" + text[400:600] + "\n```" in value
    assert "previous: chunk 2 ends" in value and "next: chunk 4 starts" in value
    assert pos_to_offset(text, hover.range.start) == 400 and pos_to_offset(text, hover.range.end) == 600


async def test_hover_in_an_overlap_shows_both_chunks(client: LanguageClient):
    uri, text = await opened(client, dict(FIXED_200, overlap=50))
    # chunk 2 starts at 150, chunk 1 ends at 200: offset 170 is in both
    line = text.count("\n", 0, 170)
    col = 170 - (text.rfind("\n", 0, 170) + 1)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=TD(uri), position=types.Position(line, col)))
    assert "**Chunk 1/" in hover.contents.value and "**Chunk 2/" in hover.contents.value
    for d in client.diagnostics[uri]:  # an issue between the two chunks is listed once
        assert hover.contents.value.count(d.message) <= 1, d.message


async def test_hover_truncates_a_huge_chunk_but_keeps_both_ends(client: LanguageClient):
    body = "\n".join(f"Line {i} of a long section that goes on." for i in range(400))
    text = "# Big\n\n" + body + "\n"
    uri, _ = await opened(client, {"chunker": "fixed", "unit": "chars", "size": 100000},
                          text=text, uri="untitled:/big.md")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=TD(uri), position=types.Position(200, 0)))
    value = hover.contents.value
    assert "characters not shown" in value
    assert "# Big" in value and "Line 399 of a long section that goes on." in value
    assert len(value) < 6000


async def test_hover_plaintext_client(client: LanguageClient):
    uri, text = await opened(client, markdown=False)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=TD(uri), position=types.Position(0, 3)))
    assert hover.contents.kind == types.MarkupKind.PlainText
    assert "Chunk 1/4" in hover.contents.value


async def test_hover_on_a_diagnostic_says_the_issue_and_fix_first_and_each_message_once(client: LanguageClient):
    uri, text = await opened(client)
    diags = client.diagnostics[uri]
    d = next(d for d in diags if d.code == "CS002")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=TD(uri), position=d.range.start))
    value = hover.contents.value
    # the issue and its fix first: the Quick Fix link below the hover stays in sight
    assert value.startswith("⚠ **CS002**"), value[:200]
    # the editor shows the diagnostic's message with the hover: it is not repeated,
    # and no other message shows twice
    assert d.message not in value
    for other in diags:
        assert value.count(other.message) <= 1
    # one line for the rule: its summary and a link to the full page, not the page itself
    from chunkseam.checks.registry import RULES

    rule_line = value.split("\n\n---\n\n", 1)[0]
    assert rule_line.startswith("⚠ **CS002** mid-sentence: ") and "\n" not in rule_line
    assert RULES["CS002"].summary.rstrip(".") in rule_line
    assert rule_line.endswith("[rule](" + d.code_description.href + ")")
    assert "What it does" not in value and "— fix: " in rule_line
    assert value.index("**CS002**") < value.index("**Chunk")
    # the previews last, and short
    assert value.rstrip().endswith("```") and value.index("previous: chunk") > value.index("**Chunk")
    preview = value[value.rindex("```markdown"):]
    assert preview.count("\n") <= 9 and len(preview) < 600, preview


async def test_no_chunk_symbols_or_folds_by_default(client: LanguageClient):
    # chunks would take over the Outline and breadcrumbs and hide the heading folds
    uri, text = await opened(client)
    assert await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=TD(uri))) is None
    assert await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=TD(uri))) is None


SYMBOLS_ON = dict(FIXED_200, chunkSymbols=True, chunkFolding=True)


async def test_document_symbols_and_folding(client: LanguageClient):
    uri, text = await opened(client, SYMBOLS_ON)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=TD(uri)))
    chunks = as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    assert [s.name for s in symbols] == [
        "Chunk 1 · Setting Up the Database",
        "Chunk 2 · Setting Up the Database",
        "Chunk 3 · Setting Up the Database › Creating the Schema",
        "Chunk 4 · Setting Up the Database › Connection Strings",
    ]
    for s, c in zip(symbols, chunks):
        assert isinstance(s, types.DocumentSymbol)
        assert pos_to_offset(text, s.range.start) == c["startOffset"]
        assert pos_to_offset(text, s.range.end) == c["endOffset"]
        assert s.selection_range.start == s.range.start
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=TD(uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [
        (c["startLine"], c["endLine"]) for c in chunks if c["endLine"] > c["startLine"]]


async def test_flat_symbols_for_clients_without_hierarchy(client: LanguageClient):
    uri, text = await opened(client, SYMBOLS_ON, hierarchical=False)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=TD(uri)))
    assert len(symbols) == 4
    assert all(isinstance(s, types.SymbolInformation) for s in symbols)
    assert symbols[2].name == "Chunk 3 · Setting Up the Database › Creating the Schema"
    assert symbols[2].location.uri == uri


async def test_chunks_and_stats_requests(client: LanguageClient):
    uri, text = await opened(client)
    answer = as_dict(await request(client, "chunkseam/chunks", uri))
    assert answer["uri"] == uri and answer["version"] == 1 and answer["chunker"] == "fixed"
    assert answer["unit"] == "chars" and answer["size"] == 200
    chunks = answer["chunks"]
    assert "".join(text[c["startOffset"]:c["endOffset"]] for c in chunks) == text
    for c in chunks:
        r = c["range"]
        assert pos_to_offset(text, types.Position(**r["start"])) == c["startOffset"]
        assert pos_to_offset(text, types.Position(**r["end"])) == c["endOffset"]
    stats = as_dict(await request(client, "chunkseam/stats", uri))
    assert stats["chunks"] == 4
    assert stats["issues"] == len(client.diagnostics[uri])
    assert sum(stats["perRule"].values()) == stats["issues"]
    # a chunk's issue count covers both sides of its cuts; the rate counts the
    # chunks the validator holds responsible
    assert 0 < stats["chunksWithIssues"] <= sum(1 for c in chunks if c["issues"])
    assert 0 < stats["rate"] <= 1 and stats["rate"] == stats["chunksWithIssues"] / 4


# a second document whose chunk boundaries fall after astral characters (two UTF-16 units each)
EMOJI_MD = ("# Party Notes 🎉\n\n" + "🎉😀 a line of emoji and words that runs on for a while.\n" * 4
            + "\n## Résumé Tips 👩‍💻\n\n" + "😀 keep it short, keep it true, and keep it on one page.\n" * 3)


def utf16_offset(text: str, pos: types.Position) -> int:
    """The code-point offset of a UTF-16 position."""
    start = offsets(text)[pos.line]
    units = 0
    i = start
    while units < pos.character:
        units += 2 if ord(text[i]) > 0xFFFF else 1
        i += 1
    assert units == pos.character, "a position inside a surrogate pair"
    return i


async def workspace_symbols(client: LanguageClient, query: str) -> list:
    return await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


async def test_workspace_symbols_of_the_open_documents(client: LanguageClient):
    # on by default (no chunkSymbols): "Go to Symbol in Workspace" replaces nothing
    init = await initialize(client, init_options={"settings": FIXED_200})
    assert init.capabilities.workspace_symbol_provider
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    emoji_uri = (FIXTURES / "party-notes.md").as_uri()  # never written: only the open text counts
    open_doc(client, emoji_uri, EMOJI_MD)
    await wait_published(client, emoji_uri, version=1)
    chunks = {u: as_dict(await request(client, "chunkseam/chunks", u))["chunks"] for u in (uri, emoji_uri)}

    every = await workspace_symbols(client, "")
    assert len(every) == len(chunks[uri]) + len(chunks[emoji_uri])
    assert {s.location.uri for s in every} == {uri, emoji_uri}
    for s in every:
        assert isinstance(s, types.SymbolInformation) and s.kind == types.SymbolKind.Namespace
    db = [s for s in every if s.location.uri == uri]
    assert [s.name for s in db][2] == "Chunk 3 · Setting Up the Database › Creating the Schema"
    for s, c in zip(db, chunks[uri]):
        count = f" · {c['issues']} issue{'' if c['issues'] == 1 else 's'}" if c["issues"] else ""
        assert s.container_name == f"database.md · {c['tokens']} chars{count}"
    assert any(" issue" in s.container_name for s in db), "the fixture has broken cuts at 200 characters"

    # a heading of the second document, in another case: only its chunks, at their UTF-16 ranges
    tips = await workspace_symbols(client, "RÉSUMÉ tips")
    assert tips and all(s.location.uri == emoji_uri for s in tips)
    assert all(s.name.endswith("Party Notes 🎉 › Résumé Tips 👩‍💻") for s in tips)
    by_index = {int(s.name.split(" ")[1]) - 1: s for s in tips}
    assert set(by_index) == {i for i, c in enumerate(chunks[emoji_uri])
                             if "Résumé Tips 👩‍💻" in c["headingPath"]}
    astral = 0
    for i, s in by_index.items():
        c = chunks[emoji_uri][i]
        rng = s.location.range
        assert utf16_offset(EMOJI_MD, rng.start) == c["startOffset"]
        assert utf16_offset(EMOJI_MD, rng.end) == c["endOffset"]
        assert s.container_name.startswith(f"party-notes.md · {c['tokens']} chars")
        for p in (rng.start, rng.end):
            astral += p.character != utf16_offset(EMOJI_MD, p) - offsets(EMOJI_MD)[p.line]
    assert astral, "no range of these chunks is past an emoji on its line: UTF-16 is not tested"
    # "chunk 2" names a chunk of each document (and no "Chunk 20"-like neighbours here)
    assert sorted(s.location.uri for s in await workspace_symbols(client, "chunk 2")) == sorted([uri, emoji_uri])
    assert await workspace_symbols(client, "no such heading anywhere") == []


async def test_workspace_symbols_are_capped(client: LanguageClient):
    # 600 chunks of 20 characters: the answer stops at the cap, in document order
    text = "".join(f"Line {i:03d} is closed\n\n" for i in range(600))
    uri, _ = await opened(client, dict(FIXED_200, size=20), text=text,
                          uri=(FIXTURES / "many-chunks.md").as_uri())
    assert len(as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]) == 600
    every = await workspace_symbols(client, "")
    assert [s.name for s in every] == [f"Chunk {i + 1}" for i in range(500)]
    assert [s.name for s in await workspace_symbols(client, "chunk 59")] == [
        "Chunk 59", *(f"Chunk {n}" for n in range(590, 600))]
