"""Jupyter notebooks: the view a RAG loader sees, its map back to the cells, CLI and properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chunkseam.analysis import analyze
from chunkseam.notebook import NotebookError, read_document
from chunkseam.settings import Settings

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "notebooks"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus/notebooks")


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
    assert doc.location(doc.text.index("first") + len("first") + 1) == (1, 3, 6)


def test_corpus_notebooks_analyse_and_map_back():
    files = sorted(CORPUS.rglob("*.ipynb"))
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
