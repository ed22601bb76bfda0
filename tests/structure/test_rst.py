"""reStructuredText structure (chunkseam.structure.rst): spans, kinds, routing, cut checks, CLI."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from chunkseam.document.text import Document, kind_for
from chunkseam.structure.rst import records
from chunkseam.core.settings import Settings
from chunkseam.structure.markdown import structure
from chunkseam.tokens.tiktoken import get_sizer
from chunkseam.engine.validate import validate
from cutkit import marked
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lsp_support import CONFIG, initialize, open_doc, shutdown, wait_published
from pytest_lsp import LanguageClient

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "rst"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus/rst")

SAMPLE = """\
=====
Title
=====

Intro para
two lines.

.. code-block:: python

   x = 1

   y = 2

+-----+-----+
| a   | b   |
+=====+=====+
| 1   | 2   |
+-----+-----+

Section
-------

- item one
  continues
- item two

:field: value

.. note::

   A note.

.. versionadded:: 2.0
   Stuff here.

.. include:: /etc/passwd

----
"""


def _blocks(text: str, path: str = "x.rst"):
    return structure(Document(text, path=path)).blocks


def test_routing():
    assert kind_for("docs/index.rst") == "markdown"
    assert kind_for(None, "restructuredtext") == "markdown"


def test_sample_blocks():
    bl = _blocks(SAMPLE)
    got = [(b.kind, SAMPLE[b.start : b.end]) for b in bl]
    heads = [b for b in bl if b.kind == "heading"]
    assert [(h.title, h.level) for h in heads] == [("Title", 1), ("Section", 2)]
    assert heads[0].start == 0  # the overline belongs to the title
    assert ("fence", ".. code-block:: python\n\n   x = 1\n\n   y = 2") in got
    fence = next(b for b in bl if b.kind == "fence")
    assert fence.info == "python"
    table = next(b for b in bl if b.kind == "table")
    assert SAMPLE[table.start : table.end].endswith("| 1   | 2   |\n+-----+-----+")
    assert len(table.rows) == 2 and table.header_end > table.rows[0][1]
    items = [SAMPLE[b.start : b.end] for b in bl if b.kind == "list_item"]
    assert items == ["- item one\n  continues", "- item two", ":field: value"]
    directives = {b.info: b for b in bl if b.kind == "directive"}
    assert SAMPLE[directives["note"].start : directives["note"].end] == ".. note::\n\n   A note."
    # a directive's body is reStructuredText: its blocks are the directive's children
    body = [SAMPLE[b.start : b.end] for b in bl if b.parent == directives["note"].index]
    assert body == ["A note."]
    assert [SAMPLE[b.start : b.end] for b in bl if b.parent == directives["versionadded"].index] == ["Stuff here."]
    explicit = {b.info: SAMPLE[b.start : b.end] for b in bl if b.kind == "explicit"}
    assert explicit == {"include": ".. include:: /etc/passwd"}  # never read: one atomic block
    assert any(b.kind == "hr" for b in bl)


def _check_spans(text: str, bl) -> None:
    for b in bl:
        assert 0 <= b.start < b.end <= len(text)
        assert not text[b.start].isspace() and text[b.end - 1] not in "\r\n"
        assert b.end == len(text) or text[b.end] in "\r\n"  # a block ends at a line end
        if b.parent is not None:
            p = bl[b.parent]
            assert p.start <= b.start and b.end <= p.end
    leaves = [b for b in bl if b.is_leaf]
    for a, b in itertools.pairwise(leaves):
        assert a.end <= b.start  # in order, never overlapping


def _corpus_files():
    return sorted(CORPUS.rglob("*.rst"))[:25]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not present")
def test_corpus_spans_and_titles():
    files = _corpus_files()
    assert files
    titled = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        bl = _blocks(text, str(f))
        _check_spans(text, bl)
        heads = [b for b in bl if b.kind == "heading"]
        for h in heads:
            assert h.title
            src = text[h.start : h.end]
            assert all(w.strip("`*_|:,.;()\"'") in src for w in h.title.split())
        titled += bool(heads)
        # every non-blank line outside the blocks is markup docutils does not render as a block
        assert records(text) == records(text)  # deterministic
    assert titled >= len(files) * 0.8


@settings(max_examples=60, deadline=None)
@example(["=== ===\n", "----\n", "Title\n=====\n"])  # (a dashed line right after a simple table's border)
@given(st.lists(st.sampled_from([
    "Title\n=====\n", "para text here.\n", "\n", "   indented\n", ".. note::\n", "- item\n", "::\n",
    "+---+\n", "| a |\n", "=== ===\n", ":f: v\n", ".. code-block:: py\n", "----\n", "\r\n", "x" * 3,
    "\t", "..\n", "1. one\n", "\u2028", "\x0c", ".. note::\n=",
]), max_size=30))
def test_property_spans(parts):
    text = "".join(parts)
    bl = _blocks(text)
    _check_spans(text, bl)
    assert [(b.kind, b.start, b.end) for b in bl] == [(b.kind, b.start, b.end) for b in _blocks(text, "y.rst")]


BIG = SAMPLE.replace("   y = 2", "\n".join(f"   y{i} = {i}" for i in range(60)))


def _lint(path: Path, *args: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "chunkseam", "lint", str(path), "--format", "json", "--no-cache",
                          *args], capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)["issues"]


def test_cli_lint_json(tmp_path):
    f = tmp_path / "x.rst"
    f.write_text(BIG, encoding="utf-8")
    # the markdown strategy (the default for .rst) keeps the code-block whole, over budget
    issues = _lint(f, "--size", "40")
    assert not any(i["code"] == "CS003" for i in issues)
    assert any(i["code"] == "CS101" for i in issues), issues
    # a character splitter cuts through it, and the cut is reported where it falls
    issues = _lint(f, "--size", "40", "--chunker", "recursive")
    cs003 = [i for i in issues if i["code"] == "CS003"]
    assert cs003, issues
    start = BIG.index(".. code-block::")
    end = BIG.index("y59 = 59")
    assert all(start < i["start_offset"] <= end for i in cs003)


def test_cuts_in_table_and_directive(tmp_path):
    f = tmp_path / "x.rst"
    f.write_text(SAMPLE, encoding="utf-8")
    issues = _lint(f, "--size", "6", "--unit", "chars", "--chunker", "fixed")
    codes = {i["code"] for i in issues}
    assert {"CS003", "CS004", "CS005", "CS008"} <= codes, codes


def test_suppression_comment(tmp_path):
    f = tmp_path / "x.rst"
    before = _lint_text(f, BIG)
    assert any(i["code"] == "CS003" for i in before)
    region = BIG.replace(".. code-block::", ".. chunkseam-disable CS003\n\n.. code-block::").replace(
        "   y59 = 59\n", "   y59 = 59\n\n.. chunkseam-enable\n")
    issues = _lint_text(f, region)
    assert not any(i["code"] == "CS003" for i in issues)
    issues = _lint_text(f, ".. chunkseam-disable-file CS003\n\n" + BIG)
    assert not any(i["code"] == "CS003" for i in issues)


def _lint_text(f: Path, text: str) -> list[dict]:
    f.write_text(text, encoding="utf-8")
    return _lint(f, "--size", "40", "--chunker", "recursive")


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


@pytest.mark.asyncio
async def test_language_server_judges_restructuredtext(client: LanguageClient):
    await initialize(client, init_options={"settings": {
        "chunker": "fixed", "unit": "chars", "size": 40, "debounceMs": 0}})
    text = "Intro.\n\n.. code-block:: python\n\n   first = 1\n   second = 2\n   third = 3\n"
    uri = "untitled:/notes"  # no suffix: the language id alone says reStructuredText
    open_doc(client, uri, text, language_id="restructuredtext")
    published = await wait_published(client, uri)
    found = [d for d in published.diagnostics if d.code == "CS003"]
    # the cut at character 40 falls inside the code-block
    assert found, published.diagnostics
    assert found[0].range.start.line == 4


def test_no_directive_reads_a_file_or_runs(tmp_path):
    from chunkseam.structure.rst import _docutils_tree

    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-MARKER\n", encoding="utf-8")
    csv = tmp_path / "t.csv"
    csv.write_text("a,TOPSECRET-CSV\n", encoding="utf-8")
    text = (f".. include:: {secret}\n\n.. literalinclude:: {secret}\n\n.. csv-table::\n   :file: {csv}\n\n"
            f".. raw:: html\n   :file: {secret}\n\n.. automodule:: os\n   :members:\n\nText.\n")
    tree = _docutils_tree(text).pformat()
    assert "TOPSECRET" not in tree
    bl = _blocks(text)
    assert [b.kind for b in bl][-1] == "paragraph"
    assert [(b.kind, b.info) for b in bl[:-1]] == [
        ("explicit", "include"), ("explicit", "literalinclude"), ("table", "csv-table"), ("explicit", "raw"),
        ("explicit", "automodule")]


def test_other_docutils_users_keep_the_usual_directive_lookup():
    from docutils.core import publish_doctree

    _blocks(".. versionadded:: 1.0\n\n   Body.\n")  # installs the generic lookup for chunkseam's parses
    tree = publish_doctree(".. versionadded:: 1.0\n\n   Body.\n",
                           settings_overrides={"report_level": 5, "warning_stream": False})
    assert "Unknown directive type" in tree.pformat()


def _codes(text: str) -> list[tuple[str, str]]:
    doc, chunks, _ = marked(text, path="t.rst")
    return [(i.code, (i.data or {}).get("kind", "")) for i in validate(doc, chunks, Settings(),
                                                                          sizer=get_sizer("chars"))]


@pytest.mark.parametrize(("text", "code"), [
    ("Intro.\n\n.. code-block:: sh\n\n   pip install x\n✂   x --help\n\nAfter.\n", "CS003"),
    ("Intro::\n\n   literal one\n✂   literal two\n\nAfter.\n", "CS003"),
    ("+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n+---+---+\n✂| 3 | 4 |\n+---+---+\n", "CS004"),
    ("=====  =====\nA      B\n=====  =====\n1      2\n✂3      4\n=====  =====\n", "CS004"),
    ("- first item that goes\n  on and on. It has ✂two sentences.\n- second\n", "CS005"),
    ("Title\n=====\n\nThe first sentence runs ✂on here.\n", "CS002"),
    ("Intro.\n\nSection\n-------\n\n✂Body of the section.\n", "CS007"),
    (".. note::\n\n✂   One paragraph.\n\n   Another paragraph.\n\nAfter.\n", "CS008"),
    (".. toctree::\n   :maxdepth: 2\n\n   intro\n✂   usage\n\nAfter.\n", "CS008"),
])
def test_cut_rules_over_the_rst_structure(text, code):
    got = [c for c, _ in _codes(text)]
    assert code in got, got


def test_clean_cuts_between_blocks_are_clean():
    text = "Title\n=====\n\nOne paragraph here.\n\n✂Another paragraph here.\n\n✂.. note::\n\n   A note.\n"
    assert _codes(text) == []
    # between two whole paragraphs of a long note: its head stays with the first
    assert _codes(".. note::\n\n   One paragraph.\n\n✂   Another paragraph.\n\nAfter.\n") == []


def test_suppression_quick_fix_writes_an_rst_comment():
    from chunkseam.fix import edits as fixes
    from chunkseam.checks import suppress

    text = "Title\n=====\n\nThe first sentence runs on here.\n"
    doc = Document(text, path="t.rst")
    issue = next(i for i in validate(*marked("Title\n=====\n\nThe first sentence runs ✂on here.\n",
                                             path="t.rst")[:2], Settings(), sizer=get_sizer("chars")))
    assert fixes.disable_line(doc, issue) is None  # a comment line would end the paragraph
    title, edits = fixes.disable_file(doc, issue)
    assert title == f"Disable {issue.code} for this file"
    new = edits[0].text + text
    assert new.startswith(f".. chunkseam-disable-file {issue.code}\n\n")
    parsed = suppress.parse(Document(new, path="t.rst"))
    assert parsed and parsed[0].kind == "file"
    # the comment is its own block, not part of the title
    assert [b.kind for b in _blocks(new)][:2] == ["explicit", "heading"]
    # a second rule joins the comment that is there
    other = dataclasses.replace(issue, code="CS007")
    _, more = fixes.disable_file(Document(new, path="t.rst"), other)
    e = more[0]
    assert (new[: e.start] + e.text + new[e.end :]).startswith(f".. chunkseam-disable-file {issue.code} CS007\n\n")
    assert fixes.disable_file(Document(new, path="t.rst"), issue) is None  # already disabled


def _messages(text: str) -> list[tuple[str, str]]:
    doc, chunks, _ = marked(text, path="t.rst")
    return [(i.code, i.message) for i in validate(doc, chunks, Settings(), sizer=get_sizer("chars"))
            if i.cut is not None]


@pytest.mark.parametrize(("text", "words"), [
    # a simple-table row with a continuation line is one row
    (("=====  ==========\nName   Meaning\n=====  ==========\nrule   the URL rule\n"
      "view   the function to\n       ✂call for it\nopts   options\n=====  ==========\n"),
     "inside body row 2 of a table"),
    # a table without a header row: its first row is body row 1
    ("====  ====\na     1\nb     2\nc     ✂3\n====  ====\n", "inside body row 3 of a table"),
    # a grid row spans the lines between two borders
    ("+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n| x | ✂y |\n+---+---+\n| 3 | 4 |\n+---+---+\n",
     "inside body row 1 of a table"),
    # a list-table: the options are its head, the items its rows
    (".. list-table::\n   :header-rows: 1\n   :widths: 10 20\n✂\n   * - a\n     - b\n   * - 1\n     - 2\n",
     "inside the table header"),
    ((".. list-table::\n   :header-rows: 1\n\n   * - a\n     - b\n   * - 1\n     - 2\n"
      "   * - 3\n     - ✂4\n"), "inside body row 2 of a table"),
    ("====  ====\na     1\nb     2\n====  ✂====\n\nAfter.\n", "in the border line that closes a table"),
])
def test_table_rows_are_counted_as_restructuredtext_makes_them(text, words):
    got = _messages(text)
    assert any(c == "CS004" and words in m for c, m in got), got


def test_messages_use_restructuredtext_words():
    got = dict(_messages(".. code-block:: python\n\n   x = 1\n✂   y = 2\n\nAfter.\n"))
    assert "inside a python code block" in got["CS003"] and "```" not in got["CS003"]
    got = dict(_messages(".. code-block:: console\n\n   $ pip install chunkseam\n✂   $ chunkseam lint docs/\n\nAfter.\n"))
    assert "inside a console code block" in got["CS003"] and "```" not in got["CS003"]
    got = dict(_messages("Run::\n\n   one\n✂   two\n\nAfter.\n"))
    assert "inside a literal block" in got["CS003"]
    got = dict(_messages("Intro.\n\nHomebrew\n\"\"\"\"\"\"\"\"\n✂\nBody.\n"))
    assert 'the heading "Homebrew":' in got["CS007"]
    got = dict(_messages("=====\nTitle\n=====\n✂\nBody.\n"))
    assert 'the heading "Title":' in got["CS007"]


def test_inline_literals_follow_restructuredtext_rules():
    from chunkseam.structure.rst import inline_literals

    text = "Mark ``:kbd:`C-x C-f```, then :meth:`get` and `link`_ (not a``b``)."
    assert [text[a:b] for a, b in inline_literals(text)] == [
        "``:kbd:`C-x C-f```", ":meth:`get`", "`link`_"]
    # a cut after the literal is not inside it; one in the role is
    assert "CS006" not in dict(_messages("Mark ``:kbd:`C-x C-f```. ✂Then ``save``.\n"))
    assert "inside a role" in dict(_messages("Call :meth:`✂get` now.\n"))["CS006"]
    assert "inside an inline literal" in dict(_messages("Run ``pip ✂install`` now.\n"))["CS006"]
    assert "inside a link" in dict(_messages("Read `the ✂guide`_ first.\n"))["CS006"]


def test_a_sphinx_class_description_is_a_container():
    text = (".. class:: Client\n\n   Talks to the server.\n\n   .. method:: connect()\n\n"
            "      Opens.\n✂\n   .. method:: close()\n\n      Closes.\n")
    assert _messages(text) == []
    bl = _blocks(text.replace("✂", ""))
    assert bl[0].kind == "directive" and bl[0].info == "class"


def test_no_header_repeating_fix_for_a_restructuredtext_table():
    doc, chunks, _ = marked("=====  =====\nName   Value\n=====  =====\na      1\n✂b      2\n=====  =====\n",
                            path="t.rst")
    (issue,) = [i for i in validate(doc, chunks, Settings(), sizer=get_sizer("chars")) if i.code == "CS004"]
    assert "between body rows 1 and 2" in issue.message and "fix" not in (issue.data or {})


def test_inline_literals_on_hostile_text_are_found_in_one_pass():
    from chunkseam.structure.rst import inline_literals

    # thousands of openers with no valid end: each is tried once, not against every backtick
    assert inline_literals("``a ``" * 20000) == []
    assert inline_literals(":r:`a " * 20000) == []
    assert len(inline_literals("``a``, " * 20000)) == 20000
