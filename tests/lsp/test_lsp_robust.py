"""Robustness through a real client: position encodings (emoji, CJK,
combining characters, CRLF), every corpus document, random documents and
edit sequences, requests for unopened documents, shutdown and exit."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
import pytest_lsp
from hypothesis import HealthCheck, given, settings, strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import corpus_files, text_splitter_panics
from lsp_support import (
    CONFIG, FIXED_200, SERVER_COMMAND, TIMEOUT, as_dict, change_doc, edit, initialize, make_client,
    open_doc, request, shutdown, wait_published,
)

TD = types.TextDocumentIdentifier
_EOL = re.compile(r"\r\n|\r|\n")


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def units(s: str, encoding: str) -> int:
    if encoding == "utf-16":
        return len(s.encode("utf-16-le")) // 2
    if encoding == "utf-8":
        return len(s.encode("utf-8"))
    return len(s)


def lines_of(text: str) -> list[str]:
    return _EOL.split(text)


def offset_of(text: str, pos: types.Position | dict, encoding: str = "utf-16") -> int:
    """An independent position -> offset conversion (not the server's Document)."""
    line, char = (pos["line"], pos["character"]) if isinstance(pos, dict) else (pos.line, pos.character)
    starts = [0] + [m.end() for m in _EOL.finditer(text)]
    lines = lines_of(text)
    assert 0 <= line < len(lines), (line, len(lines))
    seen = 0
    for i, ch in enumerate(lines[line]):
        if seen >= char:
            assert seen == char, f"position {line}:{char} splits a character"
            return starts[line] + i
        seen += units(ch, encoding)
    assert seen == char, f"position {line}:{char} is past the end of the line ({seen})"
    return starts[line] + len(lines[line])


def assert_range_inside(text: str, rng: types.Range | dict, encoding: str = "utf-16") -> tuple[int, int]:
    if isinstance(rng, dict):
        s, e = offset_of(text, rng["start"], encoding), offset_of(text, rng["end"], encoding)
    else:
        s, e = offset_of(text, rng.start, encoding), offset_of(text, rng.end, encoding)
    assert 0 <= s <= e <= len(text)
    return s, e


# -- position encodings ------------------------------------------------------------------


EMOJI_LINE = "😀🎉👩‍💻" * 40  # astral characters and a ZWJ sequence
EMOJI_DOC = "# Emoji\n\nBefore the line.\n" + EMOJI_LINE + "\nAfter the line.\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
async def test_ranges_on_a_line_full_of_emoji(client: LanguageClient, encoding: str):
    result = await initialize(client, init_options={"settings": dict(FIXED_200, size=50)},
                              encodings=[encoding])
    assert result.capabilities.position_encoding == encoding
    uri = "untitled:/emoji.md"
    open_doc(client, uri, EMOJI_DOC)
    published = await wait_published(client, uri, version=1)
    for d in published.diagnostics:
        assert_range_inside(EMOJI_DOC, d.range, encoding)
    chunks = as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    assert len(chunks) == -(-len(EMOJI_DOC) // 50)
    for c in chunks:
        assert assert_range_inside(EMOJI_DOC, c["range"], encoding) == (c["startOffset"], c["endOffset"])
    # a chunk that starts inside the emoji line: its character is counted in code units
    line_start = EMOJI_DOC.index(EMOJI_LINE)
    inside = [c for c in chunks if line_start < c["startOffset"] < line_start + len(EMOJI_LINE)]
    assert inside
    c = inside[0]
    assert c["range"]["start"]["line"] == 3
    assert c["range"]["start"]["character"] == units(EMOJI_DOC[line_start:c["startOffset"]], encoding)


async def test_incremental_edits_in_utf16_after_emoji(client: LanguageClient):
    await initialize(client, init_options={"settings": dict(FIXED_200, size=1000)})
    uri = "untitled:/emoji.md"
    text = EMOJI_DOC
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    # insert after 20 UTF-16 units of the line (11 code points: 😀🎉👩‍💻😀🎉👩‍💻😀),
    # then replace a ZWJ sequence
    change_doc(client, uri, 2, [edit(3, 20, 3, 20, "[x]")])
    assert units(EMOJI_LINE[:11], "utf-16") == 20
    text = text.replace(EMOJI_LINE, EMOJI_LINE[:11] + "[x]" + EMOJI_LINE[11:])
    zwj = "👩‍💻"
    at = text.index(zwj)
    col = units(text[text.rfind("\n", 0, at) + 1:at], "utf-16")
    change_doc(client, uri, 3, [edit(3, col, 3, col + units(zwj, "utf-16"), "é")])
    text = text[:at] + "é" + text[at + len(zwj):]
    await wait_published(client, uri, version=3)
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="chunkseam.showChunk", arguments=[uri, 0]))
    assert shown["text"] == text[:1000]


