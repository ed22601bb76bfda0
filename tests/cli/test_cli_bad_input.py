"""Bad input for `chunkseam lint`: each case reported, skipped, the run carries on, exit 2 at the end.

Permission denied: the suite runs as root, and root ignores ``chmod 000``. The
real-permissions test therefore runs only for a non-root user; as root we
check (a) a dangling symlink and a FIFO in a linted directory (entries that
cannot be read as files — the FIFO must not block the run) and (b) a
``PermissionError`` raised by ``open`` itself (monkeypatched), which is the
path a non-root user hits.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import chunkseam.audit.dump as audit_mod
from clikit import run
from conftest import text_splitter_panics

from chunkseam.cli.app import main

GOOD = "# Title\n\nA short paragraph that is fine.\n"
OPTS = ["--chunker", "recursive", "--unit", "chars", "--size", "400"]




@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "good.md").write_text(GOOD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    return tmp_path


def linted(out: str) -> list[str]:
    return sorted(f["path"] for f in json.loads(out)["files"])


def test_nonexistent_path(proj: Path, capsys) -> None:
    rc, out, err = run(capsys, "lint", "missing.md", "good.md", *OPTS, "--format", "json")
    assert rc == 2
    assert "missing.md: error: No such file or directory" in err
    assert linted(out) == ["good.md"]
    assert json.loads(out)["errors"] == [{"path": "missing.md", "message": "No such file or directory"}]


def test_directory_with_nothing_to_lint(proj: Path, capsys) -> None:
    empty = proj / "empty"
    empty.mkdir()
    (empty / "data.json").write_text("{}", encoding="utf-8")
    rc, out, err = run(capsys, "lint", "empty", *OPTS)
    assert rc == 0  # like ruff: a warning, not a failure
    assert "warning: no files to lint in empty" in err
    assert out.strip().endswith("No issues in 0 files; 0 of 0 chunks broken (0.0%)")


def test_binary_file(proj: Path, capsys) -> None:
    (proj / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    rc, out, err = run(capsys, "lint", ".", *OPTS, "--format", "json")
    assert rc == 2
    assert "image.md: error: binary file" in err
    assert linted(out) == ["good.md"]
    assert json.loads(out)["summary"]["unreadable"] == 1


def test_not_utf8(proj: Path, capsys) -> None:
    (proj / "latin1.md").write_bytes("# Café\n\nUne phrase en français.\n".encode("latin-1"))
    rc, out, err = run(capsys, "lint", ".", *OPTS)
    assert rc == 2
    line = next(l for l in err.splitlines() if l.startswith("latin1.md: error:"))
    assert "not UTF-8" in line and "line 1" in line
    assert "in 1 file;" in out and "1 file could not be checked" in out


def test_dangling_symlink_and_fifo_are_reported_not_blocking(proj: Path, capsys) -> None:
    (proj / "docs").mkdir()
    (proj / "docs" / "ok.md").write_text(GOOD, encoding="utf-8")
    os.symlink(proj / "nowhere.md", proj / "docs" / "dangling.md")
    os.mkfifo(proj / "docs" / "pipe.md")
    rc, out, err = run(capsys, "lint", "docs", *OPTS, "--format", "json")
    assert rc == 2
    assert "docs/dangling.md: error: broken symbolic link" in err
    assert "docs/pipe.md: error: not a regular file" in err
    assert linted(out) == ["docs/ok.md"]


def test_permission_denied_from_open(proj: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    (proj / "secret.md").write_text(GOOD, encoding="utf-8")
    real_open = open

    def guarded_open(file, *args, **kwargs):
        if str(file).endswith("secret.md"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(audit_mod, "open", guarded_open, raising=False)
    rc, out, err = run(capsys, "lint", ".", *OPTS, "--format", "json")
    assert rc == 2
    assert "secret.md: error: Permission denied" in err
    assert linted(out) == ["good.md"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores file permissions")
def test_permission_denied_for_real(proj: Path, capsys) -> None:
    p = proj / "secret.md"
    p.write_text(GOOD, encoding="utf-8")
    p.chmod(0)
    try:
        rc, out, err = run(capsys, "lint", ".", *OPTS)
    finally:
        p.chmod(0o644)
    assert rc == 2 and "secret.md: error: Permission denied" in err


def test_fifo_named_explicitly(proj: Path, capsys) -> None:
    os.mkfifo(proj / "pipe.md")
    rc, _, err = run(capsys, "lint", "pipe.md", *OPTS)
    assert rc == 2 and "pipe.md: error: not a regular file" in err


def test_fifty_megabyte_file(proj: Path, capsys) -> None:
    section = ("## Section {n}\n\nThe service reads its settings at start-up and keeps them for the "
               "life of the process. Restart it after every change. Logs go to standard error.\n\n")
    parts = []
    size = 0
    n = 0
    while size < 50 * 1024 * 1024:
        s = section.format(n=n)
        parts.append(s)
        size += len(s)
        n += 1
    # plain text: the whole pipeline (read, decode, chunk, validate, report) without the Markdown
    # parse, which on 50 MB takes ~35 s and belongs to the structure benchmarks, not here
    big = proj / "big.txt"
    big.write_text("".join(parts), encoding="utf-8")
    del parts
    assert big.stat().st_size >= 50 * 1024 * 1024
    rc, out, err = run(capsys, "lint", "big.txt", "--chunker", "fixed", "--unit", "chars", "--size", "50000",
                       "--format", "json")
    assert rc in (0, 1), err
    data = json.loads(out)
    assert data["summary"]["files"] == 1 and data["errors"] == []
    assert data["summary"]["chunks"] == -(-big.stat().st_size // 50000)


class PanicException(BaseException):
    """What pyo3 raises when a library's Rust code panics: not an Exception."""


