"""`chunkseam lint -` and `chunkseam chunks -` with --stdin-filename (editors' generic linter
plugins, pipes from converters)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import run

RUNON = "# T\n\nHello world, this is a sentence that runs on and on.\n"


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "chunkseam.toml").write_text('size = 20\nunit = "chars"\nchunker = "fixed"\n',
                                                      encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    return tmp_path


def feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_lint_stdin_uses_the_config_of_the_stdin_filename(proj: Path, capsys, monkeypatch) -> None:
    feed(monkeypatch, RUNON.encode())
    rc, out, _ = run(capsys, "lint", "-", "--stdin-filename", "sub/a.md", "--format", "json")
    doc = json.loads(out)
    assert rc == 1
    assert {i["path"] for i in doc["issues"]} == {"sub/a.md"}
    assert doc["files"][0]["chunker"] == "fixed"  # from sub/chunkseam.toml
    assert "CS001" in {i["code"] for i in doc["issues"]}
    # the same text named elsewhere: built-in defaults, the markdown chunker, nothing to report
    feed(monkeypatch, RUNON.encode())
    rc, out, _ = run(capsys, "lint", "-", "--stdin-filename", "top.md")
    assert rc == 0 and out.strip().startswith("No issues in 1 file")


def test_stdin_filename_without_dash_reads_stdin_like_ruff(proj: Path, capsys, monkeypatch) -> None:
    feed(monkeypatch, RUNON.encode())
    rc, out, _ = run(capsys, "lint", "--stdin-filename", "sub/a.md")
    assert rc == 1 and out.startswith("sub/a.md:3:")


def test_stdin_routes_by_the_stdin_filename_and_honours_per_file_ignores(proj: Path, capsys, monkeypatch) -> None:
    (proj / "chunkseam.toml").write_text(
        'size = 20\nunit = "chars"\nchunkers = { "notes/*" = "fixed" }\n'
        'per-file-ignores = { "notes/quiet.txt" = ["CS0", "CS1"] }\n', encoding="utf-8")
    (proj / "notes").mkdir()
    feed(monkeypatch, RUNON.encode())
    rc, out, _ = run(capsys, "lint", "-", "--stdin-filename", "notes/loud.txt", "--format", "json")
    assert json.loads(out)["files"][0]["chunker"] == "fixed" and rc == 1
    feed(monkeypatch, RUNON.encode())
    rc, out, _ = run(capsys, "lint", "-", "--stdin-filename", "notes/quiet.txt", "--format", "json")
    assert rc == 0 and json.loads(out)["issues"] == []


def test_chunks_from_stdin(proj: Path, capsys, monkeypatch) -> None:
    feed(monkeypatch, b"Hello world. Second one.\n")
    rc, out, _ = run(capsys, "chunks", "-", "--stdin-filename", "sub/n.txt")
    assert rc == 0
    assert out.strip().splitlines()[-1] == "sub/n.txt: 2 chunks (fixed, size 20 chars, overlap 0)"
    feed(monkeypatch, b"# T\n\nHello world.\n")
    rc, out, _ = run(capsys, "chunks", "-", "--format", "json")
    assert rc == 0 and json.loads(out)[0]["text"] == "# T\n\nHello world."


def test_bad_stdin_is_an_error(proj: Path, capsys, monkeypatch) -> None:
    feed(monkeypatch, b"\xff\xfe bytes")
    rc, out, err = run(capsys, "lint", "-", "--stdin-filename", "a.md")
    assert (rc, out) == (2, "") and err.startswith("a.md: error: not UTF-8")
    rc, _, err = run(capsys, "lint", "-", "other.md")
    assert rc == 2 and "cannot be combined" in err


def test_a_real_pipe(proj: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "-", "--stdin-filename", "sub/a.md"],
                         input=RUNON.encode(), capture_output=True, cwd=proj, timeout=120)
    assert out.returncode == 1, out.stderr
    assert out.stdout.decode().startswith("sub/a.md:3:14: CS001 [mid-word]")  # a mid-word issue is at its word
