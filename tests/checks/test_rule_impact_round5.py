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
