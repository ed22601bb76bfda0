"""The adversarial campaign's documents, settings and edit sequences, kept as
regression tests against the real server process: after each, the server
still answers, and everything it sent lies inside the document."""

from __future__ import annotations

import re

import pytest

from test_lsp_robust import assert_range_inside as _inside
from wirekit import RawServer

_SURROGATE = re.compile("[\ud800-\udfff]")


def assert_range_inside(text: str, rng: dict) -> tuple[int, int]:
    # a lone surrogate (a Python str never holds a pair) is one UTF-16 unit, as U+FFFD is
    return _inside(_SURROGATE.sub("\ufffd", text), rng)

HOSTILE_DOCUMENTS = {
    "nul and controls": "# T\x00itle\n\nText\x00 with \x01\x02 controls.\x7f\n",
    "lone surrogates": "# Title\n\nA \ud800 lone and \udfff other surrogate.\n",
    "mixed line ends": "# A\r\n\r\nOne.\rTwo.\nThree.\r\n\n\r\r\n# B\r",
    "separators only": "\n" * 5000 + "\r\n" * 5000,
    "one long word": "x" * 200_000,
    "deep nesting": "> " * 2000 + "quote\n" + "- " * 2000 + "item\n",
    "many headings": "#\n" * 20_000,
    "brackets": "(" * 20_000 + ")" * 20_000,
    "fence storm": "```\n" * 5000,
    "bidi and zwj": "\u202eevil\u202c 👩‍👩‍👧‍👦 " * 2000,
    "huge numbers": "1. " + "9" * 5000 + "\n\n| " + "| " * 3000 + "\n",
}

HOSTILE_SETTINGS = [
    {"size": -1}, {"size": 0}, {"size": 10**30}, {"size": "big"}, {"size": 1.5},
    {"overlap": 10**9}, {"chunker": "../../etc/passwd"}, {"chunker": "os.system"},
    {"encoding": "../../x"}, {"tiktokenFile": "/dev/zero"}, {"plugins": ["os"]},
    {"select": [None, 1, {}]}, {"severity": {"CS001": "fatal"}}, {"exclude": ["*a" * 30 + "*b"]},
    {"chunkerOptions": {"separators": ["(a+)+$"], "isSeparatorRegex": True}},
    {"debounceMs": -5}, {"unknownKey": {"nested": [1, 2, 3]}}, {"chunkerOptions": "not a table"},
]


@pytest.fixture(scope="module")
def server():
    s = RawServer(env={"CHUNKSEAM_TIME_BUDGET": "2"})
    s.initialize({"settings": {"debounceMs": 0}})
    yield s
    assert s.close() == 0


def check_published(server: RawServer, uri: str, text: str, version: int) -> list[dict]:
    diags = server.published(uri, version)["params"]["diagnostics"]
    for d in diags:
        assert_range_inside(text, d["range"])
    return diags


def still_answers(server: RawServer, uri: str, text: str) -> None:
    rid = server.request("chunkseam/chunks", {"textDocument": {"uri": uri}})
    answer = server.response(rid)
    for c in answer.get("result", {}).get("chunks", []):
        assert assert_range_inside(text, c["range"]) == (c["startOffset"], c["endOffset"])
    rid = server.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": 0, "character": 0}})
    assert server.response(rid)["id"] == rid


@pytest.mark.parametrize("name", list(HOSTILE_DOCUMENTS))
def test_hostile_documents(server, name):
    text = HOSTILE_DOCUMENTS[name]
    uri = f"untitled:/hostile-{name.replace(' ', '-')}.md"
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": text}})
    check_published(server, uri, text, 1)
    still_answers(server, uri, text)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_hostile_settings_keep_the_server_answering(server):
    text = "# Title\n\nSome text. More text here.\n\n## Next\n\nAnother paragraph of text.\n"
    uri = "untitled:/settings.md"
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": text}})
    check_published(server, uri, text, 1)
    for n, bad in enumerate(HOSTILE_SETTINGS):
        server.notify("workspace/didChangeConfiguration", {"settings": {"chunkseam": {**bad, "debounceMs": 0}}})
        version = n + 2
        server.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]})
        diags = check_published(server, uri, text, version)
        errors = [d for d in diags if d.get("code") == "internal-error"]
        if "tiktokenFile" in bad:  # the editor's own setting is honoured: one clear diagnostic
            assert len(diags) == 1 and "not a regular file" in diags[0]["message"], diags
        else:
            assert not errors, (bad, errors)
        still_answers(server, uri, text)
    server.notify("workspace/didChangeConfiguration", {"settings": {"chunkseam": {"debounceMs": 0}}})
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_hostile_edit_sequences(server):
    uri = "untitled:/edits.md"
    text = "# T\n\n😀 text\r\nmore\n"
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": text}})
    check_published(server, uri, text, 1)
    edits = [  # out-of-range, reversed, mid-surrogate and mid-CRLF ranges are clamped, never fatal
        ({"start": {"line": 99, "character": 0}, "end": {"line": 120, "character": 5}}, "tail"),
        ({"start": {"line": 2, "character": 1}, "end": {"line": 2, "character": 1}}, "x"),
        ({"start": {"line": 2, "character": 9}, "end": {"line": 3, "character": 0}}, "y"),
        ({"start": {"line": 0, "character": 10**9}, "end": {"line": 0, "character": 10**9}}, "!"),
        ({"start": {"line": 3, "character": 2}, "end": {"line": 1, "character": 0}}, ""),
    ]
    version = 1
    for rng, new in edits:
        version += 1
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                  "contentChanges": [{"range": rng, "text": new}]})
        rid = server.request("workspace/executeCommand", {"command": "chunkseam.showChunk",
                                                          "arguments": [uri, 0]})
        server.response(rid)
    # the server's text is whatever the clamping made of it: resynchronise and compare
    final = "# Final\n\nThe text the client has.\n"
    version += 1
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                              "contentChanges": [{"text": final}]})
    check_published(server, uri, final, version)
    still_answers(server, uri, final)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
