"""Tests for chunkseam.structure.python: Python definitions, statement units and
string literals as exact string offsets (ast columns are UTF-8 bytes)."""

from __future__ import annotations

import ast
import io
import tokenize

import pytest
from hypothesis import given, settings

from chunkseam.document.text import Document
from chunkseam.structure.python import PyStructure, python_structure

from conftest import corpus_files
from mdgen import python_texts

SAMPLE = '''"""Module docstring é."""
import os  # why
from x import (a,
   b)

# comment for f
@deco  # d
@other(
  1)
def f(a: str = "日本") -> None:
    """Doc 😀."""
    x = f"{a!r:>{10}} 😀 {'q'}"; y = b'bb'
    return ("p" "q"
            'r')


class C(Base):
    """Class doc."""
    attr = 1

    # about m
    def m(self):
        pass
    async def n(self): return 1
    class Inner: z = 2
if True:
    def g(): pass
'''


def text_of(ps, span):
    return ps.text[span[0] : span[1]]


def test_definitions_with_decorators_comments_and_qualnames():
    ps = PyStructure(SAMPLE)
    assert ps.ok and ps.error is None
    got = [(d.kind, d.qualname, d.depth, d.parent) for d in ps.definitions]
    assert got == [
        ("function", ("f",), 0, None),
        ("class", ("C",), 0, None),
        ("function", ("C", "m"), 1, 1),
        ("function", ("C", "n"), 1, 1),
        ("class", ("C", "Inner"), 1, 1),
        ("function", ("g",), 0, None),  # inside an ``if`` block
    ]
    f, c, m, n, inner, g = ps.definitions
    assert SAMPLE[f.start : f.end].startswith("# comment for f\n@deco  # d\n@other(\n  1)\ndef f(")
    assert SAMPLE[f.start : f.end].endswith("'r')")
    assert SAMPLE[f.header_start :].startswith("@deco")
    assert SAMPLE[f.keyword :].startswith("def f(")
    assert SAMPLE[f.body_start :].startswith('"""Doc 😀."""')
    assert text_of(ps, f.docstring) == '"""Doc 😀."""'
    assert SAMPLE[c.start : c.end].startswith("class C(Base):") and c.end == m.end + len(
        SAMPLE[m.end : c.end]
    )
    assert SAMPLE[c.start : c.end].endswith("class Inner: z = 2")
    assert SAMPLE[m.start : m.end] == "    # about m\n    def m(self):\n        pass"
    assert SAMPLE[n.start : n.end] == "    async def n(self): return 1"
    assert n.is_async and SAMPLE[n.keyword :].startswith("async def")
    assert SAMPLE[inner.start : inner.end] == "    class Inner: z = 2"
    assert SAMPLE[g.start : g.end] == "    def g(): pass"
    assert text_of(ps, ps.module_docstring) == '"""Module docstring é."""'
    assert [d.name for d in ps.top_level_definitions()] == ["f", "C", "g"]


def test_module_statement_units():
    ps = PyStructure(SAMPLE)
    units = [(s.kind, SAMPLE[s.start : s.end].split("\n")[0]) for s in ps.module]
    assert units == [
        ("docstring", '"""Module docstring é."""'),
        ("import", "import os  # why"),  # a trailing comment belongs to its line
        ("import", "from x import (a,"),
        ("function", "# comment for f"),
        ("class", "class C(Base):"),
        ("statement", "if True:"),
    ]
    assert [s.definition for s in ps.module] == [None, None, None, 0, 1, None]
    c = ps.definitions[1]
    assert [SAMPLE[s.start : s.end].strip().split("\n")[0] for s in c.body] == [
        '"""Class doc."""', "attr = 1", "# about m", "async def n(self): return 1",
        "class Inner: z = 2",
    ]


def test_statements_sharing_a_line_are_cut_at_the_node():
    text = "a = 1; b = 2  # both\nclass D: z = 3\n"
    ps = PyStructure(text)
    assert [text[s.start : s.end] for s in ps.module] == ["a = 1", "b = 2  # both", "class D: z = 3"]
    d = ps.definitions[0]
    assert [text[s.start : s.end] for s in d.body] == ["z = 3"]


def test_comments_separated_by_a_blank_line_do_not_attach():
    text = "x = 1\n# about x, not f\n\n# about f\ndef f():\n    pass\n"
    ps = PyStructure(text)
    f = ps.definitions[0]
    assert text[f.start : f.end] == "# about f\ndef f():\n    pass"


def test_comment_lines_inside_a_previous_string_are_not_leading_comments():
    text = 'x = """\n# not a comment"""\ndef f():\n    pass\n'
    f = PyStructure(text).definitions[0]
    assert text[f.start :].startswith("def f")


