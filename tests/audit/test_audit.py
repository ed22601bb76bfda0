"""`chunkseam audit DUMP.jsonl`: locating chunks, modes per document, bad lines, jobs, streaming."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

import chunkseam
from chunkseam.audit import dump as audit
from clikit import run

from chunkseam.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "database.md"

PROSE = ("# Retries\n\nThe retry loop waits one second, then two, then four, and keeps doubling the wait until "
         "it reaches a minute. After that it gives up and reports the error to the caller with the request id "
         "so that support can find it. Jitter is added to each wait so that clients recovering from the same "
         "outage do not retry in lockstep.\n\nSet the timeout to 30 seconds and enable keepalive.\n")




@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "retries.md").write_text(PROSE, encoding="utf-8")
    return tmp_path


def dump(path: Path, rows: list) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


def fixed_rows(text: str, size: int, style: str, source: str | None, doc_id: str | None) -> list[dict]:
    rows = []
    for i, start in enumerate(range(0, len(text), size)):
        chunk = text[start:start + size]
        if style == "langchain":
            meta = {"start_index": start}
            if source:
                meta["source"] = source
            row = {"page_content": chunk, "metadata": meta}
            row["text"] = chunk
        elif style == "llamaindex":
            row = {"text": chunk, "start_char_idx": start, "end_char_idx": start + size,
                   "metadata": {"file_path": source} if source else {}}
        else:
            row = {"text": chunk}
            if source:
                row["source"] = source
        if doc_id:
            row["doc_id"] = doc_id
        row["chunk_index"] = i
        rows.append(row)
    return rows


def test_source_aware_with_langchain_offsets(work: Path, capsys) -> None:
    dump(work / "d.jsonl", fixed_rows(PROSE, 120, "langchain", "docs/retries.md", "retries"))
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    data = json.loads(out)
    assert data["files"][0]["mode"] == "source-aware", data["files"][0]
    assert data["modes"] == {"source-aware": 1, "text-only": 0}
    assert data["summary"]["chunks"] == len(range(0, len(PROSE), 120))
    # a 120-character window cuts words and sentences: the validator must see it (needs the validator)
    assert rc == 1 and data["issues"]
    codes = {i["code"] for i in data["issues"]}
    assert {"CS001", "CS002"} & codes
    for i in data["issues"]:
        assert i["doc_id"] == "retries" and i["mode"] == "source-aware"
        assert isinstance(i["chunk_index"], int) and isinstance(i["dump_line"], int)
        assert i["path"].endswith("retries.md")


def test_llamaindex_offsets_and_text_report(work: Path, capsys) -> None:
    dump(work / "d.jsonl", fixed_rows(PROSE, 150, "llamaindex", "retries.md", None))
    rc, out, err = run(capsys, "audit", "d.jsonl", "--source-root", "docs")
    assert "retries.md: source-aware (all " in out
    assert "1 document checked source-aware, 0 text-only" in out
    assert "in 1 document;" in out.strip().splitlines()[-1]


def test_located_by_search_when_offsets_are_missing_or_wrong(work: Path, capsys) -> None:
    rows = fixed_rows(PROSE, 100, "plain", "docs/retries.md", "r")
    rows[2]["start"] = 3  # a wrong offset (str.find-style bug): the text is still found, once
    dump(work / "d.jsonl", rows)
    rc, out, _ = run(capsys, "audit", "d.jsonl", "--format", "json")
    f = json.loads(out)["files"][0]
    assert f["mode"] == "source-aware" and "located" in f["mode_reason"]


def test_repeated_text_resolved_by_the_previous_chunk() -> None:
    text = "alpha beta. " * 10
    chunks = [audit.DumpChunk(line=i + 1, text=text[s:s + 24]) for i, s in enumerate(range(0, len(text), 24))]
    spans, why = audit.locate(text, chunks)
    assert spans == [(s, min(s + 24, len(text))) for s in range(0, len(text), 24)], why


def test_text_only_when_source_missing_or_chunk_not_found(work: Path, capsys) -> None:
    rows = fixed_rows(PROSE, 100, "plain", None, "no-source")
    altered = fixed_rows(PROSE, 100, "plain", "docs/retries.md", "altered")
    altered[1]["text"] = "Title: Retries\n" + altered[1]["text"]  # a pipeline that prefixes context
    unreadable = fixed_rows(PROSE, 100, "plain", "docs/missing.md", "gone")
    dump(work / "d.jsonl", rows + altered + unreadable)
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    data = json.loads(out)
    modes = {f["doc_id"]: (f["mode"], f["mode_reason"]) for f in data["files"]}
    assert modes["no-source"] == ("text-only", "no source given")
    assert modes["altered"][0] == "text-only" and "not found in the source" in modes["altered"][1]
    assert modes["gone"][0] == "text-only" and "not readable" in modes["gone"][1]
    assert data["modes"] == {"source-aware": 0, "text-only": 3}
    for i in data["issues"]:
        assert i["mode"] == "text-only" and i["path"] == "d.jsonl"
        assert i["line"] == i["dump_line"]  # the place to look is the dump line


def test_text_only_checks_find_broken_chunks(work: Path, capsys) -> None:
    # needs the validator's text-only checks
    rows = [{"doc_id": "a", "text": "The retry loop waits one second, then two, then"},
            {"doc_id": "a", "text": "four, and keeps doubling the wait until it reaches a minute."},
            {"doc_id": "a", "text": "Set the timeout to 30 seconds."}]
    dump(work / "d.jsonl", rows)
    rc, out, _ = run(capsys, "audit", "d.jsonl", "--format", "json")
    data = json.loads(out)
    assert rc == 1 and data["issues"]
    assert {i["dump_line"] for i in data["issues"]} <= {1, 2}


def test_malformed_lines_reported_with_line_numbers(work: Path, capsys) -> None:
    rows = fixed_rows(PROSE, 100, "plain", "docs/retries.md", "r")
    lines = [json.dumps(r) for r in rows]
    lines.insert(1, '{"text": "unterminated')
    lines.insert(3, '["not", "an", "object"]')
    lines.insert(4, '{"doc_id": "r"}')
    lines.insert(5, "")
    p = work / "d.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with p.open("ab") as f:
        f.write(b'{"text": "caf\xe9"}\n')
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    assert rc == 2
    assert "d.jsonl:2: error: malformed JSON line" in err
    assert "d.jsonl:4: error: expected a JSON object" in err
    assert "d.jsonl:5: error: missing \"text\"" in err
    assert f"d.jsonl:{len(lines) + 1}: error: not UTF-8" in err
    data = json.loads(out)
    assert sorted(e["line"] for e in data["errors"]) == [2, 4, 5, len(lines) + 1]
    # the good lines were still audited; the malformed one split the document in two groups
    assert data["summary"]["chunks"] == len(rows)


def test_missing_dump_and_bad_source_root(work: Path, capsys) -> None:
    rc, _, err = run(capsys, "audit", "nope.jsonl")
    assert rc == 2 and "nope.jsonl: error: No such file" in err
    dump(work / "d.jsonl", [{"text": "x"}])
    rc, _, err = run(capsys, "audit", "d.jsonl", "--source-root", "nowhere")
    assert rc == 2 and "not a directory" in err


def test_jobs_same_result(work: Path, capsys) -> None:
    rows = []
    for d in range(12):
        (work / "docs" / f"d{d}.md").write_text(PROSE.replace("Retries", f"Retries {d}"), encoding="utf-8")
        rows += fixed_rows(PROSE.replace("Retries", f"Retries {d}"), 90, "plain", f"docs/d{d}.md", f"d{d}")
    dump(work / "d.jsonl", rows)
    _, one, _ = run(capsys, "audit", "d.jsonl", "--format", "json")
    _, many, _ = run(capsys, "audit", "d.jsonl", "--format", "json", "--jobs", "3")
    assert json.loads(one) == json.loads(many)
    assert json.loads(one)["modes"]["source-aware"] == 12


def test_bounded_map_keeps_order_and_window() -> None:
    consumed = []

    def items():
        for i in range(40):
            consumed.append(i)
            yield i

    it = audit.bounded_map(abs, items(), 2, window=4)
    first = next(it)
    assert first == 0 and len(consumed) <= 5  # not the whole input read ahead
    assert [first, *it] == list(range(40))


def test_streaming_memory_does_not_grow_with_the_dump(work: Path, capsys) -> None:
    def make(n_docs: int) -> Path:
        p = work / f"dump{n_docs}.jsonl"
        with p.open("w", encoding="utf-8") as f:
            for d in range(n_docs):
                for k in range(4):
                    f.write(json.dumps({"doc_id": f"doc{d}", "chunk_index": k,
                                        "text": f"Paragraph {k} of document {d} ends properly."}) + "\n")
        return p

    def peak(p: Path) -> int:
        tracemalloc.start()
        main(["audit", str(p), "--format", "text"])
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        capsys.readouterr()
        return top

    small, large = make(300), make(1200)
    # warm the engine's content caches (bounded LRU caches of parsed blocks and sentences, keyed
    # by text) with every text of both dumps, so what is measured is the audit's own streaming
    peak(large)
    a, b = peak(small), peak(large)
    assert b < a * 2, (a, b)  # 4x the chunks, far less than 2x the memory
