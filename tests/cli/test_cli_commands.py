"""`chunkseam chunks`, `preview` (terminal), `compare`, `rule`, `server`, `--version`."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

from chunkseam import chunkers
from clikit import run

from chunkseam.cli.app import main
from chunkseam.document.text import Document

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "database.md"




@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("CHUNKSEAM_NO_PROGRESS", "1")


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert re.match(r"^chunkseam \d+\.\d+\.\d+", capsys.readouterr().out)


def test_no_command_prints_help_and_exits_2(capsys) -> None:
    assert main([]) == 2
    assert "lint" in capsys.readouterr().err


def test_chunks_json_matches_the_source(capsys) -> None:
    rc, out, _ = run(capsys, "chunks", str(FIXTURE), "--chunker", "recursive", "--size", "60", "--overlap", "10",
                     "--format", "json")
    assert rc == 0
    rows = json.loads(out)
    text = FIXTURE.read_text(encoding="utf-8")
    doc = Document(text)
    assert len(rows) > 2
    for i, r in enumerate(rows):
        assert r["index"] == i
        assert text[r["start"]:r["end"]] == r["text"]
        assert {"heading_path", "tokens", "start_line", "end_line"} <= set(r)
        assert (r["start_line"], r["start_column"]) == doc.line_col(r["start"])
        assert r["tokens"] <= 60


def test_chunks_text(capsys) -> None:
    rc, out, _ = run(capsys, "chunks", str(FIXTURE), "--chunker", "fixed", "--unit", "chars", "--size", "300")
    lines = out.strip().splitlines()
    n = -(-len(FIXTURE.read_text(encoding="utf-8")) // 300)
    assert rc == 0 and len(lines) == n + 1
    assert re.match(r'^#1\s+L1-\d+\s+\d+ ch\s+.*"# Setting Up the Database', lines[0])
    assert lines[-1].endswith(f"{n} chunks (fixed, size 300 chars, overlap 0)")


def test_chunks_unreadable_file(tmp_path: Path, capsys) -> None:
    rc, _, err = run(capsys, "chunks", str(tmp_path / "nope.md"))
    assert rc == 2 and "nope.md: error: No such file or directory" in err


def test_preview_terminal_panels(capsys) -> None:
    rc, out, _ = run(capsys, "preview", str(FIXTURE), "--chunker", "recursive", "--unit", "chars", "--size", "300",
                     "--overlap", "60", "--width", "100")
    assert rc == 0
    panels = re.findall(r"^╭─ chunk (\d+) ", out, flags=re.M)
    text = FIXTURE.read_text(encoding="utf-8")
    from chunkseam.core import chunk as chunk_api  # noqa: F401
    import chunkseam

    expected = chunkseam.chunk(Document(text, path=str(FIXTURE)), "recursive", size=300, overlap=60, unit="chars")
    assert [int(p) for p in panels] == list(range(1, len(expected) + 1))  # people count from one
    assert re.search(r"lines \d+–\d+ · \d+ chars", out)
    assert "«overlap»" in out  # overlap shown distinctly without colour
    assert "\x1b[" not in out
    assert out.strip().splitlines()[-1].startswith(f"{FIXTURE}: {len(expected)} chunks (recursive)")


def test_preview_summary_keeps_a_long_path_on_one_line(capsys, tmp_path) -> None:
    """The summary names the file in full on one line at any width and any
    checkout depth; brackets in a path or heading are text, not markup."""
    deep = tmp_path.joinpath(*["nested-directory-" + "d" * 20] * 8)
    deep.mkdir(parents=True)
    target = deep / "[draft] database.md"
    target.write_text(FIXTURE.read_text(encoding="utf-8") + "\n## Notes [todo]\n\nMore text.\n",
                      encoding="utf-8")
    assert len(str(target)) > 200
    rc, out, _ = run(capsys, "preview", str(target), "--chunker", "markdown", "--unit", "chars",
                     "--size", "300", "--width", "60")
    assert rc == 0
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"{target}: ") and re.search(r"chunks broken \(\d+\.\d%\)$", last), last
    assert "Notes [todo]" in out


def test_compare_text_and_json(capsys) -> None:
    names = [n for n in ("fixed", "recursive") if n in chunkers.names()]
    rc, out, _ = run(capsys, "compare", str(FIXTURE), "--chunkers", ",".join(names), "--size", "80",
                     "--format", "json")
    assert rc == 0
    data = json.loads(out)
    got = {s["strategy"]: s for s in data["strategies"]}
    assert set(got) == set(names)
    for s in got.values():
        assert s["chunks"] > 1 and s["max_size"] >= s["mean_size"] > 0
        assert set(s) >= {"rate", "family_rates", "per_rule", "chunks_with_issues"}
    assert data["files"][0]["path"] == str(FIXTURE)
    rc, out, _ = run(capsys, "compare", str(FIXTURE), "--chunkers", ",".join(names), "--size", "80")
    assert rc == 0
    for n in names:
        assert re.search(rf"^.\s*{n}\s", out, flags=re.M), out


def test_compare_unknown_strategy(capsys) -> None:
    rc, _, err = run(capsys, "compare", str(FIXTURE), "--chunkers", "fixed,telepathic")
    assert rc == 2 and "telepathic" in err


def test_compare_default_strategies_skip_missing(capsys) -> None:
    rc, out, err = run(capsys, "compare", str(FIXTURE), "--format", "json", "--size", "100")
    data = json.loads(out)
    available = [n for n in ("fixed", "recursive", "sentence", "markdown") if n in chunkers.names()]
    assert [s["strategy"] for s in data["strategies"]] == available
    if len(available) < 4:
        assert "not available" in err


def test_compare_html_columns(tmp_path: Path, capsys) -> None:
    names = [n for n in ("fixed", "recursive") if n in chunkers.names()]
    out_file = tmp_path / "cmp.html"
    rc, _, _ = run(capsys, "compare", str(FIXTURE), "--chunkers", ",".join(names), "--size", "80",
                   "--format", "html", "-o", str(out_file))
    page = out_file.read_text(encoding="utf-8")
    assert rc == 0
    assert re.findall(r'<section class="cs-col" data-strategy="([a-z]+)"', page) == names
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page


def fake_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator's rule registry may not exist yet: give `rule` a stand-in with the
    agreed shape (RULES: code -> Rule(code, name, severity, summary, doc))."""
    try:
        from chunkseam.checks.registry import RULES  # noqa: F401

        return
    except ImportError:
        pass
    from collections import namedtuple

    Rule = namedtuple("Rule", "code name severity summary doc")
    reg = types.ModuleType("chunkseam.checks.registry")
    reg.RULES = {"CS002": Rule("CS002", "mid-sentence", "warning", "a cut inside a sentence",
                               "A cut inside a sentence.\n\nBad: …set the timeout to | 30 seconds")}
    pkg = types.ModuleType("chunkseam.checks")
    pkg.__path__ = []
    pkg.registry = reg
    monkeypatch.setitem(sys.modules, "chunkseam.checks", pkg)
    monkeypatch.setitem(sys.modules, "chunkseam.checks.registry", reg)


