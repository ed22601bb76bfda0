"""The second round of causes of loud but worthless cut reports, each on a
document written for these tests: sponsor walls in raw HTML, page code
(MDX import/export blocks, templates bound to data), one-line generated
directives, tables whose rows name what they describe, orphaned headings
whose body says them again, and units longer than any chunk cut at a blank
line. Each is info and says why; the settings make them loud again, and the
content cuts next to them stay loud."""

from __future__ import annotations

import json

from chunkseam.core.chunk import Chunk
from clikit import run
from cutkit import LOUD, after, at, cut_at, issues  # noqa: F401



# -- sponsor walls in raw HTML ----------------------------------------------------------------------

def _sponsor(name: str, blurb: str) -> str:
    return (f'<td align="center"><a href="https://{name.lower()}.example.com/?ref=ferrule">'
            f'<img width="64" src="https://cdn.example.com/logos/{name.lower()}.png" alt="{name}"></a>'
            f'<p>{blurb}</p></td>')


SPONSORS = (
    "# Ferrule\n\nFerrule pins dependency versions across a monorepo and opens one pull request a week.\n\n"
    '<h3 align="center">Our sponsors</h3>\n<table align="center"><tr>'
    + _sponsor("Brightlane", "Hosted CI for teams that ship daily.")
    + _sponsor("Cobaltware", "Observability without the sampling guesswork.")
    + _sponsor("Driftwood", "Managed Postgres with point-in-time restore.")
    + "</tr><tr>"
    + _sponsor("Eastgate", "Security reviews for open source maintainers.")
    + _sponsor("Foxglove", "Feature flags that roll back themselves.")
    + "</tr></table>\n\n"
    "## Usage\n\nRun `ferrule pin` at the repository root; it writes ferrule.lock next to the manifest.\n"
)


def test_a_cut_inside_a_sponsor_table_of_linked_logos_is_info_and_the_setting_makes_it_loud():
    text = SPONSORS
    cut = after(text, "point-in-time restore.</p></td>")
    chunks = cut_at(text, cut)
    [i] = at(issues(text, chunks), "CS008", cut)
    assert i.severity == "info" and i.data["impact"] == "decoration"
    assert "sponsor or logo wall" in i.message
    [loud] = at(issues(text, chunks, loud_decoration=True), "CS008", cut)
    assert loud.severity in LOUD


def test_an_html_table_of_prose_cells_is_content_and_stays_loud():
    rows = "".join(f"<tr><td>{k}</td><td>Retries a failed {k} step up to three times, then stops the "
                   f"pipeline and reports which input broke it.</td></tr>"
                   for k in ("fetch", "build", "upload", "notify"))
    text = "# Steps\n\n<table>" + rows + "</table>\n\nMore prose follows here.\n"
    cut = after(text, "then stops the pipeline and reports which input broke it.</td></tr><tr><td>build")
    found = [i for i in issues(text, cut_at(text, cut)) if i.cut == cut and i.code.startswith("CS00")]
    assert found and all(i.severity in LOUD for i in found)


# -- page code: MDX import/export blocks, templates bound to data ----------------------------------

ACK = (
    "# Acknowledgements\n\nThe project builds on the work of these authors.\n\n"
    '<table class="authors">\n  <tbody>\n'
    '    <tr v-for="author in authors" :key="author.name">\n'
    '      <td><a :href="author.url">{{ author.name }}</a></td>\n'
    '      <td><span v-for="pkg in author.packages">{{ pkg }}</span></td>\n'
    "    </tr>\n  </tbody>\n</table>\n\n"
    "## Licences\n\nEvery dependency is listed with its licence in the NOTICE file of each release.\n"
)


def test_a_cut_inside_a_template_bound_to_data_is_page_code():
    text = ACK
    cut = after(text, "{{ author.name }}</a></td>")
    [i] = at(issues(text, cut_at(text, cut)), "CS008", cut)
    assert i.severity == "info" and "page code" in i.message and i.data["region"].startswith("page code")


MDX = (
    "import { Callout } from 'components/callout'\n\n"
    "# Colour themes\n\nThemes are picked from the operating system unless the page sets one.\n\n"
    "export function Swatches() {\n"
    "  const colours = ['#0b7285', '#e8590c', '#5c940d', '#862e9c', '#c92a2a']\n"
    "  return (\n    <div className=\"swatches\">\n"
    "      {colours.map(c => <span key={c} style={{ background: c }} />)}\n"
    "    </div>\n  )\n}\n\n"
    "## Custom themes\n\nA theme is a JSON file of colour roles; put it next to the page that uses it.\n"
)


def test_a_cut_inside_an_mdx_export_block_is_page_code():
    text = MDX
    cut = after(text, "'#5c940d', ")
    found = issues(text, cut_at(text, cut), path="themes.mdx")
    [i] = at(found, "CS008", cut)
    assert i.severity == "info" and "page code (an MDX import/export block)" in i.message


# -- reStructuredText: a one-line directive with no text of its own ---------------------------------

