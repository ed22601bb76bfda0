"""The fourth round of causes of loud but worthless cut reports, each on a
document written for these tests (shaped like the Fumadocs, VuePress, Sphinx
and notebook-table pages where they were seen): a component's markup cut while
every block it wraps is whole, a directive cut after its first mark, an image
directive (a badge), a table row cut only in its badge cell, a link table whose
titles are long, and a lead-in before a block that names itself. Each is info
and says why; the settings make it loud again, and the content cuts beside them
stay loud."""

from __future__ import annotations

from chunkseam.core.chunk import Chunk
from cutkit import LOUD, after, at, cut_at, issues


def only(found, cut: int):
    got = [i for i in found if i.cut == cut and i.code.startswith("CS00")]
    assert len(got) == 1, [(i.code, i.severity, i.message) for i in got]
    return got[0]


# -- a component's markup, every block inside whole ------------------------------------------------

TABS = (
    "## Errors\n\nPass a message to any check.\n\n"
    '<Tabs groupId="lib" items={["Full", "Mini"]}>\n'
    '<Tab value="Full">\n```ts\nz.string("Bad!");\nz.uuid("Bad UUID!");\n```\n</Tab>\n'
    '<Tab value="Mini">\n```ts\nz.string("Bad!");\nz.uuid().check(z.minLength(5));\n```\n</Tab>\n'
    "</Tabs>\n\nThe message is shown as the issue's text.\n"
)


def test_a_cut_inside_a_tab_tag_with_its_code_whole_is_markup_only():
    text = TABS
    cut = text.index('<Tab value="Mini">') + len("<Tab va")
    found = issues(text, cut_at(text, cut), path="errors.mdx")
    i = only(found, cut)
    assert i.code == "CS008" and i.severity == "info" and i.data["impact"] == "markup-only"
    assert "only markup is cut" in i.message and "whole in" in i.message, i.message
    # the same cut with the setting: the rule's own severity
    [loud] = at(issues(text, cut_at(text, cut), path="errors.mdx", loud_overlap=True), "CS008", cut)
    assert loud.severity in LOUD
    # a cut inside the code of a tab: the code block is cut, loud (CS003)
    code = after(text, 'z.string("Bad!");\nz.uu')
    assert only(issues(text, cut_at(text, code), path="errors.mdx"), code).severity in LOUD


def test_a_label_of_several_words_left_behind_stays_loud():
    """A changelog entry's component carries its date and version: the notes after
    the cut lose them (a label that names what the element wraps)."""
    text = ('# Highlights\n\n<Update label="2026-04-06" description="Memory CLI v0.2.2">\n\n'
            "**The command line is out.** Install it with pip and run `memory add` to store a fact.\n\n"
            "</Update>\n")
    cut = after(text, '<Update label="2026-04-06" descr')
    i = only(issues(text, cut_at(text, cut), path="changelog.mdx"), cut)
    assert i.code == "CS008" and i.severity in LOUD, i.message
    # one word (a file name as the title): markup only
    short = text.replace('label="2026-04-06" description="Memory CLI v0.2.2"', 'title="cli.ts"')
    cut = after(short, "<Update ti")
    assert only(issues(short, cut_at(short, cut), path="changelog.mdx"), cut).severity == "info"


def test_a_whole_opening_tag_ending_a_chunk_stays_loud_and_a_cut_inside_it_is_markup_only():
    """A complete opening tag at a chunk's end says what the blocks after it are
    for (`<PagesOnly>`, a titled code block): reported; a cut inside the tag,
    the code it wraps whole in the next chunk, splits only markup."""
    text = ("## Schemas\n\nAdd the schema once and get it back by its key.\n\n"
            '<code-block title="users.ts">\n'
            "```javascript\nimport Ajv from \"ajv\"\nconst ajv = new Ajv()\najv.addSchema(schema, \"user\")\n```\n"
            "</code-block>\n\nThe key is any string.\n")
    cut = text.index("```javascript")
    i = only(issues(text, cut_at(text, cut), path="schemas.md"), cut)
    assert i.code == "CS008" and i.severity in LOUD, i.message
    inside = text.index('title="users.ts"')
    i = only(issues(text, cut_at(text, inside), path="schemas.mdx"), inside)
    assert i.code == "CS008" and i.severity == "info" and "only markup is cut" in i.message, i.message


# -- reStructuredText: a directive's first mark, an image directive -----------------------------

def test_a_directive_cut_after_its_first_dot_is_a_trivial_edge():
    text = ("Loaders\n=======\n\nEach input processor gets the values one by one.\n\n"
            ".. note:: Both input and output processors must receive an iterable as their first "
            "argument.\n\nThe output processor returns the final value.\n")
    cut = text.index(".. note::") + 1
    i = only(issues(text, cut_at(text, cut), path="loaders.rst"), cut)
    assert i.code == "CS008" and i.severity == "info" and "only \u201c.\u201d of the block" in i.message, i.message
    # cut inside the note's text: its sentence is cut, loud
    mid = after(text, "must receive an iter")
    assert only(issues(text, cut_at(text, mid), path="loaders.rst"), mid).severity in LOUD


