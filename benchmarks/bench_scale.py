"""Benchmark: `chunkseam lint` at corpus scale — jobs 1 vs 2, cold vs cached.

Prints, in one run and side by side:

- ``lint --no-cache --jobs 1`` vs ``--jobs 2`` over the corpus (target: ≥ 1.7× on 2 cores);
- a cold run (empty cache) vs a re-run of the unchanged corpus (target: ≥ 10×);
- the files re-checked after editing one file (counted, not timed);
- the peak RSS of ``audit --format jsonl`` on generated dumps of 0.2, 1 and 2 million lines
  (target: < 300 MB and flat; ``--lines`` scales them down for a quick run).

Each run's CPU time (user + sys of the process and its workers) is printed beside its wall
time, with the load average: on a shared, loaded machine the wall-time ratios say little (with
the kernel's autogroup scheduling, all processes of one session share one session's CPU share,
so `--jobs 2` cannot beat `--jobs 1` unless a core is idle).

    python benchmarks/bench_scale.py [--corpus DIR] [--repeat N]

The runs are real command lines (`python -m chunkseam lint …`), so their
times include interpreter start-up. On a loaded shared machine the ratios
move; the best of ``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
LINT = ["--chunker", "recursive", "--size", "256", "--fail-on", "never", "-o", os.devnull]


def measure(args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS MB) of one ``chunkseam ARGS`` run (its workers' CPU included)."""
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "chunkseam", *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE,
                         env={**os.environ, "CHUNKSEAM_NO_PROGRESS": "1", "NO_COLOR": "1"})
    err = p.stderr.read() if p.stderr else b""
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise SystemExit(f"chunkseam {' '.join(args)} failed ({p.returncode}):\n{err[-2000:].decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def wall(args: list[str], repeat: int, setup=None) -> tuple[float, float]:
    """Best (wall, CPU) of ``repeat`` runs."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        if setup is not None:
            setup()
        w, cpu, _ = measure(args)
        best = min(best, (w, cpu))
    return best


_SPLIT = """
import io, resource, sys, contextlib
from chunkseam.cli import app as cli
from chunkseam.cli import common
with contextlib.redirect_stderr(io.StringIO()):
    cli.main(sys.argv[1:])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime)
