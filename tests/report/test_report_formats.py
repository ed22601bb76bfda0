"""Report formats people wire into CI: SARIF (checked against the 2.1.0 schema), GitLab Code
Quality, JUnit XML and a Markdown summary; rule links that point at pages that exist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from chunkseam.checks import registry
from clikit import run

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
RUNON = "# T\n\nHello | world, this is a sentence that runs on and on.\n"
OPTS = ["--chunker", "fixed", "--size", "20", "--unit", "chars"]


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runon.md").write_text(RUNON, encoding="utf-8")
    (tmp_path / "docs" / "fine.md").write_text("# Fine\n\nShort.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    return tmp_path


def test_rule_urls_point_at_pages_that_exist() -> None:
    prefix = registry.REPOSITORY_URL + "/blob/main/"
    for code in registry.RULES:
        url = registry.rule_url(code)
        assert url.startswith(prefix)
        assert (ROOT / url[len(prefix):]).is_file(), url
    from chunkseam.lsp.diagnostics import RULES_URL

    assert RULES_URL.format(code="CS002") == registry.rule_url("CS002")


def test_sarif_is_valid_and_links_each_rule_to_its_page(proj: Path, capsys) -> None:
    (proj / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    rc, out, _ = run(capsys, "lint", "docs", "bad.md", *OPTS, "--format", "sarif")
    assert rc == 2
    doc = json.loads(out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(doc)
    run_ = doc["runs"][0]
    assert run_["results"] and run_["invocations"][0]["toolExecutionNotifications"]
    for rule in run_["tool"]["driver"]["rules"]:
        assert rule["helpUri"] == registry.rule_url(rule["id"])


def test_sarif_of_an_audit_is_valid(proj: Path, capsys) -> None:
    rows = [{"text": RUNON[:20], "source": "docs/runon.md", "start": 0},
            {"text": RUNON[20:], "source": "docs/runon.md", "start": 25}, "not json"]
    (proj / "d.jsonl").write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    rc, out, _ = run(capsys, "audit", "d.jsonl", "--format", "sarif")
    assert rc == 2
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(json.loads(out))


def test_gitlab_code_quality(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "docs", *OPTS, "--format", "gitlab")
    assert rc == 1
    issues = json.loads(out)
    assert isinstance(issues, list) and len(issues) >= 2
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    for i in issues:
        assert i["type"] == "issue" and i["check_name"] in registry.RULES
        assert i["description"].startswith(i["check_name"] + " [")
        assert i["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert i["location"]["path"] == "docs/runon.md"
        assert i["location"]["positions"]["begin"]["line"] == 3
    assert {i["check_name"]: i["severity"] for i in issues}["CS001"] == "major"  # an error
    rc, out, _ = run(capsys, "lint", "docs/fine.md", "--format", "gitlab")
    assert rc == 0 and json.loads(out) == []


def test_junit(proj: Path, capsys) -> None:
    (proj / "bad.md").write_bytes(b"\xff\xfe not utf-8")
    rc, out, _ = run(capsys, "lint", "docs", "bad.md", *OPTS, "--format", "junit")
    assert rc == 2
    root = ET.fromstring(out.split("\n", 1)[1])
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    runon = suites[str(Path("docs") / "runon.md")]
    failures = runon.findall("testcase/failure")
    assert len(failures) == int(runon.get("failures")) >= 2
    assert {f.get("type") for f in failures} >= {"CS001"}
    fine = suites[str(Path("docs") / "fine.md")]
    assert fine.get("failures") == "0" and fine.find("testcase") is not None
    assert suites["unreadable inputs"].find("testcase/error") is not None
    assert int(root.get("tests")) == sum(int(s.get("tests")) for s in suites.values())
    assert int(root.get("failures")) == len(failures)


def test_markdown_summary(proj: Path, capsys) -> None:
    rc, out, _ = run(capsys, "lint", "docs", *OPTS, "--format", "markdown")
    assert rc == 1
    lines = out.splitlines()
    assert lines[0] == "## chunkseam"
    assert lines[2].endswith("broken (50.0%)") or "broken" in lines[2]
    assert "| Rule | Name | Issues |" in lines
    assert f"| [CS001]({registry.rule_url('CS001')}) | mid-word | 1 |" in lines
    assert "| `docs/runon.md` | fixed | 3 | 2 | 2 |" in lines
    rows = [line for line in lines if line.startswith("| `docs/runon.md:")]
    assert len(rows) == 2
    # a '|' in the message is escaped, so every issue row has exactly four cell borders
    assert all(line.replace("\\|", "").count("|") == 4 for line in rows)
    rc, out, _ = run(capsys, "lint", "docs/fine.md", "--format", "markdown")
    assert rc == 0 and "No issues in 1 file" in out and "| Rule |" not in out


def test_markdown_summary_stays_bounded_on_a_large_run(proj: Path, capsys, monkeypatch) -> None:
    from chunkseam.report import formats as report
    monkeypatch.setattr(report, "MARKDOWN_MAX_ISSUES", 10)
    for i in range(report.MARKDOWN_MAX_FILES + 5):
        (proj / "docs" / f"many{i:03}.md").write_text(RUNON, encoding="utf-8")
    rc, out, _ = run(capsys, "lint", "docs", *OPTS, "--format", "markdown")
    assert rc == 1
    file_rows = [line for line in out.splitlines() if line.startswith("| `docs/") and " | fixed | " in line]
    assert len(file_rows) == report.MARKDOWN_MAX_FILES
    assert "6 more files with issues not listed." in out
    issue_rows = [line for line in out.splitlines() if line.startswith("| `docs/") and ":3:" in line]
    assert len(issue_rows) == 10
    assert f"{2 * (report.MARKDOWN_MAX_FILES + 6) - 10} more not listed; see `--format json`." in out


def test_azure_logging_commands_escape_names_and_keep_info_plain(tmp_path, capsys, monkeypatch) -> None:
    """``--format azure``: one ``##vso[task.logissue …]`` command per error or warning, the file
    name escaped (``;`` and ``]`` would end a property or the command), info issues as plain
    lines, and no line a file name could start a command of its own with."""
    monkeypatch.chdir(tmp_path)
    name = "we;ird]%name.md"
    (tmp_path / name).write_text("# Title\n\nThis sentence has words and goes on for a while so that it is cut "
                                 "somewhere in the middle of the text.\n\n##vso[task.complete result=Failed]\n",
                                 encoding="utf-8")
    rc, out, _err = run(capsys, "lint", name, "--isolated", "--chunker", "fixed", "--unit", "chars",
                        "--size", "40", "--format", "azure")
    assert rc == 1
    lines = out.splitlines()
    commands = [ln for ln in lines if ln.startswith("##vso[")]
    assert commands and all(ln.startswith("##vso[task.logissue type=") for ln in commands)
    assert all("sourcepath=we%3Bird%5D%AZP25name.md;" in ln for ln in commands)
    assert any("type=error;" in ln and "code=CS001;" in ln for ln in commands)
    # the document's own "##vso[" text is inside messages, never at a line's start
    assert not any(ln.startswith("##") and not ln.startswith("##vso[task.logissue") for ln in lines)
    assert not any("type=info" in c or "type=hint" in c for c in commands)
    assert lines[-1].endswith(")") and "broken" in lines[-1]

