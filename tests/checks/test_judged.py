"""Every judgement in benchmarks/judged/items.jsonl still holds: what a reader
found right is still reported, what a reader found wrong is no longer
reported, and where a reader named the right rule, that rule is reported.

The set (and its scorer, ``python benchmarks/judged.py``) is described in
benchmarks/judged.py. Items marked ``open`` are known misses: only their
wrong report is checked to be gone.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "judged.py"


@pytest.fixture(scope="module")
def judged():
    spec = importlib.util.spec_from_file_location("chunkseam_bench_judged", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    if not mod.CORPUS.is_dir():
        pytest.skip(f"no corpus at {mod.CORPUS}")
    return mod


@pytest.fixture(scope="module")
def cache():
    """Each judged document is linted once per setting for the whole module."""
    return {}


@pytest.fixture(scope="module")
def scored(judged, items, cache):
    return judged.score(items, cache)


@pytest.fixture(scope="module")
def items(judged):
    got = judged.load_items()
    assert len(got) >= 600
    return got


def test_the_corpus_text_under_each_item_is_unchanged(judged, items):
    stale = [(i["line_no"], i["path"], i["offset"]) for i in items
             if judged.excerpt_sha(judged._text(i["path"]), i["offset"]) != i["sha"]]
    assert not stale, f"corpus changed under these judged items (re-judge them): {stale[:10]}"


def test_every_judgement_still_holds(judged, items, cache):
    moot, failures = [], []
    for it in items:
        if not judged.exists(it, cache):
            moot.append(it["line_no"])
            continue
        codes = judged.now_codes(it, cache)
        exp = judged.expected(it)
        where = f'line {it["line_no"]}: {it["path"]} [{it["setting"]}] @{it["offset"]} ({it["note"]})'
        if it["verdict"] == "false" and it["rule"] != "clean" and it["rule"] in codes \
                and exp != it["rule"]:
            failures.append(f"{where}: {it['rule']} is reported again, judged wrong")
        if exp is None or it.get("open"):
            continue
        if exp == "clean":
            if codes:
                failures.append(f"{where}: judged clean, now {codes}")
        elif exp not in codes:
            failures.append(f"{where}: {exp} expected, now {codes or 'clean'}")
    assert not failures, "\n".join(failures)
    # a chunker that moved its cuts makes items moot; most must still be checked
    assert len(moot) <= len(items) // 20, moot


def test_precision_per_rule_meets_the_target(scored):
    res = scored
    for rule, c in res["after"].items():
        n = c["true"] + c["false"]
        assert n >= 15, (rule, n)
        assert c["true"] / n >= 0.95, (rule, dict(c))


def test_precision_per_kind_and_rule_meets_the_target(scored):
    """Per file kind too (reStructuredText, each code language, MDX …): a
    rule judged on 15 or more of a kind's reports is right on 95% of them."""
    res = scored
    low = {key: dict(c) for key, c in res["after_kind"].items()
           if c["true"] + c["false"] >= 15 and c["true"] / (c["true"] + c["false"]) < 0.95}
    assert not low, low


def test_every_kind_is_judged(judged, items):
    kinds = {judged.kind_of(i) for i in items}
    assert {"markdown", "mdx", "rst", "python", "ts", "go", "rust", "java", "notebook"} <= kinds, kinds