"""


def cpu_split(args: list[str]) -> tuple[float, float]:
    """(CPU s of the main process, CPU s of its workers) of one ``chunkseam ARGS`` run."""
    p = subprocess.run([sys.executable, "-c", _SPLIT, *args], capture_output=True, text=True, check=True,
                       env={**os.environ, "CHUNKSEAM_NO_PROGRESS": "1", "NO_COLOR": "1"})
    main, workers = (float(x) for x in p.stdout.split()[-2:])
    return main, workers


def make_dump(path: Path, lines: int) -> None:
    """``lines`` chunks of generated prose, 8 per document, one JSON object a line."""
    words = ["the", "retry", "loop", "waits", "one", "second", "then", "doubles", "the", "wait", "until", "it", "reaches", "a", "minute", "and", "reports", "the", "error", "to", "the", "caller", "with", "the", "request", "id", "so", "that", "support", "can", "find", "it"]
    with path.open("w", encoding="utf-8") as f:
        for i in range(lines):
            doc, k = divmod(i, 8)
            text = " ".join(words[(i + j) % len(words)] for j in range(24)).capitalize() + "."
            if k % 3 == 2:
                text = text[: len(text) // 2]  # a cut mid-sentence
            f.write(json.dumps({"doc_id": f"doc-{doc}", "chunk_index": k, "text": text}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--lines", default="200000,1000000,2000000",
                    help="dump sizes for the audit RSS runs (comma-separated)")
    ap.add_argument("--dask-lines", type=int, default=100_000, help="dump size for Dask vs single process")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="chunkseam-bench-scale-") as tmp:
        docs = Path(tmp) / "corpus"
        shutil.copytree(a.corpus, docs, ignore=shutil.ignore_patterns("licenses", "*.LICENSE"))
        files = [p for p in docs.rglob("*") if p.is_file() and p.suffix in (".md", ".mdx", ".py", ".rst", ".txt")]
        mb = sum(p.stat().st_size for p in files) / 1e6
        cache = Path(tmp) / "cache"
        target = [str(docs), *LINT]
        print(f"corpus: {a.corpus} ({len(files)} files, {mb:.1f} MB), {os.cpu_count()} CPUs")

        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} CPUs")
        (one, c1), (two, c2) = (wall(["lint", *target, "--no-cache", "--jobs", j], a.repeat) for j in ("1", "2"))
        print(f"lint --jobs 1   {one:7.2f} s wall  {c1:6.2f} s CPU  {mb / one:5.2f} MB/s")
        one_cpu = c1
        print(f"lint --jobs 2   {two:7.2f} s wall  {c2:6.2f} s CPU  {mb / two:5.2f} MB/s   "
              f"speed-up {one / two:.2f}x (target >= 1.7x)")

        m1, _ = cpu_split(["lint", *target, "--no-cache", "--jobs", "1"])
        m2, w2 = cpu_split(["lint", *target, "--no-cache", "--jobs", "2"])
        print(f"lint CPU: --jobs 1 {m1:.2f} s in one process; --jobs 2 {m2:.2f} s in the main process + "
              f"{w2:.2f} s in the workers: on 2 idle cores at most {m1 / (m2 + w2 / 2):.2f}x (Amdahl)")

        (cold, cc), (warm, cw) = (wall(["lint", *target, "--cache-dir", str(cache)], a.repeat,
                                        setup=lambda: shutil.rmtree(cache, ignore_errors=True)),
                                   wall(["lint", *target, "--cache-dir", str(cache)], a.repeat))
        print(f"lint cold cache {cold:7.2f} s wall  {cc:6.2f} s CPU")
        print(f"lint re-run     {warm:7.2f} s wall  {cw:6.2f} s CPU   speed-up {cold / warm:.1f}x wall, "
              f"{cc / cw:.1f}x CPU (target >= 10x)")

        from chunkseam.cli import app as cli
        from chunkseam.cli import common
        victim = min(p for p in files if p.suffix == ".md")
        victim.write_text(victim.read_text(encoding="utf-8") + "\n\nOne more paragraph.\n", encoding="utf-8")
        from contextlib import redirect_stdout
        from io import StringIO

        os.environ.pop("CHUNKSEAM_NO_CACHE", None)
        with redirect_stdout(StringIO()):
            cli.main(["lint", *target, "--cache-dir", str(cache)])
        run = common.LAST_RUN
        print(f"after editing one file: {run['results'] - run['cached']} of {run['results']} files re-checked")

        dump = Path(tmp) / "dask.jsonl"
        make_dump(dump, a.dask_lines)
        w1, c1, _ = measure(["audit", str(dump), "--format", "jsonl", "-o", os.devnull, "--fail-on", "never"])
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("dask: not installed (pip install 'chunkseam[dask]'), skipped")
        else:
            t = time.perf_counter()
            from dask.distributed import LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None):
                started = time.perf_counter() - t
            w2, c2, _ = measure(["audit", str(dump), "--scheduler", "local", "--jobs", "2", "--fail-on", "never",
                                 "--output-dir", str(Path(tmp) / "parts")])
            print(f"audit {a.dask_lines:,} lines: single process {w1:6.1f} s wall ({c1:5.1f} s CPU), "
                  f"Dask LocalCluster(2) {w2:6.1f} s wall ({c2:5.1f} s CPU, client and local workers), "
                  f"ratio {w1 / w2:.2f}x; a LocalCluster starts and stops in {started:.1f} s")
            lw2, lc2, _ = measure(["lint", *target, "--no-cache", "--scheduler", "local", "--jobs", "2"])
            print(f"lint {len(files)} files: single process {one:6.1f} s wall ({one_cpu:5.1f} s CPU), "
                  f"Dask LocalCluster(2) {lw2:6.1f} s wall ({lc2:5.1f} s CPU, client and local workers), "
                  f"ratio {one / lw2:.2f}x")
        dump.unlink()

        for n in (int(x) for x in a.lines.split(",")):
            dump = Path(tmp) / f"dump-{n}.jsonl"
            make_dump(dump, n)
            w, cpu, rss = measure(["audit", str(dump), "--format", "jsonl", "-o", str(Path(tmp) / "out.jsonl")])
            size = dump.stat().st_size / 1e6
            dump.unlink()
            print(f"audit {n:>9,} lines ({size:6.1f} MB)  {w:7.1f} s wall  {cpu:7.1f} s CPU  "
                  f"peak RSS {rss:4d} MB (target < 300 MB, flat)")


if __name__ == "__main__":
    main()
