"""The document model: line index, offset <-> LSP position in UTF-16/8/32,
1-based line:col, loading and kind routing."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunkseam.document.text import Document, Position, kind_for, load

ENCODINGS = ("utf-16", "utf-8", "utf-32")
CODECS = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1), "utf-32": ("utf-32-le", 4)}


def reference_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """An independent LSP position: count line breaks (\\r\\n, \\r, \\n) before
    the offset and measure the rest of the line with Python's codecs."""
    offset = max(0, min(offset, len(text)))
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        offset -= 1  # inside a CRLF: the end of the line's content
    prefix = text[:offset]
    breaks = list(re.finditer(r"\r\n|\r|\n", prefix))
    column = prefix[breaks[-1].end():] if breaks else prefix
    codec, width = CODECS[encoding]
    return len(breaks), len(column.encode(codec, "surrogatepass")) // width


def pos(doc: Document, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
    p = doc.offset_to_position(offset, encoding)
    return p.line, p.character


# -- fixed cases -------------------------------------------------------------------


def test_ascii():
    doc = Document("hello\nworld\n")
    assert doc.line_starts == [0, 6, 12] and doc.line_count == 3
    for enc in ENCODINGS:
        assert pos(doc, 0, enc) == (0, 0)
        assert pos(doc, 5, enc) == (0, 5)
        assert pos(doc, 6, enc) == (1, 0)
        assert pos(doc, 8, enc) == (1, 2)
        assert pos(doc, 12, enc) == (2, 0)  # after the final newline: an empty last line
        assert doc.position_to_offset(1, 2, enc) == 8
    assert doc.offset_to_position(8) == Position(1, 2)


@pytest.mark.parametrize(
    ("text", "offset", "utf16", "utf8", "utf32"),
    [
        ("a😀b", 2, 3, 5, 2),  # astral: a surrogate pair in UTF-16, 4 bytes in UTF-8
        ("日本語x", 3, 3, 9, 3),  # CJK: one UTF-16 unit, 3 bytes each
        ("e\u0301x", 2, 2, 3, 2),  # combining acute accent is its own code point
        ("🧑\u200d💻!", 3, 5, 11, 3),  # ZWJ sequence: three code points
        ("\ufeffab", 1, 1, 3, 1),  # a BOM inside a Document is an ordinary character
        ("é", 1, 1, 2, 1),
        ("𝔘𝔫𝔦", 2, 4, 8, 2),
        ("\x7f\x80", 2, 2, 3, 2),  # width boundaries: 1 | 2 bytes
        ("\u07ff\u0800", 2, 2, 5, 2),  # 2 | 3 bytes
        ("\uffff\U00010000", 2, 3, 7, 2),  # 3 bytes, 1 unit | 4 bytes, 2 units
        ("\U0010ffffz", 1, 2, 4, 1),
        ("\ud800x", 1, 1, 3, 1),  # a lone surrogate (possible in LSP text): one unit
    ],
)
def test_multibyte_characters(text, offset, utf16, utf8, utf32):
    doc = Document("first line\n" + text)
    base = 11
    assert pos(doc, base + offset, "utf-16") == (1, utf16)
    assert pos(doc, base + offset, "utf-8") == (1, utf8)
    assert pos(doc, base + offset, "utf-32") == (1, utf32)
    assert doc.position_to_offset(1, utf16, "utf-16") == base + offset
    assert doc.position_to_offset(1, utf8, "utf-8") == base + offset
    assert doc.position_to_offset(1, utf32, "utf-32") == base + offset


def test_position_inside_a_character_maps_to_that_character():
    doc = Document("a😀b€c")
    # UTF-16 unit 2 is the low surrogate of 😀 (offset 1)
    assert doc.position_to_offset(0, 2, "utf-16") == 1
    assert doc.position_to_offset(0, 3, "utf-16") == 2
    # UTF-8 bytes 2..4 are inside 😀, 7..8 inside € (offset 3)
    assert [doc.position_to_offset(0, b, "utf-8") for b in range(1, 10)] == [1, 1, 1, 1, 2, 3, 3, 3, 4]


def test_crlf():
    doc = Document("ab\r\ncd\r\n")
    assert doc.line_starts == [0, 4, 8]
    assert doc.line_end(0) == 2 and doc.line_text(0) == "ab"
    assert doc.line_end(1) == 6 and doc.line_text(1) == "cd"
    assert pos(doc, 2) == (0, 2)  # at \r
    assert pos(doc, 3) == (0, 2)  # between \r and \n: end of the line's content
    assert doc.line_of(3) == 0
    assert pos(doc, 4) == (1, 0)
    assert pos(doc, 8) == (2, 0)
    assert doc.position_to_offset(0, 99) == 2  # past the end of a line: its end, not the break
    assert doc.position_to_offset(1, 1) == 5
    assert doc.line_col(5) == (2, 2)


def test_lone_cr_and_mixed_breaks():
    doc = Document("a\rb\nc\r\nd\r\re")
    assert [doc.line_text(i) for i in range(doc.line_count)] == ["a", "b", "c", "d", "", "e"]
    assert pos(doc, 2) == (1, 0)
    assert doc.position_to_offset(5, 0) == len(doc.text) - 1
    # "\r\r\n" is a lone CR then a CRLF
    doc = Document("x\r\r\ny")
    assert doc.line_starts == [0, 2, 4]
    assert pos(doc, 3) == (1, 0)


def test_other_unicode_separators_are_not_line_breaks():
    # LSP knows only \r\n, \r and \n; str.splitlines knows more
    text = "a\u2028b\x0bc\x0cd\x85e\u2029f"
    doc = Document(text)
    assert doc.line_count == 1
    assert pos(doc, len(text)) == (0, len(text))


def test_empty_document():
    doc = Document("")
    assert doc.line_starts == [0] and doc.line_count == 1
    for enc in ENCODINGS:
        assert pos(doc, 0, enc) == (0, 0)
        assert pos(doc, 10, enc) == (0, 0)
        assert doc.position_to_offset(0, 0, enc) == 0
        assert doc.position_to_offset(3, 7, enc) == 0
    assert doc.line_col(0) == (1, 1)
    assert doc.line_text(0) == ""


def test_out_of_range_values_are_clamped():
    doc = Document("ab\ncd")
    assert pos(doc, -5) == (0, 0)
    assert pos(doc, 99) == (1, 2)
    assert doc.position_to_offset(-1, 5) == 0
    assert doc.position_to_offset(0, -3) == 0
    assert doc.position_to_offset(0, 99) == 2
    assert doc.position_to_offset(7, 0) == 5
    assert doc.line_start(-1) == 0 and doc.line_start(9) == 5
    assert doc.line_end(-1) == 0 and doc.line_end(9) == 5
    assert doc.clamp(-1) == 0 and doc.clamp(6) == 5
    assert doc.line_col(99) == (2, 3)


def test_line_col_is_one_based_in_characters():
    doc = Document("ab\n😀x\r\ny")
    assert doc.line_col(0) == (1, 1)
    assert doc.line_col(1) == (1, 2)
    assert doc.line_col(3) == (2, 1)
    assert doc.line_col(4) == (2, 2)  # after the emoji: one character, not two units
    assert doc.line_col(6) == (2, 3)  # inside the CRLF: the end of the line
    assert doc.line_col(7) == (3, 1)
    assert doc.line_col(8) == (3, 2)  # the end of the text


def test_range_to_lsp():
    doc = Document("x😀\ny")
    start, end = doc.range_to_lsp(1, 3, "utf-16")
    assert (start, end) == (Position(0, 1), Position(1, 0))
    assert doc.range_to_lsp(0, 2, "utf-8") == (Position(0, 0), Position(0, 5))


def test_memo_is_per_document():
    calls = []
    a, b = Document("x", version=1), Document("x", version=2)
    assert a.memo("k", lambda: calls.append(1) or 42) == 42
    assert a.memo("k", lambda: calls.append(1) or 43) == 42
    assert b.memo("k", lambda: calls.append(1) or 44) == 44
    assert len(calls) == 2


def test_long_non_ascii_line():
    line = ("ab😀cd日本" * 20000)
    doc = Document("head\n" + line + "\ntail")
    offset = 5 + len(line) - 3
    p = doc.offset_to_position(offset, "utf-16")
    assert (p.line, p.character) == reference_position(doc.text, offset, "utf-16")
    assert doc.position_to_offset(p.line, p.character, "utf-16") == offset


# -- properties --------------------------------------------------------------------

PIECES = st.one_of(
    st.characters(),
    st.characters(codec="utf-8"),
    st.sampled_from(["\r\n", "\r", "\n", "\n\n", "😀", "🧑\u200d💻", "e\u0301", "日本", "\ufeff",
                     "\u2028", "\ud800", "\udfff", "\x00", " ",
                     # UTF-8 / UTF-16 width boundaries
                     "\x7f", "\x80", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"]),
)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(TEXTS)
@example("a\r\nb")
@example("\r\r\n\n")
@example("😀\r\n😀")
def test_offset_position_round_trip(text):
    doc = Document(text)
    for enc in ENCODINGS:
        previous = (0, 0)
        for offset in range(len(text) + 1):
            p = doc.offset_to_position(offset, enc)
            assert (p.line, p.character) == reference_position(text, offset, enc)
            assert (p.line, p.character) >= previous  # order is kept
            previous = (p.line, p.character)
            inside_crlf = 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"
            back = doc.position_to_offset(p.line, p.character, enc)
            assert back == (offset - 1 if inside_crlf else offset)


@settings(max_examples=100, deadline=None)
@given(TEXTS, st.integers(-3, 60), st.integers(-3, 200))
def test_any_position_maps_into_the_text(text, line, character):
    doc = Document(text)
    for enc in ENCODINGS:
        offset = doc.position_to_offset(line, character, enc)
        assert 0 <= offset <= len(text)
        # never inside a line break, and on the asked line when it exists
        if 0 <= line < doc.line_count:
            assert doc.line_start(line) <= offset <= doc.line_end(line)


@settings(max_examples=100, deadline=None)
@given(TEXTS)
def test_line_index_agrees_with_the_lsp_line_breaks(text):
    doc = Document(text)
    lines = re.split(r"\r\n|\r|\n", text)
    assert doc.line_count == len(lines)
    assert [doc.line_text(i) for i in range(doc.line_count)] == lines
    for offset in range(len(text) + 1):
        line, col = doc.line_col(offset)
        ref_line, _ = reference_position(text, offset, "utf-32")
        assert line == ref_line + 1
        # a leading BOM is a character of the file (offsets count it) but no column
        # on the command line, as no editor shows it as one
        bom = 1 if ref_line == 0 and offset >= 1 and text.startswith("\ufeff") else 0
        assert col == reference_position(text, offset, "utf-32")[1] + 1 - bom


# -- loading -----------------------------------------------------------------------


def test_load_path_text_and_document(tmp_path, monkeypatch):
    path = tmp_path / "guide.md"
    path.write_text("# Title\n\nBody.\n", encoding="utf-8")
    doc = load(path)
    assert doc.text == "# Title\n\nBody.\n" and doc.path == str(path) and doc.kind == "markdown"
    assert load(str(path)).path == str(path)  # a string naming a file is read
    monkeypatch.chdir(tmp_path)
    assert load("guide.md").text == doc.text

    text = load("# Title\n\nguide.md")
    assert text.path is None and text.text == "# Title\n\nguide.md" and text.kind == "markdown"
    assert load("plain words", kind="text").kind == "text"
    assert load(doc) is doc
    py = tmp_path / "mod.py"
    py.write_text("x = 1\n", encoding="utf-8")
    assert load(py).kind == "python"
    assert load(py, kind="text").kind == "text"


def test_a_file_with_a_bom_keeps_it_and_no_cli_column_counts_it(tmp_path):
    """A pipeline that reads the file as UTF-8 keeps U+FEFF as its first character:
    so does the document (offsets are the file's); an editor neither shows nor
    counts it, so the command line's columns skip it. LSP positions are on the
    text the client sent (an editor sends none), where it is a character."""
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff# Tïtle\r\nbody".encode("utf-8"))
    doc = load(path)
    assert doc.text == "\ufeff# Tïtle\r\nbody"
    assert doc.offset_to_position(1, "utf-16") == Position(0, 1)  # LSP: a character
    assert doc.position_to_offset(0, 1) == 1
    assert doc.line_col(0) == (1, 1) and doc.line_col(1) == (1, 1) and doc.line_col(3) == (1, 3)
    assert doc.line_col(doc.text.index("body")) == (2, 1)
    assert load("\ufeff# x\n").text == "\ufeff# x\n"
    assert Document("\ufeff# x\n").text == "\ufeff# x\n"
    from chunkseam.structure.markdown import parse_blocks

    heading = parse_blocks(doc.text)[0]  # the heading after the BOM is still one
    assert heading.kind == "heading", heading


def test_unreadable_files_raise(tmp_path):
    with pytest.raises(OSError):
        load(tmp_path / "missing.md")
    latin1 = tmp_path / "latin1.md"
    latin1.write_bytes("café".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        load(latin1)


# -- kinds -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("a.md", "markdown"), ("a.markdown", "markdown"), ("a.mdx", "markdown"),
        ("DOCS/README.MD", "markdown"), ("a.py", "python"), ("stubs.pyi", "python"),
        ("notes.txt", "text"), ("index.rst", "markdown"), ("main.rs", "code"), ("app.ts", "code"),
        ("x.go", "code"), ("data.xyz", "text"), ("Makefile", "text"), ("archive.tar.md", "markdown"),
    ],
)
def test_kind_by_suffix(path, kind):
    assert kind_for(path) == kind
    assert Document("", path=path).kind == kind


@pytest.mark.parametrize(
    ("language_id", "kind"),
    [("markdown", "markdown"), ("Markdown", "markdown"), ("python", "python"),
     ("plaintext", "text"), ("restructuredtext", "markdown"), ("javascript", "code"),
     ("typescriptreact", "code"), ("rust", "code"), ("cobol", "text")],
)
def test_kind_by_language_id(language_id, kind):
    assert kind_for(language_id=language_id) == kind


def test_kind_precedence():
    # the editor's language id wins over the suffix; unknown ids fall back to it
    assert kind_for("notes.txt", "markdown") == "markdown"
    assert kind_for("a.py", "cobol") == "python"
    assert kind_for() == "markdown"  # a bare text is Markdown
    assert Document("x", kind="code", path="a.md").kind == "code"
    # a document known only by URI gets its kind from the URI's path
    assert Document("x", uri="file:///w/pkg/mod%20a.py").kind == "python"
    assert Document("x", uri="untitled:Untitled-1").kind == "markdown"
    assert Document("x", uri="file:///w/a.rs", language_id="markdown").kind == "markdown"
    # plaintext is an editor's fallback, not a choice: a suffix chunkseam knows wins over it
    assert kind_for("page.mdx", "plaintext") == "markdown"
    assert Document("x", uri="file:///w/page.mdx", language_id="plaintext").kind == "markdown"
    assert kind_for("notes.txt", "plaintext") == "text" and kind_for("LICENSE", "plaintext") == "text"


def test_load_missing_path_like_string_raises(tmp_path):
    from chunkseam.document.text import load as _load

    with pytest.raises(FileNotFoundError):
        _load(str(tmp_path / "missing.md"))
    # a one-line text that is not a file name stays a text
    assert _load("Just one sentence.").text == "Just one sentence."


def test_a_document_of_the_same_text_follows_another():
    """``follows``: a document of the same text counts as made from the other
    by an empty edit (its lineage, its line index carried over); other text,
    or a document that already has a lineage, is left alone."""
    first = Document("# Title\n\nOne line.\r\nTwo lines.\n")
    assert first.line_starts == [0, 8, 9, 20, 31]
    same = Document(first.text[:5] + first.text[5:])
    same.follows(first)
    assert [(d, a, b, n) for d, a, b, n in same.lineage()] == [(first, len(first.text), len(first.text), 0)]
    assert same._line_starts == first.line_starts
    other = Document(first.text + "x")
    other.follows(first)
    assert other.lineage() == [] and other._line_starts is None
    edited = first.with_edit(0, 0, "")
    edited.follows(same)
    assert [d for d, *_ in edited.lineage()] == [first]


def test_quarto_and_r_markdown_are_markdown_documents(tmp_path) -> None:
    """``.qmd`` (Quarto) and ``.Rmd`` (R Markdown) files are linted by default, routed to the
    ``markdown`` chunker, and a cut inside one of their executable code chunks is CS003."""
    import json
    import subprocess
    import sys

    body = ("---\ntitle: Report\n---\n\n# Load\n\n" + "Some prose about the data. " * 6
            + "\n\n```{python}\n" + "".join(f"x{i} = load({i})\n" for i in range(40)) + "```\n")
    for name in ("report.qmd", "analysis.Rmd"):
        (tmp_path / name).write_text(body, encoding="utf-8")
        assert kind_for(name) == "markdown"
    (tmp_path / "notes.bin").write_text("not linted", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "chunkseam", "lint", ".", "--isolated", "--format", "json",
                          "--fail-on", "never"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout)
    files = {f["path"]: f for f in report["files"]}
    assert set(files) == {"report.qmd", "analysis.Rmd"}, run.stderr
    assert {f["chunker"] for f in files.values()} == {"markdown"}
    fixed = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "report.qmd", "--isolated", "--format",
                            "json", "--chunker", "fixed", "--unit", "chars", "--size", "200",
                            "--fail-on", "never"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    codes = {i["code"] for i in json.loads(fixed.stdout)["issues"]}
    assert "CS003" in codes

