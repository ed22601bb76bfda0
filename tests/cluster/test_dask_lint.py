"""``chunkseam lint PATHS --scheduler ...``: the lint of a tree on a Dask cluster (2 workers on
loopback) gives the single-process answer: the same issues, summary and exit code."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from clikit import run
from conftest import corpus_files

pytest.importorskip("distributed")

ARGS = ("--chunker", "recursive", "--size", "256", "--no-cache")


@pytest.fixture(scope="module")
def scheduler():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    """A bounded corpus sample in two folders, and a file that is not text."""
    files = corpus_files()[::20][:24]
    for i, f in enumerate(files):
        d = tmp_path / "docs" / ("a" if i % 2 else "b")
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, d / f"{i:02d}-{f.name}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _pair(capsys, address: str, *args: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    single = run(capsys, "lint", "docs", *ARGS, *args)
    cluster = run(capsys, "lint", "docs", *ARGS, "--scheduler", address, *args)
    return single, cluster


def test_json_report_is_the_single_process_report(tree: Path, scheduler: str, capsys) -> None:
    (rc1, out1, err1), (rc2, out2, err2) = _pair(capsys, scheduler, "--format", "json")
    assert rc1 in (0, 1), err1
    assert rc2 == rc1, err2
    single, cluster = json.loads(out1), json.loads(out2)
    assert single["summary"]["files"] >= 20 and single["summary"]["issues"] > 0
    assert cluster == single  # every issue, in the same order, and the summary


def test_per_file_ignores_from_the_config_apply_on_the_workers(tree: Path, scheduler: str, capsys) -> None:
    rc, out, err = run(capsys, "lint", "docs", *ARGS, "--format", "json")
    assert rc == 1, err
    issues = json.loads(out)["issues"]
    in_b = Counter(i["code"] for i in issues if "/b/" in i["path"].replace("\\", "/"))
    code = in_b.most_common(1)[0][0]
    (tree / "chunkseam.toml").write_text(f'per-file-ignores = {{ "docs/b/*" = ["{code}"] }}\n', encoding="utf-8")
    (rc1, out1, err1), (rc2, out2, err2) = _pair(capsys, scheduler, "--format", "json")
    assert rc1 in (0, 1), err1
    assert rc2 == rc1, err2
    single, cluster = json.loads(out1), json.loads(out2)
    assert cluster == single
    assert not [i for i in cluster["issues"] if i["code"] == code and "/b/" in i["path"].replace("\\", "/")]
    assert cluster["summary"]["issues"] < json.loads(out)["summary"]["issues"]
    # text: the same lines on stdout, the same exit code
    (rc1, out1, _), (rc2, out2, err2) = _pair(capsys, scheduler, "--format", "text")
    assert (rc2, out2) == (rc1, out1), err2


def test_output_dir_parts_hold_the_single_process_records(tree: Path, scheduler: str, capsys) -> None:
    (tree / "docs" / "a" / "bad.md").write_bytes(b"# Title\n\x00\x01binary")
    rc1, out1, err1 = run(capsys, "lint", "docs", *ARGS, "--format", "jsonl")
    assert rc1 == 2 and "bad.md" in err1
    lines = [json.loads(line) for line in out1.splitlines()]
    rc2, out2, err2 = run(capsys, "lint", "docs", *ARGS, "--scheduler", scheduler, "--output-dir", "parts")
    assert rc2 == rc1 and "bad.md" in err2, err2
    parts = sorted((tree / "parts").glob("part-*.jsonl"))
    assert len(parts) > 1
    records = [json.loads(line) for p in parts for line in p.read_text(encoding="utf-8").splitlines()]
    assert [r for r in records if r["type"] == "issue"] == [r for r in lines if r["type"] == "issue"]
    merged = json.loads((tree / "parts" / "summary.json").read_text(encoding="utf-8"))
    assert merged["summary"] == lines[-1]["summary"] and merged["summary"]["issues"] > 0
    assert [e["path"] for e in merged["errors"]] == [e["path"] for e in lines[-1]["errors"]]
    assert f"in {merged['summary']['files']} files" in out2


@pytest.mark.parametrize(("extra", "says"), [
    (("--fix",), "--fix and --diff"),
    (("--diff",), "--fix and --diff"),
    (("--cache-dir", "c"), "--cache-dir"),
    (("--output-dir", "o", "--format", "json"), "--format json"),
    (("--output-dir", "o", "--baseline", "b.json"), "--baseline"),
])
def test_options_a_cluster_cannot_honour_are_refused(tree: Path, capsys, extra: tuple[str, ...],
                                                    says: str) -> None:
    # refused before any connection: the address is never contacted
    rc, out, err = run(capsys, "lint", "docs", "--scheduler", "tcp://127.0.0.1:9", *extra)
    assert rc == 2 and says in err and "not available" in err, err
    assert out == "" and not (tree / "o").exists()


def test_stdin_is_refused(tree: Path, capsys) -> None:
    rc, _, err = run(capsys, "lint", "-", "--scheduler", "tcp://127.0.0.1:9")
    assert rc == 2 and "not stdin" in err, err
