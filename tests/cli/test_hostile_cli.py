"""Hostile input to the CLI: every failure is one clear message and exit 2
(never a traceback, never exit 1, which CI reads as "issues found"); audit
keeps going past a bad line and reads no source outside its root; globs that
would make a backtracking matcher hang are refused or matched in linear time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clikit import run

DEEP = "[" * 100_000 + "]" * 100_000
PROSE = ("Retries use exponential backoff. Each attempt doubles the wait, up to a cap of thirty "
         "seconds. After five attempts the request fails with a clear error.\n")


@pytest.fixture
def work(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")
    (tmp_path / ".git").mkdir()  # the config search stops here
    (tmp_path / "a.md").write_text("# Title\n\n" + PROSE, encoding="utf-8")
    return tmp_path


def assert_clean_error(rc: int, err: str, *needles: str) -> None:
    assert rc == 2, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err


@pytest.mark.parametrize("option", ["-o", "--write-baseline"])
def test_an_output_in_a_missing_directory(work, capsys, option):
    rc, out, err = run(capsys, "lint", "a.md", option, "/nonexistent/dir/x")
    assert_clean_error(rc, err, "/nonexistent/dir/x", "error")


def test_a_deeply_nested_baseline(work, capsys):
    (work / "deep.json").write_text(DEEP, encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md", "--baseline", "deep.json")
    assert_clean_error(rc, err, "deep.json", "nested too deeply")


def test_a_deeply_nested_config_file(work, capsys):
    (work / "chunkseam.toml").write_text("a = " + DEEP + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "lint", "a.md")
    assert_clean_error(rc, err, "chunkseam.toml", "nested too deeply")


def test_utf16_is_named_not_called_binary(work, capsys):
    (work / "le.md").write_bytes("# Title\n\nText.\n".encode("utf-16"))  # with a BOM
    (work / "be.md").write_bytes("# Title\n\nText.\n".encode("utf-16-be"))  # without
    rc, out, err = run(capsys, "lint", "le.md", "be.md")
    assert_clean_error(rc, err, "le.md: error: UTF-16 LE text, not UTF-8",
                       "be.md: error: UTF-16 BE text, not UTF-8")
    assert "binary" not in err


def test_audit_goes_on_past_a_deep_line_and_accepts_a_bom(work, capsys):
    rows = [json.dumps({"text": "First chunk of text.", "doc_id": "one"}), DEEP,
            json.dumps({"text": "Second document chunk.", "doc_id": "two"})]
    (work / "d.jsonl").write_bytes(b"\xef\xbb\xbf" + "\n".join(rows).encode() + b"\n")
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    assert_clean_error(rc, err, "d.jsonl:2: error: malformed JSON line: nested too deeply")
    assert "d.jsonl:1" not in err  # the BOM line is fine
    data = json.loads(out)
    assert {f["doc_id"] for f in data["files"]} == {"one", "two"}


def test_audit_reads_no_source_outside_its_root(work, capsys, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    secret = "The secret text that is not in the dump at all."
    outside.write_text(secret + "\n", encoding="utf-8")
    (work / "docs").mkdir()
    (work / "docs" / "link.md").symlink_to(outside)
    (work / "docs" / "ok.md").write_text(PROSE, encoding="utf-8")
    rows = []
    for n, source in enumerate([str(outside), "../" * 12 + str(outside).lstrip("/"), "docs/link.md",
                                "/etc/passwd", "docs/ok.md"]):
        rows.append({"text": PROSE[:40], "doc_id": f"d{n}", "source": source, "start": 0})
    (work / "d.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json")
    data = json.loads(out)
    modes = {f["doc_id"]: (f["mode"], f["mode_reason"]) for f in data["files"]}
    for n in range(4):
        assert modes[f"d{n}"][0] == "text-only", modes
        assert "outside the current directory" in modes[f"d{n}"][1]
    assert modes["d4"][0] == "source-aware"
    assert secret not in out and "root:" not in out
    # --source-root confines as well; --allow-outside-root lifts it
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json", "--source-root", "docs")
    assert all(f["mode"] == "text-only" for f in json.loads(out)["files"])
    rc, out, err = run(capsys, "audit", "d.jsonl", "--format", "json", "--allow-outside-root")
    reasons = {f["doc_id"]: f["mode_reason"] for f in json.loads(out)["files"]}
    assert "outside" not in reasons["d0"] and "not found" in reasons["d0"], reasons  # read this time


HOSTILE_GLOB = "*a" * 14 + "*b"


def test_a_backtracking_exclude_glob_is_a_config_error(work, capsys):
    (work / ("a" * 200 + ".md")).write_text("# x\n", encoding="utf-8")
    (work / "chunkseam.toml").write_text(f'exclude = ["{HOSTILE_GLOB}"]\n', encoding="utf-8")
    rc, out, err = run(capsys, "lint", ".")
    assert_clean_error(rc, err, "chunkseam.toml", "exclude", "wildcards")


def test_globs_within_the_bound_match_in_linear_time(work, capsys):
    # 4 wildcards against a 250-character name: hours with a backtracking matcher
    name = "a" * 250 + ".md"
    (work / name).write_text("# x\n", encoding="utf-8")
    (work / "chunkseam.toml").write_text('exclude = ["*a*a*a*a*b"]\n', encoding="utf-8")
    (work / ".gitignore").write_text(HOSTILE_GLOB + "\n*a*a*a*a*a*b\n", encoding="utf-8")
    rc, out, err = run(capsys, "lint", ".", "--format", "json")
    assert rc == 0, err
    assert any(f["path"].endswith(name) for f in json.loads(out)["files"])
