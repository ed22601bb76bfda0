"""docs/integrations.md and docs/examples/: every Python example runs as written.

The page's ```python blocks run in a fresh interpreter in an empty directory; the example
pipelines (LlamaIndex, LangChain, Haystack) ingest a small slice of the corpus with the splitter
and the guard, retrieve with merge, and print the events' broken-chunk rate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPUS, IN_CI, ROOT

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")
pytest.importorskip("haystack")

PAGE = ROOT / "docs" / "integrations.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "server"), env.get("PYTHONPATH", "")])
    return env


def test_the_page_has_examples_for_each_framework() -> None:
    text = "\n".join(BLOCKS)
    assert len(BLOCKS) >= 5
    for name in ("ChunkseamTextSplitter", "ChunkseamNodeParser", "ChunkseamDocumentSplitter",
                 "MergeAdjacentPostprocessor", "MergingRetriever", "MergeAdjacentDocuments",
                 "ChunkseamGuard", "IngestionPipeline"):
        assert name in text, name


@pytest.mark.parametrize("n", range(len(BLOCKS)))
def test_each_python_example_of_the_page_runs(n: int, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", BLOCKS[n]], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"block {n}:\n{BLOCKS[n]}\n{proc.stderr[-3000:]}"
    assert "AssertionError" not in proc.stderr


@pytest.mark.parametrize("framework", ["llamaindex", "langchain", "haystack"])
def test_the_example_pipeline_ingests_retrieves_and_prints_the_rate(framework: str, tmp_path: Path) -> None:
    corpus = CORPUS / "markdown" / "readmes"
    if not corpus.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip(f"corpus not found at {CORPUS}")
    events = tmp_path / "events.jsonl"
    script = ROOT / "docs" / "examples" / f"{framework}_pipeline.py"
    proc = subprocess.run([sys.executable, str(script), str(corpus), "--limit", "5", "--size", "256",
                           "--events", str(events), "--run", "ci"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    m = re.fullmatch(r"chunkseam: broken-chunk rate ([\d.]+)% of (\d+) chunks in 5 documents "
                     r"\(run ci, events in .*\)", lines[-1])
    assert m, proc.stdout
    summaries = [json.loads(x) for x in events.read_text().splitlines()]
    summaries = [e for e in summaries if e["event"] == "chunkseam.summary"]
    assert len(summaries) == 5 and {e["run"] for e in summaries} == {"ci"}
    assert not any(e.get("text_only") for e in summaries)  # judged against the files themselves
    assert all(e["params"]["size"] == 256 for e in summaries)
    chunks = sum(e["stats"]["chunks"] for e in summaries)
    broken = sum(e["stats"]["chunks_with_issues"] for e in summaries)
    assert int(m.group(2)) == chunks and float(m.group(1)) == pytest.approx(100 * broken / chunks, abs=0.05)
    # no loud cut issue: what is broken is an atomic unit over the size (CS101), never a cut
    for e in summaries:
        assert set(e["stats"]["per_rule"]) <= {"CS101", "CS102", "CS103"}, e["stats"]["per_rule"]
    retrieved = lines[:-1]
    assert retrieved and all(re.match(r"\S+ \[\d+:\d+\] \d+ chunk\(s\): ", x) for x in retrieved)
