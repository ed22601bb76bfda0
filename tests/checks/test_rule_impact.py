"""What a cut costs: a unit whole in another chunk (overlap), or a cut in
decoration, is info and says why; only lost content is loud. Also the
causes of worthless reports fixed with it: long markup paragraphs (CS002),
closing tags in badge rows (CS008), bare wrapper tags in .md (CS008), prose
indented in a block quote, whole small sections (CS102) and the readings of
CS103. The documents are written for these tests."""

from __future__ import annotations

import json

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.tokens.tiktoken import CharSizer
from chunkseam.engine.validate import statistics, validate
from clikit import run
from lsp_support import CONFIG, initialize, open_doc, shutdown, wait_published


def cut_at(text: str, *offsets: int) -> list[Chunk]:
    bounds = [0, *offsets, len(text)]
    return [Chunk(a, b, k, source=text) for k, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def after(text: str, marker: str) -> int:
    return text.index(marker) + len(marker)


def issues(text: str, chunks, path: str = "doc.md", **settings):
    doc = Document(text, path=path, kind="markdown")
    settings.setdefault("min_tokens", 0)
    return validate(doc, chunks, Settings(**settings), sizer=CharSizer())


# -- overlap: whole in the neighbouring chunk -------------------------------------------------

HARBOUR = (
    "# Harbour\n\n"
    "Harbour schedules container builds across a pool of workers. Each worker pulls the next job "
    "from the queue, builds it in a clean sandbox and uploads the image to the registry named in "
    "the job. A failed build is retried twice before it is reported.\n\n"
    "## Limits\n\n"
    "Builds are stopped after forty minutes. Raise the limit with the timeout key of the job file "
    "when a build legitimately takes longer.\n"
)


def test_a_sentence_whole_in_the_next_chunk_through_the_overlap_is_info_and_says_where():
    text = HARBOUR
    sentence = text.index("Each worker pulls")
    cut = after(text, "Each worker pulls the next")
    chunks = [Chunk(0, cut, 0, source=text), Chunk(sentence, len(text), 1, source=text)]
    [i] = [i for i in issues(text, chunks) if i.code == "CS002"]
    assert i.severity == "info"
    assert i.message.endswith("— the sentence is whole in chunk 2 (overlap)"), i.message
    assert i.data["impact"] == "whole-elsewhere" and i.data["whole_in"] == 1
    # the setting makes it loud again; without overlap the same cut is lost content
    [loud] = [i for i in issues(text, chunks, loud_overlap=True) if i.code == "CS002"]
    assert loud.severity == "warning" and "overlap" not in loud.message
    [lost] = [i for i in issues(text, cut_at(text, cut)) if i.code == "CS002"]
    assert lost.severity == "warning" and "impact" not in lost.data


def test_a_cut_sentence_the_overlap_does_not_hold_whole_stays_loud():
    text = HARBOUR
    cut = after(text, "Each worker pulls the next")
    chunks = [Chunk(0, cut, 0, source=text), Chunk(cut - 10, len(text), 1, source=text)]
    [i] = [i for i in issues(text, chunks) if i.code == "CS002"]
    assert i.severity == "warning"


def test_only_a_closing_mark_across_the_cut_is_info():
    text = ("# Setup\n\nThe loader looks for a factory (``create_app`` or ``make_app``). "
            "Both names are tried in order.\n")
    cut = after(text, "``make_app``")
    found = issues(text, cut_at(text, cut))
    assert found and all(i.severity == "info" for i in found), [(i.code, i.message) for i in found]
    assert found[0].message.endswith("— only “)” of the span is on one side of the cut")


# -- decoration ----------------------------------------------------------------------------------

BADGES = """# Quarry

<p align="center">
  <a href="https://ci.example.org/quarry"><img src="https://img.shields.io/badge/build-passing-green.svg" alt="build"></a>
  <a href="https://pypi.org/project/quarry"><img src="https://img.shields.io/pypi/v/quarry.svg" alt="PyPI"></a>
  <a href="https://quarry.readthedocs.io"><img src="https://img.shields.io/badge/docs-latest-blue.svg" alt="docs"></a>
</p>

Quarry extracts tables from scanned invoices and writes them as CSV files that a spreadsheet opens.
"""


def test_a_cut_in_a_badge_row_is_info_and_the_setting_makes_it_loud():
    text = BADGES
    cut = after(text, "https://img.shields.io/pypi/v/qua")
    [i] = [i for i in issues(text, cut_at(text, cut)) if i.cut is not None]
    assert i.severity == "info" and i.data["impact"] == "decoration"
    assert i.message.endswith("(decoration)") and "badge row" in i.message
    [loud] = [i for i in issues(text, cut_at(text, cut), loud_decoration=True) if i.cut is not None]
    assert loud.code == i.code and loud.severity in ("error", "warning")
    # the prose after it is content: a cut there stays loud
    prose = after(text, "writes them as CSV")
    [content] = [i for i in issues(text, cut_at(text, prose)) if i.cut is not None]
    assert content.code == "CS002" and content.severity == "warning"


def test_a_table_of_contents_a_roster_and_a_licence_are_decoration():
    toc = ("# Tessera\n\n## Contents\n\n- [Installing Tessera](#installing-tessera)\n"
           "- [Tiling an image](#tiling-an-image)\n- [Choosing a grid](#choosing-a-grid)\n"
           "- [Exporting mosaics](#exporting-mosaics)\n\n## Installing Tessera\n\nRun the installer.\n")
    cut = after(toc, "- [Tiling an im")
    [i] = issues(toc, cut_at(toc, cut))
    assert i.severity == "info" and i.data["region"] == "a table of contents"

    names = ["Ada Byron", "Grace Hopper", "Alan Kay", "Barbara Liskov", "Ken Thompson", "Edsger Dijkstra"]
    roster = "# Thanks\n\nThis release was made by:\n\n" + "".join(
        f"{n} ([@{n.split()[0].lower()}](https://github.com/{n.split()[0].lower()})),\n" for n in names)
    cut = after(roster, "Alan Kay ([@alan](https://github.com/al")
    [i] = issues(roster, cut_at(roster, cut))
    assert i.severity == "info" and i.data["region"] == "a roster of names and links"

    licence = ("MIT License\n\nCopyright (c) 2031 The Quarry Authors\n\nPermission is hereby granted, "
               "free of charge, to any person obtaining a copy of this software and associated "
               "documentation files, to deal in the Software without restriction.\n")
    cut = after(licence, "to any person obtaining")
    for path in ("LICENSE.md", "docs/legal.md"):
        [i] = issues(licence, cut_at(licence, cut), path=path)
        assert i.severity == "info" and i.data["region"] == "licence text"


def test_the_broken_chunk_rate_counts_loud_issues_only():
    text = BADGES
    chunks = cut_at(text, after(text, "https://img.shields.io/pypi/v/qua"), after(text, "writes them as CSV"))
    quiet = statistics(chunks, issues(text, chunks))
    loud = statistics(chunks, issues(text, chunks, loud_decoration=True))
    assert quiet.chunks_with_issues == 1 and loud.chunks_with_issues == 2
    assert quiet.per_rule == loud.per_rule  # the same issues, graded apart


def test_cli_json_carries_the_grade_and_the_reason(tmp_path, capsys):
    (tmp_path / "README.md").write_text(BADGES, encoding="utf-8")
    rc, out, _err = run(capsys, "lint", str(tmp_path / "README.md"), "--chunker", "fixed", "--size", "150",
                        "--unit", "chars", "--format", "json")
    data = json.loads(out)
    badge = [i for i in data["issues"] if i["data"].get("impact") == "decoration"]
    assert badge and all(i["severity"] == "info" for i in badge)
    loud = [i for i in data["issues"] if i["severity"] in ("error", "warning")]
    assert data["summary"]["chunks_with_issues"] == len({i["chunk"] for i in loud if i["data"]["side"] != "start"}
                                                        | {i["other_chunk"] for i in loud if i["data"]["side"] == "start"})


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    from lsp_support import shutdown as _shutdown

    await _shutdown(lsp_client)


async def test_the_editor_grades_as_the_library_does(client: LanguageClient, tmp_path):
    settings = {"chunker": "fixed", "size": 150, "unit": "chars"}
    await initialize(client, init_options={"settings": settings})
    path = tmp_path / "README.md"
    path.write_text(BADGES, encoding="utf-8")
    open_doc(client, path.as_uri(), BADGES)
    published = await wait_published(client, path.as_uri())
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.document.text import load

    s = Settings(chunker="fixed", size=150, unit="chars")
    doc = load(str(path))
    _info, chunks = make_chunks(doc, s, sizer_for(s))
    want = {(i.code, i.message, i.severity) for i in validate(doc, chunks, s, sizer=sizer_for(s))}
    level = {types.DiagnosticSeverity.Error: "error", types.DiagnosticSeverity.Warning: "warning",
             types.DiagnosticSeverity.Information: "info", types.DiagnosticSeverity.Hint: "hint"}
    got = {(d.code, d.message, level[d.severity]) for d in published.diagnostics}
    assert got == want
    assert any(sev == "info" and "(decoration)" in msg for _c, msg, sev in got)


# -- cause 1: a long paragraph of markup ----------------------------------------------------------


def test_a_wall_of_forty_avatar_links_is_never_mid_sentence():
    links = "\n".join(
        f'<a href="https://opencollective.com/backer-{n}/website" target="_blank">'
        f'<img src="https://opencollective.com/backer-{n}/avatar.svg?size=64" alt="Backer {n}"></a>'
        for n in range(40))
    text = f"# Kiln\n\n## Backers\n\nThank you to every backer!\n\n{links}\n\n## License\n\nApache-2.0\n"
    starts = [m for m in range(len(text)) if text.startswith("<a href", m)]
    chunks = cut_at(text, *starts[5::6])
    found = issues(text, chunks, loud_decoration=True)
    assert [i for i in found if i.code == "CS002"] == []
    # a long prose paragraph is still read for its sentences
    prose = " ".join(f"Step {n} warms the kiln by ten degrees and waits for the sensor to settle." for n in range(80))
    text = f"# Kiln\n\n{prose}\n"
    cut = after(text, "Step 60 warms the kiln")
    assert [i.code for i in issues(text, cut_at(text, cut)) if i.cut is not None] == ["CS002"]


# -- cause 2: closing tags and line breaks in a row of badges ---------------------------------------

SPONSORS = """# Lathe

<p align="center">
<a href="https://one.example.com"><img src="https://example.com/one.svg" height="40" alt="One"></a>
<a href="https://two.example.com"><img src="https://example.com/two.svg" height="40" alt="Two"></a>
</p>

<p align="center">
<a href="https://gold.example.com"><img src="https://example.com/gold.svg" height="60" alt="Gold sponsor"></a>
<br>
<br>
</p>

<picture>
  <source media="(prefers-color-scheme: dark)" srcset="https://example.com/logo-dark.svg">
  <img src="https://example.com/logo.svg" alt="Lathe">
</picture>

Lathe turns YAML into typed settings.
"""


@pytest.mark.parametrize("marker", ['alt="One">', 'alt="Gold sponsor">', 'alt="Gold sponsor"></a>'])
def test_a_cut_before_a_closing_tag_or_the_breaks_after_a_badge_is_clean(marker):
    text = SPONSORS
    found = issues(text, cut_at(text, after(text, marker)), loud_decoration=True)
    assert [i for i in found if i.cut is not None] == [], [i.message for i in found]


def test_a_cut_inside_a_picture_is_still_reported():
    text = SPONSORS
    found = issues(text, cut_at(text, after(text, 'srcset="https://example.com/logo-dark.svg">')),
                   loud_decoration=True)
    assert [i.code for i in found if i.cut is not None] == ["CS008"]


# -- cause 7: a bare wrapper tag in .md; prose in a block quote ---------------------------------------

ROUTES = """# Routing

Routes map URLs to handlers.

<PagesOnly>

- Put each page in the `pages/` directory.
- A file named `index.js` serves the directory's root.

</PagesOnly>

<div align="center">

![Routing diagram](routing.png)

</div>

Dynamic segments use brackets.
"""


@pytest.mark.parametrize("path", ["routing.md", "routing.mdx"])
def test_a_chunk_ending_with_a_bare_component_tag_is_cs008_in_md_as_in_mdx(path):
    text = ROUTES
    doc = Document(text, path=path)
    found = validate(doc, cut_at(text, after(text, "<PagesOnly>\n")), Settings(min_tokens=0), sizer=CharSizer())
    [i] = [i for i in found if i.cut is not None]
    assert i.code == "CS008" and i.severity == "warning" and "<PagesOnly>" in i.message


def test_a_styling_wrapper_ending_a_chunk_is_clean():
    text = ROUTES
    found = issues(text, cut_at(text, after(text, '<div align="center">\n')))
    assert [i for i in found if i.cut is not None] == []


def test_prose_indented_in_a_block_quote_is_judged_as_text():
    text = """# Frob

Frob bundles a decoder, under this notice:

>       This software is provided without any warranty. In no event will the authors be
>       held liable for any damages arising from the use of this software, and everyone
>       may use it for any purpose, including commercial applications, and alter it.

A session:

>     $ frob --level=9 input.bin > output.frob
>     frob: wrote 1024 bytes; ratio=0.42
"""
    [i] = [i for i in issues(text, cut_at(text, after(text, "held liable"))) if i.cut is not None]
    assert i.code == "CS002" and "code block" not in i.message
    [c] = [i for i in issues(text, cut_at(text, after(text, "input.bin"))) if i.cut is not None]
    assert c.code == "CS003"


# -- CS102: a whole small section ---------------------------------------------------------------------

SMALL = """# Sieve

Sieve filters log lines by level, source and time window, and writes what is left as JSON.

## Installation

    pip install sieve

## License

[MIT](LICENSE)
"""


def test_a_whole_small_section_is_a_hint_that_says_so():
    text = SMALL
    chunks = cut_at(text, text.index("## Installation"), text.index("## License"))
    doc = Document(text, path="README.md", kind="markdown")
    found = [i for i in validate(doc, chunks, Settings(min_tokens=40, unit="chars"), sizer=CharSizer())
             if i.code == "CS102"]
    assert found and all(i.severity == "hint" and "a whole section" in i.message for i in found)
    assert all(set(i.data) >= {"chars", "min_chars"} and "tokens" not in i.data for i in found)
    # a heading alone (its body in the next chunk) is a fragment
    chunks = cut_at(text, text.index("## License"), after(text, "## License\n"))
    lone = [i for i in validate(doc, chunks, Settings(min_tokens=40, unit="chars"), sizer=CharSizer())
            if i.code == "CS102" and i.start == text.index("## License")]
    assert lone and lone[0].severity == "info" and "whole section" not in lone[0].message


# -- CS103 ---------------------------------------------------------------------------------------------

COURIER = """# Courier

Courier routes messages between services through a broker, Redis or RabbitMQ, chosen by the URL.

This will instantiate the agent.

```python
agent = Agent("redis://localhost")
```

Run the script with `python send.py`.

This will print:

```text
sent 1 message
```

Three brokers were measured: Redis, RabbitMQ and NATS, each with a thousand publishers.

All of them delivered every message, but these three are the best for latency.

The old loader read `a.toml`, `b.toml` and `c.toml` in that order.

Before, b and c would override a; now the first file wins.

This module provides a `route()` decorator and an `Agent` class.

It keeps two queues per service, the inbox and the outbox, and both queues are flushed on exit.
"""


def cs103(text: str, *openings: str):
    chunks = cut_at(text, *(text.index(o) for o in openings))
    return {text[i.start:].split("\n")[0][:25]: i.message for i in issues(text, chunks) if i.code == "CS103"}


def test_cs103_reads_what_the_opening_points_at():
    got = cs103(COURIER, "This will instantiate", "This will print", "All of them", "Before, b",
                "This module provides", "It keeps two queues")
    # forward: the code that follows does what it announces; the project describing itself
    assert not any(k.startswith(("This will instantiate", "This module")) for k in got), got
    # back: what the code before prints; the three and the files named before
    assert any(k.startswith("This will print") for k in got), got
    assert any("these three" in m for m in got.values()), got
    assert any('"Before,"' in m for m in got.values()), got
    # "both queues" names what the sentence counted itself
    assert not any("both" in m for m in got.values()), got
    assert all("in chunk" in m for m in got.values())


def test_cs103_both_pointing_back():
    text = ("# Lint\n\nThe checker reads `import os` and `import sys` at the top of a module and reports "
            "unused imports.\n\nWhereas here, both imports will be reported: neither is used.\n")
    got = cs103(text, "Whereas here")
    assert any("both imports" in m for m in got.values()), got
