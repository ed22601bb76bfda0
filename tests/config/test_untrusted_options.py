"""Chunker and tokenizer settings from a repository's own config file cannot make
chunkseam import or run code, read special files, download or run a regular
expression of the repository's choosing unless the workspace is trusted: the
``hf:`` tokenizer, ``allow-network``, LlamaIndex's ``secondary_chunking_regex``,
LangChain's ``separator`` and its model-loading splitters. Trusted settings
(the command line, the editor's own settings) are bounded by the time budget.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from chunkseam.core import budget
from chunkseam.tokens import hf as tokens_hf
from chunkseam.engine.analysis import analyze, sizer_for
from chunkseam.core.budget import BudgetExceeded
from chunkseam.config.loader import resolve
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import TokenizerUnavailable
from lsp_support import (
    CONFIG,
    TIMEOUT,
    as_dict,
    initialize,
    open_doc,
    request,
    shutdown,
    wait_published,
)
from pytest_lsp import LanguageClient

#: Python's re backtracks on this for hours; the regex engine gives up at the budget
SLOW_TEXT = "a" * 40_000 + "b\n"
LLAMA_REGEX = """chunker = "llamaindex"
unit = "chars"
size = 50
[chunker-options]
secondary-chunking-regex = "(a+)+$"
"""
LANGCHAIN_SEPARATOR = """chunker = "langchain"
unit = "chars"
size = 50
[chunker-options]
splitter = "CharacterTextSplitter"
separator = "(a+)+$"
is-separator-regex = true
"""
LANGCHAIN_NLTK = """chunker = "langchain"
unit = "chars"
size = 200
[chunker-options]
splitter = "NLTKTextSplitter"
language = "../../../../tmp/elsewhere"
"""


@pytest.fixture(autouse=True)
def _fresh_hf_caches():
    tokens_hf.clear_caches()
    yield
    tokens_hf.clear_caches()


def repo(base: Path, name: str, config: str) -> Path:
    root = base / name
    (root / ".git").mkdir(parents=True)
    (root / "chunkseam.toml").write_text(config, encoding="utf-8")
    return root


def untrusted(root: Path):
    return resolve(str(root / "a.md"), {}, strict=False, trusted=False, overrides_source="editor")


def warnings_of(resolved) -> list[str]:
    return [str(e) for e in resolved.errors if e.warning]


def tokenizer_json(path: Path) -> Path:
    """A small real tokenizer.json, trained offline."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["a small text to train on, twice over"] * 3,
                            trainer=trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path


# -- resolution: what an untrusted workspace file may not set --------------------------------------


def test_regex_options_and_model_loading_splitters_are_dropped_with_a_warning(tmp_path):
    llama = untrusted(repo(tmp_path, "llama", LLAMA_REGEX))
    assert "secondary_chunking_regex" not in llama.settings.chunker_options
    assert any("secondary-chunking-regex" in w and "not trusted" in w and "chunkseam.toml" in w
               for w in warnings_of(llama)), llama.errors
    char = untrusted(repo(tmp_path, "char", LANGCHAIN_SEPARATOR))
    assert char.settings.chunker_options == {"splitter": "CharacterTextSplitter"}
    assert any("separator" in w and "not trusted" in w for w in warnings_of(char))
    nltk = untrusted(repo(tmp_path, "nltk", LANGCHAIN_NLTK))
    assert nltk.settings.chunker_options == {}
    assert any("NLTKTextSplitter" in w and "not trusted" in w for w in warnings_of(nltk))
    # trusted, and the editor's own settings in an untrusted workspace: kept
    trusted = resolve(str(tmp_path / "llama" / "a.md"), {}, strict=False, trusted=True)
    assert trusted.settings.chunker_options == {"secondary_chunking_regex": "(a+)+$"}
    editor = resolve(str(tmp_path / "nltk" / "a.md"),
                     {"chunkerOptions": {"splitter": "NLTKTextSplitter"}},
                     strict=False, trusted=False, overrides_source="editor")
    assert editor.settings.chunker_options == {"splitter": "NLTKTextSplitter"}
    # safe options stay: literal separators, a splitter that only splits text
    safe = untrusted(repo(tmp_path, "safe", 'chunker = "langchain"\n[chunker-options]\n'
                          'splitter = "CharacterTextSplitter"\nseparator = "(a+)+$"\n'))
    assert safe.settings.chunker_options == {"splitter": "CharacterTextSplitter", "separator": "(a+)+$"}
    assert not safe.errors