async def test_crlf_cjk_and_combining_characters(client: LanguageClient):
    text = ("# 見出し\r\n\r\nCafe\u0301 au lait. 日本語の文章です。これは二番目の文です。\r\n"
            "\r\nSecond paragraph with e\u0301 and 😀 in it.\r\nLast line\r\n")
    await initialize(client, init_options={"settings": dict(FIXED_200, size=17)})
    uri = "untitled:/crlf.md"
    open_doc(client, uri, text)
    published = await wait_published(client, uri, version=1)
    for d in published.diagnostics:
        assert_range_inside(text, d.range)
    chunks = as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    for c in chunks:
        s, e = assert_range_inside(text, c["range"])
        assert (s, e) == (c["startOffset"], c["endOffset"])
    # an edit across a CRLF line break
    line1 = lines_of(text)[2]
    change_doc(client, uri, 2, [edit(2, len(line1), 4, 0, " joined ")])
    text = text[:text.index(line1) + len(line1)] + " joined " + text[text.index("Second"):]
    await wait_published(client, uri, version=2)
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="chunkseam.showChunk", arguments=[uri, 3]))
    assert shown["text"] == text[51:68]


async def test_a_library_that_panics_on_a_document_is_an_error_diagnostic(client: LanguageClient):
    """semantic-text-splitter 0.33 panics (a Rust panic: not a Python Exception) on this text with
    an overlap: the document gets one diagnostic that says so, and the server goes on."""
    text = text_splitter_panics()
    await initialize(client, init_options={"settings": dict(FIXED_200, chunker="text-splitter",
                                                            size=24, overlap=4)})
    open_doc(client, "untitled:/panics.md", text)
    published = await wait_published(client, "untitled:/panics.md", version=1)
    assert [d.code for d in published.diagnostics] == ["internal-error"]
    assert "text-splitter: the library failed on this document (PanicException" in \
        published.diagnostics[0].message
    open_doc(client, "untitled:/fine.md", "# Fine\n\nSome text that the library splits.\n")
    await wait_published(client, "untitled:/fine.md", version=1)


# -- bad requests, shutdown ----------------------------------------------------------------


async def test_requests_for_an_unopened_document_are_errors(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = "file:///nowhere/never-opened.md"
    with pytest.raises(Exception, match="not open"):
        await client.text_document_hover_async(types.HoverParams(
            text_document=TD(uri), position=types.Position(0, 0)))
    with pytest.raises(Exception, match="not open"):
        await request(client, "chunkseam/chunks", uri)
    with pytest.raises(Exception, match="not open"):
        await client.text_document_code_lens_async(types.CodeLensParams(text_document=TD(uri)))
    with pytest.raises(Exception, match="not open"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="chunkseam.showChunk", arguments=[uri, 0]))
    # a change for it is ignored, and the server still works
    change_doc(client, uri, 2, [edit(0, 0, 0, 0, "x")])
    open_doc(client, "untitled:/ok.md", "# Fine\n\nText.\n")
    await wait_published(client, "untitled:/ok.md", version=1)


async def test_shutdown_then_exit_ends_the_process_cleanly():
    client = make_client()
    await client.start_io(*SERVER_COMMAND)
    await initialize(client, init_options={"settings": FIXED_200})
    open_doc(client, "untitled:/a.md", "# A\n\nSome text.\n")
    await wait_published(client, "untitled:/a.md", version=1)
    await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
    client.exit(None)
    code = await asyncio.wait_for(client._server.wait(), TIMEOUT)
    assert code == 0
    await client.stop()


async def test_exit_without_shutdown_is_an_error_exit():
    client = make_client()
    await client.start_io(*SERVER_COMMAND)
    await initialize(client, init_options={"settings": FIXED_200})
    client.exit(None)
    code = await asyncio.wait_for(client._server.wait(), TIMEOUT)
    assert code == 1
    await client.stop()


# -- every corpus document ----------------------------------------------------------------------


async def test_every_corpus_document(client: LanguageClient):
    files = corpus_files("markdown", "*.md") + corpus_files("python", "*.py")
    assert files
    await initialize(client, init_options={"settings": {"debounceMs": 0}})
    failures = []
    batch = 25
    for i in range(0, len(files), batch):
        group = files[i:i + batch]
        texts = {}
        for path in group:
            text = path.read_text(encoding="utf-8", errors="replace")
            uri = path.as_uri()
            texts[uri] = text
            open_doc(client, uri, text, language_id="python" if path.suffix == ".py" else "markdown")
        for uri, text in texts.items():
            published = await wait_published(client, uri, version=1)
            for d in published.diagnostics:
                if d.code == "internal-error":
                    failures.append((uri, d.message))
                assert_range_inside(text, d.range)
        for uri in texts:
            client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=TD(uri)))
    assert not failures, failures[:5]


