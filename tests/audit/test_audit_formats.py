"""`chunkseam audit`: wrong offsets reported as such, dump-order numbering, JSON array and
LangChain / LlamaIndex exports as input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import run

REPEATED = "Restart the service after every change to the configuration file."
PARAS = ["Intro paragraph explains the setup in some detail for the new users of the service.", REPEATED,
         "Middle paragraph describes an unrelated topic at some length for the careful reader.", REPEATED,
         "Closing paragraph wraps everything up for the reader who made it all the way here."]
TEXT = "\n\n".join(PARAS) + "\n"



@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    (tmp_path / "doc.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "chunkseam.toml").write_text("min-tokens = 0\n", encoding="utf-8")
    return tmp_path


def true_starts() -> list[int]:
    out, at = [], 0
    for p in PARAS:
        at = TEXT.index(p, at)
        out.append(at)
        at += len(p)
    return out


def jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def audit_json(capsys, *args: str) -> tuple[int, dict]:
    rc, out, err = run(capsys, "audit", *args, "--format", "json")
    return rc, json.loads(out)


def test_a_wrong_start_is_reported_as_cs301(work: Path, capsys) -> None:
    starts = true_starts()
    rows = [{"text": p, "source": "doc.txt", "start": s} for p, s in zip(PARAS, starts)]
    rows[2]["start"] -= 10  # the text is at starts[2]
    rc, doc = audit_json(capsys, jsonl(work / "d.jsonl", rows))
    assert rc == 1
    (issue,) = doc["issues"]
    assert issue["code"] == "CS301" and issue["dump_line"] == 3 and issue["chunk"] == 2
    assert f"start is {starts[2] - 10} but its text" in issue["message"]
    assert f"is at {starts[2]} in the source" in issue["message"]
    assert issue["start_offset"] == starts[2]
    # correct offsets: nothing to report
    rows[2]["start"] = starts[2]
    rc, doc = audit_json(capsys, jsonl(work / "ok.jsonl", rows))
    assert rc == 0 and doc["issues"] == []


def test_the_str_find_start_index_bug_is_reported_as_wrong_offsets(work: Path, capsys) -> None:
    # LangChain's add_start_index before tracking: text.find(chunk) gives the first copy
    rows = [{"page_content": p, "metadata": {"source": "doc.txt", "start_index": TEXT.find(p)}} for p in PARAS]
    rc, doc = audit_json(capsys, jsonl(work / "d.jsonl", rows))
    assert rc == 1
    codes = [i["code"] for i in doc["issues"]]
    assert codes == ["CS301"], doc["issues"]  # not CS304 uncovered text
    (issue,) = doc["issues"]
    assert issue["dump_line"] == 4 and issue["chunk"] == 3
    assert issue["message"].startswith("chunk 4 has the same offsets as chunk 2")


def test_chunks_are_numbered_by_dump_line(work: Path, capsys) -> None:
    starts = true_starts()
    rows = [{"text": p, "source": "doc.txt", "start": s} for p, s in zip(PARAS, starts)]
    rows[0]["text"] = PARAS[0][:30]  # chunk 1 ends mid-word
    rows = [rows[2], rows[1], rows[0], rows[3], rows[4]]  # dump order differs from document order
    rc, out, _ = run(capsys, "audit", jsonl(work / "d.jsonl", rows))
    assert rc == 1
    cs001 = next(line for line in out.splitlines() if " CS001 " in line)
    assert "chunk 3 ends mid-word" in cs001 and cs001.endswith("(dump line 3)")


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_file(work: Path, capsys, indent) -> None:
    starts = true_starts()
    rows = [{"text": p, "source": "doc.txt", "start": s} for p, s in zip(PARAS, starts)]
    rows[4]["start"] += 1
    (work / "d.json").write_text(json.dumps(rows, indent=indent), encoding="utf-8")
    rc, doc = audit_json(capsys, "d.json")
    assert rc == 1 and doc["errors"] == []
    assert doc["summary"]["chunks"] == 5
    (issue,) = doc["issues"]
    assert issue["code"] == "CS301" and issue["dump_item"] == 5
    assert issue["dump_line"] == (1 if indent is None else 1 + 4 * 5 + 1)
    rc, out, _ = run(capsys, "audit", "d.json")
    assert "(dump item 5, line" in out


def test_a_broken_json_array_is_reported(work: Path, capsys) -> None:
    (work / "d.json").write_text('[{"text": "a"},\n {"text": ', encoding="utf-8")
    rc, _, err = run(capsys, "audit", "d.json")
    assert rc == 2 and "d.json:2: error: malformed JSON array element" in err


def test_langchain_documents_from_to_json(work: Path, capsys) -> None:
    from langchain_core.documents import Document

    docs = [Document(page_content=p, metadata={"source": "doc.txt", "start_index": s})
            for p, s in zip(PARAS, true_starts())]
    docs[1].metadata["start_index"] += 3
    (work / "lc.json").write_text(json.dumps([d.to_json() for d in docs]), encoding="utf-8")
    rc, doc = audit_json(capsys, "lc.json")
    assert doc["files"][0]["mode"] == "source-aware", doc
    assert [i["code"] for i in doc["issues"]] == ["CS301"] and rc == 1
    # model_dump() (pydantic), one per line
    jsonl(work / "lc.jsonl", [d.model_dump() for d in docs])
    rc, doc = audit_json(capsys, "lc.jsonl")
    assert doc["files"][0]["mode"] == "source-aware" and [i["code"] for i in doc["issues"]] == ["CS301"]


def test_llamaindex_text_nodes(work: Path, capsys) -> None:
    # TextNode.to_json() / model_dump(mode="json"): the document id is under relationships["1"]
    nodes = []
    for i, (p, s) in enumerate(zip(PARAS, true_starts())):
        nodes.append({
            "id_": f"node-{i}", "embedding": None,
            "metadata": {"file_path": "doc.txt", "file_name": "doc.txt"},
            "excluded_embed_metadata_keys": [], "excluded_llm_metadata_keys": [],
            "relationships": {"1": {"node_id": "doc-1", "node_type": "4", "metadata": {},
                                    "hash": "h", "class_name": "RelatedNodeInfo"}},
            "metadata_template": "{key}: {value}", "metadata_separator": "\n",
            "text": p, "mimetype": "text/plain", "start_char_idx": s, "end_char_idx": s + len(p),
            "metadata_seperator": "\n", "text_template": "{metadata_str}\n\n{content}",
            "class_name": "TextNode",
        })
    nodes[3]["start_char_idx"] = nodes[1]["start_char_idx"]  # the str.find bug
    (work / "nodes.json").write_text(json.dumps(nodes, indent=2), encoding="utf-8")
    rc, doc = audit_json(capsys, "nodes.json")
    assert doc["files"][0]["doc_id"] == "doc-1" and doc["files"][0]["mode"] == "source-aware"
    assert [i["code"] for i in doc["issues"]] == ["CS301"] and rc == 1
