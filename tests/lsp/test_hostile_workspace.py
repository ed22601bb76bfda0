"""A repository's chunkseam.toml is untrusted input: it cannot make chunkseam
read special or huge files, run backtracking regular expressions or do
unbounded work; over the budget a document gets one clear diagnostic and the
server keeps answering."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from chunkseam.core import budget

from chunkseam.tokens import tiktoken as tokens
from chunkseam.engine.analysis import analyze
from chunkseam.core.budget import BudgetExceeded
from chunkseam.config.loader import resolve
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from wirekit import RawServer

REGEX_TOML = """chunker = "recursive"
unit = "chars"
size = 50
[chunker-options]
separators = ["(a+)+$", "\\n"]
is-separator-regex = true
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.fixture(autouse=True)
def _fresh_tokenizer_caches():
    tokens.clear_caches()
    yield
    tokens.clear_caches()


# -- tiktoken-file ----------------------------------------------------------------------------


def special_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.tiktoken"
    os.mkfifo(fifo)
    sparse = tmp_path / "sparse.tiktoken"
    with open(sparse, "wb") as f:
        f.truncate(5 * 1024**3)  # 5 GB, no blocks on disk
    bomb = tmp_path / "bomb.tiktoken.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        block = b"\0" * (1 << 20)
        for _ in range(40):  # 40 MB of zeros in ~40 KB
            f.write(block)
    return {"fifo": fifo, "stdin": Path("/dev/stdin"), "zero": Path("/dev/zero"),
            "directory": tmp_path, "sparse": sparse, "gzip bomb": bomb}


@pytest.mark.parametrize("kind", ["fifo", "stdin", "zero", "directory", "sparse", "gzip bomb"])
def test_a_special_or_huge_tiktoken_file_is_refused_without_reading_it(tmp_path, kind):
    path = special_files(tmp_path)[kind]
    with pytest.raises(tokens.TokenizerFileError) as info:
        tokens.get_sizer("tokens", "cl100k_base", file=str(path))
    message = str(info.value)
    assert str(path) in message
    assert ("not a regular file" in message or "larger than any tiktoken file" in message
            or "more than" in message), message


def test_a_failed_tiktoken_file_is_not_read_again_until_it_changes(tmp_path, monkeypatch):
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"not a tiktoken file\n")
    reads = []
    real_read = tokens._read
    monkeypatch.setattr(tokens, "_read", lambda p: reads.append(p) or real_read(p))
    for _ in range(3):
        with pytest.raises(tokens.TokenizerFileError, match="not a valid"):
            tokens.get_sizer("tokens", "cl100k_base", file=str(bad))
    assert len(reads) == 1
    bad.write_bytes(b"still not a tiktoken file, but a different one\n")
    with pytest.raises(tokens.TokenizerFileError):
        tokens.get_sizer("tokens", "cl100k_base", file=str(bad))
    assert len(reads) == 2


def test_untrusted_workspace_file_settings_are_dropped_with_a_warning(repo):
    (repo / "chunkseam.toml").write_text('tiktoken-file = "/dev/zero"\n' + REGEX_TOML, encoding="utf-8")
    doc = repo / "a.md"
    untrusted = resolve(str(doc), {}, strict=False, trusted=False, overrides_source="editor")
    assert untrusted.settings.tiktoken_file is None
    assert "separators" not in untrusted.settings.chunker_options
    assert "is_separator_regex" not in untrusted.settings.chunker_options
    warnings = [str(e) for e in untrusted.errors if e.warning]
    assert any("chunkseam.toml" in w and "tiktoken-file" in w and "not trusted" in w for w in warnings)
    assert any("chunkseam.toml" in w and "regular expression separators" in w for w in warnings)
    trusted = resolve(str(doc), {}, strict=False, trusted=True, overrides_source="editor")
    assert trusted.settings.tiktoken_file == "/dev/zero"
    assert trusted.settings.chunker_options["is_separator_regex"] is True
    # the editor's own settings are honoured in an untrusted workspace
    editor = resolve(str(doc), {"tiktokenFile": "/x/cl100k_base.tiktoken",
                                "chunkerOptions": {"separators": ["\\n\\n+"], "isSeparatorRegex": True}},
                     strict=False, trusted=False, overrides_source="editor")
    assert editor.settings.tiktoken_file == "/x/cl100k_base.tiktoken"
    assert editor.settings.chunker_options["separators"] == ["\\n\\n+"]


