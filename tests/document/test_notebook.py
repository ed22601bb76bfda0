"""Jupyter notebooks: the view a RAG loader sees, its map back to the cells, CLI and properties."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from chunkseam.engine.analysis import analyze
from chunkseam.document.notebook import NotebookError, read_document
from chunkseam.core.settings import Settings
from conftest import corpus_files


def nb(*cells, nbformat=4, **meta) -> str:
    """A notebook's JSON from (cell_type, source[, outputs]) tuples."""
    out = []
    for c in cells:
        cell = {"cell_type": c[0], "metadata": {}, "source": c[1]}
        if c[0] == "code":
            cell.update(outputs=c[2] if len(c) > 2 else [], execution_count=None)
        out.append(cell)
    return json.dumps({"cells": out, "metadata": meta, "nbformat": nbformat, "nbformat_minor": 5})


def test_view_is_markdown_with_fenced_code_cells():
    text = nb(("markdown", ["# Title\n", "\n", "Some prose."]), ("code", "import os\nprint(os.sep)"),
              ("raw", "raw text"), kernelspec={"language": "python"})
    doc = read_document(text, "nb.ipynb")
    assert doc.kind == "markdown"
    assert doc.text == ("# Title\n\nSome prose.\n\n```python\nimport os\nprint(os.sep)\n```\n\nraw text")
    m = doc.notebook
    assert [doc.text[slice(*m.span(i))] for i in range(3)] == [
        "# Title\n\nSome prose.", "import os\nprint(os.sep)", "raw text"]


def test_a_cell_with_a_fence_gets_a_longer_fence():
    doc = read_document(nb(("code", 's = """\n```\n"""')), "nb.ipynb")
    assert doc.text.startswith("````python\n") and doc.text.endswith("\n````")


def test_an_empty_code_cell_adds_no_fence():
    doc = read_document(nb(("markdown", "Text."), ("code", ""), ("code", "  \n")), "nb.ipynb")
    assert doc.text == "Text.\n\n\n\n  \n"
    assert doc.location(len(doc.text)) == (3, 2, 1)


def test_outputs_only_when_configured():
    outputs = [{"output_type": "stream", "name": "stdout", "text": ["hello\n"]},
               {"output_type": "display_data", "data": {"text/html": "<b>x</b>", "image/png": "AAAA"},
                "metadata": {}},
               {"output_type": "error", "ename": "E", "evalue": "v",
                "traceback": ["\x1b[0;31mTraceback\x1b[0m", "E: v"]}]
    text = nb(("code", "print('hello')", outputs))
    assert "hello\n```" not in read_document(text, "nb.ipynb").text
    view = read_document(text, "nb.ipynb", outputs=True).text
    assert view.endswith("```\n\n```\nhello\nTraceback\nE: v\n```")
    assert "<b>" not in view and "AAAA" not in view


def test_nbformat_3():
    text = json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 2, "source": "Intro"},
        {"cell_type": "code", "input": ["x = 1"], "language": "python", "outputs": []}]}]})
    doc = read_document(text, "old.ipynb")
    assert doc.text == "## Intro\n\n```python\nx = 1\n```"
    assert doc.location(doc.text.index("x")) == (2, 1, 1)
    assert doc.location(doc.text.index("Intro")) == (1, 1, 1)


@pytest.mark.parametrize("text, says", [
    ("{", "invalid JSON at line 1 column 2"),
    ("[]", "not an object"),
    ("{}", "no \"cells\" list"),
    ('{"cells": 3}', "\"cells\" is not a list"),
])
def test_malformed_notebook_is_one_clear_error(text, says):
    with pytest.raises(NotebookError, match="not a Jupyter notebook") as info:
        read_document(text, "bad.ipynb")
    assert says in str(info.value)


