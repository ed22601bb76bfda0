"""The validator against a labelled set of cuts built from the corpus's source
lines (benchmarks/labelled.py; the full run with figures is
benchmarks/bench_validator.py). Targets from the issue: recall >= 0.98 on
every bad kind, false positives <= 2 % on clean cuts."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from conftest import corpus_files

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "labelled.py"


@pytest.fixture(scope="module")
def labelled():
    spec = importlib.util.spec_from_file_location("chunkseam_bench_labelled", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def results(labelled):
    files = corpus_files("markdown")
    # every 6th document, plus those with tables (rare in the corpus)
    tables = [f for f in files if re.search(r"^ {0,3}\|.*\|[ \t]*$", f.read_text(encoding="utf-8"), re.M)]
    sample = sorted(set(files[::6]) | set(tables))
    cuts = labelled.build(sample, per_file=5, seed=1, per_label={"split-table": 40, "split-list-item": 10})
    return labelled.evaluate(cuts)


def test_the_sample_is_big_enough(labelled, results):
    for label in labelled.LABELS:
        assert results[label].n >= (40 if label == "split-table" else 60), (label, results[label].n)


def test_recall_on_every_bad_kind(labelled, results):
    for label in labelled.BAD:
        r = results[label]
        assert r.rate(r.chunkseam) >= 0.98, (label, r.chunkseam, r.n, r.misses)
        assert r.rate(r.chunkseam_code) >= 0.98, (label, r.chunkseam_code, r.n, r.misses)


def test_false_positives_on_clean_cuts(labelled, results):
    for label in labelled.CLEAN:
        r = results[label]
        assert r.rate(r.chunkseam) <= 0.02, (label, r.chunkseam, r.n, r.misses)


def test_the_naive_text_only_validator_is_worse_and_ours_in_between(labelled, results):
    clean = [results[k] for k in labelled.CLEAN]
    n = sum(r.n for r in clean)
    article = sum(r.article for r in clean) / n
    text_only = sum(r.text_only for r in clean) / n
    source = sum(r.chunkseam for r in clean) / n
    assert source < text_only < article
    assert article > 0.10  # the field's number is about one clean cut in five


def test_labels_come_from_the_line_scan(labelled):
    text = ("Intro paragraph here. Second sentence follows.\n\nNext paragraph.\n\n"
            "```py\nx = 1\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
            "- a list item that\n  continues here\n- next\n")
    found = labelled.label_text(text)
    assert text.index("Second") in found["clean-sentence"]
    assert text.index("Next paragraph") in found["clean-paragraph"]
    assert text.index("y = 2") in found["split-fence"]
    assert text.index("| 3 |") in found["split-table"] and text.index("| 1 |") in found["split-table"]
    assert text.index("  continues") in found["split-list-item"]
    assert not any(text.index("x = 1") <= o < text.index("```\n\n|") for o in found["clean-block"])
