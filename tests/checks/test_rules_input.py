"""CS301–CS304: a bad and a good chunk list for each input rule (the docs'
examples, which are pipeline code, run here)."""

from __future__ import annotations

from chunkseam.document.text import Document
from chunkseam.core.settings import Settings
from chunkseam.engine.validate import validate

S = Settings(min_tokens=0)


def codes(text, chunks):
    return [i.code for i in validate(Document(text), chunks, S)]


def test_cs301_offset_mismatch():
    text = "Restart the server. Edit the file. Restart the server."
    bad = [{"start": 0, "end": 19, "text": "Restart the server."},
           {"start": 19, "end": 35, "text": " Edit the file. "},
           {"start": 0, "end": 19, "text": "Restart the server."}]
    good = bad[:2] + [{"start": 35, "end": 54, "text": "Restart the server."}]
    assert "CS301" in codes(text, bad)
    assert "CS301" not in codes(text, good)


def test_cs302_invalid_span():
    text = "Short document."
    assert "CS302" in codes(text, [{"start": 0, "end": 40}])
    assert "CS302" not in codes(text, [{"start": 0, "end": 15}])


def test_cs303_empty_chunk():
    text = "First paragraph.\n\nSecond paragraph."
    assert "CS303" in codes(text, [{"start": 0, "end": 16}, {"start": 16, "end": 18},
                                   {"start": 18, "end": 35}])
    assert "CS303" not in codes(text, [{"start": 0, "end": 16}, {"start": 16, "end": 35}])


def test_cs304_uncovered_text():
    text = "Alpha beta. Gamma delta."
    assert "CS304" in codes(text, [{"start": 0, "end": 11}])
    assert "CS304" not in codes(text, [{"start": 0, "end": 11}, {"start": 12, "end": 24}])


def test_cs301_byte_offsets():
    text = "Café au lait. Thé vert. Eau."
    assert "CS301" in codes(text, [{"start": 0, "end": 14, "text": "Café au lait. "},
                                   {"start": 15, "end": 25, "text": "Thé vert."},
                                   {"start": 23, "end": 28}])
    assert "CS301" not in codes(text, [{"start": 0, "end": 14, "text": "Café au lait. "},
                                       {"start": 14, "end": 23, "text": "Thé vert."},
                                       {"start": 23, "end": 28}])


def test_cs301_str_find_duplicate_is_one_issue_not_also_uncovered_text():
    text = "Restart the server. Edit the file. Restart the server."
    bad = [{"start": 0, "end": 19, "text": "Restart the server."},
           {"start": 19, "end": 35, "text": " Edit the file. "},
           {"start": 0, "end": 19, "text": "Restart the server."}]
    issues = validate(Document(text), bad, S)
    assert [i.code for i in issues] == ["CS301"]
    assert issues[0].chunk == 2 and issues[0].data["found"] == [35]
    assert issues[0].data["duplicate_of"] == 0
    # the same chunk retrieved twice, with nothing uncovered, is not this bug
    dup = [{"start": 0, "end": 19}, {"start": 0, "end": 19}, {"start": 19, "end": 54}]
    assert "CS301" not in codes(text, dup)
