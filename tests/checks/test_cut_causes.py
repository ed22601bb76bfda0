"""The causes behind the judged set's wrong reports and misses, one small
document each (benchmarks/judged.py measures them on the real corpus)."""

from __future__ import annotations

import pytest
from cutkit import marked, unmark

from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

S = Settings()


def cut_codes(body: str, path: str | None = None) -> list[tuple[str, str]]:
    doc, chunks, _ = marked(body, path=path)
    _, cuts = unmark(body)
    out = []
    for i in validate(doc, chunks, S):
        if i.cut is not None:
            out.append((i.code, i.message))
    assert cuts
    return out


def only(body: str, path: str | None = None) -> list[str]:
    return [c for c, _m in cut_codes(body, path)]


@pytest.mark.parametrize("body", [
    # avatar links one per line (no prose between)
    "Thanks to our sponsors:\n\n<a href=\"https://a.example\"><img src=\"a.png\"></a>\n"
    "✂<a href=\"https://b.example\"><img src=\"b.png\"></a>\n\nMore text follows here.\n",
    # a badge row
    "[![npm](https://img.shields.io/npm/v/x.svg)](https://npmjs.com/x)\n"
    "✂[![ci](https://example.com/ci.svg)](https://example.com/ci)\n\nText.\n",
    # avatars on one line, after a sentence
    "Backers: [<img src=\"a.svg\"/>](https://a.example) ✂[<img src=\"b.svg\"/>](https://b.example)\n",
])
def test_markup_beside_a_cut_is_not_a_sentence(body):
    assert "CS002" not in only(body)


def test_a_sentence_with_a_link_is_still_a_sentence():
    assert only("Read the [guide](https://example.com/guide) before you ✂install it.\n") == ["CS002"]


def test_between_balanced_elements_is_clean_inside_one_is_cs008():
    clean = ("<p align=\"center\">\n  <a href=\"https://x.example\"><img src=\"x.svg\"></a>\n</p>\n"
             "✂<h3 align=\"center\">Sponsors</h3>\n\nText.\n")
    assert "CS008" not in only(clean)
    inside = ("<picture>\n  <source srcset=\"dark.svg\">\n✂  <img src=\"logo.svg\">\n</picture>\n\nText.\n")
    got = cut_codes(inside)
    assert [c for c, _ in got] == ["CS008"] and "<picture>" in got[0][1]
    attr = "<p>\n  <img src=\"https://example.com/lo✂go.svg\" alt=\"x\">\n</p>\n\nText.\n"
    got = cut_codes(attr)
    assert got[0][0] == "CS008" and "inside the tag <img" in got[0][1]
    comment = "<!--\nA licence header\n✂that runs on\n-->\n\nText.\n"
    assert cut_codes(comment)[0][0] == "CS008" and "comment" in cut_codes(comment)[0][1]


def test_a_table_right_inside_a_div_is_a_table():
    body = ("<div align=\"center\">\n| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n</div>\n\nText.\n")
    assert only(body) == ["CS004"]


def test_a_fence_right_inside_an_mdx_component_is_a_fence():
    body = "<CodeGroup>\n```python\nx = 1\n\n# not a heading\n✂y = 2\n```\n</CodeGroup>\n"
    assert only(body, path="doc.mdx") == ["CS003"]


def test_block_quoted_list_the_quote_marker_line_is_between_items():
    body = "> 1. First item of the list.\n>\n✂> 2. Second item of the list.\n"
    assert "CS005" not in only(body)
    body_in = "> 1. First item of the list,\n>    ✂still the first.\n>\n> 2. Second item.\n"
    assert only(body_in) == ["CS005"]


def test_heading_cut_before_its_trailing_spaces_is_an_orphan_heading():
    body = "Intro text here.\n\n## Title✂   \n\nThe section body follows.\n"
    assert only(body) == ["CS007"]


def test_indented_code_whole_on_one_side_is_not_split():
    body = "For instance:\n\n    ✂terser input.js\n    more code\n\nAfter.\n"
    assert "CS003" not in only(body)
    assert only("For instance:\n\n    terser input.js\n    ✂more code\n\nAfter.\n") == ["CS003"]


def test_mdx_indentation_is_not_code_and_mkdocs_admonitions_hold_markdown():
    body = "<Aside>\n\n    Some prose in an aside.\n\n    ✂More prose in the aside.\n\n</Aside>\n"
    assert "CS003" not in only(body, path="page.mdx")
    adm = "!!! note\n\n    Some prose in a note.\n\n    ✂More prose in the note.\n\nAfter.\n"
    assert "CS003" not in only(adm)
    fence = "!!! note\n\n    ```python\n    x = 1\n    ✂y = 2\n    ```\n\nAfter.\n"
    assert only(fence) == ["CS003"]


@pytest.mark.parametrize("body", [
    "See [x][0.11.0].\n\n[0.11.0✂]: https://example.com/compare/v0.10.0...v0.11.0\n",
    "See [x][2.22.0].\n\n[2.22.0]:✂ https://example.com/compare/v2.21.0...v2.22.0\n",
])
def test_a_cut_inside_a_link_reference_definition_is_cs006(body):
    got = cut_codes(body)
    assert [c for c, _ in got] == ["CS006"] and "link reference definition" in got[0][1]


def test_a_cut_inside_emphasis_at_a_sentence_end_is_cs006():
    got = cut_codes("Before upgrading: **Remove the config.✂** Then run it.\n")
    assert [c for c, _ in got] == ["CS006"] and "emphasis" in got[0][1]
    # a whole passage in italics is not a span to keep whole
    assert only("*One sentence here. ✂Another sentence here.*\n") == []


@pytest.mark.parametrize("opening,flagged", [
    ("It is also possible to set it per request.", False),
    ("It's recommended to keep it short.", False),
    ("It was obvious that the pool was too small.", False),
    ("This guide describes the setup.", False),
    ("It is *highly* recommended users migrate now.", False),
    ("It can happen that the pool is too small.", False),
    ("It can be set per request.", True),
    ("It prevents dropped connections.", True),
    ("This prevents dropped connections.", True),
    ("In the example above, the timeout applies to every request.", True),
    ("As shown above, the pool is shared.", True),
])
def test_dangling_reference_knows_expletives_and_self_reference(opening, flagged):
    body = f"Set the timeout to 30 seconds.\n\n✂{opening}\n"
    doc, chunks, _ = marked(body)
    got = [i.code for i in validate(doc, chunks, S)]
    assert ("CS103" in got) is flagged, got


def test_forward_reference_with_the_example_in_the_chunk_is_not_dangling():
    body = "Set the timeout.\n\n✂This example demonstrates a timeout:\n\n```python\nget(url, timeout=3)\n```\n"
    doc, chunks, _ = marked(body)
    assert "CS103" not in [i.code for i in validate(doc, chunks, S)]
    body = "Set the timeout.\n\n✂This example demonstrates a timeout per request.\n"
    doc, chunks, _ = marked(body)
    assert "CS103" in [i.code for i in validate(doc, chunks, S)]
