"""``chunkseam trend EVENTS…``: the broken-chunk rate per indexing run, and where it stepped.

Reads the JSON-line events that the guards of :mod:`chunkseam.integrations`
and :mod:`chunkseam.events` write (their ``chunkseam.summary`` lines; other
lines are skipped), and gives:

* per run (the events' ``run`` tag; runs in the order of their first event's
  ``time``): documents, chunks, broken chunks and the broken-chunk rate, and
  the chunker configurations (chunker and parameters) the run used;
* per chunker configuration: the same, over all runs;
* a change-point test: the per-document rates, in run order, are segmented
  with ruptures' PELT search (an L2 cost, a BIC-like penalty ``2·σ²·log n``
  with the noise σ estimated from the differences of neighbouring values);
  each change point found is moved to the start of the run it falls in, and
  that run is named as the one where the rate stepped (up or down, by how
  much: the chunk-weighted rate of the run's segment beside the previous
  segment's);
* with ``--html FILE``, one self-contained page (no script, no network): the
  rate per run as an SVG line chart with the steps marked, and the tables;
* the exit code: 1 when the last run's rate is more than ``--max-step``
  percentage points above the rate of the runs before it since the last
  change point before it (all earlier runs when there is none) — the
  "someone raised chunk_size from 500 to 800 today" alarm for CI; 0
  otherwise; 2 for unreadable input.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

SUMMARY = "chunkseam.summary"


@dataclass
class Run:
    name: str
    time: str | None
    documents: int = 0
    chunks: int = 0
    broken: int = 0
    #: per-document rates, in the order read (the change-point signal)
    doc_rates: list[float] = field(default_factory=list)
    configs: dict[str, list[int]] = field(default_factory=dict)  # config -> [chunks, broken]

    @property
    def rate(self) -> float:
        return self.broken / self.chunks if self.chunks else 0.0


@dataclass
class Step:
    run: str
    index: int  # position of the run
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "index": self.index, "before": self.before, "after": self.after,
                "delta": self.delta}


class TrendError(ValueError):
    """Input that cannot be read as events (names the file and line)."""


def config_key(event: dict[str, Any]) -> str:
    params = event.get("params") or {}
    parts = [str(event.get("chunker") or "?")]
    for k in ("size", "overlap", "overlap_unit", "unit", "encoding", "strategy"):
        if params.get(k) not in (None, "", {}):
            parts.append(f"{k}={params[k]}")
    opts = params.get("options")
    if opts:
        parts.append("options=" + json.dumps(opts, sort_keys=True, separators=(",", ":")))
    return " ".join(parts)


def read_events(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """The summary events of ``paths`` (``-`` = stdin), in file and line order."""
    out: list[dict[str, Any]] = []
    for p in paths:
        if str(p) == "-":
            lines, name = sys.stdin.read().splitlines(), "<stdin>"
        else:
            try:
                lines, name = Path(p).read_text(encoding="utf-8").splitlines(), str(p)
            except (OSError, UnicodeDecodeError) as exc:
                raise TrendError(f"{p}: cannot read: {exc}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TrendError(f"{name}:{n}: not a JSON line ({exc.msg})") from None
            if isinstance(e, dict) and e.get("event") == SUMMARY:
                stats = e.get("stats")
                if not isinstance(stats, dict) or not isinstance(stats.get("chunks"), int):
                    raise TrendError(f"{name}:{n}: a summary event without stats.chunks")
                out.append(e)
    return out


def runs_of(events: Iterable[dict[str, Any]]) -> list[Run]:
    runs: dict[str, Run] = {}
    for e in events:
        name = str(e.get("run") if e.get("run") is not None else "(no run)")
        run = runs.get(name)
        if run is None:
            run = runs[name] = Run(name, e.get("time"))
        elif e.get("time") and (run.time is None or str(e["time"]) < str(run.time)):
            run.time = e["time"]
        st = e["stats"]
        chunks = int(st.get("chunks") or 0)
        broken = int(st.get("chunks_with_issues") or 0)
        run.documents += int(st.get("documents") or 1)
        run.chunks += chunks
        run.broken += broken
        if chunks:
            run.doc_rates.append(broken / chunks)
        c = run.configs.setdefault(config_key(e), [0, 0])
        c[0] += chunks
        c[1] += broken
    ordered = list(runs.values())
    # by first time when every run has one; the file order otherwise (stable)
    if all(r.time for r in ordered):
        ordered.sort(key=lambda r: str(r.time))
    return ordered


def _penalty(signal: list[float]) -> float:
    n = len(signal)
    diffs = sorted(abs(b - a) for a, b in zip(signal, signal[1:]))
    sigma = (diffs[len(diffs) // 2] / 0.6745 / math.sqrt(2)) if diffs else 0.0
    sigma = max(sigma, 0.01)  # rates are in [0, 1]: a floor of one point of noise
    return 2 * sigma * sigma * math.log(max(n, 2))


def change_points(runs: Sequence[Run]) -> list[Step]:
    """Runs where the rate stepped, by ruptures' PELT over per-document rates."""
    import numpy as np
    import ruptures as rpt

    signal: list[float] = []
    starts: list[int] = []
    for r in runs:
        starts.append(len(signal))
        signal.extend(r.doc_rates or [r.rate])
    if len(runs) < 2 or len(signal) < 2:
        return []
    arr = np.asarray(signal, dtype=float).reshape(-1, 1)
    algo = rpt.Pelt(model="l2", min_size=1, jump=1).fit(arr)
    bkps = algo.predict(pen=_penalty(signal))[:-1]  # the last "breakpoint" is the end
    found: list[int] = []
    for b in bkps:
        # the run that starts nearest the breakpoint (a step is between runs)
        k = min(range(1, len(runs)), key=lambda i: abs(starts[i] - b))
        if k not in found:
            found.append(k)
    found.sort()
    steps = []
    bounds = [0, *found, len(runs)]
    for j, k in enumerate(found):
        prev = _rate(runs[bounds[j]:k])
        nxt = _rate(runs[k:bounds[j + 2]])
        steps.append(Step(runs[k].name, k, prev, nxt))
    return steps