def test_location_is_cell_line_column():
    text = nb(("markdown", "# A\n\nfirst"), ("code", "a = 1\nbb = 2\n"), ("markdown", "x\r\ny"))
    doc = read_document(text, "nb.ipynb")
    assert doc.location(doc.text.index("bb")) == (2, 2, 1)
    assert doc.location(doc.text.index("= 2")) == (2, 2, 4)
    assert doc.location(doc.text.rindex("y")) == (3, 2, 1)
    # synthetic text maps to the nearest cell boundary: the end of the fence
    # line before cell 2 to cell 2's start, the blank line after cell 1 to its end
    assert doc.location(doc.text.index("```python") + len("```python")) == (2, 1, 1)
    # a code cell's own fence lines map to that cell, whatever is nearer
    assert doc.location(doc.text.index("```python")) == (2, 1, 1)
    assert doc.location(doc.text.index("```\n\nx")) == (2, 3, 1)
    assert doc.location(doc.text.index("```\n\nx") + 4) == (2, 3, 1)  # the blank line: nearer the end
    assert doc.location(doc.text.index("first") + len("first") + 1) == (1, 3, 6)


def test_corpus_notebooks_analyse_and_map_back():
    files = corpus_files("notebooks", "*.ipynb")
    assert len(files) == 17
    for f in files:
        raw = f.read_text(encoding="utf-8")
        doc = read_document(raw, str(f))
        cells = json.loads(raw)["cells"]
        m = doc.notebook
        assert len(m) == len(cells)
        for i, c in enumerate(cells):
            assert doc.text[slice(*m.span(i))] == "".join(c["source"])
        a = analyze(doc, Settings(size=256))
        for issue in a.issues:
            cell, line, col = doc.location(issue.start)
            assert 1 <= cell <= len(cells) and line >= 1 and col >= 1


# -- suppressions and the code checks in cells ------------------------------------------------

FIXED = Settings(chunker="fixed", unit="chars", size=120)
LOADER = ("import os\n\ndef load(path):\n    \"\"\"Load the documents under path.\"\"\"\n    out = []\n"
          "    for name in os.listdir(path):\n        out.append(open(os.path.join(path, name)).read())\n"
          "    return out\n")


def test_a_cut_in_a_code_cell_names_the_cell_and_the_function():
    doc = read_document(nb(("markdown", "# Loading\n\nIntro."), ("code", LOADER)), "nb.ipynb")
    issues = [i for i in analyze(doc, FIXED).issues if i.code == "CS003"]
    assert issues
    first = issues[0]
    assert "inside function load of code cell 2" in first.message
    assert doc.location(first.unit[0]) == (2, 1, 1)  # the unit is the cell's source
    assert doc.text[first.unit[0]:first.unit[1]] == LOADER


def test_suppressions_in_markdown_and_code_cells():
    plain = analyze(read_document(nb(("markdown", "# Loading\n\nIntro."), ("code", LOADER)), "nb.ipynb"), FIXED)
    assert any(i.code == "CS003" for i in plain.issues)
    file_wide = "# chunkseam: ignore-file[CS003]\n" + LOADER
    a = analyze(read_document(nb(("markdown", "# Loading\n\nIntro."), ("code", file_wide)), "nb.ipynb"), FIXED)
    assert not any(i.code in ("CS003", "CS900") for i in a.issues)
    region = "# Loading\n\n<!-- chunkseam-disable CS003 -->\n\nIntro."
    a = analyze(read_document(nb(("markdown", region), ("code", LOADER)), "nb.ipynb"), FIXED)
    assert not any(i.code in ("CS003", "CS900") for i in a.issues)
    # a line suppression covers the cut on its line only
    cut_line = plain.doc.location(next(i for i in plain.issues if i.code == "CS003").cut)[1]
    lines = LOADER.split("\n")
    lines[cut_line - 1] += "  # chunkseam: ignore[CS003]"
    a = analyze(read_document(nb(("markdown", "# Loading\n\nIntro."), ("code", "\n".join(lines))), "nb.ipynb"),
                FIXED)
    assert cut_line not in [a.doc.location(i.cut)[1] for i in a.issues if i.code == "CS003"]
    assert not any(i.code == "CS900" for i in a.issues)  # the comment silenced the cut on its line


