"""Scale: the same results across --jobs, and a persistent cache that never gives a wrong answer."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import pytest
from chunkseam.cli import common as cli
from chunkseam.lint.files import lint_one
from chunkseam.lint import resultcache
from chunkseam.lint.parallel import Runner
from chunkseam.core.settings import Settings
from clikit import run
from conftest import corpus_files

ARGS = ("--chunker", "recursive", "--size", "256", "--format", "json")


def _square(n: int) -> int:
    return n * n


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """A bounded sample of the corpus markdown (every 15th file), copied so it can be edited."""
    files = corpus_files()[::15][:30]
    dst = tmp_path_factory.mktemp("sample")
    for i, f in enumerate(files):
        shutil.copyfile(f, dst / f"{i:02d}-{f.name}")
    return dst


@pytest.fixture
def work(sample: Path, tmp_path: Path, monkeypatch) -> Path:
    d = tmp_path / "docs"
    shutil.copytree(sample, d)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHUNKSEAM_NO_CACHE", raising=False)
    return d


def lint(capsys, *extra: str) -> dict:
    rc, out, err = run(capsys, "lint", "docs", *ARGS, *extra)
    assert rc in (0, 1), err
    return json.loads(out)


def test_runner_keeps_the_input_order_across_batches() -> None:
    items = list(range(500))
    with Runner(2) as r:
        got = list(r.map(_square, items, weigh=lambda n: 1 + (n % 7) * 5000, total_bytes=10**6))
        again = list(r.map(_square, iter(items[:10])))  # the same pool, a second call
    assert got == [n * n for n in items]
    assert again == [n * n for n in items[:10]]


def test_jobs_give_identical_results_on_the_corpus(work: Path, capsys) -> None:
    one = lint(capsys, "--no-cache", "--jobs", "1")
    assert one["summary"]["files"] == len(list(work.iterdir())) > 10 and one["issues"]
    assert lint(capsys, "--no-cache", "--jobs", "2") == one
    assert lint(capsys, "--no-cache", "--jobs", "0") == one
    rc1, text1, _ = run(capsys, "lint", "docs", "--no-cache", "--chunker", "recursive", "--size", "256")
    rc2, text2, _ = run(capsys, "lint", "docs", "--no-cache", "--chunker", "recursive", "--size", "256", "-j", "2")
    assert (rc1, text1) == (rc2, text2)


def test_cache_hits_give_the_uncached_answer(work: Path, tmp_path: Path, capsys) -> None:
    cache = str(tmp_path / "cache")
    truth = lint(capsys, "--no-cache")
    n = truth["summary"]["files"]
    assert lint(capsys, "--cache-dir", cache) == truth
    assert cli.LAST_RUN == {"results": n, "cached": 0}
    assert lint(capsys, "--cache-dir", cache, "--jobs", "2") == truth
    assert cli.LAST_RUN == {"results": n, "cached": n}


def test_editing_one_file_rechecks_that_file_only(work: Path, tmp_path: Path, capsys) -> None:
    cache = str(tmp_path / "cache")
    lint(capsys, "--cache-dir", cache)
    victim = sorted(work.iterdir())[3]
    victim.write_text(victim.read_text(encoding="utf-8") + "\n\nA new closing paragraph.\n", encoding="utf-8")
    got = lint(capsys, "--cache-dir", cache)
    n = got["summary"]["files"]
    assert cli.LAST_RUN == {"results": n, "cached": n - 1}
    assert got == lint(capsys, "--no-cache")


def test_settings_change_is_a_miss(work: Path, tmp_path: Path, capsys) -> None:
    cache = str(tmp_path / "cache")
    lint(capsys, "--cache-dir", cache)
    got = lint(capsys, "--cache-dir", cache, "--size", "128")
    assert cli.LAST_RUN["cached"] == 0
    assert got == lint(capsys, "--no-cache", "--size", "128")


def test_version_change_is_a_miss(work: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    cache = str(tmp_path / "cache")
    lint(capsys, "--cache-dir", cache)
    monkeypatch.setattr(resultcache, "__version__", "99.0.0")
    lint(capsys, "--cache-dir", cache)
    assert cli.LAST_RUN["cached"] == 0


def test_a_change_of_chunkseam_itself_is_a_miss(work: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """An install from a source tree keeps its version number across commits
    (and an editable one changes with each edit): its own files are in the key."""
    cache = str(tmp_path / "cache")
    truth = lint(capsys, "--cache-dir", cache)
    assert lint(capsys, "--cache-dir", cache) == truth and cli.LAST_RUN["cached"] == truth["summary"]["files"]
    monkeypatch.setattr(resultcache, "code_fingerprint", lambda root=None: "another build")
    lint(capsys, "--cache-dir", cache)
    assert cli.LAST_RUN["cached"] == 0


def test_the_code_fingerprint_follows_the_package_files(tmp_path: Path) -> None:
    fingerprint = resultcache.code_fingerprint.__wrapped__  # (uncached)
    pkg = tmp_path / "chunkseam"
    (pkg / "checks").mkdir(parents=True)
    (pkg / "__init__.py").write_text("__version__ = '1'\n")
    (pkg / "checks" / "cuts.py").write_text("RULE = 1\n")
    (pkg / "rules").mkdir()
    (pkg / "rules" / "CS001.md").write_text("# CS001\n")
    first = fingerprint(str(pkg))
    assert fingerprint(str(pkg)) == first
    # what does not change a result: compiled files, other files
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "cuts.cpython-311.pyc").write_bytes(b"\0" * 10)
    (pkg / "checks" / "notes.orig").write_text("x")
    assert fingerprint(str(pkg)) == first
    # an edited rule (another size, another time), a rule page, a new module
    (pkg / "checks" / "cuts.py").write_text("RULE = 22\n")
    second = fingerprint(str(pkg))
    assert second != first
    os.utime(pkg / "rules" / "CS001.md", ns=(10**18, 10**18))
    third = fingerprint(str(pkg))
    assert third != second
    (pkg / "checks" / "more.py").write_text("")
    assert fingerprint(str(pkg)) != third


def test_tokenizer_file_content_is_in_the_key(tmp_path: Path) -> None:
    tok = tmp_path / "enc.tiktoken"
    tok.write_bytes(b"aGVsbG8= 0\n")
    s = Settings(tiktoken_file=str(tok))
    before = resultcache.settings_key(s)
    tok.write_bytes(b"aGVsbG8= 1\n")
    os.utime(tok, ns=(10**18, 10**18))  # a new mtime, whatever the file system's resolution
    assert resultcache.settings_key(s) != before


@pytest.mark.parametrize("damage", ["garbage", "flipped", "truncated", "empty", "other-key"])
def test_a_damaged_entry_is_a_miss(work: Path, tmp_path: Path, capsys, damage: str) -> None:
    cache = tmp_path / "cache"
    truth = lint(capsys, "--cache-dir", str(cache))
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == truth["summary"]["files"]
    for i, e in enumerate(entries):
        raw = e.read_bytes()
        if damage == "garbage":
            e.write_bytes(b"\x00\xffnot json")
        elif damage == "flipped":  # a changed digit in the payload: valid JSON, wrong digest
            pos = raw.index(b'"chunks":') + len(b'"chunks":')
            e.write_bytes(raw[:pos] + (b"7" if raw[pos:pos + 1] != b"7" else b"8") + raw[pos + 1:])
        elif damage == "truncated":
            e.write_bytes(raw[: len(raw) // 2])
        elif damage == "empty":
            e.write_bytes(b"")
        else:  # another file's entry under this name
            e.write_bytes(entries[(i + 1) % len(entries)].read_bytes() if i + 1 < len(entries) else raw)
    got = lint(capsys, "--cache-dir", str(cache))
    assert got == truth
    assert cli.LAST_RUN["cached"] <= 1  # only the one entry left as it was ("other-key")


def _cli(*args: str) -> subprocess.Popen:
    env = {**os.environ, "CHUNKSEAM_NO_PROGRESS": "1"}
    env.pop("CHUNKSEAM_NO_CACHE", None)
    return subprocess.Popen([sys.executable, "-m", "chunkseam", "lint", "docs", *ARGS, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def test_two_concurrent_runs_and_a_killed_run(work: Path, tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    truth = lint(capsys, "--no-cache")
    # a run killed once it has begun writing entries (whatever it left must not matter)
    victim = _cli("--cache-dir", str(cache))
    while victim.poll() is None and not any(cache.rglob("*.json")):
        time.sleep(0.01)
    victim.send_signal(signal.SIGKILL)
    victim.communicate()
    # two runs at once on the same cache
    a, b = _cli("--cache-dir", str(cache)), _cli("--cache-dir", str(cache), "--jobs", "2")
    out_a, err_a = a.communicate()
    out_b, err_b = b.communicate()
    assert a.returncode in (0, 1) and b.returncode in (0, 1), (err_a, err_b)
    assert json.loads(out_a) == truth and json.loads(out_b) == truth
    assert lint(capsys, "--cache-dir", str(cache)) == truth
    assert cli.LAST_RUN["cached"] == truth["summary"]["files"]


def test_clean_removes_the_cache(work: Path, tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    truth = lint(capsys, "--cache-dir", str(cache))
    rc, out, _ = run(capsys, "clean", "--cache-dir", str(cache))
    assert rc == 0 and f"removed {truth['summary']['files']} cache entries" in out
    assert not any(cache.rglob("*.json"))
    lint(capsys, "--cache-dir", str(cache))
    assert cli.LAST_RUN["cached"] == 0


def test_default_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CHUNKSEAM_CACHE_DIR", str(tmp_path / "c"))
    assert resultcache.default_dir() == tmp_path / "c"


# --- streaming outputs ------------------------------------------------------------------------


def _dump_of(files: list[Path], path: Path, size: int = 700) -> Path:
    """A JSON Lines dump: each file cut every ``size`` characters (a naive chunker), one line a chunk."""
    with path.open("w", encoding="utf-8") as f:
        for d, src in enumerate(files):
            text = src.read_text(encoding="utf-8")
            for i, start in enumerate(range(0, len(text), size)):
                f.write(json.dumps({"doc_id": f"doc{d}", "chunk_index": i, "text": text[start:start + size]}) + "\n")
    return path


def test_streamed_json_and_sarif_are_the_documents_written_whole(work: Path, capsys) -> None:
    from chunkseam.report import formats as report
    rc, out, err = run(capsys, "lint", "docs", *ARGS, "--no-cache")
    assert rc in (0, 1), err
    streamed = json.loads(out)
    assert streamed["issues"] and streamed["files"]
    # the whole-document writers, fed the same results, give the same text
    results = [r for r in cli.map_jobs(lint_one, [(str(p), Settings(chunker="recursive", size=256))
                                                 for p in sorted(work.rglob("*.md"))], 1)]
    summary = report.Summary()
    for r in results:
        summary.add(r)
    import io

    for whole, stream in ((report.write_json, report.JsonStream), (report.write_sarif, report.SarifStream)):
        a, b = io.StringIO(), io.StringIO()
        whole(a, results, summary, [{"path": "x.md", "message": "unreadable"}])
        s = stream(b)
        for r in results:
            s.add(r)
        s.close(summary, [{"path": "x.md", "message": "unreadable"}])
        assert b.getvalue() == a.getvalue()
    empty = io.StringIO()
    s = report.JsonStream(empty)
    s.close(report.Summary(), [])
    assert json.loads(empty.getvalue())["issues"] == []


def test_jsonl_parses_line_by_line_as_it_grows(work: Path, tmp_path: Path, capsys) -> None:
    dump = _dump_of(sorted(work.iterdir())[:12], tmp_path / "dump.jsonl")
    rc, whole, err = run(capsys, "audit", str(dump), "--format", "json")
    assert rc in (0, 1), err
    expected = json.loads(whole)
    proc = subprocess.Popen([sys.executable, "-m", "chunkseam", "audit", str(dump), "--format", "jsonl"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CHUNKSEAM_NO_PROGRESS": "1"})
    issues, summary = [], None
    assert proc.stdout is not None
    for line in proc.stdout:  # each line is a whole JSON object as soon as it is written
        obj = json.loads(line)
        assert summary is None, "nothing follows the summary"
        if obj["type"] == "issue":
            issues.append({k: v for k, v in obj.items() if k != "type"})
        else:
            assert obj["type"] == "summary"
            summary = obj
    assert proc.wait() in (0, 1), proc.stderr.read() if proc.stderr else ""
    assert issues == expected["issues"] and len(issues) > 0
    assert summary is not None and summary["summary"] == expected["summary"]


# --- audit on a Dask cluster ------------------------------------------------------------------


def test_audit_on_a_local_dask_cluster_matches_the_single_process_run(work: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("distributed")
    dump = _dump_of(sorted(work.iterdir())[:16], tmp_path / "dump.jsonl")
    rc1, single, err = run(capsys, "audit", str(dump), "--format", "jsonl")
    assert rc1 in (0, 1), err
    lines = [json.loads(line) for line in single.splitlines()]
    out = tmp_path / "parts"
    rc2, text, err = run(capsys, "audit", str(dump), "--scheduler", "local", "--jobs", "2",
                         "--output-dir", str(out))
    assert rc2 == rc1, err
    parts = sorted(out.glob("part-*.jsonl"))
    assert len(parts) > 1
    issues = [json.loads(line) for p in parts for line in p.read_text(encoding="utf-8").splitlines()]
    assert [i for i in issues if i["type"] == "issue"] == [i for i in lines if i["type"] == "issue"]
    merged = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert merged["summary"] == lines[-1]["summary"] and merged["summary"]["issues"] > 0
    assert f"in {merged['summary']['files']} documents" in text


def test_cluster_ranges_start_on_document_boundaries(tmp_path: Path) -> None:
    from chunkseam.cluster.jobs import split_ranges

    dump = tmp_path / "d.jsonl"
    rows = [{"doc_id": f"d{d}", "chunk_index": i, "text": f"chunk {i} of {d}"} for d in range(40) for i in range(5)]
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = dump.read_bytes()
    ranges = split_ranges(str(dump), 7)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data) and len(ranges) > 3
    assert all(a[1] == b[0] for a, b in pairwise(ranges))
    for start, _ in ranges[1:]:
        first = json.loads(data[start:data.index(b"\n", start)])
        before = json.loads(data[data.rindex(b"\n", 0, start - 1) + 1:start])
        assert first["chunk_index"] == 0 and before["doc_id"] != first["doc_id"]


def test_a_fifo_or_missing_tokenizer_file_with_the_cache_on_is_a_clear_error(work: Path, tmp_path: Path,
                                                                            capsys) -> None:
    fifo = tmp_path / "enc.tiktoken"
    os.mkfifo(fifo)  # would block whoever reads it
    for tok in (fifo, tmp_path / "missing.tiktoken"):
        (tmp_path / "chunkseam.toml").write_text(f'tiktoken-file = "{tok}"\n', encoding="utf-8")
        rc, _, err = run(capsys, "lint", "docs", "--cache-dir", str(tmp_path / "cache"))
        assert rc == 2 and str(tok) in err, err
        assert "internal error" not in err


def test_a_dump_not_grouped_by_document_is_shuffled_with_a_warning(tmp_path: Path, capsys, monkeypatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    text = ("The retry loop waits one second, then two, then four. It keeps doubling the wait until it "
            "reaches a minute. After that it gives up and reports the error to the caller.\n\n") * 6
    docs = {f"d{d}": [text[s:s + 150] for s in range(0, len(text), 150)] for d in range(12)}
    grouped = [{"doc_id": d, "chunk_index": i, "text": t} for d, ts in docs.items() for i, t in enumerate(ts)]
    # the same chunks, each document's scattered through the dump (chunk order kept)
    scattered = sorted(grouped, key=lambda r: (r["chunk_index"], r["doc_id"]))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in grouped), encoding="utf-8")
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in scattered), encoding="utf-8")
    rc1, out, err = run(capsys, "audit", "g.jsonl", "--format", "json")
    assert rc1 in (0, 1), err
    truth = json.loads(out)
    assert truth["summary"]["files"] == 12 and truth["summary"]["issues"] > 0
    rc2, _, err = run(capsys, "audit", "s.jsonl", "--scheduler", "local", "--jobs", "2", "--output-dir", "parts")
    assert rc2 == rc1 and "not grouped by document" in err and "shuffling" in err
    merged = json.loads((tmp_path / "parts" / "summary.json").read_text(encoding="utf-8"))["summary"]
    assert merged == truth["summary"]  # each document audited whole, as in the grouped dump