def test_literal_separators_from_an_untrusted_file_are_kept(repo):
    (repo / "chunkseam.toml").write_text(
        'chunker = "recursive"\n[chunker-options]\nseparators = ["\\n\\n", "(a+)+$"]\n', encoding="utf-8")
    r = resolve(str(repo / "a.md"), {}, strict=False, trusted=False, overrides_source="editor")
    assert r.settings.chunker_options["separators"] == ["\n\n", "(a+)+$"]
    assert not r.errors


# -- the budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize("chunker", ["recursive", "langchain"])
def test_a_backtracking_separator_is_abandoned_with_one_clear_message(chunker):
    settings = Settings(chunker=chunker, unit="chars", size=50,
                        chunker_options={"separators": ["(a+)+$", "\n"], "is_separator_regex": True})
    doc = Document("a" * 40_000 + "b\n", path="x.md")
    with pytest.raises(BudgetExceeded) as info:
        analyze(doc, settings, seconds=1.0)  # hours of backtracking: over any budget
    assert "too large or too slow to analyse with these settings" in str(info.value)
    assert "(a+)+$" in str(info.value)


def test_too_large_and_too_many_chunks_are_refused_up_front(monkeypatch):
    monkeypatch.setattr(budget, "MAX_DOCUMENT_CHARS", 1000)
    with pytest.raises(BudgetExceeded, match="characters"):
        analyze(Document("x" * 1001, path="x.md"), Settings())
    monkeypatch.setattr(budget, "MAX_DOCUMENT_CHARS", 10**9)
    monkeypatch.setattr(budget, "MAX_CHUNKS", 100)
    with pytest.raises(BudgetExceeded, match="chunks"):
        analyze(Document("word " * 2000, path="x.md"), Settings(chunker="fixed", unit="chars", size=1))
    with pytest.raises(BudgetExceeded, match="chunks"):
        analyze(Document("word\n\n" * 2000, path="x.md"),
                Settings(chunker="recursive", unit="chars", size=3))


def test_the_cli_reports_the_budget_per_file_and_goes_on(repo, monkeypatch, capsys):
    from clikit import run

    monkeypatch.chdir(repo)
    monkeypatch.setenv(budget.ENV_SECONDS, "1")
    (repo / "chunkseam.toml").write_text(REGEX_TOML, encoding="utf-8")
    (repo / "slow.md").write_text("a" * 40_000 + "b\n", encoding="utf-8")
    (repo / "fine.md").write_text("# Fine\n\nA short paragraph.\n", encoding="utf-8")
    rc, out, err = run(capsys, "lint", "slow.md", "fine.md")
    assert rc == 2
    assert "slow.md: error: too large or too slow to analyse with these settings" in err
    assert "Traceback" not in err and "internal error" not in err
    assert "1 file could not be checked" in out


# -- the language server ------------------------------------------------------------------------


def diagnostics_of(server: RawServer, uri: str) -> list[dict]:
    return server.published(uri)["params"]["diagnostics"]


