"""In-process checks of the language server's pure helpers (the end-to-end
behaviour is tested through real clients in the other test_lsp_* files)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from chunkseam.document.text import Document
from chunkseam.lsp.hover import fenced, truncate
from chunkseam.lsp.settings import EditorSettings
from chunkseam.lsp.state import _carry_line_index

PIECES = st.sampled_from(["a", "bc", "\n", "\r", "\r\n", " ", "😀", "\u2028"])


@settings(max_examples=300, deadline=None)
@given(text=st.lists(PIECES, max_size=40).map("".join), data=st.data())
def test_carried_line_index_equals_a_full_scan(text, data):
    old = Document(text)
    old.line_starts
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    inserted = data.draw(st.lists(PIECES, max_size=4).map("".join))
    new = Document(text[:start] + inserted + text[end:])
    _carry_line_index(old, new, start, end, len(inserted))
    carried = new.line_starts
    assert carried == Document(new.text).line_starts


def test_truncate_keeps_both_ends():
    text = "\n".join(f"line {i}" for i in range(100))
    out = truncate(text, max_lines=10, max_chars=10_000)
    assert out.startswith("line 0\n") and out.endswith("line 99")
    assert "90 lines" in out and "characters not shown" in out
    one_line = "x" * 5000 + "END"
    out = truncate(one_line, max_lines=10, max_chars=400)
    assert out.startswith("xxx") and out.endswith("END") and len(out) < 600
    assert truncate("short", 10, 100) == "short"


def test_fence_is_longer_than_any_backtick_run_inside():
    assert fenced("a ```` b", "text").startswith("`````text\n")
    assert fenced("plain").startswith("```\n")


def test_initialization_option_shapes():
    a = EditorSettings.from_initialization_options({"trusted": True, "settings": {"size": 3}})
    b = EditorSettings.from_initialization_options({"chunkseam": {"size": 3}})
    c = EditorSettings.from_initialization_options({"size": 3, "trusted": "yes"})
    assert a.trusted and not b.trusted and not c.trusted  # only a real `true` trusts
    assert a.overrides() == b.overrides() == c.overrides() == {"size": 3}
    d = EditorSettings.from_initialization_options(None)
    assert d.overrides() == {} and not d.trusted
    e = EditorSettings(init={"size": 1, "trace": "debug", "server": {"path": "x"}})
    assert e.set_workspace({"size": 2}) and not e.set_workspace({"size": 2})
    assert e.overrides() == {"size": 2}
    import logging

    both = EditorSettings(workspace={"trace": {"server": "off"}, "logLevel": "debug"})
    assert both.log_level() == (logging.DEBUG, [])
    assert EditorSettings(workspace={"trace": {"server": "verbose"}}).log_level() == (None, [])
    level, problems = EditorSettings(workspace={"logLevel": "loud"}).log_level()
    assert level is None and "logLevel" in str(problems[0]) and "expected one of" in str(problems[0])


def _fix(text: str, sentence: str, fn_name: str = "paragraph_break", code: str = "CS002"):
    from chunkseam.fix import edits as fixes
    from chunkseam.core.issue import Issue

    doc = Document(text, language_id="markdown", version=1)
    s = text.index(sentence)
    issue = Issue(code, "mid-sentence", "warning", "cut", s, s + len(sentence), cut=s + 5,
                  data={"sentence": [s, s + len(sentence)], "sentence_start": s})
    made = getattr(fixes, fn_name)(doc, issue)
    if made is None:
        return None
    return fixes.apply(doc, made[1]).text


def test_paragraph_break_keeps_list_items_and_quotes_together():
    assert _fix("- First one. Second one here.\n", "Second one here.") == \
        "- First one.\n\n  Second one here.\n"
    assert _fix("> First one. Second one here.\n", "Second one here.") == \
        "> First one.\n>\n> Second one here.\n"
    assert _fix("First line of a paragraph\nSecond one here.\n", "Second one here.") == \
        "First line of a paragraph\n\nSecond one here.\n"
    # the first sentence of a paragraph has nothing before it to split from
    assert _fix("Intro.\n\nSecond one here.\n", "Second one here.") is None
    assert _fix("Only one here.\n", "Only one here.") is None
    # CRLF documents get CRLF breaks
    assert _fix("First one. Second one.\r\n", "Second one.") == "First one.\r\n\r\nSecond one.\r\n"
