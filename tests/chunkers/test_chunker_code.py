"""The ``code`` strategy: Python by definitions (ast), other languages and
unparsable files through ``recursive`` with language separators."""

from __future__ import annotations

import textwrap

import pytest

from chunkseam.chunkers import get, route
from chunkseam.document.text import Document
from chunkseam.structure.python import python_structure
from chunkseam.tokens.tiktoken import get_sizer

from conftest import corpus_files

CODE = get("code")
TOK = get_sizer("tokens", "cl100k_base")
CHARS = get_sizer("chars")


def py(text, path="pkg/mod.py"):
    return Document(textwrap.dedent(text).lstrip("\n"), path=path)


def run(doc, size, overlap=0, sizer=TOK, **options):
    return CODE.chunk(doc, sizer, size=size, overlap=overlap, **options)


def body(n, name="v"):
    return "\n".join(f"    {name}{i} = compute({i}, 'text {i}')" for i in range(n))


def check_code_invariants(doc, chunks, size, sizer=TOK, overlap=0):
    text = doc.text
    ps = python_structure(doc)
    assert ps.ok
    statements = list(ps.module)
    for d in ps.definitions:
        statements.extend(d.body)
    for i, c in enumerate(chunks):
        assert c.index == i and c.strategy == "code" and not c.meta.get("fallback")
        assert c.tokens == sizer.count(c.text)
        assert c.oversize == (c.tokens > size)
        assert c.text == c.text.rstrip()
        # chunks start at a line start and never split a definition or a string
        assert c.start == doc.line_start(doc.line_of(c.start))
        for cut in (c.start, c.end):
            assert ps.split_definition(cut) is None, (doc.path, c.index, text[cut - 40 : cut + 40])
            assert ps.string_at(cut) is None
        if c.oversize:  # one statement, maybe with its class line glued before it
            one = any(s.end == c.end and (s.start == c.start or any(
                d.start == c.start and d.body and d.body[0] is s for d in ps.definitions))
                for s in statements)
            assert one or "\n" not in c.text.strip(), c.text[:80]
    if not overlap:
        for a, b in zip(chunks, chunks[1:]):
            assert a.end <= b.start


SAMPLE = '''
"""A module docstring."""

from __future__ import annotations

import os
import sys

LIMIT = 10


# helper comment
@decorator
def small(a, b):
    """Add."""
    return a + b


def other():
    return "😀 日本"


class Big:
    """A class too big for one chunk."""

    attr = 1

    def one(self):
{one}

    # about two
    def two(self):
{two}

    def three(self):
        return 3


def huge():
{huge}
'''


def sample():
    return py(SAMPLE.format(one=body(12, "a").replace("\n", "\n    ").replace("    a0", "        a0", 1),
                            two=body(12, "b").replace("\n", "\n    ").replace("    b0", "        b0", 1),
                            huge=body(80, "h")))


def test_the_router_sends_python_here():
    assert route(Document("x = 1", path="a.py")) == "code"
    assert route(Document("x = 1", path="a.pyi")) == "code"


def test_header_definitions_and_a_class_split_between_methods():
    doc = sample()
    assert python_structure(doc).ok
    chunks = run(doc, 250)
    heads = [c.text.split("\n")[0] for c in chunks]
    assert heads == [
        '"""A module docstring."""',  # header: docstring, imports, constants
        "# helper comment",  # the comment and decorator stay with their function
        "class Big:",  # the class line with its docstring and first members
        "    # about two",
        "def huge():",
    ]
    assert "LIMIT = 10" in chunks[0].text and "def" not in chunks[0].text
    assert chunks[1].text.endswith('return "😀 日本"')  # small + other packed
    assert '    def one(self):' in chunks[2].text and '"""A class too big' in chunks[2].text
    assert chunks[3].text.endswith("return 3")
    assert [c.heading_path for c in chunks] == [
        ("mod",), ("mod",), ("Big",), ("Big",), ("huge",),
    ]
    assert [c.oversize for c in chunks] == [False, False, False, False, True]
    check_code_invariants(doc, chunks, 250)


def test_a_chunk_of_one_definition_is_named_after_it():
    doc = sample()
    chunks = run(doc, 120)
    paths = [c.heading_path for c in chunks]
    assert ("Big", "one") in paths and ("Big", "two") in paths
    assert ("huge",) in paths
    one = chunks[paths.index(("Big", "one"))]
    assert one.text.startswith("    def one(self):")
    check_code_invariants(doc, chunks, 120)


def test_everything_fits_in_one_chunk_per_group():
    doc = sample()
    chunks = run(doc, 100_000)
    # the header is never packed with definitions
    assert len(chunks) == 2
    assert chunks[1].text.startswith("# helper comment") and chunks[1].text.endswith("h79 = compute(79, 'text 79')")


