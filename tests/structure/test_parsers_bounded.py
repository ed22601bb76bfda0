"""Every parser bounded: hostile shapes of each file kind are read in linear
work, within the time budget, and the server keeps answering.

No timing is asserted (benchmarks/bench_parsers.py prints time and peak
memory against size, with the fitted slope); the subprocess and request
timeouts here are guards that turn a hang into a failure. Sizes are such
that the quadratic versions these tests were written against did not finish
within the guards, while the linear ones take seconds. Where the property is
that a run stops at the time budget, the budget is set far below what the
run takes on any machine, and the test reads which part stopped it.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from chunkseam.structure.markdown import parse_blocks
from lsp_support import CONFIG, TIMEOUT, as_dict, initialize, open_doc, request, shutdown, wait_published

#: lines that start like a JSX tag whose attribute expression never closes:
#: each, tried as a tag, used to be scanned to the end of the file
HOSTILE_MDX_LINE = "<A {\n\n"


def hostile_mdx(size: int) -> str:
    return HOSTILE_MDX_LINE * (size // len(HOSTILE_MDX_LINE))


#: a guard against hangs, not a speed assertion
GUARD = 120.0


def cli(*args: str, cwd: Path, guard: float = GUARD, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real ``chunkseam`` command line, failing (not hanging) past ``guard`` seconds."""
    return subprocess.run([sys.executable, "-m", "chunkseam", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=guard, env={**os.environ, **(env or {})})


def lint_json(path: Path, *args: str, codes: tuple[int, ...] = (0, 1), **kw) -> dict:
    run = cli("lint", path.name, "--format", "json", *args, cwd=path.parent, **kw)
    assert run.returncode in codes, run.stderr
    return json.loads(run.stdout)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def test_jsx_after_many_unclosed_tags_is_still_an_element(tmp_path):
    tabs = "<Tabs>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n</Tabs>\n"
    text = hostile_mdx(200_000) + tabs
    (tmp_path / "hostile.mdx").write_text(text)
    report = lint_json(tmp_path / "hostile.mdx")
    assert report["summary"]["files"] == 1 and not report["errors"], report["errors"]
    blocks = parse_blocks(text, True)
    jsx = [b for b in blocks if b.kind == "jsx"]
    assert len(jsx) == 1 and jsx[0].info == "Tabs" and jsx[0].closed
    assert text[jsx[0].start:jsx[0].end] == tabs.rstrip("\n")
    assert any(b.kind == "table" for b in blocks)
    # a tag over several lines is still read when it is not preceded by a flood
    card = "<Card\n  title='x'\n  href={'/a'}\n/>\n"
    assert [b.kind for b in parse_blocks(card, True)] == ["jsx"]


@pytest.mark.asyncio
async def test_two_hostile_mdx_files_leave_the_server_answering(client: LanguageClient, tmp_path):
    await initialize(client, init_options={"settings": {"debounceMs": 0}})
    hostile = hostile_mdx(160_000)
    uris = [(tmp_path / f"hostile{k}.mdx").as_uri() for k in range(2)]
    for uri in uris:
        open_doc(client, uri, hostile, language_id="mdx")
    normal = "# Title\n\nA short note. It has two sentences.\n"
    nuri = (tmp_path / "normal.md").as_uri()
    open_doc(client, nuri, normal)
    for uri in uris + [nuri]:
        await wait_published(client, uri, version=1)
    answer = await request(client, "chunkseam/chunks", uris[1])
    assert answer.chunks, answer
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=nuri), position=types.Position(2, 3))), TIMEOUT)
    assert hover is not None
    await asyncio.wait_for(client.shutdown_session(), TIMEOUT)


