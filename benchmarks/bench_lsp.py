"""Language-server benchmark: the real server over stdio, driven by pygls' client.

1. Open a ~1 MB Markdown document made by concatenating corpus files; time
   from ``didOpen`` to its first diagnostics (cold: fresh server process).
2. 50 single-character edits at random places (debounce 0), each timed from
   ``didChange`` to the diagnostics of that version; median and p95.
3. Server memory (RSS from /proc) with ten different 1 MB documents open.

Targets (issue 5): median edit <= 10% of cold and < 100 ms; RSS < 300 MB.

    python benchmarks/bench_lsp.py [--edits 50] [--docs 10] [--seed 1] [--profile | --profile-only]

Per strategy (issue 10: the same targets for every strategy), steps 1 and 2
for each of ``--strategies`` (default: all; recursive, langchain and fixed
at 256/32 tokens as LangChain pipelines use them, sentence at 256 tokens and
one sentence of overlap, markdown at its defaults), printed as one table;
with ``--baseline REF`` the same runs are made with the server of git
revision REF (extracted with ``git archive``) side by side, strategy by
strategy, so both see the same machine:

    python benchmarks/bench_lsp.py --strategies all [--baseline main] [--edits 30]

``--profile`` also runs the same analyses in-process: the cold one and
``--edits`` one-character edits made as the server makes them, timed by
phase (structure, chunking, validation), then one edit under cProfile.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"
MB = 1_000_000
HEADING = re.compile(r"(?m)^#{1,6} [^\n]*")
ANALYSED = re.compile(r"analysed (\S+) v(\d+) in ([\d.]+) ms")
_VERSION = re.compile(rb'"version": ?(\d+)')


def corpus_files() -> list[Path]:
    files = sorted(CORPUS.rglob("*.md"))
    if not files:
        sys.exit(f"no corpus at {CORPUS}")
    return files


def make_document(files: list[Path], size: int = MB, rotate: int = 0) -> str:
    parts: list[str] = []
    total = 0
    n = len(files)
    i = 0
    while total < size:
        f = files[(rotate + i) % n]
        text = f.read_text(encoding="utf-8", errors="replace")
        parts.append(text.rstrip() + "\n\n")
        total += len(parts[-1])
        i += 1
    return "".join(parts)


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used, in ms: on a shared
    machine a figure that waiting for a core does not inflate."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("chunkseam-bench", "1")
        self.seen: dict[tuple[str, int | None], float] = {}
        #: version -> when the bytes of a publication for it were read (before
        #: this client's json.loads, which calls a hook per JSON object)
        self.read_at: dict[int | None, float] = {}
        self.counts: dict[tuple[str, int | None], int] = {}
        self.shown_by: dict[tuple[str, int | None], set] = {}
        self.event = asyncio.Event()
        #: (uri, version) -> analysis time in ms reported by the server (trace = debug)
        self.analysed: dict[tuple[str, int], float] = {}
        #: messages the server showed (a rejected setting makes a run meaningless)
        self.shown: list[str] = []
        # diagnostics count as arrived when their message is read, before this
        # client turns the JSON into lsprotocol objects (pygls' cattrs takes
        # ~0.1 ms per diagnostic on top: the client's cost, not the server's)
        structure = self.protocol.structure_message

        def arrived(data: dict) -> object:
            # called for every JSON object of a message: a nested one (no
            # "jsonrpc") is returned at once, as pygls' own hook returns it, so
            # timing adds no call per object to the client's decoding
            if "jsonrpc" not in data:
                return data
            if data.get("method") == "textDocument/publishDiagnostics":
                params = data.get("params") or {}
                self.seen.setdefault((params.get("uri"), params.get("version")),
                                     time.perf_counter())
            return structure(data)

        self.protocol.structure_message = arrived  # type: ignore[method-assign]

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            key = (params.uri, params.version)
            self.seen.setdefault(key, time.perf_counter())
            self.counts[key] = len(params.diagnostics)
            # what a user sees of each (for how many an edit changed)
            self.shown_by[key] = {(d.range.start.line, d.range.start.character, d.range.end.line,
                                   d.range.end.character, d.code, d.message) for d in params.diagnostics}
            self.event.set()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(params: types.LogMessageParams) -> None:
            m = ANALYSED.search(params.message)
            if m:
                self.analysed[(m.group(1), int(m.group(2)))] = float(m.group(3))
            if params.type in (types.MessageType.Error, types.MessageType.Warning):
                print(f"  server: {params.message.splitlines()[0]}", file=sys.stderr)

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def on_show(params: types.ShowMessageParams) -> None:
            self.shown.append(params.message)
            print(f"  server message: {params.message}", file=sys.stderr)

    def time_reads(self) -> None:
        """Note when each publication's body has been read (pygls reads the
        body with the server's stdout's ``readexactly``, then decodes it): what
        this Python client's decoding adds is then printed apart."""
        reader = getattr(self._server, "stdout", None)
        real = getattr(reader, "readexactly", None)
        if real is None:
            return

        async def readexactly(n: int) -> bytes:
            body = await real(n)
            if b"textDocument/publishDiagnostics" in body[:200]:
                m = _VERSION.search(body, max(0, len(body) - 200)) or _VERSION.search(body, 0, 300)
                self.read_at.setdefault(int(m.group(1)) if m else None, time.perf_counter())
            return body

        reader.readexactly = readexactly

    async def wait(self, uri: str, version: int, timeout: float = 600) -> float:
        deadline = time.perf_counter() + timeout
        while (uri, version) not in self.seen:
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for {uri} v{version}")
            try:
                await asyncio.wait_for(self.event.wait(), remaining)
            except asyncio.TimeoutError:
                pass
        return self.seen[(uri, version)]


