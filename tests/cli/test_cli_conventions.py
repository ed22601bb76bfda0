"""Conventions users bring from ruff, markdownlint and pre-commit: a gate that cannot be fooled."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clikit import run

DOC = "# Guide\n\nThe first sentence is here. The second sentence follows it and goes on for a while.\n"


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "x.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    return tmp_path


# --- unknown rule selectors ------------------------------------------------------------------


@pytest.mark.parametrize("flag, value, hint", [
    ("--select", "CS999", None),
    ("--select", "CS0002", "CS002"),
    ("--ignore", "mid-sentance", "mid-sentence"),
    ("--extend-select", "no-contxt", "no-context"),
    ("--severity", "CS0002=error", "CS002"),
])
def test_unknown_selector_on_the_command_line_is_exit_2(proj: Path, capsys, flag, value, hint) -> None:
    rc, out, err = run(capsys, "lint", flag, value, "x.md")
    assert rc == 2
    assert out == ""  # nothing checked, no "No issues"
    code = value.split("=")[0]
    assert f"{flag} {code}: unknown rule selector {code!r}" in err
    if hint:
        assert f"did you mean {hint!r}?" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("table", [
    'select = ["CS999"]',
    'ignore = ["mid-sentance"]',
    'severity = { CS0002 = "error" }',
    'per-file-ignores = { "docs/*" = ["CS9999"] }',
])
def test_unknown_selector_in_the_config_file_is_exit_2(proj: Path, capsys, table: str) -> None:
    (proj / "pyproject.toml").write_text(f"[tool.chunkseam]\n{table}\n", encoding="utf-8")
    rc, out, err = run(capsys, "lint", "x.md")
    assert rc == 2 and out == ""
    assert "pyproject.toml: [tool.chunkseam]" in err and "unknown rule selector" in err


def test_known_selectors_still_work(proj: Path, capsys) -> None:
    rc, _, err = run(capsys, "lint", "--select", "CS0,mid-word,ALL", "--ignore", "CS1", "x.md")
    assert rc == 0, err


def test_unknown_selector_from_the_editor_is_reported_not_fatal(proj: Path) -> None:
    from chunkseam.config.loader import resolve

    r = resolve(proj / "x.md", {"select": ["CS999"]}, strict=False, overrides_source="editor")
    assert r.settings.select == ()
    assert any("unknown rule selector 'CS999'" in str(e) for e in r.errors)


# --- unknown options, global options -----------------------------------------------------------


def test_unknown_option_prints_the_subcommand_usage_and_the_closest_option(proj: Path, capsys) -> None:
    rc, out, err = run(capsys, "lint", "--chunk-size", "400", "x.md")
    assert rc == 2 and out == ""
    assert err.startswith("usage: chunkseam lint ")
    assert "unrecognized arguments: --chunk-size" in err and "(did you mean --size?)" in err
    rc, _, err = run(capsys, "chunks", "--overlapp", "3", "x.md")
    assert rc == 2 and err.startswith("usage: chunkseam chunks ") and "did you mean --overlap?" in err
    rc, _, err = run(capsys, "lint", "--output-format", "json", "x.md")
    assert rc == 2 and "did you mean --format?" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_color_works_before_and_after_the_subcommand(proj: Path, capsys, where: str) -> None:
    args = ["--color", "always", "lint", "x.md"] if where == "before" else ["lint", "--color", "always", "x.md"]
    rc, out, _ = run(capsys, *args)
    assert rc == 0 and "\x1b[" in out
    args = ["--color", "never", "lint", "x.md"] if where == "before" else ["lint", "x.md", "--color", "never"]
    rc, out, _ = run(capsys, *args)
    assert rc == 0 and "\x1b[" not in out and "No issues in 1 file" in out


# --- library-backed chunkers ----------------------------------------------------------------------


@pytest.fixture
def no_langchain(monkeypatch: pytest.MonkeyPatch) -> None:
    # as if langchain-text-splitters were not installed
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)


def test_langchain_without_the_extra_is_one_configuration_error(proj: Path, capsys, no_langchain) -> None:
    (proj / "y.md").write_text(DOC, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "--chunker", "langchain", "x.md", "y.md")
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines == ['error: --chunker langchain: the "langchain" chunker needs langchain-text-splitters: '
                     'pip install "chunkseam[langchain]"']
    rc, _, err = run(capsys, "compare", "--chunkers", "fixed,langchain", "x.md")
    assert rc == 2 and "pip install" in err and "internal error" not in err
    (proj / "pyproject.toml").write_text('[tool.chunkseam]\nchunkers = { "*.md" = "langchain" }\n')
    rc, _, err = run(capsys, "lint", "x.md", "y.md")
    assert rc == 2 and err.count("error:") == 1 and "pyproject.toml" in err


@pytest.mark.parametrize("chunker, module", [
    ("llamaindex", "llama_index"), ("haystack", "haystack"), ("chonkie", "chonkie"),
    ("semchunk", "semchunk"), ("text-splitter", "semantic_text_splitter"),
])
def test_every_library_backed_chunker_is_unavailable_without_its_library(
        proj: Path, capsys, monkeypatch: pytest.MonkeyPatch, chunker: str, module: str) -> None:
    from chunkseam import chunkers

    if chunker not in chunkers.names():
        pytest.skip(f"{chunker} is not part of this version")
    monkeypatch.setitem(sys.modules, module, None)
    assert chunkers.unavailable(chunker) is not None
    rc, out, err = run(capsys, "lint", "--chunker", chunker, "x.md")
    assert rc == 2 and out == ""
    assert err.count("error:") == 1 and "pip install" in err and "internal error" not in err
    rc, out, _ = run(capsys, "lint", "--help")
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(f"  {chunker} "))
    entry = [lines[first]] + [line for line in lines[first + 1:first + 6]]
    entry = entry[:1 + next((k for k, line in enumerate(entry[1:]) if not line.startswith("   ")), 5)]
    assert "[unavailable: " in " ".join(entry)


def test_help_lists_chunkers_defaults_and_examples(proj: Path, capsys, no_langchain) -> None:
    rc, out, _ = run(capsys, "lint", "--help")
    assert rc == 0
    for name in ("fixed", "recursive", "sentence", "markdown", "code", "langchain"):
        assert f"\n  {name} " in out
    assert "[unavailable: " in out and "chunkseam[langchain]" in out
    assert "(default: 400)" in out and "(default: 0)" in out and "(default: tokens)" in out
    assert out.count("\n  chunkseam ") >= 2  # two examples


def test_help_shows_langchain_available_when_installed(proj: Path, capsys) -> None:
    pytest.importorskip("langchain_text_splitters")
    rc, out, _ = run(capsys, "--help")
    assert rc == 0 and "\n  langchain " in out and "unavailable" not in out


# --- missing inputs ------------------------------------------------------------------------------


def test_missing_input_is_an_error_and_nothing_else(proj: Path, capsys) -> None:
    rc, out, err = run(capsys, "lint", "nope.md")
    assert (rc, out) == (2, "")
    assert err.strip() == "nope.md: error: No such file or directory"
    rc, out, err = run(capsys, "compare", "nope.md")
    assert (rc, out) == (2, "")
    assert err.strip() == "nope.md: error: No such file or directory"


# --- wording ---------------------------------------------------------------------------------------


def test_summary_wording_singular_and_baselined(proj: Path, capsys) -> None:
    (proj / "b.md").write_text("# B\n\n" + "One sentence that runs on and on across the cut. " * 30,
                               encoding="utf-8")
    opts = ["--chunker", "fixed", "--unit", "chars", "--size", "200"]
    rc, out, _ = run(capsys, "lint", *opts, "b.md")
    assert rc == 1
    summary = out.strip().splitlines()[-1]
    assert " 1 issues" not in summary and "1 chunks" not in summary
    rc, _, _ = run(capsys, "lint", *opts, "--write-baseline", "base.json", "b.md")
    assert rc == 0
    rc, out, _ = run(capsys, "lint", *opts, "--baseline", "base.json", "b.md")
    assert rc == 0
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("No issues in 1 file; 0 of ")
    assert "baselined issues not shown" in summary
    rc, out, _ = run(capsys, "chunks", "x.md")
    assert out.strip().endswith("x.md: 1 chunk (markdown, size 400 tokens, overlap 0)")


@pytest.mark.parametrize("fmt", ["text", "github", "azure"])
def test_quiet_prints_the_issues_and_nothing_else(proj: Path, capsys, fmt: str) -> None:
    (proj / "b.md").write_text("# B\n\n" + "One sentence that runs on and on across the cut. " * 30,
                               encoding="utf-8")
    opts = ["--chunker", "fixed", "--unit", "chars", "--size", "200", "--format", fmt, "b.md", "nope.md"]
    rc, out, err = run(capsys, "lint", *opts)
    rc_q, out_q, err_q = run(capsys, "lint", "-q", *opts)
    assert rc == rc_q == 2  # the exit code is unchanged (2: an input could not be read)
    lines, quiet = out.splitlines(), out_q.splitlines()
    assert quiet and quiet == [line for line in lines if "b.md" in line]  # every issue, in order
    assert len(lines) == len(quiet) + 1 and "issue" in lines[-1]  # only the summary line is gone
    assert ("simulating chunker" in err) == (fmt == "text") and "simulating chunker" not in err_q
    assert "nope.md" in err_q  # an unreadable input is still reported
    rc, out, _ = run(capsys, "lint", "--quiet", "x.md")
    assert (rc, out) == (0, "")  # a clean run prints nothing


# --- config --show --------------------------------------------------------------------------------


def test_config_show_prints_the_chunker_that_will_be_used(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "config", "--show", "x.md")
    assert rc == 0
    row = next(line for line in out.splitlines() if line.startswith("chunker "))
    assert '"markdown"' in row and "built-in route '*.md'" in row
    (proj / "notes").mkdir()
    (proj / "notes" / "a.md").write_text(DOC, encoding="utf-8")
    (proj / "chunkseam.toml").write_text('chunkers = { "notes/*" = "fixed" }\n', encoding="utf-8")
    rc, out, _ = run(capsys, "config", "notes/a.md", "--format", "json")
    chunker = json.loads(out)["settings"]["chunker"]
    assert chunker["value"] == "fixed" and "'notes/*'" in chunker["source"] and "chunkseam.toml" in chunker["source"]
    rc, out, _ = run(capsys, "config")
    row = next(line for line in out.splitlines() if line.startswith("chunker "))
    assert "(none)" not in row and "by file type" in row


def test_the_done_criterion_through_the_console_script(proj: Path) -> None:
    import shutil
    import subprocess

    exe = shutil.which("chunkseam", path=str(Path(sys.executable).parent))
    cmd = [exe] if exe else [sys.executable, "-m", "chunkseam"]
    out = subprocess.run([*cmd, "lint", "--select", "CS999", "x.md"], cwd=proj, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert "unknown rule selector 'CS999'" in out.stderr