def _rate(runs: Sequence[Run]) -> float:
    chunks = sum(r.chunks for r in runs)
    return sum(r.broken for r in runs) / chunks if chunks else 0.0


def last_step(runs: Sequence[Run], steps: Sequence[Step]) -> float:
    """The last run's rate minus the rate of the runs before it since the last step before it."""
    if len(runs) < 2:
        return 0.0
    last = len(runs) - 1
    since = max([s.index for s in steps if s.index < last], default=0)
    return runs[last].rate - _rate(runs[since:last])


def analyse(paths: Sequence[str | Path]) -> dict[str, Any]:
    runs = runs_of(read_events(paths))
    steps = change_points(runs)
    configs: dict[str, list[int]] = {}
    for r in runs:
        for k, (c, b) in r.configs.items():
            t = configs.setdefault(k, [0, 0, 0])
            t[0] += c
            t[1] += b
            t[2] += 1
    return {"runs": runs, "steps": steps, "configs": configs, "last_step": last_step(runs, steps)}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def text_report(result: dict[str, Any]) -> str:
    runs, steps = result["runs"], result["steps"]
    lines = ["broken-chunk rate per run:"]
    w = max([len(r.name) for r in runs] + [3])
    lines.append(f"  {'run':<{w}}  {'documents':>9}  {'chunks':>7}  {'broken':>6}  {'rate':>6}  configuration")
    for r in runs:
        lines.append(f"  {r.name:<{w}}  {r.documents:>9}  {r.chunks:>7}  {r.broken:>6}  {_pct(r.rate):>6}  "
                     + "; ".join(sorted(r.configs)))
    lines.append("broken-chunk rate per chunker configuration:")
    for k, (c, b, n) in sorted(result["configs"].items()):
        lines.append(f"  {k}: {_pct(b / c if c else 0.0)} of {c} chunks in {n} run{'s' * (n != 1)}")
    if steps:
        for s in steps:
            lines.append(f"change point: the rate stepped {'up' if s.delta > 0 else 'down'} at run {s.run}"
                         f" ({_pct(s.before)} -> {_pct(s.after)}, {100 * s.delta:+.1f} points)")
    else:
        lines.append("change point: none (the rate did not step)")
    return "\n".join(lines) + "\n"


def json_report(result: dict[str, Any]) -> str:
    return json.dumps({
        "runs": [{"run": r.name, "time": r.time, "documents": r.documents, "chunks": r.chunks,
                  "broken": r.broken, "rate": r.rate,
                  "configs": {k: {"chunks": c, "broken": b, "rate": b / c if c else 0.0}
                              for k, (c, b) in r.configs.items()}} for r in result["runs"]],
        "configs": {k: {"chunks": c, "broken": b, "runs": n, "rate": b / c if c else 0.0}
                    for k, (c, b, n) in result["configs"].items()},
        "steps": [s.to_dict() for s in result["steps"]],
        "last_step": result["last_step"],
    }, indent=2) + "\n"


