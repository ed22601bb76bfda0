"""A 1 MB document's first diagnostics from the real server over stdio, the way
VS Code asks for them, beside ``chunkseam lint --no-cache`` on the same file.

Each round starts a fresh server (``python -m chunkseam server``), initializes
it in pull mode with the settings of the VS Code e2e's 1 MB check (``fixed``,
400 characters, no overlap, CS104 ignored), and then either

* ``head start``: sends ``chunkseam/willOpen`` for the file, waits as the
  workbench does while it loads the file (``--wait``, 0.35 s), then
  ``didOpen`` with the file's text and ``textDocument/diagnostic``; or
* ``cold``: ``didOpen`` and ``textDocument/diagnostic`` at once,

and times didOpen sent -> the diagnostic response read (its bytes, before the
client parses them). The server's debug log (``trace = debug``; each line
stamped when the client reads it) shows where the time went. The command line
runs in the same rounds, alternated with the server's figures.

    python benchmarks/bench_first_diagnostics.py [--rounds 3] [--wait 0.35] [--busy] [--baseline main]

``--busy`` keeps one core busy meanwhile (a browser rendering the file);
``--baseline REF`` measures the server of git revision REF too, its rounds
alternated with this tree's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
GUIDE = HERE.parent / "client-vscode" / "e2e" / "fixture" / "guide.md"
SETTINGS = {"chunker": "fixed", "size": 400, "unit": "chars", "overlap": 0, "ignore": ["CS104"],
            "trace": "debug"}


def big_document() -> str:
    """The e2e's big.md: guide.md repeated with numbered headings up to 1 MB."""
    guide = GUIDE.read_text(encoding="utf-8")
    parts, size, i = [], 0, 1
    while size < 1_000_000:
        part = f"## Part {i}\n\n{re.sub(r'^# .*$', f'### Deploying service {i}', guide, count=1, flags=re.MULTILINE)}\n"
        parts.append(part)
        size += len(part.encode())
        i += 1
    return "".join(parts)


class Server:
    """A chunkseam server over stdio; every message read is stamped."""

    def __init__(self, python: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([python, "-m", "chunkseam", "server"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.messages: list[tuple[float, dict]] = []
        self.cond = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            body = out.read(length)
            t = time.perf_counter()
            msg = json.loads(body)
            if "method" in msg and "id" in msg:  # a request of the server's
                self._answer(msg)
            with self.cond:
                self.messages.append((t, msg))
                self.cond.notify_all()

    def _answer(self, msg: dict) -> None:
        result = None
        if msg["method"] == "workspace/configuration":
            result = [SETTINGS for _ in msg["params"]["items"]]
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def send(self, msg: dict) -> float:
        body = json.dumps(msg).encode()
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        t = time.perf_counter()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return t

    def notify(self, method: str, params: dict) -> float:
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, pred, timeout: float = 120) -> tuple[float, dict]:
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for t, m in self.messages:
                    if pred(m):
                        return t, m
                if not self.cond.wait(max(0.0, end - time.monotonic())) and time.monotonic() > end:
                    raise TimeoutError("no answer from the server")

    def response(self, rid: int, timeout: float = 120) -> tuple[float, dict]:
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def logged(self, text: str, timeout: float = 120) -> float:
        return self.wait(lambda m: m.get("method") == "window/logMessage" and text in m["params"]["message"],
                         timeout)[0]

    def stop(self) -> None:
        try:
            rid = self.request("shutdown", None)
            self.response(rid, 10)
            self.notify("exit", None)
            self.proc.wait(10)
        except Exception:  # noqa: BLE001 - a benchmark: make sure it is gone
            self.proc.kill()


def one_open(python: str, env: dict[str, str], root: Path, path: Path, text: str, head_start: bool,
             wait: float) -> tuple[float, list[str], int]:
    """Seconds from didOpen sent to the diagnostic response read, the server's
    log lines in between (ms after didOpen), and the response's size."""
    s = Server(python, env)
    try:
        rid = s.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}],
            "capabilities": {"textDocument": {"diagnostic": {"dynamicRegistration": False}},
                             "workspace": {"configuration": True}},
            "initializationOptions": {"settings": SETTINGS}})
        s.response(rid)
        s.notify("initialized", {})
        # warm: the configuration is in and one small document analysed
        warm = (root / "warm.md").as_uri()
        s.notify("textDocument/didOpen", {"textDocument": {"uri": warm, "languageId": "markdown", "version": 1,
                                                           "text": "# Warm\n\nA short text.\n"}})
        s.response(s.request("textDocument/diagnostic", {"textDocument": {"uri": warm}}))
        uri = path.as_uri()
        first = len(s.messages)
        t_will = None
        if head_start:
            t_will = s.notify("chunkseam/willOpen", {"textDocument": {"uri": uri}})
            time.sleep(wait)
        t0 = s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1,
                                                                "text": text}})
        rid = s.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        t1, msg = s.response(rid)
        items = msg.get("result", {}).get("items", [])
        size = len(json.dumps(msg))
        lines = []
        if t_will is not None:
            lines.append(f"{(t_will - t0) * 1000:+7.0f} willOpen sent")
        lines.append(f"{0:+7.0f} didOpen sent ({len(text):,} characters)")
        for t, m in s.messages[first:]:
            if m.get("method") == "window/logMessage":
                lines.append(f"{(t - t0) * 1000:+7.0f} server: {m['params']['message'].splitlines()[0][:150]}")
        lines.append(f"{(t1 - t0) * 1000:+7.0f} response read ({len(items)} diagnostics, {size:,} bytes)")
        return t1 - t0, lines, len(items)
    finally:
        s.stop()