def test_hf_paths_and_allow_network_from_an_untrusted_file(tmp_path):
    root = repo(tmp_path, "hf", 'encoding = "hf:tok/tokenizer.json"\nallow-network = true\n')
    tokenizer_json(root / "tok" / "tokenizer.json")
    r = untrusted(root)
    assert r.settings.encoding == "cl100k_base" and r.settings.allow_network is False
    shown = warnings_of(r)
    assert any("encoding" in w and "tokenizer.json" in w and "not trusted" in w for w in shown), shown
    assert any("allow-network" in w and "not trusted" in w for w in shown), shown
    # trusted: the repository's tokenizer is used
    t = resolve(str(root / "a.md"), {}, strict=False, trusted=True)
    assert t.settings.encoding == "hf:" + str(root / "tok" / "tokenizer.json")
    assert sizer_for(t.settings).name == t.settings.encoding


def test_an_untrusted_hf_model_id_resolves_from_the_local_cache_only(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    root = repo(tmp_path, "model", 'encoding = "hf:acme/mini"\n')
    # a directory of the same name in the workspace (the server's working
    # directory may be the workspace) is not the model
    tokenizer_json(root / "acme" / "mini" / "tokenizer.json")
    monkeypatch.chdir(root)
    r = untrusted(root)
    assert r.settings.encoding == "hf:acme/mini" and r.settings.hf_model_only
    assert resolve(str(root / "a.md"), {}, strict=False, trusted=True).settings.hf_model_only is False
    with pytest.raises(TokenizerUnavailable, match="not in the local Hugging Face cache"):
        sizer_for(r.settings)
    tokenizer_json(cache / "models--acme--mini" / "snapshots" / "abc" / "tokenizer.json")
    sizer = sizer_for(r.settings)
    assert sizer.count("a small text") > 0
    assert str(cache) in sizer.source


def test_a_cache_ref_cannot_lead_out_of_the_snapshots(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    tokenizer_json(tmp_path / "elsewhere" / "tokenizer.json")
    refs = cache / "models--acme--mini" / "refs"
    refs.mkdir(parents=True)
    (cache / "models--acme--mini" / "snapshots").mkdir()  # empty: no snapshot of its own
    (refs / "main").write_text("../../../elsewhere")
    with pytest.raises(TokenizerUnavailable, match="not in the local Hugging Face cache"):
        tokens_hf.get_hf_sizer("hf:acme/mini")


def test_special_and_failed_tokenizer_files_are_read_once_without_blocking(tmp_path, monkeypatch):
    fifo = tmp_path / "tokenizer.json"
    os.mkfifo(fifo)
    with pytest.raises(TokenizerUnavailable, match="not a regular file"):
        tokens_hf.get_hf_sizer(f"hf:{fifo}")
    bad = tmp_path / "bad" / "tokenizer.json"
    bad.parent.mkdir()
    bad.write_text('{"not": "a tokenizer"}')
    reads = []
    real = tokens_hf._read_regular
    monkeypatch.setattr(tokens_hf, "_read_regular", lambda p, n: reads.append(p) or real(p, n))
    for _ in range(3):
        with pytest.raises(TokenizerUnavailable, match="is not a tokenizer.json"):
            tokens_hf.get_hf_sizer(f"hf:{bad}")
    assert len(reads) == 1
    tokenizer_json(bad)  # fixed: read again, and used
    assert tokens_hf.get_hf_sizer(f"hf:{bad}").count("a small text") > 0
    assert len(reads) == 2


# -- trusted settings are bounded by the time budget ----------------------------------------------


@pytest.mark.parametrize("chunker, options", [
    ("llamaindex", {"secondary_chunking_regex": "(a+)+$"}),
    ("langchain", {"splitter": "CharacterTextSplitter", "separator": "(a+)+$",
                   "is_separator_regex": True}),
])
def test_a_trusted_backtracking_library_regex_ends_at_the_budget(chunker, options):
    settings = Settings(chunker=chunker, unit="chars", size=50, chunker_options=options)
    with pytest.raises(BudgetExceeded) as info:
        analyze(Document(SLOW_TEXT, path="x.md"), settings, seconds=1.0)
    assert "(a+)+$" in str(info.value) and "too slow" in str(info.value)


def test_llamaindex_runs_a_users_regex_on_the_interruptible_engine():
    """A pattern the regex engine finishes at once but Python's re backtracks on for
    hours (the prefix before the 'b'): LlamaIndex's own re.findall step would hang
    the worker for good, whatever probe ran before it. Run in a child process: a
    hang fails the test instead of stopping the suite."""
    code = (
        "from chunkseam.engine.analysis import analyze\n"
        "from chunkseam.document.text import Document\n"
        "from chunkseam.core.settings import Settings\n"
        "s = Settings(chunker='llamaindex', unit='chars', size=50,\n"
        "             chunker_options={'secondary_chunking_regex': '(a+)+$'})\n"
        "a = analyze(Document('a' * 40 + 'b ' + 'a' * 40000, path='x.md'), s, seconds=600)\n"
        "print(len(a.chunks), sum(c.end - c.start for c in a.chunks))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    chunks, covered = map(int, proc.stdout.split())
    assert chunks > 1 and covered >= 40_042


def test_the_cli_reports_a_backtracking_library_regex_and_goes_on(tmp_path):
    root = repo(tmp_path, "cli", LLAMA_REGEX)
    (root / "slow.md").write_text(SLOW_TEXT, encoding="utf-8")
    (root / "fine.md").write_text("# Fine\n\nA short paragraph.\n", encoding="utf-8")
    env = dict(os.environ, **{budget.ENV_SECONDS: "2"})
    # the timeout only guards against a hang (the old behaviour): far above the budget
    proc = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "--no-cache", "slow.md", "fine.md"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 2, proc.stderr
    assert "slow.md: error: too large or too slow to analyse with these settings" in proc.stderr
    assert "secondary_chunking_regex" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "1 file could not be checked" in proc.stdout


# -- the language server: an untrusted workspace with hostile config files -------------------------


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def test_untrusted_server_drops_hostile_chunker_and_tokenizer_settings(client: LanguageClient,
                                                                             tmp_path: Path):
    import asyncio

    fifo_repo = repo(tmp_path, "fifo", 'encoding = "hf:tokenizer.json"\nallow-network = true\n')
    os.mkfifo(fifo_repo / "tokenizer.json")
    cases = {  # repository -> what the warning names
        repo(tmp_path, "llama", LLAMA_REGEX): "secondary-chunking-regex",
        repo(tmp_path, "char", LANGCHAIN_SEPARATOR): "separator",
        repo(tmp_path, "nltk", LANGCHAIN_NLTK): "NLTKTextSplitter",
        fifo_repo: "tokenizer.json",
    }
    await initialize(client, init_options={"trusted": False, "settings": {"debounceMs": 0}},
                     root=tmp_path)
    uris = {}
    for root in cases:
        uri = (root / "slow.md").as_uri()
        (root / "slow.md").write_text(SLOW_TEXT, encoding="utf-8")
        open_doc(client, uri, SLOW_TEXT)
        uris[root] = uri
    for root, named in cases.items():
        diags = (await wait_published(client, uris[root], version=1)).diagnostics
        # the hostile setting was not used: the document was analysed normally
        assert all(d.code != "internal-error" and "too slow" not in d.message
                   and "not a regular file" not in d.message for d in diags), (root.name, diags)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not any(named in m.message and "not trusted" in m.message and root.name in m.message
                      for m in client.messages):
            assert loop.time() < deadline, (root.name, [m.message for m in client.messages])
            await asyncio.sleep(0.02)
        stats = as_dict(await request(client, "chunkseam/stats", uris[root]))
        assert stats["chunks"] > 0 and not stats.get("error"), stats
    assert any("allow-network" in m.message and "not trusted" in m.message for m in client.messages)
    # files routed by type (no chunker set): the regex meant for LlamaIndex is not run
    # when chunkseam/compare runs the document with llamaindex either
    routed = repo(tmp_path, "routed", LLAMA_REGEX.replace('chunker = "llamaindex"\n', ""))
    uri = (routed / "slow.md").as_uri()
    open_doc(client, uri, SLOW_TEXT)
    await wait_published(client, uri, version=1)
    got = as_dict(await asyncio.wait_for(client.protocol.send_request_async(
        "chunkseam/compare", {"textDocument": {"uri": uri}, "strategies": ["markdown", "llamaindex"]}),
        TIMEOUT))
    assert got["strategies"] == ["markdown", "llamaindex"] and not got["errors"], got["errors"]


def test_dangling_words_are_bounded(tmp_path):
    """Every chunk start is matched against all of them: a config file cannot make
    that list (and each match) as long as its 4 MB allow."""
    from chunkseam.config.loader import ConfigError

    root = repo(tmp_path, "words", "dangling-words = [" + ", ".join(['"w"'] * 1001) + "]\n")
    with pytest.raises(ConfigError, match="dangling-words.*at most 1,000 words or phrases"):
        resolve(str(root / "a.md"))
    (root / "chunkseam.toml").write_text(f'dangling-words = ["{"x" * 101}"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="at most 100 characters"):
        resolve(str(root / "a.md"))
    (root / "chunkseam.toml").write_text('dangling-words = ["this", "as noted above"]\n', encoding="utf-8")
    assert resolve(str(root / "a.md")).settings.dangling_words == ("this", "as noted above")


def test_a_users_secondary_regex_gives_the_librarys_chunks():
    from conftest import FIXTURES
    from llama_index.core.node_parser import SentenceSplitter

    text = (FIXTURES / "database.md").read_text(encoding="utf-8").replace(".", ",") * 3
    pattern = "[^,;]+[,;]?"
    settings = Settings(chunker="llamaindex", unit="chars", size=60,
                        chunker_options={"secondary_chunking_regex": pattern})
    ours = [c.text for c in analyze(Document(text, path="d.md"), settings).chunks]
    lib = SentenceSplitter(chunk_size=60, chunk_overlap=0, tokenizer=list,
                           secondary_chunking_regex=pattern)
    assert ours == lib._split_text(text, chunk_size=60 - len(lib._tokenizer("")))
    assert len(ours) > 10


def test_an_hf_tokenizer_files_content_is_in_the_result_cache_key(tmp_path):
    """Editing the tokenizer.json an hf: encoding names re-checks the files (the key
    had only the setting's text, so results counted with the old tokenizer stayed)."""
    from chunkseam.lint import resultcache
    tok = tokenizer_json(tmp_path / "tok" / "tokenizer.json")
    settings = Settings(encoding=f"hf:{tok}")
    before = resultcache.settings_key(settings)
    assert resultcache.settings_key(settings) == before
    data = tok.read_text(encoding="utf-8")
    tok.write_text(data.replace('"[UNK]"', '"[UNKNOWN]"'), encoding="utf-8")
    assert resultcache.settings_key(settings) != before


def test_vscode_ignores_a_workspaces_values_of_the_same_settings():
    """The editor's settings are trusted by the server, but in VS Code a workspace's
    own .vscode/settings.json is the repository's too: every setting the server
    takes from an untrusted workspace's config file only with care is a restricted
    configuration there (VS Code then uses the user's value)."""
    import json

    manifest = Path(__file__).resolve().parents[2] / "client-vscode" / "package.json"
    caps = json.loads(manifest.read_text(encoding="utf-8"))["capabilities"]["untrustedWorkspaces"]
    restricted = set(caps["restrictedConfigurations"])
    for key in ("plugins", "tiktokenFile", "encoding", "allowNetwork", "chunkerOptions",
                "server.path", "interpreter"):
        assert f"chunkseam.{key}" in restricted, key


def test_options_are_gated_for_every_strategy_not_only_the_configured_one(tmp_path):
    """chunkseam/compare runs a document with other strategies and the same options:
    a regex meant for LlamaIndex is dropped even when the files are routed to markdown,
    while options that are plain values for another library stay."""
    routed = untrusted(repo(tmp_path, "routed", "[chunker-options]\n"
                            'secondary-chunking-regex = "(a+)+$"\nparagraph-separator = "\\n\\n"\n'))
    assert routed.settings.chunker is None
    assert routed.settings.chunker_options == {"paragraph_separator": "\n\n"}
    assert any("secondary-chunking-regex" in w for w in warnings_of(routed))
    llama = untrusted(repo(tmp_path, "llama-plain", 'chunker = "llamaindex"\n[chunker-options]\n'
                           'splitter = "SentenceSplitter"\nparagraph-separator = "\\n\\n"\n'))
    assert llama.settings.chunker_options == {"splitter": "SentenceSplitter",
                                              "paragraph_separator": "\n\n"}
    assert not llama.errors
    spacy = untrusted(repo(tmp_path, "spacy", 'chunker = "markdown"\n[chunker-options]\n'
                           'splitter = "SpacyTextSplitter"\npipeline = "en_core_web_sm"\n'))
    assert spacy.settings.chunker_options == {}


def test_the_chunks_command_runs_within_the_budget(tmp_path):
    root = repo(tmp_path, "chunks", 'chunker = "recursive"\nunit = "chars"\nsize = 50\n'
                "[chunker-options]\nseparators = [\"(a+)+$\", \"\\n\"]\nis-separator-regex = true\n")
    (root / "slow.md").write_text(SLOW_TEXT, encoding="utf-8")
    env = dict(os.environ, **{budget.ENV_SECONDS: "2"})
    proc = subprocess.run([sys.executable, "-m", "chunkseam", "chunks", "slow.md"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "slow.md" in proc.stderr and "too large or too slow to analyse" in proc.stderr
    assert "(a+)+$" in proc.stderr and "Traceback" not in proc.stderr
