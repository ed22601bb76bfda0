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

SERVER = Path(__file__).resolve().parents[2] / "server"


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
    from chunkseam.config.loader import settings_from_mapping

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


ANALYSE = """
    import json, random, sys, threading
    from chunkseam.engine.analysis import analyze
    from chunkseam.config.loader import settings_from_mapping
    from chunkseam.document.text import Document

    mode = sys.argv[1]
    rng = random.Random(2024)
    words = ("alpha beta gamma delta (note) [link](http://x.y/z) `code` e.g. Dr. Smith "
             "3.14 U.S.A. well-known don't").split()

    def sentence():
        return " ".join(rng.choice(words) for _ in range(rng.randint(4, 18))).capitalize() + "."

    def markdown(k):
        parts = [f"---\\ntitle: doc {k}\\n---\\n"] if k % 3 == 0 else []
        for j in range(rng.randint(8, 20)):
            parts.append(f"{'#' * rng.randint(1, 3)} Section {k}.{j}\\n")
            for _ in range(rng.randint(1, 3)):
                kind = rng.random()
                if kind < 0.6:
                    parts.append(" ".join(sentence() for _ in range(rng.randint(1, 6))) + "\\n")
                elif kind < 0.8:
                    parts.append("\\n".join(f"- {sentence()}" for _ in range(3)) + "\\n")
                elif kind < 0.9:
                    parts.append("```python\\ndef f(x):\\n    return (x, [1, 2])\\n```\\n")
                else:
                    parts.append("| a | b |\\n|---|---|\\n| 1 | 2 |\\n")
        return "\\n".join(parts)

    def python(k):
        return "\\n\\n".join(f"def f{k}_{j}(a, b):\\n    '''{sentence()}'''\\n    return (a, b)\\n"
                             for j in range(rng.randint(5, 15)))

    jobs = []
    configs = [{}, {"chunker": "recursive", "size": 64}, {"chunker": "fixed", "unit": "chars", "size": 300},
               {"chunker": "sentence", "size": 48}, {"encoding": "o200k_harmony", "size": 80},
               {"encoding": "o200k_base", "chunker": "markdown", "size": 120, "overlap": 10}]
    for k in range(30):
        if k % 6 == 5:
            text, path = python(k), f"m{k}.py"
        elif k % 6 == 4:
            text, path = " ".join(sentence() for _ in range(60)), f"t{k}.txt"
        else:
            text, path = markdown(k), f"d{k}.md"
        jobs.append((text, path, configs[k % 5] if k % 7 else configs[5]))

    def run(job):
        text, path, mapping = job
        settings, errors = settings_from_mapping(mapping, source="stress")
        a = analyze(Document(text, path=path), settings)
        return [a.chunker, [str(e) for e in errors], [[c.start, c.end, c.tokens] for c in a.chunks],
                [[i.code, i.start, i.end, i.cut, i.message] for i in a.issues]]

    out = [None] * len(jobs)
    if mode == "sequential":
        for n, job in enumerate(jobs):
            out[n] = run(job)
    else:
        workers = 12
        barrier = threading.Barrier(workers)

        def worker(w):
            barrier.wait()  # every thread starts cold at the same moment
            for n in range(w, len(jobs), workers):
                try:
                    out[n] = run(jobs[n])
                except Exception as exc:
                    out[n] = repr(exc)

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(json.dumps(out))
"""


def test_many_documents_from_many_threads_equal_a_sequential_run_from_a_cold_start() -> None:
    sequential = _run(ANALYSE, "sequential")
    assert all(isinstance(r, list) for r in sequential)
    assert {r[0] for r in sequential} >= {"markdown", "recursive", "fixed", "sentence", "code"}
    assert sum(len(r[3]) for r in sequential) > 0  # there are issues to compare
    for _ in range(2):  # two fresh interpreters
        threaded = _run(ANALYSE, "threads")
        for n, (got, want) in enumerate(zip(threaded, sequential)):
            assert got == want, f"document {n}: {got if isinstance(got, str) else 'differs'}"
