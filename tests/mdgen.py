"""Hypothesis strategies for tricky Markdown (and a little Python), shared by
tests/structure/test_structure.py and tests/engine/test_properties.py.

Documents are built from lines that exercise the block parser's edges:
headings (ATX, setext, closing hashes, no space), fences (``` and ~~~,
longer closers, closed or not, inside list items and block quotes), HTML
blocks of every CommonMark type (comments, ``<script>``, processing
instructions, CDATA, declarations, ``<div>``), front matter with ``# comment``
lines, tables, nested lists and quotes, indented code, link reference
definitions, blank lines — joined with ``\\n``, ``\\r\\n`` or lone ``\\r``.
"""

from __future__ import annotations

from hypothesis import strategies as st

LINES = (
    "# Title", "## Sub section", "###### deep", "#no space", "#", "# closing #", "  # indented",
    "", "", "", "", "A plain line of text.", "Two sentences here. And another one!",
    "Setext", "===", "---", "***", "- - -",
    "```", "```python", "~~~", "~~~~", "````", "   ```", "    indented code", "\tcode",
    "<!--", "-->", "<!-- one line -->", "<script>", "</script>", "<style>", "</style>",
    "<div>", "</div>", "<pre>", "</pre>", "<?php", "?>", "<![CDATA[", "]]>", "<!DOCTYPE html>",
    "<custom-tag>", "| a | b |", "|---|---|", "| 1 | 2 |", "a | b", "--- | ---",
    "- item", "* item", "+ item", "1. item", "2) item", "  - nested", "    - nested deeper",
    "> quote", "> # quoted heading", "> ```", ">", "> > double", "- ```", "  ```", "- # h",
    "> - x", "   > indented quote", "[ref]: http://example.com", "[ref]:", "  http://x 'title'",
    "+++", "...", "Text with `code` and [a link](http://x) and *emphasis*.",
    "日本語の文。二つ目の文。", "emoji 😀 line", "combining e\u0301 mark",
)
PREFIXES = ("", "", "", "", "> ", "- ", "  ", "    ", "1. ", "> > ", "- > ", "> - ", "   ")
EOLS = ("\n", "\n", "\r\n", "\r")

_free_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
    max_size=30,
)
line = st.one_of(
    st.sampled_from(LINES),
    st.tuples(st.sampled_from(PREFIXES), st.sampled_from(LINES)).map("".join),
    _free_text,
)
front_matter = st.lists(
    st.sampled_from(("title: x", "# a yaml comment", "tags: [a, b]", "", "## not a heading")),
    max_size=4,
).flatmap(
    lambda body: st.sampled_from(("---", "...", "# never closed")).map(
        lambda close: ["---", *body, close]
    )
)


@st.composite
def markdown_texts(draw, max_lines: int = 40) -> str:
    lines: list[str] = []
    if draw(st.booleans()) and draw(st.booleans()):
        lines.extend(draw(front_matter))
    lines.extend(draw(st.lists(line, max_size=max_lines)))
    eol = draw(st.sampled_from(EOLS))
    text = eol.join(lines)
    if draw(st.booleans()):
        text += eol
    return text


PY_LINES = (
    "import os", "from x import (a,", "    b)", '"""Module docstring."""', "",
    "@decorator", "def f(a, b='😀'):", "    return a  # comment", "    '''doc'''",
    "class C(Base):", "    x = 1", "    def m(self):", "        pass", "# a comment",
    "async def g():", "    await h()", "if __name__ == '__main__':", "    main()",
    "s = f'{x!r:>{w}} 日本'", "t = ('a' 'b'", "     'c')", "def broken(:", "    ",
    "x = 1; y = 2", "class D: z = 3", "def k(): return '''multi", "line'''",
)


@st.composite
def python_texts(draw) -> str:
    lines = draw(st.lists(st.sampled_from(PY_LINES), max_size=30))
    eol = draw(st.sampled_from(("\n", "\n", "\r\n")))
    return eol.join(lines) + (eol if draw(st.booleans()) else "")