def caps() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)),
    )


def random_edit(rng: random.Random, text: str) -> tuple[types.TextDocumentContentChangePartial, str]:
    """Insert one ASCII letter at a random offset (kept off the middle of a CRLF)."""
    off = rng.randrange(len(text) + 1)
    while 0 < off < len(text) and text[off - 1] == "\r" and text[off] == "\n":
        off = rng.randrange(len(text) + 1)
    line = text.count("\n", 0, off)
    line_start = text.rfind("\n", 0, off) + 1
    col = len(text[line_start:off].encode("utf-16-le")) // 2
    ch = rng.choice("abcdefghijklmnopqrstuvwxyz ")
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(line, col), types.Position(line, col)), text=ch)
    return change, text[:off] + ch + text[off:]


#: the settings each strategy is measured with
STRATEGIES: dict[str, dict[str, object]] = {
    "markdown": {},
    "recursive": {"chunker": "recursive", "size": 256, "overlap": 32},
    "langchain": {"chunker": "langchain", "size": 256, "overlap": 32},
    "fixed": {"chunker": "fixed", "size": 256, "overlap": 32},
    "sentence": {"chunker": "sentence", "size": 256, "overlap": 1},
}


async def run(args: argparse.Namespace, overrides: dict[str, object] | None = None,
              env: dict[str, str] | None = None, extras: bool = True) -> dict[str, float]:
    files = corpus_files()
    text = make_document(files, args.size)
    client = Client()
    await client.start_io(sys.executable, "-m", "chunkseam", "server", env=env)
    server_pid = client._server.pid  # type: ignore[union-attr]
    client.time_reads()
    settings: dict[str, object] = {"debounceMs": 0, "trace": "debug"}
    if args.chunker:
        settings["chunker"] = args.chunker
    settings.update(overrides or {})
    await client.initialize_async(types.InitializeParams(
        capabilities=caps(), initialization_options={"settings": settings},
        root_uri=(ROOT / "benchmarks").as_uri()))
    client.initialized(types.InitializedParams())
    base = "file:///bench/"
    uri = base + "doc0.md"
    print(f"document: {len(text):,} characters, {text.count(chr(10)) + 1:,} lines "
          f"from {len(files)} corpus files; server pid {server_pid}")

    cpu0 = cpu_ms(server_pid)
    t0 = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)))
    cold = (await client.wait(uri, 1)) - t0
    cpu_cold = cpu_ms(server_pid) - cpu0
    print(f"cold: open -> first diagnostics  {cold * 1000:8.1f} ms  "
          f"({client.counts[(uri, 1)]} diagnostics)")

    rng = random.Random(args.seed)
    times = []
    version = 1
    await asyncio.sleep(0.2)  # let the first publication's tail finish
    cpu1 = cpu_ms(server_pid)
    decoding: list[float] = []
    changed: list[int] = []
    for _ in range(args.edits):
        change, text = random_edit(rng, text)
        version += 1
        t = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        times.append((await client.wait(uri, version)) - t)
        if version in client.read_at:
            decoding.append((client.seen[(uri, version)] - client.read_at[version]) * 1000)
        if (uri, version - 1) in client.shown_by:
            # diagnostics of this version that the last one did not have (new
            # output however the server works: a new range or message)
            changed.append(len(client.shown_by[(uri, version)] - client.shown_by.pop((uri, version - 1))))
    cpu_edit = (cpu_ms(server_pid) - cpu1) / max(1, args.edits)
    times_ms = sorted(x * 1000 for x in times)
    median = statistics.median(times_ms)
    engine = [client.analysed.get((uri, v)) for v in range(2, version + 1)]
    engine = [e for e in engine if e is not None]
    p95 = times_ms[min(len(times_ms) - 1, int(round(0.95 * (len(times_ms) - 1))))]
    print(f"edits ({args.edits}): didChange -> diagnostics  median {median:7.1f} ms  "
          f"p95 {p95:7.1f} ms  min {times_ms[0]:.1f}  max {times_ms[-1]:.1f}")
    if engine:
        eng = statistics.median(engine)
        print(f"   of which analysis in the worker thread (engine + diagnostics): median {eng:7.1f} ms;"
              f" server overhead (sync, queueing, JSON) ~{median - eng:.1f} ms")
    if changed:
        print(f"   published diagnostics an edit changed (new range or message): median"
              f" {statistics.median(changed):.0f} of {client.counts[(uri, version)]}")
    if decoding:
        print(f"   of the overhead, this client's decoding of the publication (read -> decoded):"
              f" median {statistics.median(decoding):.1f} ms")
    cold_engine = client.analysed.get((uri, 1))
    if cold_engine is not None:
        print(f"   cold analysis in the worker thread: {cold_engine:.1f} ms")
    print(f"   server CPU time: cold {cpu_cold:.0f} ms, per edit {cpu_edit:.1f} ms (mean)")
    if not extras:
        await _stop(client)
        return {"cold_ms": cold * 1000, "median_ms": median, "p95_ms": p95,
                "cpu_cold_ms": cpu_cold, "cpu_edit_ms": cpu_edit,
                "rejected": any("expected" in m for m in client.shown)}

    # responsiveness: a hover on a small document while the big one is being analysed
    small = base + "small.md"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=small, language_id="markdown", version=1, text="# Small\n\nA short document.\n")))
    await client.wait(small, 1)
    hovers = []
    for _ in range(10):
        change, text = random_edit(rng, text)
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        await asyncio.sleep(0.05)  # the analysis of the big document is under way
        t = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(small), types.Position(2, 3)))
        hovers.append((time.perf_counter() - t) * 1000)
        await client.wait(uri, version)
    print(f"hover on a small document during a 1 MB analysis: median {statistics.median(hovers):.1f} ms,"
          f" max {max(hovers):.1f} ms")
    rss_one = rss_mb(server_pid)
    print(f"RSS with 1 document open: {rss_one:7.1f} MB")

    for i in range(1, args.docs):
        # a different order of the corpus files, and every heading marked, so that
        # no two documents share segments in the engine's content caches
        other = HEADING.sub(lambda m, i=i: f"{m.group()} (copy {i})",
                            make_document(files, args.size, rotate=i * 37))
        u = f"{base}doc{i}.md"
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=u, language_id="markdown", version=1, text=other)))
        await client.wait(u, 1)
    rss_all = rss_mb(server_pid)
    print(f"RSS with {args.docs} documents open: {rss_all:7.1f} MB")

    await _stop(client)

    ratio = median / (cold * 1000) if cold else float("nan")
    print()
    print(f"median edit / cold = {ratio * 100:.1f}%   (target <= 10%)   "
          f"{'OK' if ratio <= 0.10 else 'MISSED'}")
    print(f"median edit = {median:.1f} ms          (target < 100 ms)  "
          f"{'OK' if median < 100 else 'MISSED'}")
    print(f"RSS ({args.docs} docs) = {rss_all:.1f} MB        (target < 300 MB)  "
          f"{'OK' if rss_all < 300 else 'MISSED'}")
    return {"cold_ms": cold * 1000, "median_ms": median, "p95_ms": p95, "rss_mb": rss_all}


