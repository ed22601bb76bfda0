"""Peak memory in proportion to the input: hostile shapes of a file kind either
analyse within a bounded multiple of their size or get the budget's clear
message naming the limit — never a parse that takes gigabytes for a few
megabytes.

Each run is the real ``chunkseam`` command line in a fresh process, started by
a small wrapper that prints the peak resident memory of what it ran
(``getrusage(RUSAGE_CHILDREN).ru_maxrss``, so the figure is that run's own and
not the largest of every process the test session started). A hostile file's
peak is compared with the peak of the same command on a tiny file (the
imports, the tokenizer): the bound is a margin several times below what the
unbounded versions took, so it holds on any machine. The time and memory
figures themselves are printed by ``benchmarks/bench_parsers.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in kilobytes")

#: a guard against hangs, not a speed assertion
GUARD = 180.0
MB = 1024

_WRAPPER = ("import resource, subprocess, sys; "
            "r = subprocess.run([sys.executable, '-m', 'chunkseam', *sys.argv[1:]], capture_output=True, text=True); "
            "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr); "
            "print('\\nMAXRSS_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
            "sys.exit(r.returncode)")


def lint_peak(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess, int]:
    """``chunkseam lint ARGS`` in ``cwd``: the run and its peak resident memory (KB)."""
    run = subprocess.run([sys.executable, "-c", _WRAPPER, "lint", "--no-cache", *args], cwd=cwd,
                         capture_output=True, text=True, timeout=GUARD, env={**os.environ})
    peak = int(run.stderr.rsplit("MAXRSS_KB", 1)[1].split()[0])
    return run, peak


@pytest.fixture
def baseline_kb(tmp_path) -> int:
    """The peak of the same command on a tiny file."""
    d = tmp_path / "tiny"
    d.mkdir()
    (d / "tiny.md").write_text("# Title\n\nA short note. It has two sentences.\n")
    run, peak = lint_peak(d, "tiny.md", "--format", "json")
    assert run.returncode == 0, run.stderr
    return peak


def test_rst_whose_docutils_tree_would_take_hundreds_of_mb_gets_the_limit_message(tmp_path, baseline_kb):
    # 400 KB of one-word list items: docutils' tree alone took some 2 KB an item
    # (the whole run peaked at 440 MB, 1,100 times the file); now the pre-scan
    # estimates it and the file gets the message naming the limit
    (tmp_path / "flat.rst").write_text("- a\n" * 100_000)
    (tmp_path / "ok.rst").write_text("Title\n=====\n\nThe loader reads the files and then it checks every one of "
                                     "them for errors before anything is indexed.\n")
    run, peak = lint_peak(tmp_path, "flat.rst", "ok.rst", "--format", "json")
    assert run.returncode == 2, run.stderr
    report = json.loads(run.stdout)
    assert report["summary"]["files"] == 1 and report["summary"]["unreadable"] == 1, report["summary"]
    [error] = report["errors"]
    assert error["path"] == "flat.rst", error
    message = error["message"]
    assert "too large or too slow to analyse" in message, error
    assert "docutils tree would take about 392 MB" in message and "at most 256 MB" in message, message
    assert peak - baseline_kb < 128 * MB, (peak, baseline_kb)


def test_rst_of_ordinary_size_is_still_read_by_docutils(tmp_path):
    # the estimate refuses nothing an ordinary document holds: 2,000 sections of prose and lists
    part = ("Part\n====\n\nThe loader reads the files and then it checks every one of them. It stops "
            "there.\n\n- one item\n- another item\n\n.. note::\n\n   A note that runs on.\n\n")
    (tmp_path / "big.rst").write_text(part * 2_000)
    run, _ = lint_peak(tmp_path, "big.rst", "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    report = json.loads(run.stdout)
    assert not report["errors"], report["errors"]
    assert report["summary"]["chunks"] >= 100, report["summary"]


def test_notebook_with_a_long_json_string_is_placed_on_its_file_lines_in_little_memory(tmp_path, baseline_kb):
    # a 3 MB base64 image output (left out of the text analysed) and a cell with a
    # sentence cut: placing the issue on the .ipynb's lines read the whole JSON with a
    # regular expression that kept some 115 bytes of state a character of a string
    # (350 MB here; a 20 MB notebook took gigabytes)
    sentence = "The loader reads the files and then it checks every one of them for errors."
    image = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["plt.plot(x)"],
             "outputs": [{"output_type": "display_data", "metadata": {},
                          "data": {"image/png": "iVBORw0KGgo" * 300_000, "text/plain": ["<Figure>"]}}]}
    cells = [image, {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n", "\n", sentence]}]
    path = tmp_path / "plot.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    run, peak = lint_peak(tmp_path, path.name, "--format", "github", "--unit", "chars", "--size", "40")
    assert run.returncode == 1, run.stderr
    found = [ln for ln in run.stdout.splitlines() if "CS002" in ln]
    assert found, run.stdout
    lines = path.read_text().splitlines()
    for ln in found:
        assert "cell 2:3:" in ln, ln
        file_line = int(ln.split(",line=")[1].split(",")[0])
        assert sentence in lines[file_line - 1], (file_line, lines[file_line - 1][:80])
    assert peak - baseline_kb < 128 * MB, (peak, baseline_kb)
