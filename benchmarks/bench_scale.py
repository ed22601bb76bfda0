"""Benchmark: `chunkseam lint` at corpus scale — jobs 1 vs 2, cold vs cached.

Prints, in one run and side by side:

- ``lint --no-cache --jobs 1`` vs ``--jobs 2`` over the corpus (target: ≥ 1.7× on 2 cores);
- a cold run (empty cache) vs a re-run of the unchanged corpus (target: ≥ 10×);
- the files re-checked after editing one file (counted, not timed).

    python benchmarks/bench_scale.py [--corpus DIR] [--repeat N]

The runs are real command lines (`python -m chunkseam lint …`), so their
times include interpreter start-up. On a loaded shared machine the ratios
move; the best of ``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
LINT = ["--chunker", "recursive", "--size", "256", "--format", "json", "--fail-on", "never"]


def wall(args: list[str], repeat: int, setup=None) -> float:
    best = float("inf")
    for _ in range(repeat):
        if setup is not None:
            setup()
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "chunkseam", *args], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=False,
                           env={**os.environ, "CHUNKSEAM_NO_PROGRESS": "1", "NO_COLOR": "1"})
        best = min(best, time.perf_counter() - t)
        if p.returncode not in (0, 1):
            raise SystemExit(f"chunkseam {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="chunkseam-bench-scale-") as tmp:
        docs = Path(tmp) / "corpus"
        shutil.copytree(a.corpus, docs, ignore=shutil.ignore_patterns("licenses", "*.LICENSE"))
        files = [p for p in docs.rglob("*") if p.is_file() and p.suffix in (".md", ".mdx", ".py", ".rst", ".txt")]
        mb = sum(p.stat().st_size for p in files) / 1e6
        cache = Path(tmp) / "cache"
        target = [str(docs), *LINT]
        print(f"corpus: {a.corpus} ({len(files)} files, {mb:.1f} MB), {os.cpu_count()} CPUs")

        one = wall(["lint", *target, "--no-cache", "--jobs", "1"], a.repeat)
        two = wall(["lint", *target, "--no-cache", "--jobs", "2"], a.repeat)
        print(f"lint --jobs 1   {one:7.2f} s  {mb / one:5.2f} MB/s")
        print(f"lint --jobs 2   {two:7.2f} s  {mb / two:5.2f} MB/s   speed-up {one / two:.2f}x (target >= 1.7x)")

        cold = wall(["lint", *target, "--cache-dir", str(cache)], a.repeat,
                    setup=lambda: shutil.rmtree(cache, ignore_errors=True))
        warm = wall(["lint", *target, "--cache-dir", str(cache)], a.repeat)
        print(f"lint cold cache {cold:7.2f} s")
        print(f"lint re-run     {warm:7.2f} s   speed-up {cold / warm:.1f}x (target >= 10x)")

        from chunkseam import cli

        victim = min(p for p in files if p.suffix == ".md")
        victim.write_text(victim.read_text(encoding="utf-8") + "\n\nOne more paragraph.\n", encoding="utf-8")
        from contextlib import redirect_stdout
        from io import StringIO

        os.environ.pop("CHUNKSEAM_NO_CACHE", None)
        with redirect_stdout(StringIO()):
            cli.main(["lint", *target, "--cache-dir", str(cache)])
        run = cli.LAST_RUN
        print(f"after editing one file: {run['results'] - run['cached']} of {run['results']} files re-checked")


if __name__ == "__main__":
    main()
