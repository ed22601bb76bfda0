"""The workbench stays readable: lenses count each issue once, the editor
analyses exactly the files `chunkseam lint .` would, and a lens shows its
chunk in any LSP client."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (CONFIG, FIXED_200, FIXTURES, ROOT, TIMEOUT, capabilities, change_doc, edit, initialize,
                         open_doc, shutdown, wait_published)

DATABASE = FIXTURES / "database.md"
TD = types.TextDocumentIdentifier
COUNT = re.compile(r"^(\d+) issues? · Chunk ")


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def lenses_for(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return await client.text_document_code_lens_async(types.CodeLensParams(text_document=TD(uri)))


async def test_lenses_count_each_issue_once(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    diags = (await wait_published(client, uri, version=1)).diagnostics
    cut_issues = [d for d in diags if d.data and d.data.get("otherChunk") is not None]
    assert cut_issues, "the fixture has cuts with issues on both sides"
    counted = 0
    for lens in await lenses_for(client, uri):
        m = COUNT.search(lens.command.title)
        counted += int(m.group(1)) if m else 0
    with_chunk = [d for d in diags if d.data and d.data.get("chunk") is not None]
    assert counted == len(with_chunk), [lens.command.title for lens in await lenses_for(client, uri)]


def make_project(root: Path) -> dict[str, Path]:
    (root / "chunkseam.toml").write_text('chunker = "fixed"\nunit = "chars"\nsize = 200\n')
    long_text = DATABASE.read_text()
    files = {"license": root / "LICENSE", "notes": root / "docs" / "notes.md", "toml": root / "chunkseam.toml"}
    files["license"].write_text(long_text)
    files["notes"].parent.mkdir()
    files["notes"].write_text(long_text)
    return files


async def test_the_editor_analyses_what_lint_would(client: LanguageClient, tmp_path: Path):
    files = make_project(tmp_path)
    lint = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "."], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert "notes.md" in lint.stdout and "LICENSE" not in lint.stdout and "chunkseam.toml" not in lint.stdout
    await initialize(client, init_options={"settings": {"debounceMs": 0}}, root=tmp_path)
    for name, language in (("license", "plaintext"), ("toml", "toml"), ("notes", "markdown")):
        open_doc(client, files[name].as_uri(), files[name].read_text(), language_id=language)
    assert (await wait_published(client, files["notes"].as_uri(), version=1)).diagnostics
    for name in ("license", "toml"):
        uri = files[name].as_uri()
        assert list((await wait_published(client, uri, version=1)).diagnostics) == []
        assert not await lenses_for(client, uri)
    assert await lenses_for(client, files["notes"].as_uri())


async def run_lens(client: LanguageClient, uri: str, n: int = 1):
    lens = (await lenses_for(client, uri))[n]
    return lens, await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lens.command.command, arguments=lens.command.arguments))


async def test_a_lens_shows_its_chunk_as_a_document(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200}, show_document=True)
    uri = DATABASE.as_uri()
    text = DATABASE.read_text()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    lens, answer = await run_lens(client, uri)
    assert answer is not None  # the data is still answered
    assert len(client.shown_documents) == 1
    shown = client.shown_documents[0]
    assert shown.take_focus and shown.uri.startswith("file:")
    page = Path(unquote(urlparse(shown.uri).path)).read_text(encoding="utf-8")
    assert lens.command.title in page and text[200:400] in page


async def test_a_lens_shows_its_chunk_in_a_message_without_show_document(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    lens, _ = await run_lens(client, uri)
    assert [m.message.split(": “")[0] for m in client.messages] == [lens.command.title]


async def test_the_command_without_show_only_answers(client: LanguageClient):
    # what the VS Code extension sends: it displays the answer itself
    await initialize(client, init_options={"settings": FIXED_200}, show_document=True)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="chunkseam.showChunk", arguments=[uri, 1]))
    assert answer is not None and not client.shown_documents and not client.messages


async def test_lenses_are_refreshed_when_a_new_result_is_complete(client: LanguageClient):
    """The client is asked to fetch the lenses again as soon as the analysis
    of an edit is complete (not when its own debounce runs out), and what it
    then gets is the new version's: no stale chunk count or size."""
    import asyncio

    refreshed: list[int] = []
    got = asyncio.Event()

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_refresh(params):  # noqa: ANN001 - the client's handler
        refreshed.append(len(client.published))
        got.set()

    caps = capabilities()
    caps.workspace.code_lens = types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, initialization_options={"settings": FIXED_200}, root_uri=ROOT.as_uri()))
    uri = DATABASE.as_uri()
    text = DATABASE.read_text()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    before = await lenses_for(client, uri)
    n = len(before)
    assert before[0].command.title.count(f"/{n}")
    assert not refreshed  # nothing had changed
    change_doc(client, uri, 2, [edit(0, 0, 0, 0, "x" * 450 + "\n\n")])
    await asyncio.wait_for(got.wait(), TIMEOUT)
    after = await lenses_for(client, uri)
    assert len(after) > n and all(f"/{len(after)}" in lens.command.title for lens in after), \
        [lens.command.title for lens in after]