async def _stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    try:
        await asyncio.wait_for(client._server.wait(), 10)  # type: ignore[union-attr]
    except asyncio.TimeoutError:
        print("server did not exit within 10 s after exit", file=sys.stderr)
    await client.stop()


def baseline_tree(ref: str, keep: list[str] = ()) -> tuple[str, Path, dict[str, str]]:
    """The server sources of git revision ``ref``, extracted to a temporary
    directory (its ``server`` directory goes first on the server's PYTHONPATH),
    with the files ``keep`` (paths in this tree) copied over them."""
    import os
    import subprocess
    import tempfile

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], check=True,
                            capture_output=True, text=True).stdout.strip()
    target = Path(tempfile.mkdtemp(prefix="chunkseam-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "server"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    for path in keep:
        (target / path).write_bytes((ROOT / path).read_bytes())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(target / "server"), *filter(None, [env.get("PYTHONPATH")])])
    return commit, target, env


async def per_strategy(args: argparse.Namespace) -> None:
    """Cold open and edit -> diagnostics for each strategy (and the baseline)."""
    import os
    import shutil
    import subprocess

    names = list(STRATEGIES) if args.strategies == "all" else args.strategies.split(",")
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        sys.exit(f"unknown strategies {unknown}: expected some of {', '.join(STRATEGIES)}")
    here = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "worktree"
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "server"],
                           capture_output=True, text=True).stdout.strip()
    versions: list[tuple[str, dict[str, str] | None]] = []
    tree = None
    if args.baseline:
        commit, tree, env = baseline_tree(args.baseline, args.baseline_with)
        if args.baseline_with:
            print(f"baseline {args.baseline} with this tree's {', '.join(args.baseline_with)}")
        where = subprocess.run([sys.executable, "-c", "import chunkseam; print(chunkseam.__file__)"],
                               env=env, capture_output=True, text=True).stdout.strip()
        print(f"baseline {args.baseline} ({commit}): the server imports {where}")
        versions.append((f"base {commit}", env))
    versions.append((f"this {here}{'+' if dirty else ''}", dict(os.environ)))
    rows = []
    try:
        for strategy in names:
            for label, env in versions:
                print(f"\n== {strategy} · {label} · {STRATEGIES[strategy] or 'defaults'} ==")
                got = await run(args, STRATEGIES[strategy], env, extras=False)
                rows.append((strategy, label, got))
    finally:
        if tree is not None:
            shutil.rmtree(tree, ignore_errors=True)
    print(f"\n{args.size / 1e6:g} MB document, {args.edits} one-character edits, debounce 0; "
          "target: median <= 10% of cold and < 100 ms")
    head = (f"{'strategy':<10} {'server':<20} {'cold open':>10} {'median':>9} {'p95':>9} "
            f"{'ratio':>7} {'CPU cold':>9} {'CPU/edit':>9} {'ratio':>6}  target")
    print(head)
    print("-" * len(head))
    for strategy, label, got in rows:
        ratio = got["median_ms"] / got["cold_ms"] if got["cold_ms"] else float("nan")
        ok = ratio <= 0.10 and got["median_ms"] < 100
        verdict = "settings rejected: not this strategy" if got.get("rejected") else (
            "OK" if ok else "MISSED")
        cpu_ratio = got["cpu_edit_ms"] / got["cpu_cold_ms"] if got["cpu_cold_ms"] else float("nan")
        print(f"{strategy:<10} {label:<20} {got['cold_ms']:8.0f} ms {got['median_ms']:6.1f} ms "
              f"{got['p95_ms']:6.1f} ms {ratio * 100:6.1f}% {got['cpu_cold_ms']:6.0f} ms "
              f"{got['cpu_edit_ms']:6.1f} ms {cpu_ratio * 100:5.1f}%  {verdict}")
    print("(wall times: didOpen/didChange -> diagnostics read; CPU: the server process's "
          "user + system time, cold open and mean per edit, which a loaded machine does not "
          "inflate)")


