"""MDX: ``import``/``export`` statements and JSX elements are blocks of their
own (chunkseam.structure.mdx), kept whole by the markdown strategy and judged by CS008;
the Markdown inside a JSX element is still Markdown."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import pytest_lsp
from chunkseam.chunkers import get
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.structure.markdown import _parse_segment, parse_blocks, structure
from chunkseam.tokens.tiktoken import get_sizer
from chunkseam.engine.validate import validate
from conftest import corpus_files
from cutkit import marked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from lsp_support import CONFIG, initialize, open_doc, shutdown, wait_published
from pytest_lsp import LanguageClient

CHARS = get_sizer("chars")
MD = get("markdown")

TABS = """\
---
title: Install
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

export const versions = {
  stable: '2.1',

  next: '3.0',
}

# Install

Pick your package manager.

<Tabs groupId="pm">
  <TabItem value="npm" label="npm">

```bash
npm install chunkseam
</Tabs>
```

  </TabItem>
  <TabItem value="yarn" label="Yarn">

Run the command below. It adds `<Tabs>` support too.

  </TabItem>
</Tabs>

<Badge text="new" />

<Card
  title="Next"
  icon={<Icon name="star" />}
>
Read the guide.
</Card>

Autolinks stay prose: <https://example.com>.
"""


def _kinds(text: str, mdx: bool = True) -> list[tuple[str, int, str]]:
    return [(b.kind, b.depth, text[b.start : b.end].split("\n")[0]) for b in parse_blocks(text, mdx)]


def test_mdx_blocks():
    got = _kinds(TABS)
    assert got == [
        ("front_matter", 0, "---"),
        ("esm", 0, "import Tabs from '@theme/Tabs';"),
        ("esm", 0, "export const versions = {"),
        ("heading", 0, "# Install"),
        ("paragraph", 0, "Pick your package manager."),
        ("jsx", 0, '<Tabs groupId="pm">'),
        ("jsx", 1, '<TabItem value="npm" label="npm">'),
        # a closing tag inside a fence is code, not the end of the element
        ("fence", 2, "```bash"),
        ("jsx", 1, '<TabItem value="yarn" label="Yarn">'),
        ("paragraph", 2, "Run the command below. It adds `<Tabs>` support too."),
        ("jsx", 0, '<Badge text="new" />'),
        ("jsx", 0, "<Card"),
        ("paragraph", 1, "Read the guide."),
        ("paragraph", 0, "Autolinks stay prose: <https://example.com>."),
    ]
    blocks = parse_blocks(TABS, True)
    tabs = next(b for b in blocks if b.kind == "jsx")
    assert TABS[tabs.start : tabs.end].endswith("</Tabs>") and tabs.info == "Tabs" and tabs.closed
    esm = [b for b in blocks if b.kind == "esm"]
    assert TABS[esm[1].start : esm[1].end].endswith("next: '3.0',\n}")


def test_only_mdx_documents_get_the_mdx_rules():
    assert not {k for k, _, _ in _kinds(TABS, mdx=False)} & {"esm", "jsx"}
    for doc in (Document(TABS, path="a.mdx"), Document(TABS, uri="file:///d/A.MDX"),
                Document(TABS, language_id="mdx")):
        assert any(b.kind == "jsx" for b in structure(doc).blocks)
    assert not any(b.kind == "jsx" for b in structure(Document(TABS, path="a.md")).blocks)


def test_unclosed_element_runs_to_the_end_and_says_so():
    text = "<Steps>\n\n1. one\n\n# Heading\n\ntext\n"
    b = parse_blocks(text, True)[0]
    assert b.kind == "jsx" and not b.closed and b.end == len(text.rstrip())
    # the heading anchor after it does not cut the element short (segments merge)
    assert [x.kind for x in parse_blocks(text, True)] == [x[0] for x in _parse_segment(text, True)]


def _check_spans(text: str, blocks) -> None:
    for b in blocks:
        assert 0 <= b.start <= b.end <= len(text)
        if b.parent is not None:
            p = blocks[b.parent]
            assert p.start <= b.start and b.end <= p.end, (p.kind, b.kind)


def _segmented_equals_whole(text: str) -> None:
    seg = [(b.kind, b.start, b.end, b.depth, b.info, b.closed) for b in parse_blocks(text, True)]
    whole = [(r[0], r[1], r[2], r[6], r[7], r[10]) for r in _parse_segment(text, True)]
    assert seg == whole


MDX_PIECES = hs.sampled_from([
    "import A from 'a'\n", "export const x = {\n", "}\n", "\n", "# H\n", "text ", "<Tabs>\n",
    "</Tabs>\n", "<TabItem value='a'>\n", "</TabItem>\n", "<B />\n", "<C\n", "  a={<D />}\n",
    ">\n", "```\n", "~~~js\n", "- item\n", "> quote\n", "`<Tabs>`", "<>\n", "</>\n", "{x}\n",
    "<!-- c -->\n", "    indented\n", "\t", "\r\n", "<", "/>", "'", '"', "{", "é",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(MDX_PIECES, max_size=40).map("".join))
def test_any_text_parses_to_valid_deterministic_spans(text):
    blocks = parse_blocks(text, True)
    _check_spans(text, blocks)
    assert [(b.kind, b.start, b.end) for b in parse_blocks(text, True)] == \
        [(b.kind, b.start, b.end) for b in blocks]
    _segmented_equals_whole(text)
    doc = Document(text, path="p.mdx")
    chunks = MD.chunk(doc, CHARS, size=60)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in MD.chunk(
        Document(text, path="p.mdx"), CHARS, size=60)]
    for c in chunks:
        assert 0 <= c.start <= c.end <= len(text)
    validate(doc, chunks, Settings(size=60, unit="chars"), sizer=CHARS)


def test_an_edit_updates_the_mdx_structure_like_a_fresh_parse():
    doc = Document(TABS, path="x.mdx")
    assert structure(doc).blocks  # the version the edit starts from has its structure
    at = TABS.index("Run the command")
    new = doc.with_edit(at, at, "</Tabs>\n\n# Inserted\n\n")
    got = [(b.kind, b.start, b.end) for b in structure(new).blocks]
    assert got == [(b.kind, b.start, b.end) for b in parse_blocks(new.text, True)]


def test_corpus_mdx_files():
    files = corpus_files("markdown", "*.mdx")
    assert len(files) >= 20
    seen = set()
    for path in files[::2]:
        doc = Document.from_path(path)
        text = doc.text
        blocks = structure(doc).blocks
        _check_spans(text, blocks)
        _segmented_equals_whole(text)
        seen |= {b.kind for b in blocks}
        for b in blocks:
            if b.kind == "jsx":
                assert b.closed, (path, text[b.start : b.start + 60])
        size = 400
        tok = get_sizer("tokens", "cl100k_base")
        chunks = MD.chunk(doc, tok, size=size)
        bounds = {c.start for c in chunks} | {c.end for c in chunks}
        for b in blocks:
            inside = [p for p in bounds if b.strictly_inside(p)]
            if b.kind == "esm":
                assert not inside, (path, text[b.start : b.end][:80])
            if b.kind == "jsx" and tok.count(text[b.start : b.end]) <= size // 2:
                # an element that fits is one unit (unless its heading section is cut around it)
                assert not inside, (path, text[b.start : b.end][:80])
    assert {"esm", "jsx"} <= seen


def _codes(text: str, **kw) -> list[tuple[str, str]]:
    doc, chunks, _ = marked(text, path="t.mdx")
    return [(i.code, (i.data or {}).get("kind", "")) for i in validate(doc, chunks, Settings(**kw),
                                                                          sizer=CHARS)]


def test_cuts_inside_mdx_blocks():
    # between two whole tabs of one element: a clean place to cut
    got = _codes("<Tabs>\n<A>\n\nOne.\n\n</A>\n✂<B>\n\nTwo.\n\n</B>\n</Tabs>\n")
    assert "CS008" not in [c for c, _ in got]
    # the opening tag left alone: CS008 (jsx)
    assert ("CS008", "jsx") in _codes("<Tabs>\n✂<A>\n\nOne.\n\n</A>\n<B>\n\nTwo.\n\n</B>\n</Tabs>\n")
    # only the closing tag after the cut: the element is whole, the chunk of
    # nothing but `</Tabs>` is a fragment (CS102), not a split element
    got = _codes("<Tabs>\n<A>\n\nOne.\n\n</A>\n<B>\n\nTwo.\n\n</B>\n✂</Tabs>\n")
    assert "CS008" not in [c for c, _ in got] and "CS102" in [c for c, _ in got]
    # in the import statements
    assert ("CS008", "esm") in _codes("import A from 'a'\n✂import B from 'b'\n\nText.\n")
    # inside a fence inside a tab: the fence's rule, not the element's
    got = _codes("<Tabs>\n<A>\n\n```sh\nnpm i\n✂npm t\n```\n\n</A>\n</Tabs>\n")
    assert "CS003" in [c for c, _ in got] and ("CS008", "jsx") not in got
    # mid-sentence inside a tab: still judged as prose
    got = _codes("<Tabs>\n<A>\n\nRun the install. Then ✂start it.\n\n</A>\n</Tabs>\n")
    assert ("CS008", "jsx") not in got and {"CS002"} & {c for c, _ in got}
    # after the element, nothing
    assert "CS008" not in [c for c, _ in _codes("<Badge text='x' />\n\n✂Text here.\n")]


def test_a_jsx_table_is_not_split_between_its_rows_or_cells():
    """A cut between two whole children is clean, but not between the rows or
    the cells of a JSX table: a row cut from the header above it, a cell from
    its row (as CS004 reports in a Markdown table)."""
    rows = ("<table>\n  <thead>\n    <tr>\n      <th>MDX</th>\n\n      <th>JSX</th>\n    </tr>\n  </thead>\n\n"
            "  <tbody>\n    <tr>\n      <td>\n        *a*\n      </td>\n\n{cell}      <td>\n        <em>a</em>\n"
            "      </td>\n    </tr>\n\n{row}    <tr>\n      <td>\n        **b**\n      </td>\n\n"
            "      <td>\n        <strong>b</strong>\n      </td>\n    </tr>\n  </tbody>\n</table>\n")

    def cs008(text: str) -> list[str]:
        doc, chunks, _ = marked(text, path="t.mdx")
        return [i.message for i in validate(doc, chunks, Settings(), sizer=CHARS) if i.code == "CS008"]

    between_cells = cs008(rows.format(cell="✂", row=""))
    assert len(between_cells) == 1 and "inside the JSX element <tr>" in between_cells[0], between_cells
    between_rows = cs008(rows.format(cell="", row="✂"))
    assert len(between_rows) == 1 and "inside the JSX element <table>" in between_rows[0], between_rows
    # the children of other elements: still clean
    assert cs008("<Steps>\n  <Step>\n\n  One.\n\n  </Step>\n\n✂  <Step>\n\n  Two.\n\n  </Step>\n</Steps>\n") == []


def test_a_flow_expression_is_one_block():
    text = "Intro.\n\n{/*\n  * Keep this list sorted.\n  * ```md\n  * {not a brace}\n  * ```\n  */}\n\nAfter.\n"
    (expr,) = [b for b in parse_blocks(text, mdx=True) if b.kind == "esm"]
    assert expr.info == "expression" and text[expr.start : expr.end].endswith("*/}") and expr.closed
    cut = text.index("  * ```md")
    doc, chunks, _ = marked(text[:cut] + "✂" + text[cut:], path="x.mdx")
    got = [i for i in validate(doc, chunks, Settings(), sizer=CHARS) if i.code == "CS008"]
    assert got and "inside an MDX expression" in got[0].message
    # a paragraph that starts with an expression is a paragraph
    assert [b.kind for b in parse_blocks("{count} items left.\n", mdx=True)] == ["paragraph"]
    # a cut after the expression is clean
    assert "CS008" not in [c for c, _ in _codes("{/* note */}\n\n✂Text here.\n")]
    # an unclosed brace is text, and lines that only look like expressions cost bounded work
    assert [b.kind for b in parse_blocks("{ not closed\n\nText.\n", mdx=True)] == ["paragraph", "paragraph"]
    hostile = "{\n\n" * 20000 + "}" * 20000 + " text\n"
    assert {b.kind for b in parse_blocks(hostile, mdx=True)} == {"paragraph"}


def test_lint_reports_a_cut_jsx_element(tmp_path):
    page = tmp_path / "page.mdx"
    body = "Pick one.\n\n" + "\n".join(
        f'<TabItem value="{n}">\n\nRun {n} install for the project.\n\n</TabItem>'
        for n in ("npm", "yarn", "pnpm"))
    page.write_text("import Tabs from '@theme/Tabs';\n\n<Tabs>\n" + body + "\n</Tabs>\n",
                    encoding="utf-8")
    def lint(*options: str) -> list[dict]:
        proc = subprocess.run(
            [sys.executable, "-m", "chunkseam", "lint", str(page), *options, "--unit", "chars",
             "--format", "json"], capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
        assert proc.returncode in (0, 1), proc.stderr
        return json.loads(proc.stdout)["issues"]

    # the markdown chunker cuts between whole tabs, never inside the import line or a tag
    issues = lint("--chunker", "markdown", "--size", "90")
    assert not [i for i in issues if i["code"] == "CS008"], issues
    # a fixed window cuts the element's own markup open
    jsx = [i for i in lint("--chunker", "fixed", "--size", "30") if i["code"] == "CS008"]
    assert jsx and any("JSX element <" in i["message"] for i in jsx), jsx


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


@pytest.mark.asyncio
async def test_language_server_judges_mdx_documents(client: LanguageClient, tmp_path):
    await initialize(client, init_options={"settings": {
        "chunker": "fixed", "unit": "chars", "size": 40, "debounceMs": 0}})
    text = "<Tabs>\n<A label='first'>\n\nOne.\n\n</A>\n<B label='second'>\n\nTwo.\n\n</B>\n</Tabs>\n"
    uri = (tmp_path / "tabs.mdx").as_uri()
    open_doc(client, uri, text, language_id="mdx")
    published = await wait_published(client, uri)
    found = [d for d in published.diagnostics if d.code == "CS008"]
    # the fixed chunker cuts at character 40, inside the opening tag of <B>: the
    # innermost element is named
    assert found and "inside the JSX element <B>" in found[0].message, published.diagnostics
    assert found[0].range.start.line == 6
    # the data names the issue (code, cut, range); the rule's details stay with the server
    assert found[0].data["code"] == "CS008" and found[0].data["cut"] == 40 and "data" not in found[0].data


def test_a_big_element_is_split_between_children_with_its_tags_kept_on():
    tab = "<Tab title='{n}'>\n\n```sh\n" + "echo step\n" * 12 + "```\n\n</Tab>"
    text = "<Tabs>\n" + "\n".join(tab.format(n=n) for n in range(3)) + "\n</Tabs>\n"
    doc = Document(text, path="big.mdx")
    chunks = MD.chunk(doc, CHARS, size=200)
    assert len(chunks) >= 3
    for c in chunks:
        # no chunk is only markup: each holds a whole fence
        assert "```sh" in c.text and c.text.count("```") % 2 == 0, c.text
    assert chunks[0].text.startswith("<Tabs>\n<Tab title='0'>")
    assert chunks[-1].text.endswith("</Tab>\n</Tabs>")


def test_void_html_elements_do_not_swallow_the_file():
    text = "<img src='a.png'>\n\nText.\n\n<br>\n\n# More\n"
    got = [(b.kind, text[b.start : b.end]) for b in parse_blocks(text, True)]
    assert got[0] == ("jsx", "<img src='a.png'>") and ("heading", "# More") in got
    # a deep pile of unclosed elements stays bounded (markdown-it's nesting limit)
    deep = "<A>\n" * 2000
    assert max(b.depth for b in parse_blocks(deep, True)) < 50
