"""`chunkseam audit --report out.html`: one self-contained page, checked in real headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clikit import run
from conftest import corpus_files
from test_preview_html import ARTIFACTS, chromium


@pytest.fixture
def audited(tmp_path: Path, monkeypatch, capsys) -> tuple[Path, dict]:
    """A dump of corpus files cut every 900 characters (two folders, sources readable), its
    report and its JSON audit."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    files = corpus_files()[:6]
    rows = []
    for d, src in enumerate(files):
        folder = tmp_path / ("docs/a" if d % 2 else "docs/b")
        folder.mkdir(parents=True, exist_ok=True)
        text = src.read_text(encoding="utf-8").replace("<", "&lt;") + "\n<b>tag</b> & \"quote\"\n"
        name = folder / f"doc{d}.md"
        name.write_text(text, encoding="utf-8")
        for i, s in enumerate(range(0, len(text), 900)):
            rows.append({"doc_id": f"d{d}", "source": str(name.relative_to(tmp_path)), "chunk_index": i,
                         "text": text[s:s + 900]})
    (tmp_path / "dump.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "chunkseam.toml").write_text("size = 256\nmodel-max-tokens = 300\n", encoding="utf-8")
    rc, out, err = run(capsys, "audit", "dump.jsonl", "--format", "json", "--report", "report.html")
    assert rc in (0, 1), err
    assert "wrote the report to report.html" in err
    return tmp_path / "report.html", json.loads(out)


def test_report_shows_rates_sizes_and_rules_in_chromium(audited, tmp_path: Path) -> None:
    page, data = audited
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img)\b", text) and "http" not in text.replace("http-equiv", "")
    dom = chromium("--dump-dom", page.as_uri(), tmp=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html_ = dom.stdout
    # the rate per folder, as counted from the JSON report
    per: dict[str, list[int]] = {}
    for f in data["files"]:
        k = str(Path(f["source"]).parent)
        per.setdefault(k, [0, 0])
        per[k][0] += f["chunks"]
        per[k][1] += f["chunks_with_issues"]
    got = {m[0]: float(m[1]) for m in re.findall(r'class="cs-group" data-folder="([^"]+)" data-rate="([0-9.]+)"', html_)}
    assert got == pytest.approx({k: b / c for k, (c, b) in per.items()}, abs=1e-6)
    assert set(got) == {"docs/a", "docs/b"}
    # every chunk is in the histogram; the size and the embedding limit are marked
    counts = [int(n) for n in re.findall(r'class="cs-bin" data-count="(\d+)"', html_)]
    assert sum(counts) == data["summary"]["chunks"]
    assert 'class="cs-size" data-value="256"' in html_ and 'class="cs-limit" data-value="300"' in html_
    # the top rules, most frequent first, as in the summary
    rules = re.findall(r'class="cs-rule" data-code="([^"]+)"', html_)
    per_rule = data["summary"]["per_rule"]
    assert rules and rules == sorted(per_rule, key=lambda c: (-per_rule[c], c))[:15]
    # document text never reaches the page
    assert "<b>tag</b>" not in text
    ARTIFACTS.mkdir(exist_ok=True)
    shot = chromium(f"--screenshot={ARTIFACTS / 'audit-report.png'}", "--window-size=900,1300", page.as_uri(),
                    tmp=tmp_path)
    assert shot.returncode == 0 and (ARTIFACTS / "audit-report.png").stat().st_size > 10_000


def test_report_to_a_missing_directory_is_a_clear_error(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dump.jsonl").write_text('{"doc_id": "a", "text": "Hello there."}\n', encoding="utf-8")
    rc, _, err = run(capsys, "audit", "dump.jsonl", "--report", "nope/report.html")
    assert rc == 2 and "nope/report.html" in err and "directory does not exist" in err
