"""The server's side of the LSP base protocol: reading frames, robustly.

pygls' reader (``pygls.io_.run_async``) accepts exactly ``Content-Length:
N\\r\\n`` and trusts ``N``: a lowercase header or LF-only line ends make it
skip every following frame, a frame without a length desynchronises the
stream, a huge ``N`` allocates ``N`` bytes (MemoryError) or overflows, and a
body that cannot be turned into a message is logged without an answer, so
the client waits for ever. This loop replaces it:

* header names are case-insensitive, lines may end in CRLF or LF, other
  headers (``Content-Type``) are accepted and ignored;
* header lines are read with a bounded length, and a body larger than
  :data:`MAX_CONTENT_LENGTH` is refused: the frame is skipped, an error is
  logged and reading resumes at the next ``Content-Length`` header (which is
  also how a frame without a length, or any garbage, is recovered from);
* a body that is not JSON gets a ``ParseError`` response (id null), a
  message that is not an object an ``InvalidRequest``, and a request whose
  params cannot be read (``hover`` at line -1, ``initialize`` with null
  params) an ``InvalidParams`` response with its id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from concurrent.futures import Executor
from typing import Any, BinaryIO

from lsprotocol import types

log = logging.getLogger("chunkseam.lsp.wire")

#: longest header line read (bytes); longer lines are skipped as garbage
MAX_HEADER_LINE = 8192
#: largest body accepted (bytes). A 2 MB document is at most ~12 MB of JSON
#: (every character escaped as \\uXXXX); 64 MiB leaves room and bounds memory.
MAX_CONTENT_LENGTH = 64 * 1024 * 1024

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\S*)[ \t]*$", re.IGNORECASE)
_HEADER = re.compile(rb"^[A-Za-z0-9!#$%&'*+.^_`|~-]+[ \t]*:")


class StdioReader:
    """Bounded reads from a binary stream, in an executor thread."""

    def __init__(self, stream: BinaryIO, executor: Executor | None = None) -> None:
        self.stream = stream
        self.executor = executor

    async def readline(self, limit: int) -> bytes:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self.stream.readline, limit)

    async def read(self, n: int) -> bytes:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._read, n)

    def _read(self, n: int) -> bytes:
        parts, got = [], 0
        while got < n:
            part = self.stream.read(n - got)
            if not part:
                break
            parts.append(part)
            got += len(part)
        return b"".join(parts)


class StreamReaderAdapter:
    """The same bounded reads over an ``asyncio.StreamReader`` (TCP)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    async def readline(self, limit: int) -> bytes:
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial
        except asyncio.LimitOverrunError as exc:
            return await self.reader.read(max(1, min(exc.consumed, limit)))
        if len(line) > limit:  # readuntil's own limit is 64 KiB
            return line[:limit]
        return line

    async def read(self, n: int) -> bytes:
        try:
            return await self.reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


async def read_frame(reader: Any) -> bytes | None:
    """The body of the next well-formed frame; None at the end of the stream.

    Malformed or oversized frames are logged and skipped."""
    length: int | None = None
    bad_length = False
    in_header = False
    skipping = False  # between a bad frame and the next Content-Length

    def problem(message: str, *args: Any) -> None:
        nonlocal skipping
        if not skipping:
            log.error("chunkseam: " + message + "; skipping to the next Content-Length header", *args)
        skipping = True

    while True:
        line = await reader.readline(MAX_HEADER_LINE)
        if not line:
            return None
        if not line.endswith(b"\n") and len(line) >= MAX_HEADER_LINE:
            # an endless line: discard it in bounded pieces; its last piece is read as a line
            problem("a header line longer than %d bytes", MAX_HEADER_LINE)
            length, bad_length, in_header = None, False, False
            while line and not line.endswith(b"\n"):
                line = await reader.readline(MAX_HEADER_LINE)
            if not line:
                return None
        stripped = line.rstrip(b"\r\n")
        if not stripped:
            if length is not None and not bad_length:
                if length > MAX_CONTENT_LENGTH:
                    problem("refused a frame of %d bytes (at most %d)", length, MAX_CONTENT_LENGTH)
                    length, in_header = None, False
                    continue
                body = await reader.read(length)
                if len(body) < length:
                    log.error("chunkseam: the stream ended inside a frame (%d of %d bytes)",
                              len(body), length)
                    return None
                return body
            if in_header and not bad_length:
                problem("a frame without a Content-Length header")
            length, bad_length, in_header = None, False, False
            continue
        m = _CONTENT_LENGTH.search(stripped)
        if m is not None:
            if m.start() > 0:
                # a body without a length ran into the next header: resynchronise here
                problem("%d bytes that are not a frame", m.start())
            skipping = False
            value = m.group(1)
            in_header = True
            if value.isdigit() and len(value) <= 20:
                length, bad_length = int(value), False
            else:
                log.error("chunkseam: a frame with a bad Content-Length %r; skipping to the next "
                          "Content-Length header", value[:40].decode("latin-1"))
                length, bad_length, skipping = None, True, True
            continue
        if _HEADER.match(stripped) and (in_header or not skipping):
            in_header = True  # Content-Type or another header: ignored
            continue
        problem("%d bytes that are not a frame header", len(stripped))
        length, bad_length, in_header = None, False, False


def answer_error(protocol: Any, msg_id: Any, code: types.ErrorCodes, message: str) -> None:
    # pygls' own way to answer a request (a ResponseErrorMessage through the writer)
    protocol._send_response(msg_id, None, types.ResponseError(code=code, message=message))


def _valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def handle_body(protocol: Any, body: bytes) -> None:
    """Parse one body and hand the message to pygls; answer what cannot be handled."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        log.error("chunkseam: a frame that is not JSON (%s): %.200r", type(exc).__name__, body)
        answer_error(protocol, None, types.ErrorCodes.ParseError, f"not JSON: {exc}"[:300])
        return
    if not isinstance(data, dict):
        log.error("chunkseam: a message that is not a JSON object: %.200r", body)
        answer_error(protocol, None, types.ErrorCodes.InvalidRequest, "a message must be a JSON object")
        return
    method = data.get("method")
    is_request = "id" in data and method is not None
    if is_request and (not _valid_id(data["id"]) or not isinstance(method, str)):
        log.error("chunkseam: a request with a bad id or method: %.200r", body)
        answer_error(protocol, None, types.ErrorCodes.InvalidRequest,
                "a request needs a string or integer id and a string method")
        return
    try:
        message = protocol.structure_message(data)
    except Exception as exc:  # cattrs validation, a RecursionError on deep params …
        reason = str(exc.__cause__ or exc) or type(exc).__name__
        if is_request:
            log.error("chunkseam: %s request %r has params that cannot be read: %s",
                      method, data["id"], reason[:500])
            answer_error(protocol, data["id"], types.ErrorCodes.InvalidParams,
                   f"{method}: the params cannot be read")
        else:
            log.error("chunkseam: dropped %r: the message cannot be read: %s", method, reason[:500])
        return
    try:
        protocol.handle_message(message)
    except Exception:
        log.exception("chunkseam: could not handle %r", method)
        if is_request:
            answer_error(protocol, data["id"], types.ErrorCodes.InternalError, f"{method} failed")


async def run(stop_event: threading.Event, reader: Any, protocol: Any) -> None:
    """The message loop: read frames until the stream ends or the server stops."""
    while not stop_event.is_set():
        body = await read_frame(reader)
        if body is None:
            break
        handle_body(protocol, body)
