"""The engine from many threads at once, starting cold.

The language server analyses documents in worker threads, and the first
analyses of a session are the ones that fill every lazily built global (the
chunker registry, tiktoken's encoding registry and files, parsers, sentence
segmenters, caches). Each test runs in a fresh interpreter so that the start
really is cold, lets many threads go at the same moment (a barrier, no
sleeps), and compares what they got with a sequential run in another fresh
interpreter. Nothing here depends on timing: a race shows up as an error or
a different result, never as a slow run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "server"


def _run(script: str, *args: str) -> object:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SERVER) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


REGISTRY = """
    import json, threading
    from chunkseam import chunkers

    n = 16
    barrier = threading.Barrier(n)
    got = [None] * n

    def work(i):
        barrier.wait()
        try:
            name = ("markdown", "fixed", "recursive", "sentence", "code", "langchain")[i % 6]
            got[i] = [chunkers.get(name).name, chunkers.names()]
        except Exception as exc:
            got[i] = repr(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"threads": got, "after": chunkers.names()}))
"""


def test_registry_is_complete_for_every_thread_from_a_cold_start() -> None:
    for _ in range(3):  # three fresh interpreters: three chances for the race
        out = _run(REGISTRY)
        full = out["after"]
        assert set(full) >= {"code", "fixed", "langchain", "markdown", "recursive", "sentence"}
        for i, entry in enumerate(out["threads"]):
            assert isinstance(entry, list), entry
            assert entry[0] == ("markdown", "fixed", "recursive", "sentence", "code", "langchain")[i % 6]
            assert entry[1] == full


ENCODINGS = """
    import json, threading
    from chunkseam.config import settings_from_mapping

    n = 12
    barrier = threading.Barrier(n)
    got = [None] * n
    names = ("o200k_harmony", "cl100k_base", "o200k_base")

    def work(i):
        barrier.wait()
        settings, errors = settings_from_mapping({"encoding": names[i % 3]}, source="test")
        got[i] = [settings.encoding, [str(e) for e in errors]]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(got))
"""


def test_encoding_setting_is_validated_the_same_from_every_thread_on_first_import() -> None:
    for _ in range(3):
        got = _run(ENCODINGS)
        names = ("o200k_harmony", "cl100k_base", "o200k_base")
        assert got == [[names[i % 3], []] for i in range(len(got))]