API = (
    "Parser API\n==========\n\n"
    "The parser turns a source string into a tree.  Most users never call it directly.\n\n"
    ".. automethod:: Parser.tokenize\n\n"
    ".. automethod:: Parser.parse_expression\n\n"
    ".. automethod:: Parser.free_identifier\n\n"
    ".. warning:: Calling parse twice on one parser reuses its stream\n\n"
    "The tree is immutable once the parser returns it.\n"
)


def test_a_cut_in_a_generated_directive_is_info_and_an_admonition_is_not():
    text = API
    cut = after(text, ".. automethod::")
    [i] = at(issues(text, cut_at(text, cut), path="api.rst"), "CS008", cut)
    assert i.severity == "info" and "no text of its own" in i.message
    cut2 = after(text, ".. warning:: Calling parse twice")
    found = [i for i in issues(text, cut_at(text, cut2), path="api.rst") if i.cut == cut2]
    assert found and all("no text of its own" not in i.message for i in found)
    assert any(i.severity in LOUD for i in found)


# -- tables whose rows name what they describe ------------------------------------------------------

PLUGINS = (
    "# Plugins\n\nEach plugin is a separate package.\n\n"
    "| Name | Version | Description |\n|------|---------|-------------|\n"
    "| [quill-lint](https://example.com/quill-lint) | ![v](https://img.example.com/v/quill-lint.svg) "
    "| Checks the manuscript for repeated words and long sentences. |\n"
    "| [quill-toc](https://example.com/quill-toc) | ![v](https://img.example.com/v/quill-toc.svg) "
    "| Builds a table of contents from the chapter headings. |\n"
    "| [quill-epub](https://example.com/quill-epub) | ![v](https://img.example.com/v/quill-epub.svg) "
    "| Packs the book as an EPUB 3 file with its cover. |\n\n"
    "Install a plugin with `quill add NAME`.\n"
)

TIMINGS = (
    "# Timings\n\nMedian of five runs on the reference machine.\n\n"
    "| Corpus | Files | Seconds | Peak MB |\n|--------|-------|---------|---------|\n"
    "| small | 120 | 0.8 | 64 |\n| medium | 2400 | 9.6 | 210 |\n| large | 51000 | 188 | 1450 |\n\n"
    "The large corpus is swap-bound on 2 GB machines.\n"
)


def test_self_describing_rows_cut_between_rows_are_info_and_rows_of_figures_stay_loud():
    cut = after(PLUGINS, "long sentences. |\n")
    [i] = at(issues(PLUGINS, cut_at(PLUGINS, cut)), "CS004", cut)
    assert i.severity == "info" and i.data["impact"] == "self-describing"
    assert "read the same without the header" in i.message
    [loud] = at(issues(PLUGINS, cut_at(PLUGINS, cut), loud_overlap=True), "CS004", cut)
    assert loud.severity in LOUD
    cut2 = after(TIMINGS, "| 0.8 | 64 |\n")
    [j] = at(issues(TIMINGS, cut_at(TIMINGS, cut2)), "CS004", cut2)
    assert j.severity in LOUD
    # a short value beside the prose (a status code, a yes/no): only the header says what it is
    codes = ("# Errors\n\n| Code | HTTP | Retry | Meaning |\n|---|---|---|---|\n"
             "| `card_declined` | 402 | no | The bank declined the card; ask for another one. |\n"
             "| `rate_limited` | 429 | yes | Too many requests; wait before you send again. |\n"
             "| `internal_error` | 500 | yes | Something failed on our side; retry it later. |\n\nDone.\n")
    cut3 = after(codes, "ask for another one. |\n")
    [k] = at(issues(codes, cut_at(codes, cut3)), "CS004", cut3)
    assert k.severity in LOUD


def test_a_self_describing_row_whole_in_the_next_chunk_is_info_but_a_chunk_opening_with_its_tail_is_loud():
    text = PLUGINS
    row = text.index("| [quill-toc]")
    cut = after(text, "Builds a table of")
    # overlap: the second chunk starts at the row, so it holds the row whole; the first ends inside it
    [i] = at(issues(text, [Chunk(0, cut, 0, source=text), Chunk(row, len(text), 1, source=text)]), "CS004", cut)
    assert i.severity == "info"
    # the chunk that starts inside the row holds a description without its name: loud
    end = after(text, "chapter headings. |\n")  # the first chunk holds the row whole, not the table
    [j] = at(issues(text, [Chunk(0, end, 0, source=text), Chunk(cut, len(text), 1, source=text)]), "CS004", cut)
    assert j.severity in LOUD


def test_a_cut_with_only_spaces_of_a_table_after_it_is_no_table_cut():
    text = "# Codes\n\n| Code | Meaning |\n|---|---|\n| E1 | The input file is empty. |   \n\nNext paragraph here.\n"
    cut = after(text, "| E1 | The input file is empty. |")
    assert not at(issues(text, cut_at(text, cut)), "CS004", cut)


# -- a unit longer than any chunk, cut at a blank line ---------------------------------------------

