"""The wire, byte by byte, against the real server process: malformed and
oversized frames are refused with a logged error and the stream is read on;
requests whose params cannot be read, requests before ``initialize`` and after
``shutdown`` are answered with errors; notifications before ``initialize`` are
dropped."""

from __future__ import annotations

import json

import pytest

from wirekit import RawServer, frame

SETTINGS = {"settings": {"chunker": "fixed", "unit": "chars", "size": 40, "debounceMs": 0}}
HOVER = {"textDocument": {"uri": "untitled:/a.md"}, "position": {"line": 0, "character": 0}}


@pytest.fixture
def server():
    s = RawServer()
    yield s
    s.close()


def ping(server: RawServer) -> dict:
    """A request every live server answers (an error: the document is not open)."""
    rid = server.request("textDocument/hover", HOVER)
    return server.response(rid)


def open_doc(server: RawServer, uri: str, text: str, version: int = 1) -> None:
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": version, "text": text}})


def test_lowercase_header_and_lf_only_line_ends_are_read(server):
    server.initialize(SETTINGS)
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": HOVER})
    server.send(frame(body.encode(), header="content-length", eol=b"\n"))
    answer = server.response(7)
    assert answer["error"]["code"] == -32602  # not open: InvalidParams, but answered
    server.send(b"CONTENT-LENGTH:%d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s"
                % (len(body), body.replace('"id": 7', '"id": 8').encode()))
    assert server.response(8)["error"]["code"] == -32602


@pytest.mark.parametrize("header", [
    b"Content-Length: 1000000000000\r\n\r\n",
    b"Content-Length: 1e20\r\n\r\n",
    b"Content-Length: 100000000000000000000000000000000\r\n\r\n",
    b"Content-Length: -5\r\n\r\n",
    b"Content-Type: application/json\r\n\r\n",  # no Content-Length at all
    b"Garbage that is not a header\r\n",
], ids=["1e12", "1e20-text", "huge-digits", "negative", "no-length", "garbage"])
def test_a_bad_frame_is_logged_and_the_next_one_answered(server, header):
    server.initialize(SETTINGS)
    bad = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": HOVER})
    server.send(header + bad.encode())
    answer = ping(server)
    assert "error" in answer and answer["id"] != 5
    assert server.proc.poll() is None
    log = server.log_text()
    assert "skipping to the next Content-Length header" in log, log
    assert not any(m.get("id") == 5 for m in server.seen)  # the bad frame was not handled


def test_an_endless_header_line_is_skipped(server):
    server.initialize(SETTINGS)
    server.send(b"X" * 100_000 + b"\r\n")
    assert "error" in ping(server)
    assert "header line longer than" in server.log_text()


def test_a_body_that_is_not_json_gets_a_parse_error(server):
    server.initialize(SETTINGS)
    server.send(frame(b"{not json"))
    answer = server.wait_for(lambda m: m.get("id") is None and "error" in m)
    assert answer["error"]["code"] == -32700
    server.send(frame(b"[" * 100_000 + b"]" * 100_000))  # a RecursionError in the parser
    answer = server.wait_for(lambda m: m.get("id") is None and "error" in m)
    assert answer["error"]["code"] == -32700
    server.send(frame(b"[1, 2]"))
    answer = server.wait_for(lambda m: m.get("id") is None and "error" in m)
    assert answer["error"]["code"] == -32600
    assert "error" in ping(server)


def test_unreadable_params_get_invalid_params(server):
    rid = server.request("initialize", None, raw_params=True)
    answer = server.response(rid)
    assert answer["error"]["code"] == -32602
    server.initialize(SETTINGS)  # a proper initialize still works afterwards
    open_doc(server, "untitled:/a.md", "# Title\n\nSome text here.\n")
    server.published("untitled:/a.md", 1)
    rid = server.request("textDocument/hover", {"textDocument": {"uri": "untitled:/a.md"},
                                                 "position": {"line": -1, "character": 0}})
    answer = server.response(rid)
    assert answer["error"]["code"] == -32602
    rid = server.request("textDocument/hover", {"textDocument": {"uri": "untitled:/a.md"},
                                                 "position": {"line": 0, "character": 2}})
    assert "result" in server.response(rid)


def test_before_initialize_requests_are_refused_and_notifications_dropped(server):
    rid = server.request("textDocument/hover", HOVER)
    assert server.response(rid)["error"]["code"] == -32002
    open_doc(server, "untitled:/a.md", "# Title\n\nSome text here.\n")
    server.initialize(SETTINGS)
    # the early didOpen was dropped: the document is not open
    assert server.response(server.request("chunkseam/chunks", {"textDocument": {"uri": "untitled:/a.md"}}))[
        "error"]["code"] == -32602
    assert not any(m.get("method") == "textDocument/publishDiagnostics" for m in server.seen)
    assert "before initialize dropped" in server.log_text()


def test_requests_after_shutdown_get_invalid_request(server):
    server.initialize(SETTINGS)
    assert "error" not in server.response(server.request("shutdown"))
    rid = server.request("textDocument/hover", HOVER)
    assert server.response(rid)["error"]["code"] == -32600
    rid = server.request("shutdown")
    assert server.response(rid)["error"]["code"] == -32600
    server.notify("exit")
    assert server.proc.wait(60) == 0


def test_cancelling_an_answered_request_is_not_a_warning(server):
    server.initialize({**SETTINGS, "logLevel": "info"})
    answer = ping(server)
    server.notify("$/cancelRequest", {"id": answer["id"]})
    server.notify("$/cancelRequest", {"id": 424242})
    ping(server)
    assert "Cancel notification" not in server.log_text()
    assert "unknown message id" not in server.log_text()