@pytest.mark.parametrize(
    "code",
    [
        'def 函数(参数="日本語"):\n    return "😀😀"  # 注释\n\nclass Ö:\n    """Dok 🎉."""\n    ü = "ß"\n',
        'x = "😀"; y = "é"\ndef f(): return "👩‍👩‍👧"\n',
        's = "e\u0301"  # combining\n@d("日")\ndef g(): pass\n',
    ],
)
def test_offsets_are_exact_with_cjk_and_emoji(code):
    ps = PyStructure(code)
    assert ps.ok
    tree = ast.parse(code)
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert len(nodes) == len(ps.definitions)
    for node, d in zip(sorted(nodes, key=lambda n: n.lineno), ps.definitions):
        segment = ast.get_source_segment(code, node)  # does its own byte/char conversion
        assert code[d.keyword :].startswith(segment)
        rest = code[d.keyword + len(segment) : d.end]
        assert not rest.strip() or rest.strip().startswith("#")
    for s in ps.strings:
        piece = code[s.start : s.end]
        assert piece[-1] in "'\"" and piece.lstrip("rRbBuUfF")[0] in "'\""
        assert ast.literal_eval(piece.lstrip("fF").replace("{", "").replace("}", "")) is not None


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_crlf_and_lone_cr(eol):
    lf = PyStructure(SAMPLE)
    text = SAMPLE.replace("\n", eol)
    ps = PyStructure(text)
    assert ps.ok
    for a, b in zip(lf.definitions, ps.definitions):
        assert text[b.start : b.end] == SAMPLE[a.start : a.end].replace("\n", eol)
    assert [text[s.start : s.end] for s in ps.strings] == [
        SAMPLE[s.start : s.end].replace("\n", eol) for s in lf.strings
    ]


def test_a_bom_shifts_nothing():
    text = "\ufeffimport os\ndef f():\n    return 'x'\n"
    ps = PyStructure(text)
    assert ps.ok
    f = ps.definitions[0]
    assert text[f.start : f.end] == "def f():\n    return 'x'"
    assert [text[s.start : s.end] for s in ps.strings] == ["'x'"]


def test_string_literals_kinds_and_pieces():
    text = (
        '"""mod"""\n'
        "a = ('one' \"two\"\n     r'\\d' f\"{a['k']}\"); c = b'x' rb'\\''\n"
        "b = '''tri\\''''  \n"
        "def f():\n    'doc'\n    return u'u'\n"
    )
    ps = PyStructure(text)
    assert ps.ok, ps.error
    got = [(s.kind, s.triple, text[s.start : s.end]) for s in ps.strings]
    assert got == [
        ("docstring", True, '"""mod"""'),
        ("string", False, "'one'"),
        ("string", False, '"two"'),
        ("string", False, "r'\\d'"),
        ("fstring", False, "f\"{a['k']}\""),
        ("bytes", False, "b'x'"),
        ("bytes", False, "rb'\\''"),
        ("string", True, "'''tri\\''''"),
        ("docstring", False, "'doc'"),
        ("string", False, "u'u'"),
    ]
    one = text.index("one")
    assert ps.string_at(one).start == one - 1
    assert ps.string_at(one - 1) is None  # at the opening quote: not inside
    assert ps.string_at(text.index("'one'") + 5) is None  # just after it
    assert ps.string_at(text.index("two") - 2) is None  # between the pieces


def test_split_definition():
    ps = PyStructure(SAMPLE)
    at = SAMPLE.index
    assert ps.split_definition(at("x = f")).qualname == ("f",)  # inside a function
    assert ps.split_definition(at("@other")).qualname == ("f",)  # between its decorators
    assert ps.split_definition(at("def f")).qualname == ("f",)  # decorators cut off
    assert ps.split_definition(at("# comment for f")) is None  # before the unit
    assert ps.split_definition(at("import os")) is None
    assert ps.split_definition(at("pass")).qualname == ("C", "m")  # inside a method
    # between two members of a class: where a big class is split
    assert ps.split_definition(at("    # about m")) is None
    assert ps.split_definition(at("    attr = 1")) is None
    assert ps.split_definition(at("    async def n")) is None
    # the class line cut from its first statement
    assert ps.split_definition(at('    """Class doc')).qualname == ("C",)
    assert ps.split_definition(at("z = 2")).qualname == ("C", "Inner")
    # edge whitespace of a unit is not inside it
    assert ps.split_definition(at("class C") - 1) is None
    assert ps.split_definition(len(SAMPLE)) is None
    assert [d.name for d in ps.definitions_containing(at("pass"))] == ["C", "m"]
    assert ps.definition_at(at("pass")).name == "m"
    assert ps.definition_at(at("import os")) is None