def test_comments_after_a_blank_line_and_trailing_comments_are_kept():
    doc = py('''
        #!/usr/bin/env python
        # leading comment block

        import os

        # ---- section ----

        def f():
            pass
        # trailing comment
        ''')
    chunks = run(doc, 400)
    assert chunks[0].text.startswith("#!/usr/bin/env python")
    joined = "".join(c.text for c in chunks)
    for piece in ("# ---- section ----", "# trailing comment", "def f"):
        assert piece in joined


def test_overlap_repeats_whole_units():
    funcs = "\n\n".join(f"def f{i}(x):\n    return x * {i} + len('{i}')" for i in range(20))
    doc = py(funcs)
    chunks = run(doc, 60, overlap=25)
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end
        shared = doc.text[b.start : a.end]
        assert shared.startswith("def f") and shared.endswith(")")
        assert TOK.count(shared) <= 25
    for a, c in zip(chunks, chunks[2:]):
        assert a.end <= c.start
    check_code_invariants(doc, chunks, 60, overlap=25)


def test_cjk_and_emoji_offsets():
    doc = py('''
        """模块 😀."""
        import os

        def 函数(参数="日本語"):
            return "😀😀"  # 注释

        class Ö:
            """Dok 🎉."""
            ü = "ß"
        ''')
    chunks = run(doc, 30)
    assert [c.text.split("\n")[0] for c in chunks] == [
        '"""模块 😀."""', 'def 函数(参数="日本語"):', "class Ö:",
    ]
    assert chunks[1].text.endswith('return "😀😀"  # 注释')
    assert [c.heading_path for c in chunks] == [("mod",), ("函数",), ("Ö",)]
    check_code_invariants(doc, chunks, 30)


def test_crlf_source():
    doc = sample()
    crlf = Document(doc.text.replace("\n", "\r\n"), path="mod.py")
    a = run(doc, 250, sizer=CHARS)
    b = run(crlf, 250, sizer=CHARS)
    assert [c.heading_path for c in b] == [c.heading_path for c in run(crlf, 250, sizer=CHARS)]
    for c in b:
        assert not c.text.endswith("\r")
    assert [c.text.split("\r\n")[0] for c in b][:2] == [c.text.split("\n")[0] for c in a][:2]
    check_code_invariants(crlf, b, 250, CHARS)


def test_syntax_error_falls_back_to_recursive_with_python_separators():
    text = "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n\nclass C:\n    x = 1\n" * 5
    doc = Document(text, path="bad.py")
    chunks = run(doc, 40)
    expected = get("recursive").chunk(doc, TOK, size=40, language="python")
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in expected]
    assert all(c.strategy == "code" for c in chunks)
    assert chunks[0].meta["fallback"] == "recursive (python separators)"
    assert "line 5" in chunks[0].meta["reason"]


@pytest.mark.parametrize(
    "path,language",
    [("app.js", "js"), ("main.go", "go"), ("lib.rs", "rust"), ("x.unknownlang", None)],
)
def test_code_that_does_not_parse_uses_recursive_with_its_separators(path, language):
    """A mix of JavaScript, Go and Rust parses in none of them (with the code
    extra, tree-sitter reports a syntax error; without it there is no parser)."""
    text = "\n\n".join(
        f"function f{i}() {{\n  return {i};\n}}\nfunc g{i}() {{}}\nfn h{i}() {{}}" for i in range(15)
    )
    doc = Document(text, path=path, kind="code")
    chunks = run(doc, 50)
    options = {"language": language} if language else {}
    expected = get("recursive").chunk(doc, TOK, size=50, **options)
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in expected]
    assert chunks[0].meta["fallback"] == f"recursive ({language or 'default'} separators)"
    assert chunks[0].meta["reason"]


def test_language_option_forces_python():
    doc = Document("def f():\n    return 1\n\ndef g():\n    return 2\n", path="notes.txt", kind="text")
    assert run(doc, 5)[0].meta.get("fallback")
    chunks = run(doc, 5, language="python")
    assert [c.heading_path for c in chunks] == [("f",), ("g",)]


def test_empty_and_comment_only_files():
    assert run(Document("", path="e.py"), 50) == []
    assert run(Document("\n  \n", path="e.py"), 50) == []
    chunks = run(Document("# only a comment\n# and another\n", path="c.py"), 50)
    assert [c.text for c in chunks] == ["# only a comment\n# and another"]


def test_bad_parameters():
    doc = Document("x = 1\n", path="a.py")
    with pytest.raises(ValueError, match="size"):
        run(doc, 0)
    with pytest.raises(ValueError, match="overlap"):
        run(doc, 10, overlap=20)


@pytest.mark.parametrize("size", [128, 400])
def test_corpus_never_splits_a_definition_or_a_string(size):
    files = corpus_files("python", "*.py")
    assert files
    total = 0
    for path in files:
        doc = Document.from_path(path)
        chunks = run(doc, size)
        check_code_invariants(doc, chunks, size)
        total += len(chunks)
    assert total > len(files)
