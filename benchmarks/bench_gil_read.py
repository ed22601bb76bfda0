"""How long the server's frame reader takes to read a 1 MB didOpen while an
analysis runs in another thread, at Python's GIL switch interval (5 ms) and
at the server's (``chunkseam.lsp.server.SWITCH_INTERVAL``), side by side.

A writer process sends one 1 MB frame in 64 KiB writes (as a client's pipe
delivers it); the server's own ``wire.StdioReader`` + ``read_frame`` read it
on an event loop with a pool thread, as ``chunkseam server`` does, while a
thread analyses a 1 MB corpus document (markdown chunker, all checks).

    python benchmarks/bench_gil_read.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_lsp import corpus_files, make_document
from chunkseam.engine.analysis import analyze
from chunkseam.config.loader import resolve
from chunkseam.document.text import Document
from chunkseam.lsp import wire
from chunkseam.lsp.server import SWITCH_INTERVAL

WRITER = r"""
import os, sys
body = sys.stdin.buffer.read()
frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
out = os.fdopen(int(sys.argv[1]), "wb", buffering=0)
for i in range(0, len(frame), 65536):
    out.write(frame[i:i + 65536])
out.close()
"""


def read_once(text: str, body: bytes, settings, interval: float) -> float:
    """Seconds from the writer's start to the whole frame read, beside an analysis."""
    sys.setswitchinterval(interval)
    r, w = os.pipe()
    done = threading.Event()

    def analysis() -> None:
        while not done.is_set():
            analyze(Document(text, uri="file:///bench/busy.md", path="/bench/busy.md", language_id="markdown"),
                    settings)

    busy = threading.Thread(target=analysis, daemon=True)
    busy.start()
    time.sleep(0.2)  # the analysis is under way
    pool = ThreadPoolExecutor(1)
    reader = wire.StdioReader(os.fdopen(r, "rb"), pool)
    t0 = time.perf_counter()
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(w)], stdin=subprocess.PIPE, pass_fds=(w,))
    os.close(w)
    writer.stdin.write(body)
    writer.stdin.close()
    got = asyncio.run(wire.read_frame(reader))
    elapsed = time.perf_counter() - t0
    done.set()
    writer.wait()
    busy.join()
    pool.shutdown()
    assert got == body, "the frame read back differs"
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    text = make_document(corpus_files())
    body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": "file:///bench/doc.md", "languageId": "markdown", "version": 1,
                         "text": text}}}).encode()
    settings = resolve(None, None, strict=False).settings
    default = sys.getswitchinterval()
    # a writer process alone (its start-up is in every figure)
    base = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - t0)
    rows = {default: [], SWITCH_INTERVAL: []}
    for _ in range(args.rounds):  # alternated, so both see the same machine
        for interval, times in rows.items():
            times.append(read_once(text, body, settings, interval))
    sys.setswitchinterval(default)
    print(f"1 MB didOpen frame ({len(body):,} bytes) read beside a running analysis, {args.rounds} rounds "
          f"(a bare writer process start: median {statistics.median(base) * 1000:.0f} ms, included below)")
    for interval, times in rows.items():
        label = "Python's default" if interval == default else "chunkseam server"
        print(f"  switch interval {interval * 1000:.1f} ms ({label}): median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms")
    a, b = statistics.median(rows[default]), statistics.median(rows[SWITCH_INTERVAL])
    print(f"  ratio default / server: {a / b:.1f}x")


if __name__ == "__main__":
    main()
