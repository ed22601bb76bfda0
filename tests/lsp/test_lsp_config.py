"""Configuration through a real client: initialization options, workspace
configuration, didChangeConfiguration, the project's config file (the same
issues as ``chunkseam lint``), bad settings, trust, logging."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, SERVER_COMMAND, TIMEOUT, as_dict, capabilities, initialize,
    make_client, open_doc, request, shutdown, wait_published,
)

DATABASE = FIXTURES / "database.md"


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def n_chunks(client: LanguageClient, uri: str) -> int:
    return len(as_dict(await request(client, "chunkseam/chunks", uri))["chunks"])


async def wait_for(predicate, timeout: float = TIMEOUT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def test_workspace_configuration_replaces_initialization_options(client: LanguageClient):
    # what workspace/configuration answers is the whole truth: the
    # initialization options' chunker (fixed) does not linger
    await initialize(client, init_options={"settings": FIXED_200},
                     settings={"chunker": "fixed", "unit": "chars", "size": 300})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    assert await n_chunks(client, uri) == 3  # 695 characters by 300


async def test_reenabling_and_removed_settings_fall_back_to_defaults(client: LanguageClient):
    # VS Code started with chunkseam.enable = false, then the user enables it
    # (the setting is removed, the client sends {"chunkseam": {}})
    await initialize(client, init_options={"settings": dict(FIXED_200, enable=False)},
                     settings=dict(FIXED_200, enable=False))
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    assert list((await wait_published(client, uri, version=1)).diagnostics) == []
    assert as_dict(await request(client, "chunkseam/chunks", uri))["enabled"] is False
    start = len(client.published)
    client.set_configuration({}, section="chunkseam")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_published(client, uri, version=1, after=start)
    answer = as_dict(await request(client, "chunkseam/chunks", uri))
    assert answer["enabled"] is True and answer["chunker"] == "markdown"  # the default again
    assert answer["size"] == 400 and answer["unit"] == "tokens"


async def test_settings_per_workspace_folder(client: LanguageClient, tmp_path: Path):
    # a multi-root workspace: each folder's settings (scopeUri) for its documents
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        shutil.copy(DATABASE, d / "database.md")
    client.set_configuration(dict(FIXED_200, size=300), section="chunkseam")
    client.set_configuration(dict(FIXED_200, size=100), section="chunkseam", scope_uri=b.as_uri())
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(), root_uri=a.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=a.as_uri(), name="a"),
                           types.WorkspaceFolder(uri=b.as_uri(), name="b")]))
    for d in (a, b):
        open_doc(client, (d / "database.md").as_uri(), DATABASE.read_text())
        await wait_published(client, (d / "database.md").as_uri(), version=1)
    assert await n_chunks(client, (a / "database.md").as_uri()) == 3  # 695 by 300
    assert await n_chunks(client, (b / "database.md").as_uri()) == 7  # 695 by 100


async def test_initialization_options_alone(client: LanguageClient):
    # a client without workspace/configuration (and settings at the top level)
    await initialize(client, init_options=dict(FIXED_200, size=100), configuration=False)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    assert await n_chunks(client, uri) == 7


async def test_did_change_configuration_reanalyses(client: LanguageClient):
    await initialize(client, settings=dict(FIXED_200))
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    assert await n_chunks(client, uri) == 4
    start = len(client.published)
    client.set_configuration(dict(FIXED_200, size=100), section="chunkseam")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_published(client, uri, version=1, after=start)
    assert await n_chunks(client, uri) == 7


async def test_settings_pushed_in_did_change_configuration(client: LanguageClient):
    # clients without workspace/configuration send the settings in the notification
    await initialize(client, init_options={"settings": FIXED_200}, configuration=False)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    start = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"chunkseam": dict(FIXED_200, size=100), "otherServer": {"x": 1}}))
    await wait_published(client, uri, version=1, after=start)
    assert await n_chunks(client, uri) == 7
    assert client.messages == []


def make_project(tmp_path: Path, table: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.chunkseam]\n" + textwrap.dedent(table))
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(DATABASE, docs / "database.md")
    return docs / "database.md"


async def test_project_config_gives_the_same_issues_as_the_cli(client: LanguageClient, tmp_path: Path):
    path = make_project(tmp_path, 'chunker = "fixed"\nunit = "chars"\nsize = 200\n')
    await initialize(client, init_options={"settings": {"debounceMs": 0}}, root=tmp_path)
    uri = path.as_uri()
    open_doc(client, uri, path.read_text())
    diags = (await wait_published(client, uri, version=1)).diagnostics
    assert await n_chunks(client, uri) == 4
    lint = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "--format", "json", str(path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert lint.returncode in (0, 1), lint.stderr
    cli = json.loads(lint.stdout)["issues"]
    assert cli, "the CLI finds the broken cuts too"
    from_cli = sorted((i["code"], i["line"], i["column"], i["end_line"], i["end_column"]) for i in cli)
    from_lsp = sorted((d.code, d.range.start.line + 1, d.range.start.character + 1,
                       d.range.end.line + 1, d.range.end.character + 1) for d in diags)
    assert from_lsp == from_cli


async def test_project_exclude_applies_in_the_editor(client: LanguageClient, tmp_path: Path):
    path = make_project(tmp_path, 'chunker = "fixed"\nunit = "chars"\nsize = 200\nexclude = ["drafts/"]\n')
    draft = tmp_path / "drafts" / "wip.md"
    draft.parent.mkdir()
    draft.write_text(path.read_text())
    await initialize(client, init_options={"settings": {"debounceMs": 0}}, root=tmp_path)
    open_doc(client, draft.as_uri(), draft.read_text())
    open_doc(client, path.as_uri(), path.read_text())
    # the linted file gets its issues; the excluded one is published empty, as `chunkseam lint` skips it
    assert (await wait_published(client, path.as_uri(), version=1)).diagnostics
    assert list((await wait_published(client, draft.as_uri(), version=1)).diagnostics) == []
    lint = subprocess.run([sys.executable, "-m", "chunkseam", "lint", str(draft)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert lint.returncode == 0 and "CS0" not in lint.stdout, lint.stdout


async def test_editor_settings_win_over_the_project_config(client: LanguageClient, tmp_path: Path):
    path = make_project(tmp_path, 'chunker = "fixed"\nunit = "chars"\nsize = 200\n')
    await initialize(client, init_options={"settings": {"size": 300, "debounceMs": 0}}, root=tmp_path)
    uri = path.as_uri()
    open_doc(client, uri, path.read_text())
    await wait_published(client, uri, version=1)
    assert await n_chunks(client, uri) == 3


async def test_bad_setting_is_reported_once_and_the_default_kept(client: LanguageClient):
    await initialize(client, init_options={"settings": {"chunker": "fixed", "unit": "chars",
                                                        "size": "big", "debounceMs": 0}})
    uris = [DATABASE.as_uri(), "untitled:/copy.md"]
    for uri in uris:
        open_doc(client, uri, DATABASE.read_text())
    for uri in uris:
        await wait_published(client, uri, version=1)
    await asyncio.sleep(0.2)
    about_size = [m for m in client.messages if "size" in m.message]
    assert len(about_size) == 1, [m.message for m in client.messages]
    message = about_size[0]
    assert message.type == types.MessageType.Error
    assert '"big"' in message.message and "expected a positive integer" in message.message
    # the other settings hold; size falls back to its default (400 characters)
    assert await n_chunks(client, uris[0]) == 2


async def test_unknown_key_and_bad_trace_are_reported(client: LanguageClient):
    await initialize(client, init_options={"settings": dict(FIXED_200, colour="red", trace="loud")})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    await wait_for(lambda: len(client.messages) >= 2)
    text = "\n".join(m.message for m in client.messages)
    assert "colour" in text and "known keys" in text
    assert "trace" in text and "expected one of" in text
    assert await n_chunks(client, uri) == 4


async def test_client_side_keys_are_not_errors(client: LanguageClient):
    # what VS Code returns for the whole `chunkseam` section
    settings = dict(FIXED_200, trace={"server": "off"}, server={"path": ""}, interpreter=[])
    await initialize(client, settings=settings)
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    assert client.messages == []


async def test_disabled_server_publishes_nothing(client: LanguageClient):
    await initialize(client, init_options={"settings": dict(FIXED_200, enable=False)})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    assert list((await wait_published(client, uri, version=1)).diagnostics) == []
    answer = as_dict(await request(client, "chunkseam/chunks", uri))
    assert answer["enabled"] is False and list(answer["chunks"]) == []
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri)))
    assert not lenses


async def test_trace_level_controls_log_messages(client: LanguageClient):
    await initialize(client, init_options={"settings": dict(FIXED_200, trace="debug")})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    await wait_for(lambda: any("analysed" in m.message for m in client.log_messages))
    assert all(m.type != types.MessageType.Error for m in client.log_messages)


async def test_default_trace_level_is_quiet(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = DATABASE.as_uri()
    open_doc(client, uri, DATABASE.read_text())
    await wait_published(client, uri, version=1)
    await asyncio.sleep(0.2)
    assert not any("analysed" in m.message for m in client.log_messages)


# -- trust: plugins named in settings are imported only in a trusted workspace --------

PLUGIN = '''
import os
from pathlib import Path
Path(__file__).with_name("imported.flag").write_text("yes")
# noise on stdout (the protocol channel) must not reach the client
print("plugin noise from print()", end="")
os.write(1, b"plugin noise written to fd 1")

from chunkseam import chunkers


class Explode:
    name = "explode"
    description = "a chunker that fails, for the tests"

    def chunk(self, doc, sizer, *, size, overlap=0, **options):
        print("more noise while chunking", end="", flush=True)
        os.write(1, b"and more on fd 1")
        raise RuntimeError("boom from the plugin")


chunkers.register(Explode())
'''


async def start_with_plugin(tmp_path: Path, trusted: bool) -> LanguageClient:
    (tmp_path / "cs_test_plugin.py").write_text(PLUGIN)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    client = make_client()
    await client.start_io(*SERVER_COMMAND, env=env)
    await initialize(client, init_options={"trusted": trusted, "settings": dict(
        FIXED_200, plugins=["cs_test_plugin"], chunker="explode")})
    return client


async def test_untrusted_workspace_does_not_import_plugins(tmp_path: Path):
    client = await start_with_plugin(tmp_path, trusted=False)
    try:
        uri = DATABASE.as_uri()
        open_doc(client, uri, DATABASE.read_text())
        diags = (await wait_published(client, uri, version=1)).diagnostics
        assert not (tmp_path / "imported.flag").exists()
        await wait_for(lambda: any("not trusted" in m.message for m in client.messages))
        assert any("explode" in m.message for m in client.messages)
        # the document is analysed with the default chunker instead
        assert all(d.code != "internal-error" for d in diags)
        assert as_dict(await request(client, "chunkseam/chunks", uri))["chunks"]
    finally:
        await shutdown(client)
        await client.stop()


async def test_trusted_workspace_imports_plugins_and_survives_their_crash(tmp_path: Path):
    client = await start_with_plugin(tmp_path, trusted=True)
    try:
        uri = DATABASE.as_uri()
        open_doc(client, uri, DATABASE.read_text())
        diags = (await wait_published(client, uri, version=1)).diagnostics
        assert (tmp_path / "imported.flag").exists()
        assert [d.code for d in diags] == ["internal-error"]
        assert "boom from the plugin" in diags[0].message
        await wait_for(lambda: any("RuntimeError: boom from the plugin" in m.message
                                   and "Traceback" in m.message for m in client.log_messages))
        stats = as_dict(await request(client, "chunkseam/stats", uri))
        assert "boom" in stats["error"] and stats["chunks"] == 0
        # still alive and answering
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri), position=types.Position(0, 0)))
        assert hover is None
    finally:
        await shutdown(client)
        await client.stop()


async def test_the_server_says_which_layer_each_setting_comes_from(client: LanguageClient, tmp_path: Path):
    """chunkseam.toml says size 256; the editor sets 128: the status request
    names each value's layer, and that the editor's size overrides the file's
    (CI, which reads only the file, does not see it)."""
    (tmp_path / "chunkseam.toml").write_text('chunker = "fixed"\nunit = "chars"\nsize = 256\n')
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\n" + "Some words in a sentence. " * 40 + "\n")
    await initialize(client, init_options={"settings": {"size": 128, "debounceMs": 0}}, root=tmp_path)
    open_doc(client, doc.as_uri(), doc.read_text())
    await wait_published(client, doc.as_uri(), version=1)
    stats = as_dict(await request(client, "chunkseam/stats", doc.as_uri()))
    layers = {s["key"]: s for s in stats["settings"]}
    toml = str(tmp_path / "chunkseam.toml")
    assert layers["chunker"] == {"key": "chunker", "value": "fixed", "source": toml}
    assert layers["size"] == {"key": "size", "value": 128, "source": "editor", "overrides": toml}
    assert layers["overlap"]["source"] == "default" and "overrides" not in layers["overlap"]
    # and the one-line summary no longer says the editor's size is the file's
    assert stats["simulated"] == (f"simulating chunker fixed, size 128 chars "
                                  f"(chunker from {toml}, size from editor, unit from {toml})")


async def test_the_layers_follow_a_config_file_that_appears(client: LanguageClient, tmp_path: Path):
    """The same values from another layer (a chunkseam.toml written after the
    editor's settings): the analysis is reused, the layers are the new ones."""
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\n" + "Some words in a sentence. " * 40 + "\n")
    await initialize(client, settings={"size": 44, "chunker": "recursive", "debounceMs": 0}, root=tmp_path)
    open_doc(client, doc.as_uri(), doc.read_text())
    await wait_published(client, doc.as_uri(), version=1)
    before = as_dict(await request(client, "chunkseam/stats", doc.as_uri()))["settings"]
    assert not any("overrides" in s for s in before)
    (tmp_path / "chunkseam.toml").write_text('chunker = "recursive"\nsize = 256\n')
    n = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(tmp_path / "chunkseam.toml").as_uri(), type=types.FileChangeType.Created)]))
    await wait_published(client, doc.as_uri(), after=n)
    layers = {s["key"]: s for s in as_dict(await request(client, "chunkseam/stats", doc.as_uri()))["settings"]}
    toml = str(tmp_path / "chunkseam.toml")
    assert layers["size"] == {"key": "size", "value": 44, "source": "editor", "overrides": toml}
    assert layers["chunker"]["overrides"] == toml