def test_a_notebook_of_many_cells_is_placed_on_its_file_lines(tmp_path):
    # 80,000 empty cells and one with a sentence cut: every cell's file line
    # used to be counted from the top of the file (quadratic in the cells)
    cells = [{"cell_type": "raw", "metadata": {}, "source": ""} for _ in range(80_000)]
    sentence = "The loader reads the files and then it checks every one of them for errors."
    cells.append({"cell_type": "markdown", "metadata": {}, "source": [sentence]})
    path = tmp_path / "many.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                               indent=0))
    run = cli("lint", path.name, "--format", "github", "--no-cache", "--unit", "chars", "--size", "40",
              cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    lines = path.read_text().splitlines()
    found = [ln for ln in run.stdout.splitlines() if "CS002" in ln]
    assert found, run.stdout
    for ln in found:
        assert "cell 80001:1:" in ln, ln
        file_line = int(ln.split(",line=")[1].split(",")[0])
        assert sentence in lines[file_line - 1], (file_line, lines[file_line - 1])


def _cell_line_col_by_counting(doc, offset):
    """The definition: count the line breaks of the cell's text before the offset."""
    cell, off = doc.notebook.to_cell(offset)
    if cell < 0:
        return 0, 1, 1
    s, e = doc.notebook.span(cell)
    before = doc.text[s:e][:off]
    line = before.count("\n") + before.count("\r") - before.count("\r\n")
    return cell + 1, line + 1, off - max(before.rfind("\n"), before.rfind("\r"))


def test_cell_positions_from_the_line_index_equal_the_definition():
    import random

    from chunkseam.document.text import Document
    from chunkseam.document.notebook import Cell, build_view, cell_line_col

    rng = random.Random(3)
    for _ in range(1500):
        cells = [Cell(rng.choice(["code", "markdown", "raw", "heading2"]),
                      "".join(rng.choice(["a", "\n", "\r", "\r\n", " ", "`"]) for _ in range(rng.randint(0, 12))),
                      outputs=rng.choice(["", "out\r"]))
                 for _ in range(rng.randint(0, 6))]
        view, nbmap = build_view(cells)
        doc = Document(view, kind="markdown")
        doc.notebook = nbmap
        for offset in range(-1, len(view) + 2):
            assert cell_line_col(doc, offset) == _cell_line_col_by_counting(doc, offset), (cells, offset)


def prose(size: int, seed: int = 1) -> str:
    import random

    rng = random.Random(seed)
    words = "the loader reads files and then checks every one of them for errors before indexing".split()
    parts, total = [], 0
    while total < size:
        s = " ".join(rng.choice(words) for _ in range(rng.randint(6, 20))).capitalize() + "."
        parts.append(s)
        total += len(s) + 1
    return "# Guide\n\n" + " ".join(parts)[:size] + "\n"


def test_preview_html_of_too_many_chunks_says_so(tmp_path):
    # 12 KB at size 1: ~10,000 chunks and ~20,000 issues; each piece of the page
    # used to look through every chunk and every issue (quadratic), for a page
    # of tens of megabytes no reader could use
    text = prose(12_000)
    (tmp_path / "guide.md").write_text(text)
    run = cli("preview", "guide.md", "--html", "out.html", "--chunker", "fixed", "--unit", "chars",
              "--size", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "out.html: too many chunks to draw: " in run.stderr and "(at most 5,000" in run.stderr, run.stderr
    page = (tmp_path / "out.html").read_text()
    assert "too many chunks to draw" in page and not re.search(r'<span[^>]* data-chunk="', page)
    data = json.loads(html.unescape(re.search(r'id="cs-data">(.*?)</script>', page, re.S).group(1)))
    assert len(data["docs"][0]["chunks"]) > 5_000  # the figures stay


def test_the_drawing_is_found_by_one_sweep_as_by_the_definition():
    import random

    from chunkseam.core.chunk import Chunk
    from chunkseam.document.text import Document
    from chunkseam.core.issue import Issue
    from chunkseam.report import preview
    def by_definition(points, chunks, issues):
        return [(a, b, tuple(c.index for c in chunks if c.start <= a and b <= c.end),
                 tuple(k for k, i in enumerate(issues) if i.start <= a and b <= i.end and i.end > i.start))
                for a, b in zip(points, points[1:])]

    rng = random.Random(4)
    for _ in range(400):
        n = rng.randint(0, 40)
        text = "x" * n
        cuts = sorted(rng.randint(0, n) for _ in range(rng.randint(0, 6)))
        bounds = [0, *cuts, n]
        chunks = [Chunk(start=max(0, a - rng.randint(0, 2)), end=b, index=k, source=text)
                  for k, (a, b) in enumerate(zip(bounds, bounds[1:]))]
        issues = [Issue(code="CS001", name="mid-word", severity="warning", message="m",
                        start=(a := rng.randint(-2, n + 2)), end=a + rng.randint(-1, 9))
                  for _ in range(rng.randint(0, 6))]
        points = sorted({0, n, *(max(0, min(x, n)) for c in chunks for x in (c.start, c.end)),
                         *(max(0, min(x, n)) for i in issues for x in (i.start, i.end)
                           if max(0, min(i.end, n)) > max(0, min(i.start, n)))})
        got = [(g.start, g.end, g.owners, g.issues) for g in preview._segments(
            points, [(c.start, c.end, c.index) for c in chunks],
            [(i.start, i.end, k) for k, i in enumerate(issues) if i.end > i.start])]
        assert got == by_definition(points, chunks, issues), (chunks, issues)
        preview.document_html(Document(text), chunks, issues)  # draws without error


@pytest.mark.asyncio
async def test_the_editors_compare_view_answers_on_a_document_of_tiny_chunks(client: LanguageClient, tmp_path):
    await initialize(client, init_options={"settings": {"debounceMs": 0, "unit": "chars", "size": 1}})
    text = prose(12_000)
    uri = (tmp_path / "guide.md").as_uri()
    open_doc(client, uri, text)
    await wait_published(client, uri, version=1)
    answer = await asyncio.wait_for(client.protocol.send_request_async(
        "chunkseam/compare", {"textDocument": {"uri": uri}, "strategies": ["fixed", "sentence"]}), TIMEOUT)
    answer = as_dict(answer)
    assert answer["errors"] == {} and answer["strategies"] == ["fixed", "sentence"], answer["errors"]
    # the fixed strategy's ~10,000 chunks are not drawn, and the page says so;
    # the sentence strategy's are, with all of the text
    assert answer["html"].count('<div class="cs-doc') == 2
    assert '<div class="cs-doc cs-too-many" data-doc="0"><p>too many chunks to draw' in answer["html"]
    drawn = answer["html"].split('<div class="cs-doc" data-doc="1">', 1)[1].split("</div>", 1)[0]
    assert 'data-chunk="0"' in drawn
    assert html.unescape(re.sub(r"<[^>]*>", "", drawn)) == text
    await asyncio.wait_for(client.shutdown_session(), TIMEOUT)


def nested_directives(depth: int) -> str:
    return "".join("   " * i + f".. unknown{i}::\n\n" for i in range(depth)) + "   " * depth + "Deep text.\n"


def test_deeply_nested_rst_is_one_clear_error_and_the_other_files_are_checked(tmp_path):
    # 1,000 nested unknown directives: docutils parsed each level's body again
    # (minutes), then ran out of recursion
    (tmp_path / "deep.rst").write_text(nested_directives(1_000))
    (tmp_path / "deep-list.rst").write_text("- " * 5_000 + "item\n")
    (tmp_path / "fine.rst").write_text("Title\n=====\n\n" + nested_directives(8)
                                       + "\nThe last paragraph. It has two sentences.\n")
    run = cli("lint", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    report = json.loads(run.stdout)
    errors = {Path(e["path"]).name: e["message"] for e in report["errors"]}
    assert sorted(errors) == ["deep-list.rst", "deep.rst"], report["errors"]
    assert "nests 1,000 blocks deep (at most 64 are read)" in errors["deep.rst"]
    assert "nests 5,000 blocks deep (at most 64 are read)" in errors["deep-list.rst"]
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    assert [f["path"] for f in report["files"] if f["path"].endswith("fine.rst")], report["files"]


def _address_space(limit: int):
    def set_limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return set_limit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sparse files and RLIMIT_AS")
def test_a_file_over_the_size_limit_is_skipped_from_its_size(tmp_path):
    # a sparse 3 GB file (no disk used): it used to be read whole (MemoryError,
    # and the run stopped); under a 2 GB address space the run must still go on
    with open(tmp_path / "huge.md", "wb") as f:
        f.truncate(3 * 1024**3)
    (tmp_path / "ok.md").write_text("# Title\n\nA short note. It has two sentences.\n")
    run = subprocess.run([sys.executable, "-m", "chunkseam", "lint", ".", "--format", "json", "--no-cache"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=GUARD,
                         preexec_fn=_address_space(2 * 1024**3))
    assert run.returncode == 2, run.stderr
    report = json.loads(run.stdout)
    assert [f["path"] for f in report["files"]] == ["ok.md"]
    assert report["errors"] == [{"path": "huge.md", "message":
                                 "too large: 3,221,225,472 bytes (files of at most 256,000,000 bytes are "
                                 "read; see 'Limits' in docs/cli.md), skipped"}]


def test_semantic_text_splitter_stops_at_the_time_budget(tmp_path):
    pytest.importorskip("semantic_text_splitter")
    # its run is native code Python cannot interrupt: it used to go on long after
    # the budget (a 10 s budget: 46 s); its size callback now tests the budget
    (tmp_path / "long.md").write_text(prose(12_000) * 200)
    report = lint_json(tmp_path / "long.md", "--no-cache", "--chunker", "text-splitter", "--size", "50",
                       env={"CHUNKSEAM_TIME_BUDGET": "1"}, codes=(2,))
    # (a budget far below what the library takes on 2.4 MB on any machine; the
    # first test of the budget after it has passed is in the library's callback)
    assert [e["message"] for e in report["errors"]] == [
        "too large or too slow to analyse with these settings: the text-splitter chunker took longer "
        "than 1 s; see 'Limits' in docs/cli.md"]


def test_semantic_text_splitter_chunks_are_unchanged_by_the_budgeted_count():
    sts = pytest.importorskip("semantic_text_splitter")
    from chunkseam.engine.analysis import analyze
    from chunkseam.document.text import Document
    from chunkseam.core.settings import Settings

    text = prose(30_000, seed=5)
    for cls in ("MarkdownSplitter", "TextSplitter"):
        theirs = getattr(sts, cls)(120, 20, True).chunk_indices(text)
        ours = analyze(Document(text, path="p.md"), Settings(
            chunker="text-splitter", unit="chars", size=120, overlap=20,
            chunker_options={"splitter": cls})).chunks
        assert [(c.start, c.text) for c in ours] == list(theirs), cls


def test_docutils_stops_at_the_time_budget(tmp_path):
    # lists nested 60 deep (within the nesting limit), repeated to 400 KB: docutils
    # reads each level again (a minute here) and used to be checked only after
    block = "".join("  " * i + "- item\n\n" for i in range(60))
    (tmp_path / "lists.rst").write_text(block * (400_000 // len(block)))
    report = lint_json(tmp_path / "lists.rst", "--no-cache", env={"CHUNKSEAM_TIME_BUDGET": "1"}, codes=(2,))
    # (a budget far below what docutils takes on it on any machine; the first
    # test of the budget after it has passed is docutils' reading of a line)
    assert [e["message"] for e in report["errors"]] == [
        "too large or too slow to analyse with these settings: reading reStructuredText took longer "
        "than 1 s; see 'Limits' in docs/cli.md"]