def open_file(server: RawServer, path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": text}})
    return uri


def test_untrusted_server_ignores_hostile_file_settings_and_keeps_answering(repo):
    fifo = repo / "fifo.tiktoken"
    os.mkfifo(fifo)
    (repo / "chunkseam.toml").write_text(f'tiktoken-file = "{fifo}"\n' + REGEX_TOML, encoding="utf-8")
    # the budget only ends the regex's hours of backtracking were it used; the
    # analysis without it (cold imports on a loaded machine included) fits easily
    server = RawServer(env={budget.ENV_SECONDS: "60"})
    try:
        server.initialize({"settings": {"debounceMs": 0}}, root_uri=repo.as_uri())
        uri = open_file(server, repo / "slow.md", "a" * 40_000 + "b\n")
        diags = diagnostics_of(server, uri)
        # neither the FIFO nor the regex was used: the document was analysed normally
        assert all(d.get("code") != "internal-error" for d in diags), diags
        shown = [m["params"]["message"] for m in server.seen if m.get("method") == "window/showMessage"]
        assert any("tiktoken-file" in m and "not trusted" in m for m in shown), shown
        assert any("regular expression separators" in m for m in shown), shown
        rid = server.request("chunkseam/stats", {"textDocument": {"uri": uri}})
        assert "result" in server.response(rid)
    finally:
        assert server.close() == 0


def test_trusted_server_abandons_a_slow_analysis_with_one_diagnostic(repo):
    (repo / "chunkseam.toml").write_text(REGEX_TOML, encoding="utf-8")
    server = RawServer(env={budget.ENV_SECONDS: "1"})
    try:
        server.initialize({"trusted": True, "settings": {"debounceMs": 0}}, root_uri=repo.as_uri())
        uri = open_file(server, repo / "slow.md", "a" * 40_000 + "b\n")
        diags = diagnostics_of(server, uri)
        assert len(diags) == 1, diags
        assert "too large or too slow to analyse with these settings" in diags[0]["message"]
        assert "(a+)+$" in diags[0]["message"]
        fine = open_file(server, repo / "fine.md", "# Fine\n\nA short paragraph.\n\nAnother one.\n")
        assert all("too slow" not in d["message"] for d in diagnostics_of(server, fine))
        rid = server.request("chunkseam/chunks", {"textDocument": {"uri": fine}})
        assert server.response(rid)["result"]["chunks"]
    finally:
        assert server.close() == 0


def test_trusted_server_with_a_fifo_tiktoken_file_reports_it_and_keeps_answering(repo):
    fifo = repo / "fifo.tiktoken"
    os.mkfifo(fifo)
    (repo / "chunkseam.toml").write_text(f'tiktoken-file = "{fifo}"\n', encoding="utf-8")
    server = RawServer()
    try:
        server.initialize({"trusted": True, "settings": {"debounceMs": 0}}, root_uri=repo.as_uri())
        uri = open_file(server, repo / "a.md", "# Title\n\nSome text.\n")
        diags = diagnostics_of(server, uri)
        assert len(diags) == 1 and "not a regular file" in diags[0]["message"], diags
        rid = server.request("chunkseam/stats", {"textDocument": {"uri": uri}})
        assert server.response(rid)["id"] == rid
    finally:
        assert server.close() == 0


def test_a_config_file_cannot_extend_a_fifo_or_a_device(repo):
    fifo = repo / "fifo.toml"
    os.mkfifo(fifo)
    for target in (fifo, Path("/dev/zero")):
        (repo / "chunkseam.toml").write_text(f'extend = "{target}"\nsize = 64\n', encoding="utf-8")
        r = resolve(str(repo / "a.md"), {}, strict=False, trusted=False, overrides_source="editor")
        assert any("extend" in str(e) or "not a regular file" in str(e) for e in r.errors), r.errors
        assert r.settings.size == 64


def test_the_user_level_config_file_is_trusted_like_editor_settings(tmp_path, monkeypatch):
    home = tmp_path / "config"
    (home / "chunkseam").mkdir(parents=True)
    (home / "chunkseam" / "chunkseam.toml").write_text('tiktoken-file = "/x/cl100k_base.tiktoken"\n',
                                                      encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    r = resolve(str(project / "a.md"), {}, strict=False, trusted=False, overrides_source="editor")
    assert r.config_file is not None and r.config_file.parent.parent == home
    assert r.settings.tiktoken_file == "/x/cl100k_base.tiktoken"
