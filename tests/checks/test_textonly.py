"""Text-only mode: the field article's four checks, made Markdown-aware."""

from __future__ import annotations

import pytest
from cutkit import spans_from_cuts, unmark

from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate_text_only


def pieces(marked: str) -> list[str]:
    text, cuts = unmark(marked)
    return [text[a:b] for a, b in spans_from_cuts(len(text), cuts)]


def flagged(marked: str, settings=None) -> list[tuple[str, int]]:
    return sorted((i.code, i.chunk) for i in validate_text_only(pieces(marked), settings))


@pytest.mark.parametrize("marked", [
    "Intro paragraph.\n\n## Next heading\n✂\nBody text starts here.",
    "A list:\n\n- first item without a period\n- second item\n✂\nNext paragraph.",
    "| a | b |\n|---|---|\n| 1 | 2 |\n✂\nText after.",
    "Code:\n\n```py\nx = 1\n```\n✂\nText after.",
    "See the docs at https://example.com/docs\n✂\nThen continue.",
    "Read [the guide](https://example.com)\n✂\nThen continue.",
    "Run `pip install chunkseam`\n✂\nThen continue.",
    "/// tip\n✂\nText inside the tip.",
    "First paragraph ends here:\n✂\nSecond one starts.",
    "uv is a fast tool. It works.\n✂\nuv also manages Python versions. uv is great.",
    "Intro.\n✂\n`code` starts this paragraph.",
    "Intro.\n✂\n42 is the answer.",
    "Options a) first and b) second here.\n✂\nNext.",
    "Smile :) it works.\n✂\nNext.",
])
def test_markdown_aware_edges_are_clean(marked):
    assert flagged(marked) == []


@pytest.mark.parametrize("marked,expected", [
    ("Set the timeout to ✂30 seconds now.", [("CS401", 0)]),
    ("Set the timeout ✂to 30 seconds now.", [("CS401", 0), ("CS402", 1)]),
    ("Use the pool (it holds ✂ten connections) now.",
     [("CS401", 0), ("CS402", 1), ("CS403", 0), ("CS403", 1)]),
    ("Text.\n\n```py\nx = 1\n✂y = 2\n```\n\nAfter.", [("CS404", 0), ("CS404", 1)]),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n✂| 3 | 4 |\n", [("CS405", 1)]),
    ("Intro.\n\n| a | b |\n|---|---|\n✂| 1 | 2 |\n", [("CS405", 0), ("CS405", 1)]),
    ("One sentence ends here.\n✂, and this continues.", [("CS402", 1)]),
])
def test_broken_edges_are_flagged(marked, expected):
    assert flagged(marked) == expected


def test_document_edges_and_offsets_relative_to_each_chunk():
    texts = ["starts lower case and ends without a period", "Middle chunk.", "Ends without"]
    got = validate_text_only(texts)
    # the first chunk's start and the last chunk's end are document edges
    assert sorted((i.code, i.chunk) for i in got) == [("CS401", 0)]
    (i,) = got
    assert (i.start, i.end) == (0, len(texts[0])) and i.data == {"at": "end"}
    got = validate_text_only(texts, edges=False)
    assert ("CS402", 0) in [(i.code, i.chunk) for i in got] and ("CS401", 2) in [(i.code, i.chunk) for i in got]


def test_list_items_are_not_broken_sentences_but_the_fence_still_is():
    # the left chunk ends in a list item: not judged; the right one starts mid-prose
    assert flagged("- step one\n- step ✂two\n- step three") == [("CS402", 1)]
    assert flagged("- step one\n- step two\n✂- step three") == []
    assert flagged("- step one\n\n  ```\n  x\n✂  y\n  ```\n") == [("CS404", 0), ("CS404", 1)]


def test_selection_and_bad_input():
    assert flagged("Set the timeout ✂to 30.", Settings(ignore=("CS401",))) == [("CS402", 1)]
    assert validate_text_only([]) == [] and validate_text_only(None) == []  # type: ignore[arg-type]
    assert validate_text_only(["", "   ", None, 5, "Fine."]) == []  # type: ignore[list-item]
    severities = {i.severity for i in validate_text_only(pieces("A ✂b"), Settings(severity={"CS4": "info"}))}
    assert severities == {"info"}
