"""``chunkseam init``: the configuration from the pipeline found in the code.

Fixture repositories (tests/fixtures/init/): one per library, one with two
pipelines, one with none. Every fixture module writes a canary file and exits
as soon as it is run: init must read them with ``ast`` only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from chunkseam.init import scaffold as init
from chunkseam.config.loader import load_config_file, resolve
from conftest import FIXTURES
from lsp_support import (
    CONFIG,
    FIXED_200,
    as_dict,
    initialize,
    open_doc,
    request,
    shutdown,
    wait_published,
)
from pytest_lsp import LanguageClient

INIT = FIXTURES / "init"

EXPECTED = {
    "langchain": ("pyproject.toml", "src/ingest.py:13",
                  {"chunker": "langchain", "size": 1000, "overlap": 200, "unit": "chars"}),
    "llamaindex": ("chunkseam.toml", "pipeline.py:8",
                   {"chunker": "llamaindex", "size": 512, "overlap": 64, "unit": "tokens",
                    "encoding": "cl100k_base"}),
    "chonkie": ("chunkseam.toml", "chunk.py:8",
                {"chunker": "chonkie", "size": 384, "overlap": 0, "unit": "tokens",
                 "encoding": "cl100k_base"}),
    "semchunk": ("chunkseam.toml", "index.py:9",
                 {"chunker": "semchunk", "size": 256, "overlap": 0, "unit": "tokens",
                  "encoding": "gpt-4o"}),
    "text_splitter": ("chunkseam.toml", "split.py:8",
                      {"chunker": "text-splitter", "size": 800, "overlap": 50, "unit": "tokens",
                       "encoding": "gpt-3.5-turbo",
                       "chunker-options": {"splitter": "MarkdownSplitter"}}),
    "haystack": ("chunkseam.toml", "indexing.py:8",
                 {"chunker": "haystack", "size": 3, "overlap": 1, "unit": "tokens",
                  "chunker-options": {"split_by": "passage"}}),
}


def copy(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(INIT / name, dest)
    (dest / ".git").mkdir()
    return dest


def run_init(*args: str, canary: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**__import__("os").environ, "CHUNKSEAM_INIT_CANARY": str(canary)}
    return subprocess.run([sys.executable, "-m", "chunkseam", "init", *args], capture_output=True,
                          text=True, env=env, input=stdin, check=False)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_one_pipeline_per_library(name, tmp_path):
    repo = copy(name, tmp_path)
    canary = tmp_path / "canary"
    out = run_init(str(repo), canary=canary)
    assert out.returncode == 0, out.stderr
    file, where, settings = EXPECTED[name]
    assert where in out.stdout, out.stdout
    written = repo / file
    table = load_config_file(written)
    assert table == settings
    assert where in written.read_text(encoding="utf-8")  # the config says where it came from
    resolved = resolve(repo / "doc.md")  # and chunkseam reads it as written
    assert resolved.settings.chunker == settings["chunker"]
    assert resolved.settings.size == settings["size"]
    assert not canary.exists()
    if file == "pyproject.toml":  # the project's own table is kept
        assert 'name = "demo-rag"' in written.read_text(encoding="utf-8")
        again = run_init(str(repo), canary=canary)
        assert again.returncode == 2 and "has a [tool.chunkseam] table already" in again.stderr


def test_the_adapters_run_with_what_init_wrote(tmp_path):
    pytest.importorskip("semantic_text_splitter")
    repo = copy("text_splitter", tmp_path)
    assert run_init(str(repo), canary=tmp_path / "c").returncode == 0
    doc = repo / "doc.md"
    doc.write_text((FIXTURES / "database.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "chunkseam", "lint", str(doc)],
                         capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    assert "simulating chunker text-splitter (MarkdownSplitter)" in out.stderr
    assert str(repo / "chunkseam.toml") in out.stderr
    preview = subprocess.run([sys.executable, "-m", "chunkseam", "preview", str(doc)],
                             capture_output=True, text=True, check=False)
    assert preview.returncode == 0, preview.stderr
    assert "simulating chunker text-splitter (MarkdownSplitter), size 800 gpt-3.5-turbo tokens, "\
        f"overlap 50 (from {repo / 'chunkseam.toml'})" in preview.stdout


def test_two_pipelines_ask_or_take_a_choice(tmp_path):
    repo = copy("two", tmp_path)
    canary = tmp_path / "canary"
    out = run_init(str(repo), canary=canary)
    assert out.returncode == 2 and "--choose N" in out.stderr
    assert "1. a.py:8" in out.stdout and "2. b.py:8" in out.stdout
    assert not (repo / "chunkseam.toml").exists()
    out = run_init(str(repo), "--choose", "2", canary=canary)
    assert out.returncode == 0, out.stderr
    assert load_config_file(repo / "chunkseam.toml") == {
        "chunker": "llamaindex", "size": 256, "overlap": 16, "unit": "tokens",
        "encoding": "cl100k_base", "chunker-options": {"splitter": "TokenTextSplitter"}}
    out = run_init(str(repo), "--choose", "1", "--force", canary=canary)
    assert load_config_file(repo / "chunkseam.toml") == {
        "chunker": "langchain", "size": 300, "overlap": 30, "unit": "tokens",
        "encoding": "cl100k_base"}
    assert not canary.exists()


def test_no_pipeline_offers_library_defaults(tmp_path):
    repo = copy("none", tmp_path)
    canary = tmp_path / "canary"
    out = run_init(str(repo), canary=canary)
    assert out.returncode == 2 and "--preset NAME" in out.stderr
    for name in init.PRESETS:
        assert name in out.stdout
    out = run_init(str(repo), "--preset", "llamaindex", canary=canary)
    assert out.returncode == 0, out.stderr
    assert load_config_file(repo / "chunkseam.toml") == init.PRESETS["llamaindex"][1]
    out = run_init(str(repo), "--preset", "nope", "--force", canary=canary)
    assert out.returncode == 2 and "expected one of" in out.stderr
    assert not canary.exists()


def test_no_fixture_code_is_imported_or_executed(tmp_path, monkeypatch):
    """In-process, with an audit hook: no module of the fixtures is imported
    and no code object compiled from them is executed; the canary stays absent."""
    canary = tmp_path / "canary"
    monkeypatch.setenv("CHUNKSEAM_INIT_CANARY", str(canary))
    events: list[tuple[str, str]] = []
    fixture_root = str(INIT.resolve())

    def hook(event, args):
        if event == "exec":
            code = args[0]
            filename = getattr(code, "co_filename", "")
            if filename.startswith(fixture_root):
                events.append((event, filename))
        elif event == "import" and args and isinstance(args[0], str):
            if args[0].split(".")[0] in ("ingest", "pipeline", "chunk", "index", "split",
                                         "indexing", "a", "b", "app"):
                events.append((event, args[0]))
        elif event == "open" and args and str(args[0]) == str(canary):
            events.append((event, str(args[0])))

    sys.addaudithook(hook)
    before = set(sys.modules)
    found = init.find_pipelines(INIT)
    assert {f.library for f in found} == {"langchain", "llamaindex", "chonkie", "semchunk",
                                          "text-splitter", "haystack"}
    assert len(found) == 8
    assert events == []
    assert not canary.exists()
    new = set(sys.modules) - before
    assert not any(m.split(".")[0] in ("ingest", "pipeline", "split", "indexing", "app")
                   for m in new), new


def test_non_literal_arguments_keep_defaults_and_say_so(tmp_path):
    (tmp_path / "p.py").write_text(
        "from langchain_text_splitters import RecursiveCharacterTextSplitter\n"
        "import os\n"
        "s = RecursiveCharacterTextSplitter(chunk_size=int(os.environ['N']), chunk_overlap=0)\n",
        encoding="utf-8")
    (tmp_path / "q.py").write_text(  # a class of the same name from elsewhere is not a pipeline
        "from mylib import RecursiveCharacterTextSplitter\n"
        "s = RecursiveCharacterTextSplitter(chunk_size=5)\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("def (:\n", encoding="utf-8")
    found = init.find_pipelines(tmp_path)
    assert len(found) == 1 and found[0].file == "p.py"
    assert found[0].settings["size"] == 4000
    assert any("not a literal" in n for n in found[0].notes)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def test_the_server_tells_which_chunker_is_simulated_and_where_from(client: LanguageClient):
    await initialize(client, init_options={"settings": FIXED_200}, settings=FIXED_200)
    uri = (FIXTURES / "database.md").as_uri()
    open_doc(client, uri, (FIXTURES / "database.md").read_text(encoding="utf-8"))
    await wait_published(client, uri, version=1)
    answer = as_dict(await request(client, "chunkseam/stats", uri))
    assert answer["simulated"] == "simulating chunker fixed, size 200 chars (from editor)"