def html_report(result: dict[str, Any]) -> str:
    """One self-contained page: an SVG chart of the rate per run and the tables."""
    runs, steps = result["runs"], result["steps"]
    e = html.escape
    W, H, L, R, T, B = 720, 300, 56, 16, 16, 64
    top = max([r.rate for r in runs] + [0.01])
    top = math.ceil(top * 100 / 5) * 5 / 100 or 0.05
    n = len(runs)

    def x(i: int) -> float:
        return L + (W - L - R) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return T + (H - T - B) * (1 - v / top)

    parts = [f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" role="img" aria-label="broken-chunk rate per run">']
    for k in range(6):
        v = top * k / 5
        parts.append(f'<line class="grid" x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                     'stroke="#ddd"/>')
        parts.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">{_pct(v)}</text>')
    step_at = {s.index: s for s in steps}
    for i, s in step_at.items():
        xm = (x(i - 1) + x(i)) / 2
        parts.append(f'<line class="step" data-run="{e(s.run)}" x1="{xm:.1f}" x2="{xm:.1f}" y1="{T}" '
                     f'y2="{H - B}" stroke="#c62828" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{xm + 4:.1f}" y="{T + 12}" font-size="11" fill="#c62828">step '
                     f'{100 * s.delta:+.1f} pts</text>')
    if n > 1:
        pts = " ".join(f"{x(i):.1f},{y(r.rate):.1f}" for i, r in enumerate(runs))
        parts.append(f'<polyline class="rate" fill="none" stroke="#1565c0" stroke-width="2" points="{pts}"/>')
    for i, r in enumerate(runs):
        parts.append(f'<circle class="run" data-run="{e(r.name)}" data-rate="{r.rate:.6f}" cx="{x(i):.1f}" '
                     f'cy="{y(r.rate):.1f}" r="4" fill="{"#c62828" if i in step_at else "#1565c0"}">'
                     f'<title>{e(r.name)}: {_pct(r.rate)} of {r.chunks} chunks</title></circle>')
        parts.append(f'<text x="{x(i):.1f}" y="{H - B + 16}" font-size="11" text-anchor="end" '
                     f'transform="rotate(-30 {x(i):.1f} {H - B + 16})">{e(r.name[:24])}</text>')
    parts.append("</svg>")
    rows = "".join(
        f'<tr class="{"stepped" if i in step_at else ""}"><td>{e(r.name)}</td><td>{e(str(r.time or ""))}</td>'
        f"<td>{r.documents}</td><td>{r.chunks}</td><td>{r.broken}</td><td>{_pct(r.rate)}</td>"
        f"<td>{e('; '.join(sorted(r.configs)))}</td></tr>" for i, r in enumerate(runs))
    crow = "".join(f"<tr><td>{e(k)}</td><td>{c}</td><td>{b}</td><td>{_pct(b / c if c else 0.0)}</td><td>{m}</td></tr>"
                   for k, (c, b, m) in sorted(result["configs"].items()))
    verdict = ("".join(f'<p class="verdict">The rate stepped {"up" if s.delta > 0 else "down"} at run '
                       f'<b>{e(s.run)}</b>: {_pct(s.before)} &rarr; {_pct(s.after)} '
                       f'({100 * s.delta:+.1f} points).</p>' for s in steps)
               or '<p class="verdict">No change point: the rate did not step.</p>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>chunkseam trend</title>
<style>body{{font-family:system-ui,sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;margin:12px 0}}
td,th{{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left}}tr.stepped td{{background:#fdecea}}
.verdict{{font-size:15px}}</style></head>
<body><h1>Broken-chunk rate per run</h1>
{verdict}
{''.join(parts)}
<h2>Runs</h2><table id="runs"><tr><th>run</th><th>time</th><th>documents</th><th>chunks</th><th>broken</th><th>rate</th><th>chunker configuration</th></tr>{rows}</table>
<h2>Chunker configurations</h2><table id="configs"><tr><th>configuration</th><th>chunks</th><th>broken</th><th>rate</th><th>runs</th></tr>{crow}</table>
</body></html>
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("events", nargs="+", metavar="EVENTS",
                   help="JSON-line event files written by chunkseam's guards (- for stdin)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML chart")
    p.add_argument("--max-step", type=float, default=2.0, metavar="POINTS",
                   help="exit 1 when the last run's rate is more than this many percentage points "
                        "above the runs before it (default: 2.0)")


def command(args: argparse.Namespace) -> int:
    try:
        result = analyse(args.events)
    except TrendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"error: chunkseam trend needs ruptures ({exc}): pip install \"chunkseam[trend]\"",
              file=sys.stderr)
        return 2
    if not result["runs"]:
        print("error: no chunkseam.summary events in " + ", ".join(map(str, args.events)), file=sys.stderr)
        return 2
    sys.stdout.write(json_report(result) if args.format == "json" else text_report(result))
    if args.html:
        Path(args.html).write_text(html_report(result), encoding="utf-8")
    step = result["last_step"]
    if 100 * step > args.max_step:
        if args.format == "text":
            print(f"the last run ({result['runs'][-1].name}) is {100 * step:.1f} points above the runs "
                  f"before it (--max-step {args.max_step:g})")
        return 1
    return 0