def test_rule_list_and_show(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_registry(monkeypatch)
    rc, out, _ = run(capsys, "rule")
    assert rc == 0 and re.search(r"^CS002\s+mid-sentence\s+warning", out, flags=re.M)
    rc, out, _ = run(capsys, "rule", "CS002")
    assert rc == 0 and out.startswith("CS002 [mid-sentence] (default: warning)")
    rc, by_name, _ = run(capsys, "rule", "mid-sentence")
    assert by_name == out
    rc, js, _ = run(capsys, "rule", "CS002", "--format", "json")
    assert json.loads(js)["name"] == "mid-sentence"
    rc, _, err = run(capsys, "rule", "CS999")
    assert rc == 2 and "unknown rule" in err


def test_server_passes_remaining_args(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}
    mod = types.ModuleType("chunkseam.lsp.server")

    def fake_main(argv):
        seen["argv"] = argv
        return 0

    mod.main = fake_main
    monkeypatch.setitem(sys.modules, "chunkseam.lsp.server", mod)
    import chunkseam.lsp as lsp_pkg

    monkeypatch.setattr(lsp_pkg, "server", mod, raising=False)
    assert main(["server", "--tcp", "127.0.0.1:9999", "--log-level", "debug"]) == 0
    assert seen["argv"] == ["--tcp", "127.0.0.1:9999", "--log-level", "debug"]
