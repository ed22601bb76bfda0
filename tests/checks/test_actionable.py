"""The actionable-precision scorer (benchmarks/actionable.py): its matching and
counting on a tiny hand-made items file linted for real, and the held-apart
judged set it scores (every item parses and still sits on the text it was
judged on)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "actionable.py"


@pytest.fixture(scope="module")
def A():
    spec = importlib.util.spec_from_file_location("actionable_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["actionable_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


# "# Title\n\n" + words: fixed 500 characters cuts at 500, between two words of
# one long sentence (mid-sentence, a warning)
MID = "# Title\n\n" + "alpha " * 100 + "\n"


def _clean_doc() -> str:
    first = ("One sentence ends here. " * 30)[:498].rstrip()
    return first.ljust(498) + "\n\n" + "Next paragraph starts here and goes on. " * 5 + "\n"


@pytest.fixture
def tiny(tmp_path: Path, A):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("mid.md", "other.md", "old.md"):
        (docs / name).write_text(MID, encoding="utf-8")
    (docs / "clean.md").write_text(_clean_doc(), encoding="utf-8")
    mid = MID
    clean = _clean_doc()

    def item(path, text, off, rule, sev, verdict, **kw):
        d = {"path": path, "kind": "markdown", "setting": "fix500", "offset": off, "rule": rule,
             "severity": sev, "verdict": verdict, "note": "", "sha": A.excerpt_sha(text, off)}
        d.update(kw)
        return d

    items = [
        item("mid.md", mid, 500, "CS002", "warning", "T"),             # 1 still loud
        item("mid.md", mid, 491, "CS002", "warning", "T"),             # 2 judged T, no longer reported: lost
        item("clean.md", clean, 500, "CS002", "warning", "P"),         # 3 was loud, now clean
        item("mid.md", mid, 300, "CS001", "info", "F"),                # 4 never loud
        item("clean.md", clean, 500, "clean", None, "clean"),          # 5 clean, stays clean
        item("mid.md", mid, 500, "clean", None, "missed", expect="CS002"),  # 6 a miss, now reported
        {**item("mid.md", mid, 450, "CS002", "warning", "F"), "sha": "000000000000"},  # 7 text changed
    ]
    items_file = tmp_path / "items.jsonl"
    items_file.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    population = tmp_path / "population.jsonl"
    rows = [{"path": "mid.md", "setting": "fix500", "issues": [["CS002", 500, "warning"]]},
            {"path": "old.md", "setting": "fix500", "issues": [["CS002", 500, "warning"]]},
            {"path": "other.md", "setting": "fix500", "issues": []},
            {"path": "clean.md", "setting": "fix500", "issues": [["CS002", 500, "warning"]]}]
    population.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return docs, items_file, population


def test_the_tiny_documents_are_what_the_items_assume(tiny, A) -> None:
    docs, _items, _pop = tiny
    assert A.diagnostics(str(docs), "mid.md", "fix500") == {("CS002", 500): "warning"}
    assert A.diagnostics(str(docs), "clean.md", "fix500") == {}
    assert A.cuts(str(docs), "clean.md", "fix500") == [500]


def test_before_counts_from_the_recorded_severities(tiny, A) -> None:
    _docs, items_file, _pop = tiny
    rows = A.tally(A.load_items(items_file), None)
    r = rows[("fix500", "CS002")].as_dict()
    assert r == {"judged": 4, "loud": 4, "T": 2, "F": 1, "P": 1, "precision": 0.5, "lost": 0, "quiet": 0}
    r = rows[("fix500", "CS001")].as_dict()
    assert r == {"judged": 1, "loud": 0, "T": 0, "F": 0, "P": 0, "precision": None, "lost": 0, "quiet": 0}
    assert rows[("*", "*")].as_dict()["judged"] == 5  # the clean cuts are not diagnostics


def test_now_matches_by_file_setting_rule_and_offset(tiny, A) -> None:
    docs, items_file, _pop = tiny
    items = A.load_items(items_file)
    now = A.evaluate(items, docs)
    assert [now[i]["changed"] for i in range(1, 8)] == [False] * 6 + [True]
    assert [now[i]["severity"] for i in range(1, 5)] == ["warning", None, None, None]
    assert now[5]["now_loud"] == [] and now[6]["now_loud"] == ["CS002"]
    rows = A.tally(items, now)
    # item 7 (changed text) is left out; item 2 is a judged T no longer reported
    assert rows[("fix500", "CS002")].as_dict() == {
        "judged": 3, "loud": 1, "T": 1, "F": 0, "P": 0, "precision": 1.0, "lost": 1, "quiet": 0}
    assert rows[("*", "*")].as_dict()["judged"] == 4


def test_a_judged_true_item_reported_quietly_counts_as_quiet_not_lost(tiny, A) -> None:
    docs, items_file, _pop = tiny
    items = A.load_items(items_file)
    now = {it["line_no"]: {"changed": False, "severity": "info", "now_loud": []} for it in items}
    r = A.tally(items, now)[("fix500", "CS002")].as_dict()
    # items 1 and 2 are T (quiet), 3 is P and 7 is F (neither lost nor quiet)
    assert (r["judged"], r["loud"], r["lost"], r["quiet"]) == (4, 0, 0, 2)


def test_unjudged_loud_lists_only_diagnostics_new_or_newly_loud(tiny, A) -> None:
    docs, items_file, pop = tiny
    new = A.unjudged_loud(A.load_items(items_file), docs, pop)
    # mid.md@500 is judged, old.md@500 was already loud when drawn, other.md@500 is new
    assert new == [{"path": "other.md", "setting": "fix500", "rule": "CS002", "offset": 500,
                    "severity": "warning"}]


def test_population_weighted_precision(tiny, A) -> None:
    docs, items_file, pop = tiny
    items = A.load_items(items_file)
    before = A.loud_counts(docs, pop, recorded=True)
    assert before == Counter({("fix500", "CS002"): 3})
    now_counts = A.loud_counts(docs, pop)
    assert now_counts == Counter({("fix500", "CS002"): 3})  # mid, old and other; clean.md no longer
    rows = A.tally(items, None)
    assert A.weighted(rows, before) == (0.5, 3, 3)
    assert A.weighted(rows, Counter({("fix500", "CS002"): 3, ("fix500", "CS005"): 2})) == (0.5, 3, 5)


def test_the_report_prints_before_and_now_side_by_side(tiny, A, capsys) -> None:
    docs, items_file, pop = tiny
    assert A.main(["--items", str(items_file), "--root", str(docs), "--population", str(pop)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("fix500      CS002"))
    before, now = row.split("|")[1:3]
    assert before.split() == ["4", "4", "2/", "1/", "1", "0.50", "0", "0"]
    assert now.split() == ["3", "1", "1/", "0/", "0", "1.00", "1", "0"]
    assert "now reported loud: 1" in out and "now reported loud with the expected rule: 1" in out
    assert "surroundings changed (not matched): 1" in out
    assert "not judged yet (not loud when the sample was drawn): 1" in out


# --- the held-apart set -----------------------------------------------------------------------


def _check_items(A, part: Path) -> list[dict]:
    """Every item of the part ``part`` parses, is judged, and its sha matches
    its document."""
    from chunkseam.document.text import load

    items = A.load_items(part / "items.jsonl")
    texts: dict[str, str] = {}
    for it in items:
        path = part / "docs" / it["path"]
        assert path.is_file(), it["path"]
        text = texts.setdefault(it["path"], load(str(path)).text)
        assert A.excerpt_sha(text, it["offset"]) == it["sha"], (it["line_no"], it["path"], it["offset"])
        assert it["setting"] in A.CONFIGS
        assert it["note"], it["line_no"]
        if A.is_clean(it):
            assert it["verdict"] in A.CLEAN_VERDICTS
            assert it["verdict"] != "missed" or it.get("expect"), it["line_no"]
        else:
            assert it["verdict"] in ("T", "F", "P") and it["severity"], it["line_no"]
    return items


def test_the_held_apart_items_parse_and_sit_on_their_text(A) -> None:
    items = _check_items(A, A.HELDOUT)
    diags = [it for it in items if not A.is_clean(it)]
    loud = [it for it in diags if it["severity"] in A.LOUD]
    assert len(diags) >= 170 and len(loud) >= 150
    assert sum(A.is_clean(it) for it in items) >= 40
    assert sum(it["setting"] == "default" for it in loud) >= 30
    per_rule = Counter(it["rule"] for it in diags)
    assert min(per_rule.values()) >= 10, per_rule


@pytest.mark.parametrize("name", ["heldout2", "heldout3", "heldout4", "heldout5", "heldout6"])
def test_a_later_held_apart_part_parses_and_sits_on_its_text(A, name: str) -> None:
    """The parts drawn loud-now (``draw_loud``): the second to the sixth."""
    part = A.HELDOUT.parent / name
    assert (part / "SOURCES.md").is_file()
    items = _check_items(A, part)
    loud = [it for it in items if not A.is_clean(it) and it["severity"] in A.LOUD]
    quiet = [it for it in items if not A.is_clean(it) and it["severity"] not in A.LOUD]
    assert len(loud) >= 170 and len(quiet) >= 20 and sum(A.is_clean(it) for it in items) >= 30
    # stratified on the recorded population: every rule reported loud there has
    # min(10, its loud count) items, the defaults min(30, theirs)
    pop_loud: Counter = Counter()
    rows = [json.loads(line) for line in (part / "population.jsonl").read_text(encoding="utf-8").splitlines()]
    # the population is every document in every configuration; every project keeps its licence
    docs = A.documents(part / "docs")
    assert sorted((d["path"], d["setting"]) for d in rows) == sorted((p, s) for p in docs for s in A.CONFIGS)
    for project in {p.split("/")[0] for p in docs}:
        assert (part / "licenses" / f"{project}-LICENSE").is_file(), project
    for d in rows:
        for rule, _off, sev in d["issues"]:
            if sev in A.LOUD:
                pop_loud[(d["setting"], rule)] += 1
    per_rule = Counter(it["rule"] for it in loud)
    for rule in {r for _s, r in pop_loud}:
        assert per_rule[rule] >= min(10, sum(n for (_s, r), n in pop_loud.items() if r == rule)), rule
    default = sum(n for (s, _r), n in pop_loud.items() if s == "default")
    assert sum(it["setting"] == "default" for it in loud) >= min(30, default)


def test_set_scores_a_part_laid_out_like_the_held_apart_one(tiny, A, capsys) -> None:
    docs, _items, _pop = tiny
    assert A.main(["--set", str(docs.parent)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("fix500      CS002"))
    assert row.split("|")[2].split() == ["3", "1", "1/", "0/", "0", "1.00", "1", "0"]
    assert "not judged yet (not loud when the sample was drawn): 1" in out


def test_draw_loud_takes_every_loud_diagnostic_when_there_are_few(tiny, A) -> None:
    docs, _items, _pop = tiny
    sample = A.draw_loud(1, docs)
    loud = {(it["path"], it["setting"], it["rule"], it["offset"]) for it in sample
            if it["severity"] in A.LOUD}
    every = {(p, s, r, o) for s in A.CONFIGS for p in A.documents(docs)
             for (r, o), sev in A.diagnostics(str(docs), p, s).items() if sev in A.LOUD}
    assert loud == every and ("mid.md", "fix500", "CS002", 500) in every
    assert [(it["path"], it["offset"]) for it in sample if it["rule"] == "clean"] == [("clean.md", 500)]
    assert all(it["verdict"] is None and it["sha"] for it in sample)