# -- the command line ---------------------------------------------------------------------------

from clikit import run


def _write(tmp_path: Path, name: str = "nb.ipynb") -> Path:
    p = tmp_path / name
    # saved as Jupyter does: one JSON string a source line
    p.write_text(json.dumps(json.loads(nb(("markdown", "# Loading\n\nIntro."), ("code", LOADER.splitlines(True)))),
                            indent=1) + "\n", encoding="utf-8")
    return p


def test_lint_reports_cell_line_column(tmp_path, capsys):
    p = _write(tmp_path)
    code, out, err = run(capsys, "lint", "--no-cache", "--chunker", "fixed", "--unit", "chars", "--size", "120", str(p))
    assert code == 1, err
    first = out.splitlines()[0]
    assert first.startswith(f"{p}:cell 2:6:") and "CS003" in first, out
    code, out, _ = run(capsys, "lint", "--no-cache", "--chunker", "fixed", "--unit", "chars", "--size", "120",
                       "--format", "json", str(p))
    data = json.loads(out)
    rec = data["issues"][0]
    assert rec["cell"] == 2 and rec["line"] == 6 and rec["unit"]["cell"] == 2


def test_sarif_and_github_point_at_the_notebook_line(tmp_path, capsys):
    p = _write(tmp_path)
    raw_lines = p.read_text(encoding="utf-8").split("\n")
    args = ["lint", "--no-cache", "--chunker", "fixed", "--unit", "chars", "--size", "120"]
    _, out, _ = run(capsys, *args, "--format", "sarif", str(p))
    result = json.loads(out)["runs"][0]["results"][0]
    region = result["locations"][0]["physicalLocation"]["region"]
    # cell 2, line 6 of its source is the file line holding that JSON string
    assert "for name in os.listdir(path)" in raw_lines[region["startLine"] - 1]
    assert "charOffset" not in region and result["message"]["text"].startswith("cell 2:6:")
    assert result["properties"]["cell"] == 2
    import jsonschema

    schema = Path(__file__).parents[1] / "schemas" / "sarif-schema-2.1.0.json"
    jsonschema.Draft7Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(json.loads(out))
    _, out, _ = run(capsys, *args, "--format", "github", str(p))
    line = out.splitlines()[0]
    assert f"line={region['startLine']}," in line and "::CS003 cell 2:6:" in line


def test_fix_leaves_a_notebook_untouched_and_says_so(tmp_path, capsys):
    p = _write(tmp_path)
    before = p.read_bytes()
    code, out, err = run(capsys, "lint", "--no-cache", "--chunker", "fixed", "--unit", "chars", "--size", "120",
                         "--fix", str(p))
    assert p.read_bytes() == before
    assert f"{p}: not fixed: --fix does not edit notebooks" in err
    assert "CS003" in out and code == 1


def test_a_malformed_notebook_is_one_error_naming_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.ipynb"
    bad.write_text('{"cells": [', encoding="utf-8")
    code, _, err = run(capsys, "lint", "--no-cache", str(bad))
    assert code == 2
    assert f"{bad}: error: not a Jupyter notebook: invalid JSON" in err and "Traceback" not in err
    code, _, err = run(capsys, "chunks", str(bad))
    assert code == 2 and "not a Jupyter notebook" in err and "Traceback" not in err


def test_lint_discovers_notebooks_and_chunks_shows_cells(tmp_path, capsys):
    _write(tmp_path)
    (tmp_path / "notes.md").write_text("# Notes\n\nShort.\n", encoding="utf-8")
    code, out, err = run(capsys, "lint", "--no-cache", "--chunker", "fixed", "--unit", "chars", "--size", "120",
                         str(tmp_path))
    assert "nb.ipynb:cell 2:" in out and "in 2 files" in out + err
    code, out, err = run(capsys, "chunks", "--size", "40", "--format", "json", str(tmp_path / "nb.ipynb"))
    rows = json.loads(out)
    assert rows[0]["start_cell"] == 1 and rows[-1]["end_cell"] == 2
    code, out, err = run(capsys, "chunks", "--size", "40", str(tmp_path / "nb.ipynb"))
    assert out.startswith("#1  cell 1:1-") and code == 0