def test_split_definition_in_a_nested_class():
    text = "class A:\n    class B:\n        def x(self): pass\n        def y(self): pass\n    def z(self): pass\n"
    ps = PyStructure(text)
    assert ps.split_definition(text.index("        def y")) is None  # between B's members
    assert ps.split_definition(text.index("    def z")) is None  # between A's members
    assert ps.split_definition(text.index("pass")).qualname == ("A", "B", "x")
    text2 = "def outer():\n    class K:\n        a = 1\n        b = 2\n    return K\n"
    ps2 = PyStructure(text2)
    # between K's members, but inside the function outer: splits outer
    assert ps2.split_definition(text2.index("        b = 2")).qualname == ("outer",)


@pytest.mark.parametrize(
    "text,line",
    [("def broken(:\n    pass\n", 1), ("x = 1\nif x\n", 2), ("x = 1\x00\n", None)],
)
def test_unparsable_text_reports_and_holds_nothing(text, line):
    ps = PyStructure(text)
    assert not ps.ok and ps.error
    if line is not None:
        assert ps.error_line == line
    assert ps.definitions == [] and ps.strings == [] and ps.module == ()
    assert ps.split_definition(0) is None and ps.string_at(1) is None


def test_memoised_per_document_version():
    doc = Document("def f(): pass\n", path="m.py")
    assert python_structure(doc) is python_structure(doc)
    assert python_structure(doc).definitions[0].name == "f"


def _tokenize_strings(text):
    """Literal spans from the tokenizer (character columns): an oracle."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    out, depth, open_at = [], 0, 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        name = tokenize.tok_name[tok.type]
        if name not in ("STRING", "FSTRING_START", "FSTRING_END"):
            continue
        s = starts[tok.start[0] - 1] + tok.start[1]
        e = starts[tok.end[0] - 1] + tok.end[1]
        if name == "STRING" and depth == 0:
            out.append((s, e))
        elif name == "FSTRING_START":
            open_at = s if depth == 0 else open_at
            depth += 1
        elif name == "FSTRING_END":
            depth -= 1
            if depth == 0:
                out.append((open_at, e))
    return out


def test_corpus_strings_match_the_tokenizer_and_definitions_match_ast():
    files = corpus_files("python", "*.py")
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        ps = PyStructure(text)
        assert ps.ok, path
        assert [(s.start, s.end) for s in ps.strings] == _tokenize_strings(text), path
        tree = ast.parse(text)
        nodes = sorted(
            (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))),
            key=lambda n: (n.lineno, n.col_offset),
        )
        assert [d.keyword for d in sorted(ps.definitions, key=lambda d: d.keyword)] == sorted(
            d.keyword for d in ps.definitions
        )
        by_kw = sorted(ps.definitions, key=lambda d: d.keyword)
        assert len(by_kw) == len(nodes), path
        lines = text.splitlines(keepends=True)  # the corpus has no \f, \x1c … line breaks
        line_starts = [0]
        for ln in lines:
            line_starts.append(line_starts[-1] + len(ln))
        for node, d in zip(nodes, by_kw):
            raw = lines[node.lineno - 1].encode("utf-8")
            keyword = line_starts[node.lineno - 1] + len(raw[: node.col_offset].decode("utf-8"))
            assert d.keyword == keyword, (path, d.qualname)
            end_raw = lines[node.end_lineno - 1].encode("utf-8")
            node_end = line_starts[node.end_lineno - 1] + len(
                end_raw[: node.end_col_offset].decode("utf-8"))
            tail = text[node_end : d.end].strip()  # a trailing comment on the last line
            assert d.end >= node_end and (tail == "" or tail.startswith("#")), (path, d.qualname)
            assert text[d.start : d.keyword].strip() == "" or text[d.start].strip() in "#@"
            for st in d.body:
                assert d.start <= st.start < st.end <= d.end


@settings(max_examples=150, deadline=None)
@given(python_texts())
def test_generated_python_never_raises_and_spans_are_sane(text):
    ps = PyStructure(text)
    if not ps.ok:
        return
    for d in ps.definitions:
        assert 0 <= d.start <= d.header_start <= d.keyword < d.body_start <= d.end <= len(text)
        assert text[d.keyword :].startswith(("def", "async", "class"))
    for s in ps.strings:
        assert 0 <= s.start < s.end <= len(text)
    for a, b in zip(ps.module, ps.module[1:]):
        assert a.end <= b.start
    if "\r" not in text:  # the oracle reads lines split at "\n" only
        assert [(s.start, s.end) for s in ps.strings] == _tokenize_strings(text)
