"""CS201 split-definition and CS202 split-string on Python files."""

from __future__ import annotations

from cutkit import marked

from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

S = Settings(min_tokens=0)


def cut_codes(text):
    doc, chunks, _ = marked(text, kind="python")
    return [i.code for i in validate(doc, chunks, S) if i.cut is not None]


def test_split_definition_inside_a_function_body_signature_and_decorators():
    assert cut_codes("def f(x):\n    a = 1\n✂    return a\n") == ["CS201"]
    assert cut_codes("def f(x,\n✂      y):\n    return x\n") == ["CS201"]
    assert cut_codes("@decorator\n✂def f():\n    return 1\n") == ["CS201"]


def test_between_definitions_and_between_methods_is_clean():
    assert cut_codes("def f():\n    return 1\n✂\n\ndef g():\n    return 2\n") == []
    assert cut_codes("class C:\n    def a(self):\n        return 1\n✂\n    def b(self):\n        return 2\n") == []


def test_inside_a_method_names_the_method():
    doc, chunks, _ = marked("class C:\n    def a(self):\n        x = 1\n✂        return x\n", kind="python")
    (i,) = [i for i in validate(doc, chunks, S) if i.code == "CS201"]
    assert i.data["name"] == "C.a" and i.data["kind"] == "function"
    assert "inside method C.a" in i.message


def test_split_string_beats_split_definition_and_names_docstrings():
    doc, chunks, _ = marked('def f():\n    """Doc\n✂    string."""\n    return 1\n', kind="python")
    (i,) = [i for i in validate(doc, chunks, S) if i.cut is not None]
    assert i.code == "CS202" and i.data["kind"] == "docstring" and "inside a docstring" in i.message
    assert cut_codes('X = f"value {1} ✂more"\n') == ["CS202"]


def test_mid_identifier_in_code_is_mid_word():
    assert cut_codes("result = compute_val✂ue(1)\n") == ["CS001"]


def test_inline_ignore_comments():
    doc, chunks, _ = marked("def f():  # chunkseam: ignore[CS201]\n    a = 1\n✂    return a\n", kind="python")
    assert [i.code for i in validate(doc, chunks, S)] == []
