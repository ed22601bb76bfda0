"""Odd but legal client behaviour, through the real server over stdio.

- a didChange that reuses the current version number with new text;
- a didChange whose range has negative positions (clamped, as any other
  out-of-range position, so the server's text never diverges);
- a debounce setting too large for a timer (validated, never an overflow);
- front matter opened with ``----`` or ``---yaml`` (the segmented parse
  equals the whole-document parse).
"""

from __future__ import annotations

import math

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from chunkseam.config.loader import MAX_DEBOUNCE_MS, settings_from_mapping
from chunkseam.structure.markdown import _skip_to
from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, change_doc, edit, initialize, open_doc, replace_all, shutdown,
    wait_published,
)
from test_structure import assert_segmented_equals_whole

DATABASE = (FIXTURES / "database.md").read_text(encoding="utf-8")


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


def _comparable(diags) -> list:
    return sorted((d.code, d.range.start.line, d.range.start.character, d.range.end.line,
                   d.range.end.character, d.message) for d in diags)


async def _published_for(client: LanguageClient, uri: str, text: str) -> list:
    """What the server publishes for ``text`` opened fresh under ``uri``."""
    open_doc(client, uri, text)
    return _comparable((await wait_published(client, uri, version=1)).diagnostics)


async def test_a_reused_version_number_with_new_text_gets_new_diagnostics(client, tmp_path):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = (tmp_path / "reuse.md").as_uri()
    open_doc(client, uri, DATABASE)
    first = await wait_published(client, uri, version=1)
    assert first.diagnostics  # the fixture has broken cuts at these settings
    seen = len(client.published)  # type: ignore[attr-defined]
    short = "Tiny.\n"
    change_doc(client, uri, 1, [replace_all(short)])  # the same version, new text
    again = await wait_published(client, uri, version=1, after=seen)
    assert list(again.diagnostics) == []
    # and the next real version is analysed from the new text as well
    seen = len(client.published)  # type: ignore[attr-defined]
    change_doc(client, uri, 2, [edit(0, 0, 0, 0, DATABASE)])
    after = await wait_published(client, uri, version=2, after=seen)
    expected = await _published_for(client, (tmp_path / "expected.md").as_uri(), DATABASE + short)
    assert _comparable(after.diagnostics) == expected


async def test_negative_positions_in_a_change_are_clamped_not_dropped(client, tmp_path):
    await initialize(client, init_options={"settings": FIXED_200})
    uri = (tmp_path / "negative.md").as_uri()
    open_doc(client, uri, DATABASE)
    await wait_published(client, uri, version=1)
    seen = len(client.published)  # type: ignore[attr-defined]
    # sent raw: the client library would refuse to build such a Position
    client.protocol._send_data({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE, "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": -3, "character": -7},
                                      "end": {"line": 0, "character": 2}},
                            "text": "Intro words. "}]}})
    got = await wait_published(client, uri, version=2, after=seen)
    # clamped to 0:0, the change replaced the first two characters
    text = "Intro words. " + DATABASE[2:]
    expected = await _published_for(client, (tmp_path / "expected.md").as_uri(), text)
    assert _comparable(got.diagnostics) == expected
    # a later ordinary edit applies to the same text the client has
    seen = len(client.published)  # type: ignore[attr-defined]
    change_doc(client, uri, 3, [edit(0, 0, 0, 0, "# Title\n\n")])
    got = await wait_published(client, uri, version=3, after=seen)
    expected = await _published_for(client, (tmp_path / "expected2.md").as_uri(), "# Title\n\n" + text)
    assert _comparable(got.diagnostics) == expected


async def test_a_huge_debounce_is_refused_and_diagnostics_keep_coming(client, tmp_path):
    settings = dict(FIXED_200, debounceMs=10**30)
    await initialize(client, init_options={"settings": settings})
    uri = (tmp_path / "debounce.md").as_uri()
    open_doc(client, uri, DATABASE)
    await wait_published(client, uri, version=1)
    for version in (2, 3):
        seen = len(client.published)  # type: ignore[attr-defined]
        change_doc(client, uri, version, [edit(0, 0, 0, 0, "x")])
        got = await wait_published(client, uri, version=version, after=seen)
        assert got.version == version


def test_debounce_out_of_range_is_a_clear_settings_error():
    for bad in (10**30, 10**400, math.inf, 1e400, -1, MAX_DEBOUNCE_MS + 1, "9" * 400):
        settings, errors = settings_from_mapping({"debounceMs": bad}, source="settings.json",
                                                 strict=False)
        assert settings.debounce_ms == 300
        assert len(errors) == 1, (bad, errors)
        message = str(errors[0])
        assert "settings.json" in message and "debounce" in message
        assert str(MAX_DEBOUNCE_MS) in message, message
    settings, errors = settings_from_mapping({"debounceMs": MAX_DEBOUNCE_MS}, source="x")
    assert settings.debounce_ms == MAX_DEBOUNCE_MS and not errors


FRONT_MATTER = [
    "----\ntitle: x\n\n# not a heading\n----\n\n# Real\n\ntext\n",
    "---yaml\ntitle: x\n\n# yaml comment\n---\n\n# Real\n\ntext\n",
    "-----\na: 1\n\n# b\n---\n\n# c\n-----\n\n# d\n",
    "---\r\na: 1\r\n\r\n# b\r\n...\r\n\r\n# c\r\n",
    "---\na: 1\n\n# b\n   ---\n\n# c\n",
    "---\na: 1\n\n# b\n    ---\n\n# c\n---\n\n# d\n",
    "---\nnever closed\n\n# h\n\ntext\n",
]


def test_front_matter_variants_parse_the_same_segmented_as_whole():
    for text in FRONT_MATTER:
        assert_segmented_equals_whole(text)
    # the front matter ends where the parser ends it
    assert _skip_to(FRONT_MATTER[0]) == FRONT_MATTER[0].index("\n\n# Real") + 1
    assert _skip_to(FRONT_MATTER[2]) == FRONT_MATTER[2].index("\n\n# d") + 1
