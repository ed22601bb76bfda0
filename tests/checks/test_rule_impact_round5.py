"""The fifth round of causes of loud but worthless cut reports, on documents
written for these tests (shaped like the pages where they were seen: a
conversion library's usage guide, an OCR engine's language table): a code
block whose leading import lines are all a cut leaves apart from its code
(R2 of benchmarks/judged/JUDGING.md), and a two-column table pairing a code
with the word it stands for, whose rows read without the header (R1). Each is
info and says why; the content cuts beside them stay loud."""

from __future__ import annotations

from cutkit import LOUD, after, at, cut_at, issues, make_chunks

GUIDE = (
    "## Enrichment\n\nTurn on the picture description when converting:\n\n"
    "```python\n"
    "from docconv.models import InputFormat\n"
    "from docconv.options import (\n    PipelineOptions,\n    PictureOptions,\n)\n\n"
    "options = PipelineOptions()\n"
    "options.pictures = PictureOptions(model=\"small\")\n"
    "converter = Converter(options)\n"
    "```\n\nThe descriptions land in the document's pictures.\n"
)


def one(found, code: str, cut: int):
    got = at(found, code, cut)
    assert len(got) == 1, [(i.code, i.severity, i.message) for i in found]
    return got[0]


def test_imports_apart_from_whole_code_are_info():
    text = GUIDE
    cut = text.index("options = PipelineOptions()")
    i = one(issues(text, cut_at(text, cut)), "CS003", cut)
    assert i.severity == "info" and i.data["impact"] == "imports-only", i.message
    assert "only its import lines are apart from the code, which is whole in chunk 2" in i.message
    # the setting makes it loud again
    [loud] = at(issues(text, cut_at(text, cut), loud_overlap=True), "CS003", cut)
    assert loud.severity in LOUD


def test_imports_with_code_whole_in_the_overlapping_chunk_are_info():
    text = GUIDE
    code = text.index("options = PipelineOptions()")
    cut = after(text, "options.pictures = PictureOptions(")  # the code itself, but chunk 2 holds it
    chunks = make_chunks(text, [(0, cut), (code, len(text))])
    i = one(issues(text, chunks), "CS003", cut)
    assert i.severity == "info" and i.data["impact"] == "imports-only", i.message


def test_a_cut_in_an_import_statement_or_in_the_code_stays_loud():
    text = GUIDE
    # inside the import statement that runs over several lines
    cut = after(text, "    PipelineOptions,\n")
    assert one(issues(text, cut_at(text, cut)), "CS003", cut).severity in LOUD
    # mid-line in an import
    cut = after(text, "from docconv.mo")
    assert one(issues(text, cut_at(text, cut)), "CS003", cut).severity in LOUD
    # the code after the imports is cut, no chunk holds it whole
    cut = text.index("converter = Converter")
    assert one(issues(text, cut_at(text, cut)), "CS003", cut).severity in LOUD


LANGS = (
    "## Languages\n\nPass one token per language.\n\n"
    "| Token      | Meaning                                        |\n"
    "| ---------- | ---------------------------------------------- |\n"
    "| `af`       | Afrikaans                                      |\n"
    "| `arabic`   | Arabic-script family (9): Arabic, Persian,     |\n"
    "|            | Urdu, Pashto, Kurdish, English                 |\n"
    "| `de`       | German                                         |\n"
    "| `rs_latin` | Serbian (Latin)                                |\n"
    "| `sv`       | Swedish                                        |\n"
    "\nTokens are case-sensitive.\n"
)


def test_code_beside_the_word_it_stands_for_reads_without_the_header():
    text = LANGS
    cut = text.index("| `de`")
    i = one(issues(text, cut_at(text, cut)), "CS004", cut)
    assert i.severity == "info" and i.data["impact"] == "self-describing", i.message


def test_a_wrapped_row_cut_between_its_lines_stays_loud_unless_whole_elsewhere():
    text = LANGS
    cut = text.index("|            | Urdu")
    i = one(issues(text, cut_at(text, cut)), "CS004", cut)
    assert i.severity in LOUD, i.message  # "Urdu, Pashto…" without its token
    # with overlap the next chunk holds the whole wrapped row: only the header is lost
    row = text.index("| `arabic`")
    i = one(issues(text, make_chunks(text, [(0, cut), (row, len(text))])), "CS004", cut)
    assert i.severity == "info", i.message