def test_a_cut_inside_a_badge_image_directive_is_decoration():
    text = ("Crawler\n=======\n\n.. |python| image:: https://img.shields.io/pypi/pyversions/crawler.svg\n"
            "   :target: https://pypi.org/pypi/crawler\n   :alt: Supported Python Versions\n\n"
            "Crawler is a fast high-level web crawling framework.\n")
    cut = after(text, ":alt: Supported Py")
    i = only(issues(text, cut_at(text, cut), path="README.rst"), cut)
    assert i.severity == "info" and i.data["impact"] == "decoration", i.message
    assert "an image (a badge or a logo)" in i.message
    # a figure has a caption, text a reader reads: not decoration
    figure = text.replace(".. |python| image::", ".. figure::").replace(
        "   :alt: Supported Python Versions\n", "   :alt: Supported Python Versions\n\n"
        "   The crawler's architecture: the engine, the scheduler and the downloader.\n")
    cut = after(figure, "the scheduler and the down")
    assert only(issues(figure, cut_at(figure, cut), path="README.rst"), cut).severity in LOUD


# -- tables of links: a badge cell cut, long linked titles -------------------------------------

ROWS = [
    ("Introducing the index", "01_Introducing.ipynb", "Overview of the functionality the index provides"),
    ("Build an Embeddings index with Hugging Face Datasets", "02_Build.ipynb",
     "Index and search Hugging Face Datasets"),
    ("Add semantic search to Elasticsearch and keep your existing queries", "03_Search.ipynb",
     "Add semantic search to existing search systems"),
    ("Extractive question answering with the pipeline", "04_Extract.ipynb",
     "Extract answers to questions from a set of documents"),
]
BADGE = "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
NOTEBOOKS = "## Notebooks\n\n| Notebook | Description | |\n|:---|:---|---:|\n" + "".join(
    f"| [{t}](https://github.com/org/index/blob/master/examples/{f}) | {d} | "
    f"{BADGE}(https://colab.research.google.com/github/org/index/blob/master/examples/{f}) |\n"
    for t, f, d in ROWS) + "\nEach notebook runs as it is.\n"


def test_a_row_cut_only_in_its_badge_cell_is_info_and_a_bare_url_cut_is_not():
    text = NOTEBOOKS
    row = text.index("| [Add semantic search")
    cut = text.index("assets/colab-badge.svg", row) - 8
    i = only(issues(text, cut_at(text, cut)), cut)
    assert i.code == "CS004" and i.severity == "info", i.message
    # a table whose last cell is a bare URL, the resource itself: that URL cut in two is loud
    bare = ("## Projects\n\n| Project | Description | Link |\n|---|---|---|\n"
            "| Router kit | Typed routes for any server | https://github.com/someone/router-kit |\n"
            "| Form kit | Forms checked by the same schema | https://github.com/someone/form-kit |\n\n"
            "Open a pull request to add yours.\n")
    cut = after(bare, "https://github.com/some")
    assert only(issues(bare, cut_at(bare, cut)), cut).severity in LOUD


def test_rows_with_long_linked_titles_describe_themselves():
    text = NOTEBOOKS
    between = text.index("| [Add semantic search")
    i = only(issues(text, cut_at(text, between)), between)
    assert i.code == "CS004" and i.severity == "info" and i.data["impact"] == "self-describing", i.message
    # rows of values (what "8080" and "no" are only the header says): loud
    values = ("## Ports\n\n| Service | Port | TLS |\n|---|---|---|\n| web | 8080 | no |\n| api | 8443 | yes |\n"
              "| admin | 9000 | yes |\n\nOpen them in the firewall.\n")
    cut = values.index("| api")
    assert only(issues(values, cut_at(values, cut)), cut).severity in LOUD


# -- a lead-in before a block that names itself -----------------------------------------------

def test_a_lead_in_before_a_named_definition_is_info_and_before_usage_code_is_loud():
    text = ("## Errors\n\nEach reported error is an object with the following properties:\n\n"
            "```typescript\ninterface ErrorObject {\n  keyword: string // validation keyword\n"
            "  instancePath: string // JSON Pointer to the failing part\n}\n```\n\nRead them in order.\n")
    cut = text.index("```typescript")
    i = only(issues(text, cut_at(text, cut)), cut)
    assert i.code == "CS007" and i.severity == "info", i.message
    assert i.message.endswith("what it introduces names itself (interface ErrorObject)"), i.message
    citation = ("## Citing\n\nIf you use this library, please cite our paper:\n\n"
                "```bibtex\n@inproceedings{lee-2019-fast,\n  title = \"Fast sentence embeddings\",\n"
                "  year = \"2019\"\n}\n```\n")
    cut = citation.index("```bibtex")
    assert only(issues(citation, cut_at(citation, cut)), cut).severity == "info"
    # the same lead-in before code that uses the API: what the code does, only the lead-in says
    usage = text.replace("interface ErrorObject {\n  keyword: string // validation keyword\n"
                         "  instancePath: string // JSON Pointer to the failing part\n}",
                         "import Ajv from \"ajv\"\nconst valid = ajv.validate(schema, data)\n"
                         "if (!valid) console.log(ajv.errors)")
    cut = usage.index("```typescript")
    assert only(issues(usage, cut_at(usage, cut)), cut).severity in LOUD


def test_chunks_with_overlap_are_graded_the_same_way():
    """The markup-only grade reads which chunk holds each block: with overlap the
    chunk that holds the code may start before the cut."""
    text = TABS
    mini = text.index('<Tab value="Mini">')
    cut = mini + len("<Tab va")
    end = text.index("</Tabs>")
    chunks = [Chunk(0, cut, 0, source=text), Chunk(mini - 40, len(text), 1, source=text)]
    i = only(issues(text, chunks, path="errors.mdx"), cut)
    assert i.severity == "info" and "whole in" in i.message and end < len(text)
