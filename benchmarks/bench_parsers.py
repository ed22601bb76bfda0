"""Time and peak memory against input size for each file kind, ordinary and hostile.

For each case (a file kind and a shape) and each size, one fresh Python process
checks the generated file as ``lint`` does (``lint_one``: read, analyse,
place the issues) with the default settings of its kind, or reads, analyses
and draws the ``preview --html`` page for the HTML cases. It
prints the analysis time and the peak memory above the process's own after
its imports and a warm-up (also as a multiple of the file's size) (``ru_maxrss``, so C allocations — docutils,
tree-sitter, the JSON parser — count), then fits the log-log slope of time
against size: about 1 is linear, 2 quadratic. A run that does not finish in
``--timeout`` seconds is printed as such (and left out of the fit).

Cases:

* markdown — ordinary: sections of prose, lists and code; hostile: ``'(' * n +
  ')' * n`` (nested brackets, every cut inside thousands of spans);
* mdx — ordinary: the Tabs/TabItem shape of Docusaurus pages; hostile: lines
  ``<A {`` (a tag whose attribute expression never closes), blank-separated;
* rst — ordinary: sections, lists, unknown directives; hostile: bullet lists
  nested 60 deep, repeated; rst-flat-list: one-word list items, one a line (docutils'
  tree is some 2 KB an item: past 24 bytes a character, at least 256 MB, estimated from
  the pre-scan, the file gets the budget's message instead);
* notebook — ordinary: markdown and code cells; hostile: many one-sentence cells cut by a
  fixed size of 30 characters (an issue in each, placed on the .ipynb's lines);
  notebook-plot: one code cell whose output is a base64 image of the whole size and a
  markdown cell with a sentence cut (an issue placed on the file's lines: the JSON's
  strings are read there); notebook-long-line: one markdown cell of one long line of
  prose at the default settings;
* python — ordinary: functions with docstrings; hostile: one long flat file of
  one-line statements;
* javascript (tree-sitter) — ordinary: functions and objects; hostile: nested
  array literals 200 deep, repeated;
* html — the ``preview --html`` page of ordinary Markdown at the default size;
  hostile: prose at size 1 character (every character a chunk, under the
  5,000 drawn).

    python benchmarks/bench_parsers.py [--cases mdx,rst] [--sizes 25000,50000,100000,200000]
        [--timeout 120] [--server DIR]

``--server DIR`` runs another checkout's package (e.g. the base commit's
``server`` directory) with the same cases.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_WORDS = ("the loader reads each file and checks every chunk for errors before it is indexed "
          "which keeps answers whole").split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."


def _fill(size: int, piece) -> str:
    rng = random.Random(7)
    parts, total, k = [], 0, 0
    while total < size:
        p = piece(rng, k)
        parts.append(p)
        total += len(p)
        k += 1
    return "".join(parts)


def markdown(size: int) -> str:
    return _fill(size, lambda r, k: f"## Part {k}\n\n{_sentence(r)} {_sentence(r)}\n\n- {_sentence(r)}\n"
                                    f"- {_sentence(r)}\n\n```python\nx = {k}\n```\n\n")


def markdown_hostile(size: int) -> str:
    return "(" * (size // 2) + ")" * (size // 2)


def mdx(size: int) -> str:
    return "import Tabs from '@theme/Tabs';\n\n" + _fill(size, lambda r, k: (
        f"## Part {k}\n\n{_sentence(r)}\n\n<Tabs groupId=\"pm\">\n  <TabItem value=\"a{k}\" label=\"A\">\n\n"
        f"{_sentence(r)} {_sentence(r)}\n\n  </TabItem>\n</Tabs>\n\n"))


def mdx_hostile(size: int) -> str:
    return "<A {\n\n" * (size // 6)


def rst(size: int) -> str:
    return _fill(size, lambda r, k: (f"Part {k}\n{'=' * (5 + len(str(k)))}\n\n{_sentence(r)} {_sentence(r)}\n\n"
                                     f"- {_sentence(r)}\n- {_sentence(r)}\n\n.. versionadded:: {k}\n\n"
                                     f"   {_sentence(r)}\n\n"))


def rst_hostile(size: int) -> str:
    block = "".join("  " * i + "- item\n\n" for i in range(60))
    return block * max(1, size // len(block))


def _notebook(cells: list[dict]) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def notebook(size: int) -> str:
    rng = random.Random(7)
    cells, total = [], 0
    while total < size:
        md = {"cell_type": "markdown", "metadata": {}, "source": [f"## Step {len(cells)}\n", "\n",
                                                                   _sentence(rng) + " " + _sentence(rng)]}
        code = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                "source": [f"x = {len(cells)}\n", "print(x)"]}
        cells += [md, code]
        total += 260
    return _notebook(cells)


def notebook_hostile(size: int) -> str:
    # many one-line cells, each a sentence cut by a small size (an issue to place on the file's lines)
    return _notebook([{"cell_type": "markdown", "metadata": {}, "source": ["The loader reads the file and checks it."]}
                      for _ in range(size // 120)])


def rst_flat_list(size: int) -> str:
    return "- a\n" * (size // 4)


def notebook_plot(size: int) -> str:
    sentence = "The loader reads the files and then it checks every one of them for errors."
    return _notebook([
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["plt.plot(x)"],
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"image/png": "iVBORw0KGgo" * (size // 11), "text/plain": ["<Figure>"]}}]},
        {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n", "\n", sentence]}])


def notebook_long_line(size: int) -> str:
    rng = random.Random(7)
    return _notebook([{"cell_type": "markdown", "metadata": {},
                       "source": [_fill(size, lambda r, k: _sentence(rng) + " ")]}])


def python(size: int) -> str:
    return _fill(size, lambda r, k: f'def step_{k}(x):\n    """{_sentence(r)}\n\n    {_sentence(r)}\n    """\n'
                                    f"    y = x + {k}\n    return y * 2\n\n\n")


def python_hostile(size: int) -> str:
    return _fill(size, lambda r, k: f"v{k} = {k}\n")


def javascript(size: int) -> str:
    return _fill(size, lambda r, k: f"/** {_sentence(r)} */\nexport function step{k}(x) {{\n  const y = {{a: x, b: {k}}};\n"
                                    f"  return y.a + y.b;\n}}\n\n")


def javascript_hostile(size: int) -> str:
    block = "x = " + "[" * 200 + "]" * 200 + ";\n"
    return block * max(1, size // len(block))


def html_prose(size: int) -> str:
    return "# Guide\n\n" + _fill(size, lambda r, k: _sentence(r) + " ")[:size] + "\n"


#: name -> (generator, file name, settings, draw the HTML page)
CASES = {
    "markdown": (markdown, "doc.md", {}, False),
    "markdown-hostile": (markdown_hostile, "doc.md", {"chunker": "recursive"}, False),
    "mdx": (mdx, "doc.mdx", {}, False),
    "mdx-hostile": (mdx_hostile, "doc.mdx", {}, False),
    "rst": (rst, "doc.rst", {}, False),
    "rst-hostile": (rst_hostile, "doc.rst", {}, False),
    "rst-flat-list": (rst_flat_list, "doc.rst", {}, False),
    "notebook": (notebook, "doc.ipynb", {}, False),
    "notebook-hostile": (notebook_hostile, "doc.ipynb", {"chunker": "fixed", "unit": "chars", "size": 30}, False),
    "notebook-plot": (notebook_plot, "doc.ipynb", {"unit": "chars", "size": 40}, False),
    "notebook-long-line": (notebook_long_line, "doc.ipynb", {}, False),
    "python": (python, "doc.py", {}, False),
    "python-hostile": (python_hostile, "doc.py", {}, False),
    "javascript": (javascript, "doc.js", {}, False),
    "javascript-hostile": (javascript_hostile, "doc.js", {}, False),
    "html": (markdown, "doc.md", {}, True),
    "html-hostile": (html_prose, "doc.md", {"chunker": "fixed", "unit": "chars", "size": 1}, True),
}
#: the HTML page of size-1 chunks is drawn up to 5,000 chunks: smaller sizes
HTML_HOSTILE_SIZES = (500, 1000, 2000, 4000)


def child(path: str, settings: dict, draw: bool) -> None:
    """One measurement, in this (fresh) process: prints a JSON line."""
    import resource

    from chunkseam.engine.analysis import analyze
    from chunkseam.lint.files import lint_one
    from chunkseam.document.text import Document
    from chunkseam.core.settings import Settings

    analyze(Document("# warm\n\nup. It is.\n", path="w.md"), Settings())  # imports, tokenizer
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = Settings(**settings)
    t0 = time.perf_counter()
    error = None
    chunks = 0
    try:
        if draw:  # preview --html: read, analyse, draw
            from chunkseam.document.notebook import open_document
            from chunkseam.report.preview import html_page

            doc = open_document(Path(path).read_text(encoding="utf-8"), path, s)
            a = analyze(doc, s)
            chunks = len(a.chunks)
            html_page(doc, a.chunks, a.issues, chunker=a.chunker, settings=s)
        else:  # one file of lint: read, analyse, place the issues (a notebook's on its file lines)
            r = lint_one((path, s))
            chunks = r.chunks
            error = r.error
    except Exception as exc:  # noqa: BLE001 - a figure, not a failure
        error = f"{type(exc).__name__}: {str(exc)[:90]}"
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "peak_mb": max(0, peak - base) / 1024, "chunks": chunks,
                      "error": error}))


def measure(case: str, size: int, server: Path, timeout: float, tmp: Path) -> dict:
    gen, name, settings, draw = CASES[case]
    text = gen(size)
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(server)}
    code = (f"import sys; sys.path.insert(0, {str(server)!r}); sys.path.insert(1, {str(ROOT / 'benchmarks')!r}); "
            f"import bench_parsers as b; b.child({str(path)!r}, {settings!r}, {draw!r})")
    try:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                             env=env, cwd=tmp)
    except subprocess.TimeoutExpired:
        return {"bytes": len(text.encode()), "timeout": True}
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"bytes": len(text.encode()), "error": (run.stderr.strip().splitlines() or ["?"])[-1][:100]}
    return {"bytes": len(text.encode()), **json.loads(lines[-1])}


def slope(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of log(y) against log(x)."""
    pts = [(math.log(x), math.log(max(y, 1e-3))) for x, y in points if x > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of " + ", ".join(CASES))
    ap.add_argument("--sizes", default="25000,50000,100000,200000",
                    help="input sizes in characters (before the format's own markup for notebooks)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run before it is abandoned")
    ap.add_argument("--server", default=str(ROOT / "server"), help="the package directory to run")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    server = Path(args.server).resolve()
    print(f"package: {server}")
    print(f"{'case':<20} {'bytes':>10} {'seconds':>9} {'peak MB':>9} {'× input':>8} {'chunks':>8}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for case in args.cases.split(","):
            t_pts, m_pts = [], []
            for size in (HTML_HOSTILE_SIZES if case == "html-hostile" else sizes):
                r = measure(case, size, server, args.timeout, tmp)
                if r.get("timeout"):
                    print(f"{case:<20} {r['bytes']:>10,} {'> ' + format(args.timeout, 'g'):>9} {'':>9} {'':>8} {'':>8}  "
                          "(abandoned)", flush=True)
                    continue
                if "seconds" not in r:
                    print(f"{case:<20} {r['bytes']:>10,}  failed: {r.get('error')}", flush=True)
                    continue
                note = f"  ({r['error']})" if r.get("error") else ""
                print(f"{case:<20} {r['bytes']:>10,} {r['seconds']:>9.2f} {r['peak_mb']:>9.0f} "
                      f"{r['peak_mb'] * 1024 * 1024 / r['bytes']:>8.0f} {r['chunks']:>8,}{note}",
                      flush=True)
                t_pts.append((r["bytes"], r["seconds"]))
                m_pts.append((r["bytes"], max(r["peak_mb"], 1.0)))
            st, sm = slope(t_pts), slope(m_pts)
            print(f"{case:<20} slope: time {'—' if st is None else format(st, '.2f')}, "
                  f"peak memory {'—' if sm is None else format(sm, '.2f')}", flush=True)


if __name__ == "__main__":
    main()