# -- random documents and edit sequences ------------------------------------------------------------

PIECES = st.sampled_from([
    "# Heading\n", "## Sub heading\n", "\n", "\r\n", "Plain sentence here. ", "Another one! ",
    "```python\n", "```\n", "~~~\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", "- item one\n",
    "  - nested item\n", "1. first\n", "> quoted text\n", "<div>\n", "</div>\n", "---\n",
    "😀", "👩‍💻", "日本語。", "e\u0301", "\t", "    indented code\n", "[link](http://x.y)",
    "`code`", "(open ", ") close", "\u2028", "\x00", "\ufeff",
])
DOCS = st.lists(PIECES, max_size=40).map("".join)


@st.composite
def edit_scripts(draw):
    text = draw(DOCS)
    edits = draw(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), PIECES | st.just("")),
                          max_size=8))
    return text, edits


class _Session:
    """One server for all the hypothesis examples (starting one per example is slow)."""

    def __init__(self, settings: dict) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = make_client()
        self.loop.run_until_complete(self._start(settings))
        self.n = 0

    async def _start(self, settings: dict) -> None:
        await self.client.start_io(*SERVER_COMMAND)
        await initialize(self.client, init_options={"settings": settings})

    def close(self) -> None:
        async def stop():
            await shutdown(self.client)
            await self.client.stop()

        self.loop.run_until_complete(stop())
        self.loop.close()


@pytest.fixture(scope="module", params=[
    # overlapping fixed-size chunks, and the Markdown chunker (the default route) at a small budget
    {"chunker": "fixed", "unit": "chars", "size": 37, "overlap": 5, "debounceMs": 0},
    {"size": 24, "debounceMs": 0},
], ids=["fixed-overlap", "markdown"])
def session(request):
    s = _Session(request.param)
    yield s
    s.close()


def _position(text: str, frac: float) -> tuple[int, types.Position]:
    """A valid position (never inside a CRLF or a surrogate pair) and its offset."""
    off = int(frac * len(text))
    while 0 < off < len(text) and text[off - 1] == "\r" and text[off] == "\n":
        off -= 1
    starts = [0] + [m.end() for m in _EOL.finditer(text)]
    line = max(i for i, s in enumerate(starts) if s <= off)
    return off, types.Position(line, units(text[starts[line]:off], "utf-16"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=edit_scripts())
def test_random_documents_and_edits_never_break_the_server(session, script):
    text, edits = script
    session.n += 1
    uri = f"untitled:/random-{session.n}.md"
    client = session.client

    async def scenario():
        nonlocal text
        open_doc(client, uri, text)
        version = 1
        for a, b, new in edits:
            (s, ps), (e, pe) = sorted([_position(text, a), _position(text, b)], key=lambda x: x[0])
            version += 1
            change_doc(client, uri, version, [types.TextDocumentContentChangePartial(
                range=types.Range(ps, pe), text=new)])
            text = text[:s] + new + text[e:]
        published = await wait_published(client, uri, version=version)
        for d in published.diagnostics:
            assert d.code != "internal-error", d.message
            assert_range_inside(text, d.range)
        answer = as_dict(await request(client, "chunkseam/chunks", uri))
        assert answer["version"] == version
        for c in answer["chunks"]:
            # an offset between the CR and the LF of one line break has no position of its
            # own (a CRLF is one line end): its range shows it at the end of that line
            expected = tuple(o - 1 if 0 < o < len(text) and text[o - 1:o + 1] == "\r\n" else o
                             for o in (c["startOffset"], c["endOffset"]))
            assert assert_range_inside(text, c["range"]) == expected
        if answer["chunks"]:
            last = answer["chunks"][-1]
            shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="chunkseam.showChunk", arguments=[uri, last["index"]]))
            # the server's copy of the text is the one the client has
            assert shown["text"] == text[last["startOffset"]:last["endOffset"]]
            assert not text[last["endOffset"]:].strip()  # nothing after the last chunk but space
        pos = _position(text, random.Random(len(text)).random())[1]
        await client.text_document_hover_async(types.HoverParams(text_document=TD(uri), position=pos))
        await client.text_document_code_action_async(types.CodeActionParams(
            text_document=TD(uri), range=types.Range(types.Position(0, 0), pos),
            context=types.CodeActionContext(diagnostics=list(published.diagnostics))))
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=TD(uri)))

    session.loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
