"""The language server's start-up beside the command line, in one run.

Each round starts a fresh server (``python -m chunkseam server``) and times

* ``server start``: process spawned -> ``initialize`` answered (and the CPU
  seconds the process used until then, which the machine's load does not change);
* ``cold first diagnostic``: process spawned -> the diagnostic response of a
  1 MB Markdown file opened right after ``initialized`` (the editor opened on
  that file: nothing warmed before);
* ``warm first diagnostic``: the same server, another 1 MB file (different
  text) opened -> its diagnostic response;

and, in the same round, ``chunkseam lint --no-cache`` on the first file with
the same settings (``fixed``, 400 characters, no overlap, CS104 ignored: the
VS Code e2e's 1 MB check). The rounds alternate server and command line, so
both see the same load.

    python benchmarks/bench_startup.py [--rounds 3] [--importtime]

``--importtime`` also prints the ten slowest imports of ``python -m chunkseam
server`` (``-X importtime``) before anything is asked of it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_first_diagnostics import SETTINGS, Server, big_document, lint  # noqa: E402


def one_round(python: str, env: dict[str, str], root: Path, cold: Path, warm: Path) -> dict[str, float]:
    t_spawn = time.perf_counter()
    s = Server(python, env)
    try:
        rid = s.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": "bench"}],
            "capabilities": {"textDocument": {"diagnostic": {"dynamicRegistration": False}},
                             "workspace": {"configuration": True}},
            "initializationOptions": {"settings": {**SETTINGS, "trace": "off"}}})
        t_init, _ = s.response(rid)
        figures = {"server start": t_init - t_spawn}
        cpu = process_cpu(s.proc.pid)
        if cpu is not None:  # the same start in CPU seconds: what the machine's load does not change
            figures["server start (CPU)"] = cpu
        s.notify("initialized", {})
        for name, path in (("cold first diagnostic", cold), ("warm first diagnostic", warm)):
            t0 = s.notify("textDocument/didOpen", {"textDocument": {
                "uri": path.as_uri(), "languageId": "markdown", "version": 1,
                "text": path.read_text(encoding="utf-8")}})
            t1, msg = s.response(s.request("textDocument/diagnostic", {"textDocument": {"uri": path.as_uri()}}))
            if not msg.get("result", {}).get("items"):
                raise SystemExit(f"no diagnostics for {path.name}: {str(msg)[:300]}")
            figures[name] = t1 - (t_spawn if name.startswith("cold") else t0)
        return figures
    finally:
        s.stop()


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def importtime(python: str, env: dict[str, str]) -> None:
    """The slowest imports of the server's module, cumulative, as -X importtime sees them."""
    proc = subprocess.run([python, "-X", "importtime", "-c", "import chunkseam.lsp.server"],
                          capture_output=True, text=True, env=env, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((int(parts[0]), int(parts[1]), parts[2].strip()))
    print(f"import chunkseam.lsp.server: {sum(r[0] for r in rows) / 1e6:.2f} s in all; slowest (self time):")
    for self_us, cum_us, name in sorted(rows, reverse=True)[:10]:
        print(f"  {self_us / 1e3:7.0f} ms self {cum_us / 1e3:7.0f} ms cumulative  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--importtime", action="store_true")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    if args.importtime:
        importtime(args.python, env)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cold, warm = root / "big.md", root / "other.md"
        text = big_document()
        cold.write_text(text, encoding="utf-8")
        warm.write_text(text.replace("## Part ", "## Section "), encoding="utf-8")
        rows: dict[str, list[float]] = {"lint --no-cache": []}
        for r in range(args.rounds):
            rows["lint --no-cache"].append(lint(args.python, env, cold))
            for name, seconds in one_round(args.python, env, root, cold, warm).items():
                rows.setdefault(name, []).append(seconds)
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1] * 1000:.0f} ms" for k, v in rows.items()), flush=True)
        cli = statistics.median(rows["lint --no-cache"])
        print(f"1 MB document ({len(text):,} characters), {args.rounds} rounds, median (all rounds):")
        for name, times in rows.items():
            med = statistics.median(times)
            print(f"  {name:22} {med * 1000:6.0f} ms ({', '.join(f'{x * 1000:.0f}' for x in times)})"
                  f" = {med / cli:.2f}x lint --no-cache")


if __name__ == "__main__":
    main()
