"""`chunkseam lint`: output formats, summary, exit codes, rule options, baseline, jobs, colour.

The tests after the "need the validator" line assert on real issues: they
pass once ``chunkseam.engine.validate.validate`` (the validator issue) reports
CS001/CS002 for a fixed-size chunking of prose.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import run

from chunkseam.cli.app import main
from chunkseam.document.text import Document

PROSE = """# Operating the Cache

The cache keeps the most recent responses in memory so that repeated requests are answered without a round trip to the database. To prevent stale reads after a deploy, set the timeout to 30 seconds and enable keepalive on every connection. Each worker holds its own copy; they are not shared between processes.

Eviction follows a least-recently-used policy with a fixed budget of entries. When the budget is exceeded, the oldest entries are dropped first, and a counter records every eviction so you can see whether the budget is too small for your traffic. Raising the budget costs memory on every worker, so measure before you change it.

Monitoring matters as much as tuning. Export the hit rate, the eviction count and the p99 latency of misses, and alert when the hit rate falls below the level you measured during the last load test.
"""

SUMMARY_RE = re.compile(r"^(No issues|\d+ issues?) in \d+ files?; \d+ of \d+ chunks? broken \(\d+\.\d%\)")
LINE_RE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>CS\d{3}) \[(?P<name>[a-z0-9-]+)\] (?P<msg>.+)$")
FIXED_200 = ["--chunker", "fixed", "--unit", "chars", "--size", "200"]



@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "prose.md").write_text(PROSE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    return tmp_path


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --- works with any validator ---------------------------------------------------------------------


def test_summary_line_and_exit_0_without_issues(proj: Path, capsys) -> None:
    rc, out, err = run(capsys, "lint", "prose.md", "--chunker", "recursive", "--unit", "chars", "--size", "2000")
    assert rc == 0, err
    last = out.strip().splitlines()[-1]
    assert SUMMARY_RE.match(last), last
    assert last.startswith("No issues in 1 file; 0 of 1 chunk broken (0.0%)")


def test_json_shape(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--format", "json")
    data = json.loads(out)
    assert set(data) >= {"issues", "summary", "files", "errors", "version"}
    s = data["summary"]
    assert set(s) >= {"files", "chunks", "chunks_with_issues", "rate", "per_rule"}
    assert s["files"] == 1 and s["chunks"] == data["files"][0]["chunks"] > 3
    assert data["files"][0]["chunker"] == "fixed"


def test_jobs_gives_the_same_report(proj: Path, capsys) -> None:
    for i in range(6):
        (proj / f"doc{i}.md").write_text(PROSE.replace("cache", f"cache {i}"), encoding="utf-8")
    _, one, _ = run(capsys, "lint", ".", *FIXED_200, "--format", "json")
    _, four, _ = run(capsys, "lint", ".", *FIXED_200, "--format", "json", "--jobs", "4")
    assert json.loads(one) == json.loads(four)
    assert json.loads(one)["summary"]["files"] == 7


def test_lint_never_writes_to_the_linted_tree(proj: Path, capsys) -> None:
    (proj / "docs").mkdir()
    (proj / "docs" / "b.md").write_text(PROSE, encoding="utf-8")
    before = tree_digest(proj)
    for fmt in ("text", "json", "sarif", "github"):
        run(capsys, "lint", ".", *FIXED_200, "--format", fmt)
    run(capsys, "lint", ".", *FIXED_200, "--statistics", "--jobs", "2")
    assert tree_digest(proj) == before


def test_write_baseline_writes_only_that_file(proj: Path, capsys) -> None:
    before = tree_digest(proj)
    rc, _, err = run(capsys, "lint", "prose.md", *FIXED_200, "--write-baseline", "base.json")
    assert rc == 0, err
    after = tree_digest(proj)
    assert set(after) - set(before) == {"base.json"}
    assert {k: v for k, v in after.items() if k != "base.json"} == before
    data = json.loads((proj / "base.json").read_text())
    assert data["chunkseam-baseline"] == 1 and isinstance(data["entries"], list)


def test_gitignore_include_exclude_and_globs(proj: Path, capsys) -> None:
    (proj / ".gitignore").write_text("build/\n*.draft.md\n", encoding="utf-8")
    for rel in ["build/x.md", "docs/a.md", "docs/b.draft.md", "docs/deep/c.markdown", "docs/notes.txt",
                "docs/data.json", "node_modules/pkg/readme.md", "legacy/old.md"]:
        p = proj / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("# T\n\nSome text here.\n", encoding="utf-8")
    (proj / "chunkseam.toml").write_text('exclude = ["legacy/"]\n', encoding="utf-8")

    def files(*args: str) -> list[str]:
        rc, out, err = run(capsys, "lint", *args, "--chunker", "recursive", "--format", "json")
        return sorted(f["path"] for f in json.loads(out)["files"])

    assert files(".") == ["docs/a.md", "docs/deep/c.markdown", "docs/notes.txt", "prose.md"]
    assert files("docs") == ["docs/a.md", "docs/deep/c.markdown", "docs/notes.txt"]
    assert files("docs/**/*.markdown") == ["docs/deep/c.markdown"]
    # a file named explicitly is linted whatever its suffix or .gitignore …
    assert files("docs/data.json", "build/x.md") == ["build/x.md", "docs/data.json"]
    # … but the project's exclude still applies (so pre-commit honours it)
    assert files("legacy/old.md") == []
    assert files(".", "--no-respect-gitignore") == [
        "build/x.md", "docs/a.md", "docs/b.draft.md", "docs/deep/c.markdown", "docs/notes.txt", "prose.md"]


def test_fail_on_and_exit_codes_with_usage_error(proj: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["lint", "--size", "zero"])
    assert info.value.code == 2
    assert "expected a positive integer" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["lint", "--fail-on", "fatal"])
    assert info.value.code == 2


def test_overlap_not_below_size_is_a_usage_error(proj: Path, capsys) -> None:
    rc, _, err = run(capsys, "lint", "prose.md", "--size", "100", "--overlap", "100")
    assert rc == 2 and "--overlap 100: expected overlap (100) smaller than size (100)" in err


def test_colour_only_on_a_terminal(proj: Path) -> None:
    import pty

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    args = [sys.executable, "-m", "chunkseam.cli", "lint", "prose.md", "--chunker", "recursive"]

    def on_tty(extra_env: dict[str, str]) -> str:
        master, slave = pty.openpty()
        proc = subprocess.Popen(args, cwd=proj, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL,
                                env={**env, **extra_env, "CHUNKSEAM_NO_PROGRESS": "1"})
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=120)
        os.close(master)
        return b"".join(chunks).decode("utf-8", "replace")

    assert "\x1b[" in on_tty({})
    assert "\x1b[" not in on_tty({"NO_COLOR": "1"})
    piped = subprocess.run(args, cwd=proj, capture_output=True, text=True, env=env)
    assert "\x1b[" not in piped.stdout and SUMMARY_RE.match(piped.stdout.strip().splitlines()[-1])
    forced = subprocess.run(args, cwd=proj, capture_output=True, text=True, env={**env, "FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout


def test_console_script_and_version() -> None:
    import shutil

    exe = shutil.which("chunkseam") or str(Path(sys.executable).with_name("chunkseam"))
    p = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and re.match(r"chunkseam \d+\.\d+", p.stdout)


# --- need the validator ---------------------------------------------------------------------------------


def test_fixed_200_chars_on_prose_reports_mid_word_and_mid_sentence(proj: Path, capsys) -> None:
    rc, out, err = run(capsys, "lint", "prose.md", *FIXED_200)
    assert rc == 1, err
    lines = out.strip().splitlines()
    issues = [LINE_RE.match(l) for l in lines[:-1]]
    assert issues and all(issues), lines
    codes = {m["code"] for m in issues}
    assert {"CS001", "CS002"} & codes, codes
    assert all(m["path"] == "prose.md" for m in issues)
    m = re.match(r"^(\d+) issues? in 1 file; (\d+) of (\d+) chunks broken \((\d+\.\d)%\)$", lines[-1])
    assert m, lines[-1]
    n_issues, broken, chunks, pct = int(m[1]), int(m[2]), int(m[3]), float(m[4])
    assert n_issues == len(issues) and 0 < broken <= chunks
    assert abs(pct - round(100 * broken / chunks, 1)) < 0.051


def test_json_positions_come_from_the_document(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--format", "json")
    data = json.loads(out)
    doc = Document(PROSE, path="prose.md")
    assert rc == 1 and data["issues"]
    for i in data["issues"]:
        for key in ("path", "code", "name", "severity", "message", "line", "column", "end_line",
                    "end_column", "start_offset", "end_offset", "chunk"):
            assert key in i, key
        assert (i["line"], i["column"]) == doc.line_col(i["start_offset"])
        assert (i["end_line"], i["end_column"]) == doc.line_col(i["end_offset"])
        assert i["severity"] in ("error", "warning", "info", "hint")
    s = data["summary"]
    assert s["per_rule"] == {c: sum(1 for i in data["issues"] if i["code"] == c) for c in s["per_rule"]}
    assert abs(s["rate"] - s["chunks_with_issues"] / s["chunks"]) < 1e-6


def test_github_annotations(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--format", "github")
    ann = [l for l in out.splitlines() if l.startswith("::")]
    assert ann and rc == 1
    for l in ann:
        assert re.match(r"^::(error|warning|notice) file=prose\.md,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
                        r"title=CS\d{3} \[[a-z0-9-]+\]::CS\d{3} .+", l), l


def test_statistics(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--statistics")
    rows = [l.split("\t") for l in out.strip().splitlines()[:-1]]
    assert rows and all(len(r) == 3 and r[0].strip().isdigit() and re.match(r"CS\d{3}$", r[1]) for r in rows)
    _, js, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--format", "json")
    assert {r[1]: int(r[0]) for r in rows} == json.loads(js)["summary"]["per_rule"]


def test_select_ignore_severity_fail_on_max_rate(proj: Path, capsys) -> None:
    def codes(*extra: str) -> tuple[int, list[dict]]:
        rc, out, _ = run(capsys, "lint", "prose.md", *FIXED_200, "--format", "json", *extra)
        return rc, json.loads(out)["issues"]

    rc, everything = codes()
    assert rc == 1 and {"CS001", "CS002"} <= {i["code"] for i in everything}
    _, only = codes("--select", "CS001")
    assert only and {i["code"] for i in only} == {"CS001"}
    _, rest = codes("--ignore", "CS001,CS002")
    assert not {i["code"] for i in rest} & {"CS001", "CS002"}
    _, graded = codes("--severity", "CS002=info")
    assert all(i["severity"] == "info" for i in graded if i["code"] == "CS002")
    # only info issues left: below the default --fail-on warning -> 0, unless --fail-on info
    rc, _ = codes("--select", "CS002", "--severity", "CS002=info")
    assert rc == 0
    rc, _ = codes("--select", "CS002", "--severity", "CS002=info", "--fail-on", "info")
    assert rc == 1
    # --max-rate fails on the broken-chunk rate even when no issue reaches --fail-on
    rc, _ = codes("--select", "CS002", "--fail-on", "error")
    assert rc == 0
    rc, _ = codes("--select", "CS002", "--fail-on", "error", "--max-rate", "1")
    assert rc == 1
    rc, _ = codes("--select", "CS002", "--fail-on", "error", "--max-rate", "100")
    assert rc == 0


PARA = ("Short paragraph number {n} that fits in one chunk on its own and ends cleanly with a period.\n\n")
LONG = ("The retry loop waits one second, then two, then four, and it keeps doubling the wait until "
        "it reaches a minute, after which it gives up and reports the error to the caller with the "
        "request id so support can find it. Jitter is added to each wait so that clients recovering "
        "from the same outage do not retry in lockstep and overload the service again.\n\n")


def test_baseline_survives_unrelated_edits_and_catches_new_issues(proj: Path, capsys) -> None:
    # recursive chunking at 200 chars: each short paragraph is a chunk of its own, the long
    # paragraph is cut inside sentences. Adding paragraphs above it moves its line numbers but
    # not its cuts.
    doc = proj / "guide.md"
    doc.write_text(PARA.format(n=1) + LONG + PARA.format(n=2), encoding="utf-8")
    opts = ["--chunker", "recursive", "--unit", "chars", "--size", "200"]
    rc, out, _ = run(capsys, "lint", "guide.md", *opts)
    assert rc == 1, out
    rc, _, _ = run(capsys, "lint", "guide.md", *opts, "--write-baseline", "chunkseam-baseline.json")
    assert rc == 0
    rc, out, _ = run(capsys, "lint", "guide.md", *opts, "--baseline", "chunkseam-baseline.json")
    assert rc == 0 and "baselined" in out
    # unrelated edit: two new paragraphs at the top (every line number changes)
    doc.write_text(PARA.format(n=0) + PARA.format(n=9) + PARA.format(n=1) + LONG + PARA.format(n=2),
                   encoding="utf-8")
    rc, out, _ = run(capsys, "lint", "guide.md", *opts, "--baseline", "chunkseam-baseline.json")
    assert rc == 0, out
    # a new problem: a second long paragraph with different text
    doc.write_text(doc.read_text() + LONG.replace("retry loop", "backoff timer").replace("minute", "hour"),
                   encoding="utf-8")
    rc, out, _ = run(capsys, "lint", "guide.md", *opts, "--baseline", "chunkseam-baseline.json", "--format", "json")
    data = json.loads(out)
    assert rc == 1 and data["issues"] and data["summary"]["baselined"] > 0
    text = doc.read_text()
    assert all(i["start_offset"] >= text.index("backoff timer") - 200 for i in data["issues"])