KEYS = ("workers", "retries", "sockets", "buffers", "timers", "queues", "threads", "handles", "streams")
CONFIG = "\n\n".join(f"  // {k}: how many {k} the pool keeps open at once\n  {k}: {8 * n}," for n, k in enumerate(KEYS))
LONG = "# Pool options\n\nThe pool reads these keys.\n\n```js\nconst pool = {\n" + CONFIG + "\n}\n```\n\nDone.\n"


def test_a_code_block_longer_than_every_chunk_is_lost_wherever_it_is_cut_even_at_a_blank_line():
    # it is whole in no chunk: its content is lost, so the cut stays loud (the cleanest place to
    # cut a unit that must be cut still loses it; the writer's fix is a larger size or a smaller block)
    text = LONG
    fence = text.index("```js")
    blank = [after(text, f"{k}: {8 * n},") + 1 for n, k in enumerate(KEYS) if n % 3 == 2][:2]
    chunks = cut_at(text, fence, *blank)  # the block is over twice the largest chunk
    [i] = at(issues(text, chunks), "CS003", blank[0])
    assert i.severity in LOUD and (i.data or {}).get("impact") is None
    mid = after(text, "// sockets: how many")
    [j] = at(issues(text, cut_at(text, fence, mid, blank[1])), "CS003", mid)
    assert j.severity in LOUD


# -- the real command line --------------------------------------------------------------------------


def test_cli_a_sponsor_table_chunk_over_the_size_is_info_and_says_decoration(tmp_path, capsys):
    (tmp_path / "README.md").write_text(SPONSORS, encoding="utf-8")
    rc, out, _err = run(capsys, "lint", str(tmp_path / "README.md"), "--size", "60", "--format", "json")
    data = json.loads(out)
    over = [i for i in data["issues"] if i["code"] == "CS101"]
    sponsor = [i for i in over if "(decoration)" in i["message"]]
    assert sponsor and all(i["severity"] == "info" and i["data"]["impact"] == "decoration" for i in sponsor)


# -- a fence right under an MkDocs admonition opener is code, not a sentence -------------------------

EXAMPLE = (
    "# Why typed settings\n\nThe loader checks every key against its annotation.\n\n"
    '??? example "Loading settings"\n'
    "    ```python\n"
    "    from dataclasses import dataclass, field\n\n"
    "    @dataclass\n    class Settings:\n        retries: int = 3\n"
    "    ```\n\n"
    "A key of the wrong type stops the loader with the key's name.\n"
)


def test_a_cut_in_a_fence_right_under_an_admonition_opener_is_a_split_code_block():
    text = EXAMPLE
    cut = after(text, "import dataclass,")
    found = [i for i in issues(text, cut_at(text, cut)) if i.cut == cut]
    assert [i.code for i in found] == ["CS003"]
    assert found[0].severity in LOUD and "```python code block" in found[0].message


# -- a roster of people with a few words of their part ----------------------------------------------

PEOPLE = ("Ada Brenner", "Tomas Quill", "Mei Okafor", "Ravi Sandoval", "Lena Voss", "Omar Haddad")
ROSTER = "# Thanks\n\nThese people shaped the project:\n\n" + "".join(
    f"- **{n}** ([@{n.split()[0].lower()}](https://github.com/{n.split()[0].lower()})) - "
    f"maintained the {part} for two years.\n"
    for n, part in zip(PEOPLE, ("parser", "scheduler", "docs", "test suite", "release tooling", "plugin API"))
) + "\nThank you all.\n"
TOOLS = "# Related\n\n" + "".join(
    f"- [{t}](https://github.com/acme/{t}) - converts {what} into the same tree.\n"
    for t, what in (("md2t", "Markdown"), ("rst2t", "reStructuredText"), ("adoc2t", "AsciiDoc"),
                    ("org2t", "Org files"), ("tex2t", "LaTeX sources"), ("pod2t", "Perl POD"))
) + "\nAll of them are maintained here.\n"


def test_a_roster_of_people_with_their_part_is_decoration_and_a_list_of_tools_is_not():
    cut = after(ROSTER, "maintained the sched")
    [i] = at(issues(ROSTER, cut_at(ROSTER, cut)), "CS001", cut)
    assert i.severity == "info" and "roster" in i.message
    cut2 = after(TOOLS, "converts reStruct")
    [j] = at(issues(TOOLS, cut_at(TOOLS, cut2)), "CS001", cut2)
    assert j.severity in LOUD


def test_a_table_of_models_linking_to_their_makers_pages_is_content():
    makers = (("Granite", "ibm-granite"), ("Falcon", "tiiuae"), ("Phi", "microsoft"), ("Gemma", "google"),
              ("Mistral", "mistralai"), ("OLMo", "allenai"))
    text = "# Supported models\n\n| Model | Sizes | Template |\n|---|---|---|\n" + "".join(
        f"| [{m}](https://huggingface.co/{org}) | 1B/7B | {m.lower()} chat template with system turn |\n"
        for m, org in makers) + "\nOther models may work with the default template.\n"
    cut = after(text, "https://huggingface.co/tii")
    found = [i for i in issues(text, cut_at(text, cut)) if i.cut == cut]
    assert found and all("roster" not in i.message for i in found)
    assert any(i.severity in LOUD for i in found)