def test_notebook_outputs_setting_adds_text_outputs(tmp_path, capsys):
    p = tmp_path / "out.ipynb"
    p.write_text(nb(("code", "print('hi')", [{"output_type": "stream", "name": "stdout",
                                               "text": "a distinctive output line\n"}])), encoding="utf-8")
    _, out, _ = run(capsys, "chunks", "--format", "json", str(p))
    assert "distinctive" not in out
    (tmp_path / "chunkseam.toml").write_text("notebook-outputs = true\n", encoding="utf-8")
    _, out, _ = run(capsys, "chunks", "--format", "json", str(p))
    assert "a distinctive output line" in out


# -- properties ---------------------------------------------------------------------------------

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

_chars = st.sampled_from(list("ab \n\r`#*-|>é日🎉\t0<!") + ["```", "\r\n", "# ", "- ", "<!-- chunkseam-disable -->"])
_source = st.lists(_chars, max_size=30).map("".join)
_cell = st.tuples(st.sampled_from(["markdown", "code", "raw", "heading", "other", None]), _source,
                  st.booleans(), st.booleans())


def _raw_notebook(cells, v3: bool) -> str:
    out = []
    for kind, src, as_list, keep_meta in cells:
        cell: dict = {} if kind is None else {"cell_type": kind}
        value = src.splitlines(True) if as_list else src
        cell["input" if v3 and kind == "code" else "source"] = value
        if keep_meta:
            cell["metadata"] = {}
        if kind == "heading":
            cell["level"] = 2
        out.append(cell)
    if v3:
        return json.dumps({"nbformat": 3, "worksheets": [{"cells": out}]})
    return json.dumps({"nbformat": 4, "cells": out})


PROPS = hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(st.lists(_cell, max_size=6), st.booleans())
def test_the_map_is_exact_and_covering(cells, v3):
    doc = read_document(_raw_notebook(cells, v3), "p.ipynb")
    m = doc.notebook
    assert len(m) == len(cells)
    covered = set()
    for i, (_, src, _, _) in enumerate(cells):
        s, e = m.span(i)
        assert doc.text[s:e] == src  # every cell character, copied verbatim
        for off in range(len(src) + 1):
            v = m.to_view(i, off)
            assert v == s + off and m.to_cell(v) == (i, off)
            covered.add(v)
    for v in range(len(doc.text) + 1):  # every view offset maps to a cell position
        c, off = m.to_cell(v)
        if cells:
            assert 0 <= c < len(cells) and 0 <= off <= m.lengths[c]
    # spans are disjoint and in order
    spans = [m.span(i) for i in range(len(m))]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    again = read_document(_raw_notebook(cells, v3), "p.ipynb")
    assert again.text == doc.text and again.notebook == m  # deterministic


@PROPS
@given(st.lists(_cell, min_size=1, max_size=5), st.integers(8, 60))
def test_chunks_and_issues_map_back_to_cells(cells, size):
    doc = read_document(_raw_notebook(cells, False), "p.ipynb")
    a = analyze(doc, Settings(chunker="fixed", unit="chars", size=size))
    for c in a.chunks:
        assert 0 <= c.start <= c.end <= len(doc.text)
    for i in a.issues:
        assert 0 <= i.start <= i.end <= len(doc.text)
        cell, line, col = doc.location(i.start)
        assert 1 <= cell <= len(cells) and line >= 1 and col >= 1
        src = cells[cell - 1][1]
        assert line <= src.count("\n") + src.count("\r") - src.count("\r\n") + 1


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
                         st.sampled_from(["cells", "source", "cell_type", "worksheets", "input", "metadata",
                                          "outputs", "nbformat", "x"]), kids, max_size=4), max_leaves=20)