def lint(python: str, env: dict[str, str], path: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([python, "-m", "chunkseam", "lint", "--no-cache", "--chunker", "fixed", "--size", "400",
                           "--unit", "chars", "--ignore", "CS104", "--format", "json", str(path)],
                          capture_output=True, env=env, cwd=path.parent, check=False)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"chunkseam lint failed: {proc.stderr.decode()[:400]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--wait", type=float, default=0.35, help="willOpen -> didOpen (s), as the workbench loads")
    ap.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--quiet", action="store_true", help="figures only, no timelines")
    ap.add_argument("--baseline", metavar="REF", help="also measure the server of git revision REF")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    trees = [("this tree", env)]
    if args.baseline:
        from bench_lsp import baseline_tree

        commit, _, base_env = baseline_tree(args.baseline)
        trees.append((f"{args.baseline} ({commit})", {**base_env, "PYTHONSAFEPATH": "1"}))
    busy = None
    if args.busy:
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            path = root / "big.md"
            text = big_document()
            path.write_text(text, encoding="utf-8")
            rows: dict[str, list[float]] = {"command line": []}
            for r in range(args.rounds):
                rows["command line"].append(lint(args.python, env, path))
                for label, tree_env in trees:
                    for name in ("cold", "head start"):
                        seconds, lines, _n = one_open(args.python, tree_env, root, path, text,
                                                      name == "head start", args.wait)
                        key = name if len(trees) == 1 else f"{label}: {name}"
                        rows.setdefault(key, []).append(seconds)
                        if not args.quiet:
                            print(f"round {r + 1}, {key}: {seconds * 1000:.0f} ms")
                            print("\n".join(f"    {x}" for x in lines))
            cli = statistics.median(rows["command line"])
            print(f"1 MB document ({len(text):,} characters), {args.rounds} rounds{', one core busy' if busy else ''}:")
            for name, times in rows.items():
                med = statistics.median(times)
                what = "lint --no-cache" if name == "command line" else "didOpen -> diagnostic response"
                print(f"  {name:24} {what:31} median {med * 1000:6.0f} ms "
                      f"({', '.join(f'{x * 1000:.0f}' for x in times)}) = {med / cli:.2f}x the command line")
    finally:
        if busy is not None:
            busy.kill()


if __name__ == "__main__":
    main()