def test_values_that_need_their_column_name_stay_loud():
    for rows in ("| `--psm` | integer |\n| `--dpi` | integer |\n| `--lang` | string |\n",
                 "| onnx | v4, v5, v6 |\n| torch | v4, v5 |\n| paddle | v4, v5, v6 |\n",
                 "| `cache` | yes |\n| `retry` | no |\n| `trace` | yes |\n"):
        text = "| Name | Value |\n| --- | --- |\n" + rows + "\nEnd.\n"
        cut = text.index(rows.splitlines()[1])
        i = one(issues(text, cut_at(text, cut)), "CS004", cut)
        assert i.severity in LOUD, (rows, i.message)


DEPENDENTS = (
    "## Used by\n\nThe most starred projects that depend on the library:\n\n"
    "| Repository | Stars |\n| --- | ---: |\n"
    + "".join(f'| <img class="avatar" src="https://avatars.example.com/u/{k}?s=40" width="20" alt=""> &nbsp; '
              f"[org{k}](https://github.com/org{k}) / [tool{k}](https://github.com/org{k}/tool{k}) | {17976 - 913 * k} |\n"
              for k in range(8))
    + "\nSee the dependents graph for the rest.\n"
)


def test_a_table_of_avatars_with_star_counts_is_decoration():
    text = DEPENDENTS
    cut = text.index("| <img", text.index("u/4?"))  # between rows: the rows after lose the header
    cut = text.rfind("\n", 0, cut) + 1
    i = one(issues(text, cut_at(text, cut)), "CS004", cut)
    assert i.severity == "info" and i.data["impact"] == "decoration", i.message
    assert "logos or avatars" in i.message
    [loud] = at(issues(text, cut_at(text, cut), loud_decoration=True), "CS004", cut)
    assert loud.severity in LOUD
    # the figures are the table's words once the avatars go: a table of figures stays loud
    plain = "| Repository | Stars |\n| --- | ---: |\n" + "".join(
        f"| tool{k} | {17976 - 913 * k} |\n" for k in range(8)) + "\nEnd.\n"
    cut = plain.index("| tool4")
    assert one(issues(plain, cut_at(plain, cut)), "CS004", cut).severity in LOUD


def test_a_cut_in_an_internal_rst_link_target_is_decoration():
    text = ("Special Routing Options\n=======================\n\n"
            ".. _routing-options-rabbitmq-priorities:\n\n"
            "RabbitMQ Message Priorities\n---------------------------\n\n"
            "With RabbitMQ, higher priority numbers denote higher priority, and a task sent with\n"
            "priority nine runs before one sent with priority one.\n")
    cut = after(text, ".. _ro")
    found = [i for i in issues(text, cut_at(text, cut), path="routing.rst") if i.cut == cut]
    assert found and all(i.severity == "info" for i in found), [(i.code, i.severity, i.message) for i in found]
    assert any("a link target (an anchor)" in i.message for i in found), [i.message for i in found]
    # the section's prose cut stays loud
    cut = after(text, "priority nine ru")
    assert any(i.severity in LOUD for i in issues(text, cut_at(text, cut), path="routing.rst") if i.cut == cut)


def test_only_closing_brackets_past_the_cut_is_a_trivial_edge():
    text = ("```ts\nconst app = new Hono()\napp.post('/author', validator('json', schema), (c) => {\n"
            "  const data = c.req.valid('json')\n  return c.json({\n    success: true,\n"
            "    message: `${data.name} is ${data.age}`,\n  })\n})\n```\n\nThe schema checks the body.\n")
    cut = after(text, "${data.age}`,\n")
    i = one(issues(text, cut_at(text, cut)), "CS003", cut)
    assert i.severity == "info" and "})" in i.message, i.message
    # one statement more past the cut: the code is cut
    cut = after(text, "message: `${data.name}")
    assert one(issues(text, cut_at(text, cut)), "CS003", cut).severity in LOUD


def test_a_mermaid_directive_body_holds_no_list():
    """An unknown directive's body is read as reStructuredText, but a diagram's is
    not prose: its indented lines are no list, so a cut there is no list-item cut."""
    text = ("Lifecycle\n=========\n\nThe hooks fire in this order:\n\n.. mermaid::\n\n"
            "    flowchart TD\n        start(( )) --> register[register]\n        register --> config[config]\n\n"
            "        subgraph envloop [for each environment]\n            direction TB\n"
            "            install --> run[run commands]\n        end\n\n        run --> done(( ))\n\n"
            "Each hook receives the state.\n")
    cut = text.index("        run --> done")
    found = [i for i in issues(text, cut_at(text, cut), path="howto.rst") if i.cut == cut]
    assert found and not any(i.code == "CS005" for i in found), [(i.code, i.message) for i in found]
