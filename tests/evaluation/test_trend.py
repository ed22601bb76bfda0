"""`chunkseam trend`: the broken-chunk rate per run from the guards' events, the run where it
stepped (ruptures), the exit code for CI, and the HTML chart in real headless Chromium."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chunkseam import Settings
from chunkseam.cli.app import main
from conftest import CORPUS, IN_CI
from test_preview_html import chromium

pytest.importorskip("ruptures")


def summary(run: str, doc: str, chunks: int, broken: int, size: int, time: str) -> dict:
    return {"event": "chunkseam.summary", "version": "0.1.0", "time": time, "run": run, "document": doc,
            "chunker": "recursive", "params": {"size": size, "overlap": 0, "unit": "chars"},
            "size": size, "rate": broken / chunks,
            "stats": {"documents": 1, "chunks": chunks, "chunks_with_issues": broken}}


def write(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def synthetic(tmp_path: Path, last_broken: int) -> Path:
    """Five runs of ten documents at about 10% broken; the last run at ``last_broken`` of 20."""
    events = []
    for r in range(5):
        for d in range(10):
            broken = last_broken if r == 4 else 2 + (d % 3 == 0) - (d % 4 == 0)
            events.append(summary(f"run{r + 1}", f"doc{d}.md", 20, broken, 800 if r == 4 else 500,
                                  f"2026-01-0{r + 1}T00:00:00+00:00"))
    return write(tmp_path / "events.jsonl", events)


def test_a_step_up_in_the_last_run_is_named_and_fails_ci(tmp_path: Path, capsys) -> None:
    events = synthetic(tmp_path, last_broken=8)
    assert main(["trend", str(events)]) == 1
    out = capsys.readouterr().out
    assert "stepped up at run run5" in out
    assert "recursive size=800" in out and "recursive size=500" in out
    assert main(["trend", str(events), "--max-step", "50"]) == 0  # over the threshold only
    capsys.readouterr()
    assert main(["trend", str(events), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (step,) = data["steps"]
    assert step["run"] == "run5" and step["after"] == pytest.approx(0.4)
    assert [r["run"] for r in data["runs"]] == [f"run{i}" for i in range(1, 6)]
    assert data["last_step"] == pytest.approx(0.4 - data["runs"][0]["rate"])


def test_a_steady_rate_names_no_step_and_passes(tmp_path: Path, capsys) -> None:
    events = synthetic(tmp_path, last_broken=2)
    assert main(["trend", str(events)]) == 0
    assert "change point: none" in capsys.readouterr().out


def test_runs_are_ordered_by_time_across_files(tmp_path: Path, capsys) -> None:
    a = write(tmp_path / "a.jsonl", [summary("late", "d.md", 10, 5, 800, "2026-02-01T00:00:00+00:00")])
    b = write(tmp_path / "b.jsonl", [summary("early", "d.md", 10, 1, 500, "2026-01-01T00:00:00+00:00"),
                                     {"event": "chunkseam.issue", "run": "early"}])
    main(["trend", str(a), str(b), "--format", "json"])
    assert [r["run"] for r in json.loads(capsys.readouterr().out)["runs"]] == ["early", "late"]


def test_bad_input_is_a_clear_error(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"event": "chunkseam.summary", "stats": {}}\nnot json\n')
    assert main(["trend", str(bad)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    empty = write(tmp_path / "empty.jsonl", [])
    assert main(["trend", str(empty)]) == 2
    assert "no chunkseam.summary events" in capsys.readouterr().err
    assert main(["trend", str(tmp_path / "missing.jsonl")]) == 2


def test_two_runs_with_different_chunk_sizes_name_the_step(tmp_path: Path) -> None:
    """Real events: the guard over LangChain's own splitter on corpus READMEs, 300 then 1500
    characters; `trend` (the real CLI, in a subprocess) names the second run."""
    pytest.importorskip("langchain_text_splitters")
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip(f"corpus not found at {CORPUS}")
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from chunkseam.integrations.langchain import ChunkseamGuard

    files = sorted((CORPUS / "markdown" / "readmes").glob("*.md"))[:12]
    docs = [Document(page_content=f.read_text(encoding="utf-8"), metadata={"source": str(f)}) for f in files]
    events = tmp_path / "chunkseam.jsonl"
    for run, size in (("monday", 300), ("tuesday", 1500)):
        splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0, add_start_index=True)
        ChunkseamGuard(settings=Settings(size=size, unit="chars"), events=events, run=run,
                       chunker="RecursiveCharacterTextSplitter",
                       params={"size": size, "overlap": 0, "unit": "chars"}
                       ).transform_documents(splitter.split_documents(docs))
    proc = subprocess.run([sys.executable, "-m", "chunkseam", "trend", str(events), "--html",
                           str(tmp_path / "trend.html")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "stepped up at run tuesday" in proc.stdout
    assert "RecursiveCharacterTextSplitter size=1500" in proc.stdout
    assert (tmp_path / "trend.html").is_file()


def test_the_html_chart_in_headless_chromium(tmp_path: Path) -> None:
    events = synthetic(tmp_path, last_broken=8)
    page = tmp_path / "trend.html"
    assert main(["trend", str(events), "--html", str(page)]) == 1
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    proc = chromium("--dump-dom", page.as_uri(), tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dom = proc.stdout
    assert dom.count('class="run"') == 5
    assert 'class="step" data-run="run5"' in dom
    assert "The rate stepped up at run <b>run5</b>" in dom
    shot = tmp_path / "trend.png"
    proc = chromium(f"--screenshot={shot}", "--window-size=800,700", page.as_uri(), tmp=tmp_path)
    assert proc.returncode == 0 and shot.stat().st_size > 5000
