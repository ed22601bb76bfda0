"""``chunkseam lint --fix`` / ``--diff``: the verified fixes from the command
line, with ruff's flags and exit codes."""

from __future__ import annotations

import os
from pathlib import Path

from clikit import run

FIXTURES = Path(__file__).parents[1] / "fixtures"
STREAMING = (FIXTURES / "streaming.md").read_text(encoding="utf-8")
RECURSIVE = ["--chunker", "recursive", "--unit", "chars", "--size", "275"]


def _copy(tmp_path: Path, text: str = STREAMING, name: str = "streaming.md", newline: str = "\n") -> Path:
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


def test_diff_prints_the_fixes_writes_nothing_and_exits_1(tmp_path, capsys):
    p = _copy(tmp_path)
    before = p.read_bytes()
    code, out, err = run(capsys, "lint", *RECURSIVE, "--diff", str(p))
    assert code == 1, err
    assert out.startswith(f"--- {p}\n+++ {p}\n@@ ")
    assert "+When a consumer falls behind" in out and "would apply 3 fixes in 1 file" in err
    assert "CS002" not in out  # --diff shows the diff, not the issues
    assert p.read_bytes() == before


def test_fix_applies_verified_fixes_and_reports_what_remains(tmp_path, capsys):
    p = _copy(tmp_path)
    code, out, err = run(capsys, "lint", *RECURSIVE, "--fix", str(p))
    assert "applied 3 fixes in 1 file" in err
    fixed = p.read_text(encoding="utf-8")
    assert "frequent.\n\nWhen a consumer" in fixed
    # what remains is reported as by a plain lint of the fixed file, with its exit code
    assert "CS002" not in out and "CS007" in out and code == 1
    # nothing left to improve: the file is not touched again
    stamp = p.stat().st_mtime_ns
    os.utime(p, ns=(stamp - 10_000_000_000, stamp - 10_000_000_000))
    stamp = p.stat().st_mtime_ns
    code2, out2, err2 = run(capsys, "lint", *RECURSIVE, "--fix", str(p))
    assert "no fixes applied" in err2 and p.stat().st_mtime_ns == stamp
    assert run(capsys, "lint", *RECURSIVE, "--diff", str(p))[0] == 0


def test_a_windowed_chunker_gets_no_fix_that_only_moves_its_cuts(tmp_path, capsys):
    p = _copy(tmp_path)
    size = str(STREAMING.index("channel") + 4)
    code, out, err = run(capsys, "lint", "--chunker", "fixed", "--unit", "chars", "--size", size,
                         "--diff", str(p))
    assert (code, out) == (0, "") and "no fixes would be applied" in err
    code, out, err = run(capsys, "lint", "--chunker", "fixed", "--unit", "chars", "--size", size,
                         "--fix", str(p))
    assert p.read_text(encoding="utf-8") == STREAMING and "CS001" in out


def test_fix_keeps_crlf_line_endings(tmp_path, capsys):
    p = _copy(tmp_path, newline="\r\n")
    run(capsys, "lint", *RECURSIVE, "--fix", str(p))
    data = p.read_bytes()
    assert b"frequent.\r\n\r\nWhen a consumer" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_fix_and_diff_exclude_each_other(capsys):
    code, out, err = run(capsys, "lint", "--fix", "--diff", ".")
    assert code == 2 and "not allowed with" in err