@PROPS
@given(_json)
def test_any_json_is_a_view_or_one_clear_error(value):
    try:
        doc = read_document(json.dumps(value), "any.ipynb")
    except NotebookError as exc:
        assert str(exc).startswith("not a Jupyter notebook: ")
    else:
        assert doc.notebook is not None and doc.kind == "markdown"


def test_preview_names_cells(tmp_path, capsys):
    p = _write(tmp_path)
    _, out, err = run(capsys, "preview", "--chunker", "fixed", "--unit", "chars", "--size", "120", str(p))
    assert "cells 1:1–2:" in out and "CS003 [split-code-fence] cell 2:6:" in out, out + err
    html = tmp_path / "p.html"
    run(capsys, "preview", "--html", str(html), str(p))
    assert 'title="chunk 1 · cell' in html.read_text(encoding="utf-8")


def test_audit_locates_a_loaders_chunks_in_the_notebook_view(tmp_path, capsys, monkeypatch):
    p = _write(tmp_path)
    view = read_document(p.read_text(encoding="utf-8"), str(p)).text
    # a loader's chunks of the view: cut every 120 characters (through the code cell)
    rows = [{"text": view[i:i + 120], "source": p.name, "start": i} for i in range(0, len(view), 120)]
    dump = tmp_path / "chunks.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, out, err = run(capsys, "audit", str(dump), "--format", "json")
    data = json.loads(out)
    assert data["files"][0]["mode"] == "source-aware", err
    split = [i for i in data["issues"] if i["code"] == "CS003"]
    assert split and all(i["cell"] == 2 for i in split)


@PROPS
@given(st.lists(_cell, max_size=5), st.booleans())
def test_source_lines_point_at_each_cells_source_in_the_file(cells, v3):
    from chunkseam.document.notebook import file_line, source_lines

    raw = json.dumps(json.loads(_raw_notebook(cells, v3)), indent=1, ensure_ascii=False)
    lines = source_lines(raw)
    assert len(lines) == len(cells)
    file_lines = raw.split("\n")
    for n, (_, src, as_list, _) in enumerate(cells, start=1):
        parts = src.splitlines(True) if as_list else [src]
        for k, part in enumerate(parts[:3], start=1):
            at = file_lines[file_line(lines, n, k) - 1]
            if as_list and part:
                assert json.dumps(part, ensure_ascii=False) in at
            else:
                assert '"source"' in at or '"input"' in at


def test_corpus_outputs_are_text_only_when_included():
    files = {p.name if "zh-CN" not in str(p) else "zh-" + p.name: p for p in corpus_files("notebooks", "*.ipynb")}
    # an error output: the traceback's text, without its ANSI colours
    raw = files["langchain.ipynb"].read_text(encoding="utf-8")
    assert "ValidationError" not in read_document(raw, "n.ipynb").text
    view = read_document(raw, "n.ipynb", outputs=True).text
    assert "ValidationError: 1 validation error for VectorstoreIndexCreator" in view and "\x1b[" not in view
    # widget, HTML and image outputs: never
    for name in ("start_here.ipynb", "advanced_rag.ipynb", "llamaindex.ipynb"):
        view = read_document(files[name].read_text(encoding="utf-8"), "n.ipynb", outputs=True).text
        assert "Adding documents:" not in view and "<table" not in view and "iVBORw0KGgo" not in view
    # CJK markdown cells map back exactly
    raw = files["zh-rag_evaluation.ipynb"].read_text(encoding="utf-8")
    doc = read_document(raw, "n.ipynb", outputs=True)
    cells = json.loads(raw)["cells"]
    for i, c in enumerate(cells):
        assert doc.text[slice(*doc.notebook.span(i))] == "".join(c["source"])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in doc.text)
