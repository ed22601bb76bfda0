"""Output formats from report.py on known issues (independent of the validator's judgement),
and SARIF as GitHub code scanning needs it.

`jsonschema` is not a dependency, so the SARIF is checked here field by field
against what the SARIF 2.1.0 schema requires and what GitHub's upload reads
(version, runs[].tool.driver.name, rules[].id, results[].message.text,
results[].locations[].physicalLocation.artifactLocation.uri, region.startLine
>= 1, ruleIndex pointing at its rule, level in the allowed set).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from chunkseam.report import formats as report
from chunkseam.report.baseline import fingerprint
from chunkseam.cli.app import main
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue

TEXT = "# Title\n\nThe café serves 🍰 and tea.\r\nSet the timeout to 30 seconds, then restart.\n"


def sample(path: str = "docs/a.md") -> tuple[Document, list[report.FileResult]]:
    doc = Document(TEXT, path=path)
    cut = TEXT.index("to 30") + 2
    s = TEXT.index("Set the")
    e = TEXT.index("restart.") + len("restart.")
    w = TEXT.index("café")
    issues = [
        # as the engine reports a cut: the range starts at the cut, the sentence is the unit
        Issue("CS002", "mid-sentence", "warning", 'chunk 1 ends mid-sentence: "…set the timeout to"', cut, e, 1, 2,
              cut, (cut, e), "continues in chunk 2", "move the cut to the sentence end", unit=(s, e)),
        Issue("CS001", "mid-word", "error", "chunk 0 ends mid-word: \"caf\" | \"é\"", w, w + 4, 0, 1, w + 3),
        Issue("CS102", "fragment", "info", "chunk 3 has 3 tokens, under min-tokens 16", len(TEXT) - 9, len(TEXT) - 1, 3),
    ]
    records = [report.record_from_issue(doc, i, path, fingerprint=fingerprint(TEXT, i.code, i.start, i.end, i.cut))
               for i in issues]
    return doc, [report.FileResult(path=path, chunker="fixed", chunks=4, chunks_with_issues=3,
                                   per_rule={"CS001": 1, "CS002": 1, "CS102": 1}, records=records)]


def test_records_positions_from_document() -> None:
    doc, results = sample()
    for rec in results[0].records:
        assert (rec.line, rec.column) == doc.line_col(rec.start_offset)
        assert (rec.end_line, rec.end_column) == doc.line_col(rec.end_offset)
    cs002 = results[0].records[0]
    assert cs002.line == 4 and cs002.column == 19  # after a CRLF line: 1-based line 4, at the cut
    assert cs002.extra["cut_line"] == 4 and cs002.extra["related"]["message"] == "continues in chunk 2"
    # the whole sentence is the documented "unit" field
    assert (cs002.extra["unit"]["line"], cs002.extra["unit"]["column"]) == (4, 1)
    cs001 = results[0].records[1]
    assert (cs001.line, cs001.column) == (3, 5)  # columns count characters: "The café" → c is col 5


def test_text_format_and_summary() -> None:
    _, results = sample()
    out = io.StringIO()
    s = report.summarize(results)
    report.write_text(out, results, s, color=False)
    lines = out.getvalue().splitlines()
    # every format points at the cut itself (JSON and SARIF carry the broken unit)
    assert lines[0] == 'docs/a.md:4:19: CS002 [mid-sentence] chunk 1 ends mid-sentence: "…set the timeout to"'
    assert lines[1].startswith("docs/a.md:3:5: CS001 [mid-word] ")  # the word at the cut
    assert lines[-1] == "3 issues in 1 file; 3 of 4 chunks broken (75.0%)"
    colored = io.StringIO()
    report.write_text(colored, results, s, color=True)
    assert "\x1b[1;31mCS001\x1b[0m" in colored.getvalue()


def test_summary_line_wording() -> None:
    s = report.Summary(files=4, issues=12, chunks=412, chunks_with_issues=38)
    assert report.summary_line(s) == "12 issues in 4 files; 38 of 412 chunks broken (9.2%)"
    s = report.Summary(files=1, issues=1, chunks=1, chunks_with_issues=1, unreadable=2, baselined=3)
    assert report.summary_line(s) == ("1 issue in 1 file; 1 of 1 chunk broken (100.0%) "
                                      "(3 baselined issues not shown; 2 files could not be checked)")


def test_github_format_escapes() -> None:
    doc = Document("a\nb, c: d\n", path="we,ird:name.md")
    rec = report.record_from_issue(doc, Issue("CS002", "mid-sentence", "warning", "100% bad\nreally", 2, 5, 0), doc.path)
    out = io.StringIO()
    report.write_github(out, [report.FileResult(path=doc.path, chunks=1, records=[rec])], report.Summary())
    first = out.getvalue().splitlines()[0]
    assert first == ("::warning file=we%2Cird%3Aname.md,line=2,col=1,endLine=2,endColumn=4,"
                     "title=CS002 [mid-sentence]::CS002 100%25 bad%0Areally")


def check_sarif(data: dict) -> None:
    """What SARIF 2.1.0 requires and GitHub code scanning reads."""
    assert data["version"] == "2.1.0"
    assert data["$schema"].endswith("sarif-2.1.0.json") or "sarif-schema-2.1.0" in data["$schema"]
    assert isinstance(data["runs"], list) and len(data["runs"]) == 1
    run = data["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "chunkseam" and driver["version"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    for r in rules:
        assert re.match(r"^CS\d{3}$", r["id"])
        assert r["shortDescription"]["text"] and r["help"]["text"]
        assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
    for res in run["results"]:
        assert res["message"]["text"]
        assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("none", "note", "warning", "error")
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] and not loc["artifactLocation"]["uri"].startswith("/")
        region = loc["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        assert region["charOffset"] >= 0 and region["charLength"] >= 0
    assert run["columnKind"] in ("unicodeCodePoints", "utf16CodeUnits")
    json.dumps(data)  # serialisable


def test_sarif_document(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    _, results = sample()
    data = report.sarif_document(results, report.summarize(results))
    check_sarif(data)
    run = data["runs"][0]
    assert {r["ruleId"] for r in run["results"]} == {"CS001", "CS002", "CS102"}
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"CS001": "error", "CS002": "warning", "CS102": "note"}
    region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (4, 19)  # the cut
    unit = run["results"][0]["relatedLocations"][0]["physicalLocation"]["region"]
    assert (unit["startLine"], unit["startColumn"]) == (4, 1)  # the whole sentence
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "docs/a.md"
    assert all(r["partialFingerprints"] for r in run["results"])


def test_json_document() -> None:
    _, results = sample()
    data = report.json_document(results, report.summarize(results), [])
    i = data["issues"][0]
    for key in ("path", "code", "name", "severity", "message", "line", "column", "end_line", "end_column",
                "start_offset", "end_offset", "chunk"):
        assert key in i
    assert data["summary"]["per_rule"] == {"CS001": 1, "CS002": 1, "CS102": 1}
    assert data["summary"]["rate"] == 0.75


def test_failing_thresholds() -> None:
    _, results = sample()
    recs = results[0].records
    assert report.failing(recs, "error") and report.failing(recs, "warning")
    info_only = [r for r in recs if r.severity == "info"]
    assert not report.failing(info_only, "warning") and report.failing(info_only, "info")
    assert not report.failing(recs, "never")


# --- end to end (needs the validator to report issues) -------------------------------------------------


def test_sarif_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    (tmp_path / ".git").mkdir()
    prose = ("Caching keeps recent responses in memory so repeated requests skip the database. "
             "To prevent stale reads, set the timeout to 30 seconds and enable keepalive. ") * 6
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cache.md").write_text("# Cache\n\n" + prose + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc = main(["lint", "docs", "--chunker", "fixed", "--unit", "chars", "--size", "200", "--format", "sarif"])
    data = json.loads(capsys.readouterr().out)
    check_sarif(data)
    results = data["runs"][0]["results"]
    assert rc == 1 and results  # needs the validator
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"docs/cache.md"}
