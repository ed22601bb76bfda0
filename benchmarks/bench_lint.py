"""Benchmark: `chunkseam lint` over ../shared/corpus/markdown (recursive, 256 tokens).

Prints wall time and MB/s for one process and for `--jobs` on all cores, and
beside them, in the same run, the floor: markdown-it-py parse + tiktoken
encode of the same files, in this process. Target: single-process lint at
least 0.5x the floor's speed.

    python benchmarks/bench_lint.py [--corpus DIR] [--repeat N]

The lint runs are real command lines (`python -m chunkseam.cli lint …`), so
their time includes interpreter start-up and imports (printed separately as
`startup`, the time of `chunkseam --version`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"


def wall(cmd: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "CHUNKSEAM_NO_PROGRESS": "1", "NO_COLOR": "1"})
        best = min(best, time.perf_counter() - t)
        if p.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return best


def floor(files: list[Path], repeat: int) -> float:
    from markdown_it import MarkdownIt

    from chunkseam.tokens.tiktoken import get_encoding

    texts = [f.read_text(encoding="utf-8") for f in files]
    md = MarkdownIt("commonmark").enable("table")
    enc = get_encoding("cl100k_base")
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for text in texts:
            md.parse(text)
            enc.encode_ordinary(text)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is kept)")
    args = ap.parse_args()
    files = sorted(args.corpus.rglob("*.md"))
    if not files:
        raise SystemExit(f"no Markdown files under {args.corpus}")
    mb = sum(f.stat().st_size for f in files) / 1e6
    cores = os.cpu_count() or 1
    base = [sys.executable, "-m", "chunkseam.cli"]
    lint = [*base, "lint", str(args.corpus), "--chunker", "recursive", "--size", "256", "--format", "json",
            "-o", os.devnull]
    startup = wall([*base, "--version"], args.repeat)
    t1 = wall(lint, args.repeat)
    tj = wall([*lint, "--jobs", "0"], args.repeat)
    tf = floor(files, args.repeat)
    print(f"corpus: {args.corpus} ({len(files)} files, {mb:.2f} MB), cores: {cores}, best of {args.repeat}")
    print(f"{'run':<34}{'wall s':>9}{'MB/s':>9}{'x floor':>9}")
    rows = [
        ("floor: markdown-it parse + tiktoken", tf),
        ("chunkseam lint (1 process)", t1),
        (f"chunkseam lint --jobs {cores}", tj),
        ("chunkseam lint, minus startup", max(t1 - startup, 1e-9)),
    ]
    for name, t in rows:
        print(f"{name:<34}{t:>9.2f}{mb / t:>9.2f}{tf / t:>9.2f}")
    print(f"startup (chunkseam --version): {startup:.2f} s")
    ratio = tf / t1
    print(f"single-process lint speed / floor speed = {ratio:.2f} (target >= 0.5): "
          f"{'OK' if ratio >= 0.5 else 'BELOW TARGET'}")


if __name__ == "__main__":
    main()