def test_a_library_that_panics_is_reported_and_the_run_goes_on(proj: Path, capsys,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("semantic_text_splitter")
    from chunkseam.chunkers.adapters.text_splitter import TextSplitterAdapter

    (proj / "panics.md").write_text("# Title\n\nThe library cannot split this one.\n", encoding="utf-8")
    real = TextSplitterAdapter.split

    def split(self, built, text):
        if "cannot split" in text:
            raise PanicException("Invalid byte sequence")
        return real(self, built, text)

    monkeypatch.setattr(TextSplitterAdapter, "split", split)
    rc, out, err = run(capsys, "lint", ".", "--chunker", "text-splitter", "--unit", "chars",
                       "--size", "400", "--format", "json")
    assert rc == 2
    assert ("panics.md: error: text-splitter: the library failed on this document "
            "(PanicException: Invalid byte sequence)") in err
    assert linted(out) == ["good.md"]


def test_the_real_text_splitter_panic_is_reported(proj: Path, capsys) -> None:
    """semantic-text-splitter 0.33's MarkdownSplitter panics on this text with an overlap (found by
    tests/engine/test_properties.py): the file is reported, not a traceback."""
    text = text_splitter_panics()
    (proj / "gen.md").write_text(text, encoding="utf-8")
    rc, out, err = run(capsys, "lint", ".", "--chunker", "text-splitter", "--unit", "chars",
                       "--size", "24", "--overlap", "4", "--format", "json")
    assert rc == 2
    assert "gen.md: error: text-splitter: the library failed on this document (PanicException" in err
    assert linted(out) == ["good.md"]


def test_unknown_chunker_is_a_usage_error(proj: Path, capsys) -> None:
    rc, _, err = run(capsys, "lint", "good.md", "--chunker", "nope")
    assert rc == 2 and "chunker" in err and "nope" in err


def test_unknown_subcommand_exits_2(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


def test_bad_chunker_options_are_a_configuration_error(tmp_path):
    import subprocess
    import sys

    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.chunkseam]\nchunker = "recursive"\nchunker-options = { keep_separator = "bogus" }\n')
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nSome text here.\n")
    for command in (["lint", "guide.md"], ["chunks", "guide.md"]):
        out = subprocess.run([sys.executable, "-m", "chunkseam", *command], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, (command, out.stdout, out.stderr)
        assert "keep_separator" in out.stderr and "bogus" in out.stderr
        assert "Traceback" not in out.stderr and "internal error" not in out.stderr