def profile(args: argparse.Namespace) -> None:
    """The same work in-process: the cold analysis, then single-character
    edits made the way the server makes them (``Document.with_edit``, so the
    line index and the structure are updated from the previous version),
    timed by phase; then one more edit under cProfile."""
    import cProfile
    import pstats

    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.config.loader import resolve
    from chunkseam.document.text import Document
    from chunkseam.structure.markdown import structure
    from chunkseam.engine.validate import validate

    files = corpus_files()
    text = make_document(files, args.size)
    overrides = {"chunker": args.chunker} if args.chunker else None
    settings = resolve(None, overrides, strict=False).settings
    sizer = sizer_for(settings)
    doc = Document(text, uri="file:///bench/doc0.md", path="/bench/doc0.md", version=1,
                   language_id="markdown")

    def phases(d: Document) -> tuple[float, float, float]:
        t0 = time.perf_counter()
        structure(d)
        t1 = time.perf_counter()
        _name, chunks = make_chunks(d, settings, sizer)
        t2 = time.perf_counter()
        validate(d, chunks, settings, sizer=sizer)
        t3 = time.perf_counter()
        return (t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000

    doc.line_starts  # the server has it from the first publication
    cold = phases(doc)
    print(f"\n== in-process, cold: structure {cold[0]:.1f} ms, chunk {cold[1]:.1f} ms, "
          f"validate {cold[2]:.1f} ms, total {sum(cold):.1f} ms ==")
    rng = random.Random(args.seed)
    runs = []
    for _ in range(max(1, args.edits)):
        off = rng.randrange(len(doc.text) + 1)
        # the previous version stays alive meanwhile, as the server's last result does
        prev = doc
        doc = prev.with_edit(off, off, rng.choice("abcdefghij "), version=(prev.version or 0) + 1)
        runs.append(phases(doc))
    med = [statistics.median(r[k] for r in runs) for k in range(3)]
    total = statistics.median(sum(r) for r in runs)
    print(f"== in-process, {len(runs)} one-character edits (median): structure {med[0]:.1f} ms, "
          f"chunk {med[1]:.1f} ms, validate {med[2]:.1f} ms, total {total:.1f} ms ==")
    off = len(doc.text) // 2
    prev = doc
    doc = prev.with_edit(off, off, "x", version=(prev.version or 0) + 1)
    prof = cProfile.Profile()
    prof.enable()
    phases(doc)
    prof.disable()
    print("\n== one more edit under cProfile (internal time) ==")
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--docs", type=int, default=10)
    ap.add_argument("--size", type=int, default=MB, help="characters per document")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunker", default=None, help="override the routed chunker")
    ap.add_argument("--strategies", default=None,
                    help="'all' or a comma-separated list of " + ", ".join(STRATEGIES)
                    + ": one table of cold open and edit times per strategy")
    ap.add_argument("--baseline", default=None, metavar="REF",
                    help="with --strategies: also measure the server of git revision REF")
    ap.add_argument("--baseline-with", action="append", default=[], metavar="PATH",
                    help="a file of this tree to use in the baseline too (e.g. a fix it needs)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--profile-only", action="store_true",
                    help="only the in-process figures (no server)")
    args = ap.parse_args()
    if args.strategies:
        asyncio.run(per_strategy(args))
        return
    if not args.profile_only:
        asyncio.run(run(args))
    if args.profile or args.profile_only:
        profile(args)


if __name__ == "__main__":
    main()
