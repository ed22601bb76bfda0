"""Hostile input, round three: lone surrogate escapes in a notebook or a dump, a
tokenizer that panics in native code, forged or special result-cache entries, settings
out of range. One bad file or line is one clear error (exit 2), the rest is checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import run

RUNON = ("# Title\n\nThe value of this setting decides how long a request waits before it gives up "
         "and reports the timeout to the caller with a clear message that names the setting.\n")
OPTS = ("--chunker", "fixed", "--size", "24", "--unit", "chars")


@pytest.fixture
def work(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_CACHE", "1")
    (tmp_path / ".git").mkdir()
    return tmp_path


def notebook(source: str) -> str:
    """A notebook's JSON as a writer emits it, ``source`` spliced in verbatim (escapes kept)."""
    return ('{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# T\\n", "' + source + '"]}], '
            '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}')


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_lone_surrogate_in_a_notebook_is_one_error(work, capsys, fmt):
    (work / "bad.ipynb").write_text(notebook("broken \\ud800 text that runs on and on without an end"),
                                    encoding="utf-8")
    (work / "pair.ipynb").write_text(notebook("a pair \\ud83d\\ude00 is one character that runs on and on"),
                                     encoding="utf-8")
    (work / "z.md").write_text(RUNON, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "bad.ipynb", "pair.ipynb", "z.md", *OPTS, "--format", fmt)
    assert rc == 2, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert "bad.ipynb: error: not valid text: cell 1 holds a lone surrogate escape (\\ud800)" in err
    assert "pair.ipynb" not in err  # a valid surrogate pair is text
    assert "z.md" in out and "pair.ipynb" in out  # the others are checked


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_lone_surrogate_in_a_dump_is_one_bad_line(work, capsys, fmt):
    rows = ['{"text": "bad \\udc00 chunk that runs on", "doc_id": "a"}',
            '{"text": "fine", "doc_id": "\\ud800"}',
            json.dumps({"text": "Another chunk, complete.", "doc_id": "b"})]
    (work / "d.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (work / "d.json").write_text("[" + ",\n".join(rows) + "]\n", encoding="utf-8")
    for dump in ("d.jsonl", "d.json"):
        rc, out, err = run(capsys, "audit", dump, "--format", fmt)
        assert rc == 2, err
        assert "UnicodeEncodeError" not in err and "internal error" not in err
        assert f'{dump}:1: error: "text" holds a lone surrogate escape (\\udc00), not text' in err
        assert f'{dump}:2: error: "doc_id" holds a lone surrogate escape (\\ud800)' in err
        assert "b" in (json.loads(out)["files"][0]["doc_id"] if fmt == "json" else out)


def test_a_tokenizer_that_panics_is_reported_and_the_run_goes_on(work, capsys, tmp_path_factory):
    from tokenizer_panic import panicking_tokenizer

    path = panicking_tokenizer(tmp_path_factory.mktemp("hf"))
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    (work / "b.md").write_text(RUNON, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md", "b.md", "--encoding", f"hf:{path}", "--format", "json")
    assert rc == 2, err
    for name in ("a.md", "b.md"):  # each file reported, the run went on
        assert (f"{name}: error: hf:{path}: the tokenizer failed on this document in its native code "
                "(PanicException: ") in err, err
    assert "Traceback" not in err
    assert sorted(e["path"] for e in json.loads(out)["errors"]) == ["a.md", "b.md"]


def test_a_truncating_tokenizer_counts_the_whole_text(work, capsys, tmp_path_factory):
    """A tokenizer.json with a truncation (here one that panics: stride not below its length)
    is counted without it: counts are of the whole text."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizer_panic import TOKENIZER

    tok = {**TOKENIZER, "normalizer": None,
           "truncation": {"max_length": 1, "stride": 5, "strategy": "LongestFirst", "direction": "Right"}}
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    path.write_text(json.dumps(tok), encoding="utf-8")
    from chunkseam.tokens.hf import clear_caches, get_hf_sizer

    clear_caches()
    assert get_hf_sizer(f"hf:{path}").count("hello world hello world") == 4


# -- the result cache ---------------------------------------------------------------------------


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*.json") if not p.name.startswith("."))


def test_a_forged_cache_entry_is_a_miss(work, capsys, monkeypatch, tmp_path_factory):
    import hashlib
    import stat

    monkeypatch.delenv("CHUNKSEAM_NO_CACHE")
    cache = tmp_path_factory.mktemp("cache")
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    args = ("lint", "a.md", *OPTS, "--cache-dir", str(cache), "--format", "json")
    rc, out, err = run(capsys, *args)
    assert rc == 1 and json.loads(out)["summary"]["issues"] > 0
    [entry] = _entries(cache)
    # what an attacker who can write the cache (but not read the secret) makes: the same key,
    # no issues, a digest of the payload as an unkeyed hash
    head = json.loads(entry.read_bytes().partition(b"\n")[0])
    payload = json.dumps({**json.loads(entry.read_bytes().partition(b"\n")[2]), "records": [],
                          "per_rule": {}, "chunks_with_issues": 0}).encode()
    for digest in (hashlib.blake2b(payload, digest_size=20).hexdigest(), head["digest"]):
        entry.write_bytes(json.dumps({**head, "digest": digest}).encode() + b"\n" + payload)
        rc, out, err = run(capsys, *args)
        assert rc == 1 and json.loads(out)["summary"]["issues"] > 0, out  # checked again, not "No issues"
    secret = cache / "secret.key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and secret.stat().st_size == 32


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_cache_entry_does_not_hang(work, tmp_path_factory, kind):
    import os
    import subprocess
    import sys

    cache = tmp_path_factory.mktemp("cache")
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "server") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "NO_COLOR": "1", "CHUNKSEAM_NO_PROGRESS": "1"}
    env.pop("CHUNKSEAM_NO_CACHE", None)
    cmd = [sys.executable, "-m", "chunkseam", "lint", "a.md", *OPTS, "--cache-dir", str(cache), "--format", "json"]
    first = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=240)
    assert first.returncode == 1, first.stderr
    [entry] = _entries(cache)
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    try:  # a guard against a hang, not a speed assertion
        again = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a {kind} as a cache entry made the run hang")
    assert again.returncode == 1 and json.loads(again.stdout) == json.loads(first.stdout), again.stderr


def test_a_cache_secret_others_can_read_turns_the_cache_off(work, capsys, monkeypatch, tmp_path_factory):
    monkeypatch.delenv("CHUNKSEAM_NO_CACHE")
    cache = tmp_path_factory.mktemp("cache")
    (cache / "secret.key").write_bytes(b"k" * 32)
    (cache / "secret.key").chmod(0o644)
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md", *OPTS, "--cache-dir", str(cache), "--format", "json")
    assert rc == 1 and json.loads(out)["summary"]["issues"] > 0
    assert _entries(cache) == []  # nothing written under a key others know


# -- --isolated, extend confined to the repository ------------------------------------------------


def _cli(cwd: Path, env_extra: dict[str, str], *args: str):
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "NO_COLOR": "1", "CHUNKSEAM_NO_PROGRESS": "1", "CHUNKSEAM_NO_CACHE": "1", **env_extra}
    env["PYTHONPATH"] = os.pathsep.join([str(root / "server"), env_extra.get("PYTHONPATH", ""),
                                         os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "chunkseam", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=240)


def test_isolated_ignores_every_config_file_and_imports_no_plugin(work, tmp_path_factory):
    plugins = tmp_path_factory.mktemp("site")
    marker = plugins / "imported.txt"
    (plugins / "evil_plugin.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8")
    home = tmp_path_factory.mktemp("xdg")
    (home / "chunkseam").mkdir()
    (home / "chunkseam" / "chunkseam.toml").write_text('chunker = "fixed"\nunit = "chars"\nsize = 30\n',
                                                       encoding="utf-8")
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    env = {"PYTHONPATH": str(plugins), "XDG_CONFIG_HOME": str(home)}
    # the user-level file alone applies without --isolated (30 chars: issues) ...
    p = _cli(work, env, "lint", "a.md", "--format", "json")
    assert p.returncode == 1, p.stderr
    (work / "chunkseam.toml").write_text('plugins = ["evil_plugin"]\nchunker = "fixed"\nunit = "chars"\nsize = 20\n',
                                         encoding="utf-8")
    p = _cli(work, env, "lint", "a.md", "--format", "json")
    assert p.returncode == 1 and marker.exists(), p.stderr  # a trusted project's plugin is imported
    marker.unlink()
    for args in (["--isolated", "lint", "a.md"], ["lint", "--isolated", "a.md"]):
        p = _cli(work, env, *args, "--format", "json")
        assert p.returncode == 0, p.stderr  # defaults: 400 tokens, one chunk, no issue
        assert json.loads(p.stdout)["summary"]["chunks"] == 1 and not marker.exists()
    p = _cli(work, env, "lint", "--isolated", "a.md", "--size", "20", "--unit", "chars", "--chunker", "fixed")
    assert p.returncode == 1, p.stderr  # command-line options still apply
    p = _cli(work, env, "--isolated", "config", "--show")
    assert "size" in p.stdout and "chunkseam.toml" not in p.stdout
    p = _cli(work, env, "lint", "--isolated", "--config", "chunkseam.toml", "a.md")
    assert p.returncode == 2 and "--isolated" in p.stderr and not marker.exists()


@pytest.mark.parametrize("target", ["/proc/self/environ", "../outside.toml", "/etc/passwd", ".git/config",
                                    "link.toml"])
def test_extend_stays_inside_the_repository(work, capsys, target):
    (work.parent / "outside.toml").write_text('size = "a value from outside"\n', encoding="utf-8")
    (work / ".git" / "config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    (work / "link.toml").symlink_to(work.parent / "outside.toml")
    (work / "chunkseam.toml").write_text(f'extend = "{target}"\n', encoding="utf-8")
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md")
    assert rc == 2, err
    assert f'chunkseam.toml: extend = "{target}": ' in err and "not read" in err
    assert "a value from outside" not in out + err and "bare" not in out + err and "PATH=" not in err


def test_extend_inside_the_repository_still_works(work, capsys):
    (work / "base.toml").write_text('chunker = "fixed"\nunit = "chars"\nsize = 20\n', encoding="utf-8")
    (work / "chunkseam.toml").write_text('extend = "base.toml"\n', encoding="utf-8")
    (work / "a.md").write_text(RUNON, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md")
    assert rc == 1, err


# -- low: the local Dask cluster, model-max-tokens ---------------------------------------------------


def test_the_local_dask_cluster_admits_no_other_client():
    pytest.importorskip("distributed")
    pytest.importorskip("cryptography")
    from distributed import Client
    from distributed.security import Security

    from chunkseam.cluster.jobs import local_cluster

    cluster, security = local_cluster(1)
    try:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:"), address
        with Client(cluster, security=security) as ours:  # chunkseam's own client works
            assert ours.submit(sum, [1, 2], pure=False).result() == 3
        # another local user: plain TCP, or TLS with a certificate of their own
        for addr, sec in ((address.replace("tls://", "tcp://"), None), (address, Security.temporary())):
            with pytest.raises((OSError, TimeoutError)):
                kwargs = {"security": sec} if sec is not None else {}
                Client(addr, timeout="10s", **kwargs).close()
        # and its HTTP server (no authentication in Dask) serves nothing about the run
        import urllib.error
        import urllib.request

        port = cluster.scheduler.http_server.port
        for path in ("/info/main/workers.html", "/json/identity.json", "/metrics", "/status"):
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30)
            assert answer.value.code == 404
    finally:
        cluster.close()


@pytest.mark.parametrize("value", ["10**400", "1e999", str(2**70)])
def test_model_max_tokens_out_of_range_is_a_clear_config_error(work, capsys, value):
    (work / "chunkseam.toml").write_text(f"model-max-tokens = {eval(value) if '**' in value else value}\n",
                                         encoding="utf-8")
    (work / "d.jsonl").write_text(json.dumps({"text": "A chunk of text.", "doc_id": "a"}) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "audit", "d.jsonl", "--report", "r.html")
    assert rc == 2, err
    assert "Traceback" not in err and "OverflowError" not in err and "internal error" not in err
    assert "chunkseam.toml" in err and "model-max-tokens" in err and "1,000,000,000" in err
    assert len(err) < 400  # no 400-digit echo
