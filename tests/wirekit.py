"""A raw JSON-RPC client for byte-level tests of the real server process.

Writes exactly the bytes a test gives and reads the server's frames back in a
thread, so a test can send malformed frames that no LSP client library would
produce. Every wait is a generous guard against hangs, never a speed check.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from typing import Any

from lsp_support import SERVER_COMMAND, TIMEOUT


def frame(message: Any, *, header: str = "Content-Length", eol: bytes = b"\r\n") -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return f"{header}: {len(body)}".encode() + eol + eol + body


class RawServer:
    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        self.proc = subprocess.Popen([*SERVER_COMMAND, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, **(env or {})}, cwd=cwd)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.next_id = 1000

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            assert length is not None, "the server sent a frame without Content-Length"
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_message(self, message: dict[str, Any]) -> None:
        self.send(frame(message))

    def request(self, method: str, params: Any = None, *, raw_params: bool = False) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None or raw_params:
            message["params"] = params
        self.send_message(message)
        return self.next_id

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send_message(message)

    def next_message(self) -> dict[str, Any]:
        message = self.messages.get(timeout=TIMEOUT)
        assert message is not None, "the server closed its output: " + b"".join(self.stderr[-20:]).decode(
            "utf-8", "replace")
        return message

    def wait_for(self, predicate, what: str = "message") -> dict[str, Any]:
        """The next message that satisfies ``predicate`` (others are kept in ``seen``)."""
        while True:
            message = self.next_message()
            self.seen.append(message)
            if predicate(message):
                return message

    @property
    def seen(self) -> list[dict[str, Any]]:
        if not hasattr(self, "_seen"):
            self._seen: list[dict[str, Any]] = []
        return self._seen

    def response(self, msg_id: Any) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m)

    def published(self, uri: str, version: int | None = None) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri
                             and (version is None or m["params"].get("version") == version))

    def initialize(self, init_options: Any = None, *, root_uri: str | None = None) -> dict[str, Any]:
        rid = self.request("initialize", {"processId": None, "rootUri": root_uri,
                                          "capabilities": {}, "initializationOptions": init_options})
        answer = self.response(rid)
        assert "result" in answer, answer
        self.notify("initialized", {})
        return answer

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send_message({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
                self.send_message({"jsonrpc": "2.0", "method": "exit"})
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        return self.proc.returncode

    def log_text(self) -> str:
        """What the server logged: window/logMessage texts seen so far and stderr."""
        messages = [m["params"]["message"] for m in self.seen if m.get("method") == "window/logMessage"]
        return "\n".join(messages) + "\n" + b"".join(self.stderr).decode("utf-8", "replace")
