"""A human-judged set of diagnostics on real READMEs, docs and code, and its scorer.

``benchmarks/judged/items.jsonl`` holds one judgement per line, made by
reading the source around the cut in ../shared/corpus: markdown/{readmes,
rag-docs,mdx} (Markdown and MDX), rst/ (reStructuredText), code/{ts,go,rust,
java} and python/ (code through tree-sitter and Python's own parser):

``path``      the document: relative to ../shared/corpus/markdown for
              Markdown and MDX (``readmes/``, ``rag-docs/``, ``mdx/``), to
              ../shared/corpus for the other kinds (``rst/``, ``code/``,
              ``python/``, ``notebooks/``)
``kind``      the file kind (``markdown``, ``mdx``, ``rst``, the code
              language ``python``, ``ts``, ``go``, ``rust``, ``java``, or
              ``notebook``); derived from the path when absent
``setting``   the pipeline: ``rec256`` (``--chunker recursive --size 256
              --overlap 32 --unit tokens``), ``fix500`` (``--chunker fixed
              --size 500 --unit chars``) or ``default`` (no flags)
``offset``    the cut (``Issue.cut``); for a per-chunk rule (CS101–CS104) the
              start offset of the chunk concerned
``rule``      what ``chunkseam lint`` reported there when the item was
              sampled (``clean`` = a cut with no issue)
``verdict``   the reader's judgement of that report: ``true`` (right),
              ``false`` (wrong) or ``partial`` (right that something is broken,
              wrong about what)
``expect``    what should be reported there (a code, or ``clean``); defaults
              to ``rule`` for a true verdict
``note``      why, in a few words
``end``       for a chunk item: the end of the chunk judged (a chunk that
              now starts there but ends elsewhere is another chunk: the item
              is moot)
``about``     for a ``clean`` chunk item: the per-chunk rule it is judged
              on (the offset is then a chunk start, and only that rule
              counts there: "this chunk's opening points back at nothing")
``rejudged``  the rule under which an earlier verdict was changed after the
              item was read again at the source (the note says why)
``round``     ``after`` for items sampled from the reports of the fixed
              rules (judged the same way; left out of *before*)
``sha``       the first 12 hex digits of the SHA-1 of the 80 characters around
              the offset (``text[offset-40:offset+40]``): a changed corpus file
              is detected, not silently judged

Scoring (``python benchmarks/judged.py``): the documents are linted again
with the current code. Per kind and rule (and per rule over all kinds), *before* is the precision of the reports as
sampled (true / judged items of that rule); *after* counts, among the judged
items that the current code reports with that rule, those whose ``expect`` is
that rule. Recall on the judged clean/broken cuts: of the items whose
``expect`` is a code, how many the current code reports with exactly that
code; of those whose ``expect`` is ``clean``, how many stay clean.

``python benchmarks/judged.py sample RULE [N] [--setting S] [--kind K]``
prints N diagnostics of RULE (or ``clean`` cuts) not judged yet, with the
source around each cut, for labelling.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter, defaultdict
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
CORPUS_ROOT = ROOT.parent / "shared" / "corpus"
CORPUS = CORPUS_ROOT / "markdown"
ITEMS = Path(__file__).resolve().parent / "judged" / "items.jsonl"
FOLDERS = ("readmes", "rag-docs", "mdx")
# kind -> (folders under CORPUS_ROOT, suffixes); Markdown and MDX live under CORPUS
KINDS = {
    "markdown": (("markdown/readmes", "markdown/rag-docs", "markdown/mdx"), (".md", ".markdown")),
    "mdx": (("markdown/readmes", "markdown/rag-docs", "markdown/mdx"), (".mdx",)),
    "rst": (("rst",), (".rst",)),
    "python": (("python",), (".py",)),
    "ts": (("code/ts",), (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")),
    "go": (("code/go",), (".go",)),
    "rust": (("code/rust",), (".rs",)),
    "java": (("code/java",), (".java",)),
    "notebook": (("notebooks",), (".ipynb",)),
}
CODE_KINDS = ("python", "ts", "go", "rust", "java")

from chunkseam.document.text import load  # noqa: E402
from chunkseam.core.settings import Settings  # noqa: E402

SETTINGS = {
    "rec256": Settings(chunker="recursive", size=256, overlap=32, unit="tokens"),
    "fix500": Settings(chunker="fixed", size=500, overlap=0, unit="chars"),
    "default": Settings(),
}
PER_CHUNK = ("CS101", "CS102", "CS103", "CS104")


def excerpt_sha(text: str, offset: int) -> str:
    piece = text[max(0, offset - 40) : offset + 40]
    return hashlib.sha1(piece.encode("utf-8")).hexdigest()[:12]


def source(path: str) -> Path:
    """The file of an item's ``path`` (see the module docstring)."""
    return CORPUS / path if path.split("/", 1)[0] in FOLDERS else CORPUS_ROOT / path


def kind_of(item_or_path) -> str:
    if isinstance(item_or_path, dict):
        if item_or_path.get("kind"):
            return item_or_path["kind"]
        item_or_path = item_or_path["path"]
    path = str(item_or_path)
    suffix = Path(path).suffix
    if path.split("/", 1)[0] in FOLDERS:
        return "mdx" if suffix == ".mdx" else "markdown"
    for kind, (folders, suffixes) in KINDS.items():
        if suffix in suffixes and any(path.startswith(f + "/") for f in folders):
            return kind
    raise ValueError(f"no kind for {path}")


def rel(p: Path) -> str:
    """An item ``path`` for the file ``p``."""
    try:
        return str(p.relative_to(CORPUS))
    except ValueError:
        return str(p.relative_to(CORPUS_ROOT))


def documents(kinds=None) -> list[Path]:
    """The corpus files of ``kinds`` (default: Markdown and MDX, the set's first kinds)."""
    kinds = list(kinds or ("markdown", "mdx"))
    out: list[Path] = []
    for kind in kinds:
        folders, suffixes = KINDS[kind]
        for folder in folders:
            base = CORPUS_ROOT / folder
            out += sorted(p for p in base.rglob("*") if p.suffix in suffixes and p.is_file())
    return sorted(set(out))


@lru_cache(maxsize=None)
def _text(path: str) -> str:
    return load(str(source(path))).text


def run(path: str, setting: str):
    """(document, chunks, issues) of ``path`` under ``setting``."""
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.engine.validate import validate

    doc = load(str(source(path)))
    s = SETTINGS[setting]
    sizer = sizer_for(s)
    _, chunks = make_chunks(doc, s, sizer)
    return doc, chunks, validate(doc, chunks, s, sizer=sizer)


def item_offset(issue, chunks) -> int | None:
    if issue.cut is not None:
        return issue.cut
    if issue.chunk is not None and 0 <= issue.chunk < len(chunks):
        return chunks[issue.chunk].start
    return None


def reported(path: str, setting: str) -> tuple[dict[int, list[str]], set[int], set[int], set]:
    """offset -> codes reported there (cuts and per-chunk issues); the cut
    offsets; the chunk start offsets; the chunk spans."""
    doc, chunks, issues = run(path, setting)
    out: dict[int, list[str]] = defaultdict(list)
    for i in issues:
        off = item_offset(i, chunks)
        if off is not None:
            out[off].append(i.code)
    return out, set(_cuts(doc.text, chunks)), {c.start for c in chunks}, {(c.start, c.end) for c in chunks}


def _cuts(text: str, chunks) -> list[int]:
    from chunkseam.checks.base import ChunkView
    from chunkseam.checks.inputs import make_cuts

    views = [ChunkView(k, c.start, c.end, None, (), False) for k, c in enumerate(chunks)]
    views.sort(key=lambda v: (v.start, v.end))
    out = set()
    for c in make_cuts(text, views):
        out.add(c.offset)
        if c.alt is not None:
            out.add(c.alt)
    return sorted(out)


def cut_offsets(path: str, setting: str) -> list[int]:
    _doc, chunks, _ = run(path, setting)
    return _cuts(_text(path), chunks)


def cut_pairs(path: str, setting: str) -> list[tuple[int, int | None]]:
    """Each cut as (offset, alt): a cut reported at its alt offset (the right
    chunk's start past whitespace) is one cut with its offset, not two."""
    from chunkseam.checks.base import ChunkView
    from chunkseam.checks.inputs import make_cuts

    _doc, chunks, _ = run(path, setting)
    views = [ChunkView(k, c.start, c.end, None, (), False) for k, c in enumerate(chunks)]
    views.sort(key=lambda v: (v.start, v.end))
    return [(c.offset, c.alt) for c in make_cuts(_text(path), views)]


def load_items(path: Path = ITEMS) -> list[dict]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        d = json.loads(line)
        d.setdefault("expect", d["rule"] if d["verdict"] == "true" else None)
        d["line_no"] = n
        items.append(d)
    return items


def expected(item: dict) -> str | None:
    return item.get("expect") or (item["rule"] if item["verdict"] == "true" else None)


def exists(item: dict, cache: dict) -> bool:
    """Whether the judged cut (or chunk) is still made by the chunker: a
    chunker that now cuts elsewhere makes the item moot, not wrong."""
    key = (item["path"], item["setting"])
    if key not in cache:
        cache[key] = reported(*key)
    _codes, cuts, starts, spans = cache[key]
    if "end" in item:  # the very chunk judged, not just one starting there
        return (item["offset"], item["end"]) in spans
    chunk_item = item["rule"] in PER_CHUNK or (expected(item) or "") in PER_CHUNK or "about" in item
    return item["offset"] in (starts if chunk_item else cuts)


def now_codes(item: dict, cache: dict) -> list[str]:
    key = (item["path"], item["setting"])
    if key not in cache:
        cache[key] = reported(*key)
    codes = cache[key][0].get(item["offset"], [])
    # a chunk item is judged on the per-chunk rules, a cut on the cut rules (a
    # chunk starting at a cut may carry both)
    # (and a chunk may have several per-chunk issues: only the judged rule counts)
    if "about" in item:  # a clean chunk, judged on one per-chunk rule
        return [c for c in codes if c == item["about"]]
    chunk_item = item["rule"] in PER_CHUNK or (expected(item) or "") in PER_CHUNK
    if chunk_item:
        return [c for c in codes if c in (item["rule"], expected(item))]
    return [c for c in codes if c not in PER_CHUNK]


def score(items: list[dict], cache: dict | None = None) -> dict:
    """Precision and recall of the current code on ``items`` (``cache``: the
    lint results per (path, setting), shared with :func:`exists` and
    :func:`now_codes`)."""
    cache = {} if cache is None else cache
    before: dict[str, Counter] = defaultdict(Counter)
    after: dict[str, Counter] = defaultdict(Counter)
    before_kind: dict[tuple[str, str], Counter] = defaultdict(Counter)
    after_kind: dict[tuple[str, str], Counter] = defaultdict(Counter)
    recall: dict[str, Counter] = defaultdict(Counter)
    recall_kind: dict[tuple[str, str], Counter] = defaultdict(Counter)
    stale, moot = [], []
    lost: list = []  # (item, what is reported there now) of the judged cuts not held
    for it in items:
        kind = kind_of(it)
        if excerpt_sha(_text(it["path"]), it["offset"]) != it["sha"]:
            stale.append(it)
            continue
        if it.get("round") != "after":
            before[it["rule"]][it["verdict"]] += 1
            before_kind[kind, it["rule"]][it["verdict"]] += 1
        if not exists(it, cache):
            moot.append(it)
            continue
        codes = now_codes(it, cache)
        exp = expected(it)
        for code in set(codes):
            after[code]["true" if code == exp else "false"] += 1
            after_kind[kind, code]["true" if code == exp else "false"] += 1
        if exp is None:
            continue
        broken = "clean" if exp == "clean" else "broken"
        ok = (not codes) if exp == "clean" else (exp in codes)
        recall[broken]["held" if ok else "lost"] += 1
        if not ok:
            lost.append((it, codes))
        if exp != "clean":
            recall[exp]["held" if ok else "lost"] += 1
        recall_kind[kind, broken]["held" if ok else "lost"] += 1
    return {"before": before, "after": after, "recall": recall, "stale": stale, "moot": moot,
            "before_kind": before_kind, "after_kind": after_kind, "recall_kind": recall_kind,
            "lost": lost}


def _prec(c: Counter) -> str:
    n = sum(c.values())
    return f"{c['true'] / n:.3f} ({c['true']}/{n})" if n else "—"


def print_score(res: dict) -> None:
    print(f"{'kind':9} {'rule':8} {'precision before (true/judged)':32} {'partial':>8} {'precision now':>20}")
    keys = sorted(set(res["before_kind"]) | set(res["after_kind"]),
                  key=lambda k: (list(KINDS).index(k[0]), k[1]))
    for kind, r in keys:
        if r == "clean":
            continue
        b = res["before_kind"].get((kind, r), Counter())
        a = res["after_kind"].get((kind, r), Counter())
        print(f"{kind:9} {r:8} {_prec(b):32} {b['partial']:>8} {_prec(a):>20}")
    print()
    rules = sorted(set(res["before"]) | set(res["after"]))
    for r in rules:
        if r == "clean":
            continue
        b = res["before"].get(r, Counter())
        print(f"{'all':9} {r:8} {_prec(b):32} {b['partial']:>8} {_prec(res['after'].get(r, Counter())):>20}")
    print()
    for kind in KINDS:
        for k in ("broken", "clean"):
            c = res["recall_kind"].get((kind, k), Counter())
            n = c["held"] + c["lost"]
            if n:
                print(f"{kind:9} {k:8} judged {n}: {c['held']} held ({c['held'] / n:.3f}), {c['lost']} lost")
    for k in ("broken", "clean"):
        c = res["recall"].get(k, Counter())
        n = c["held"] + c["lost"]
        if n:
            print(f"{'all':9} {k:8} judged {n}: {c['held']} held ({c['held'] / n:.3f}), {c['lost']} lost")
    if res["lost"]:
        print(f"\n{len(res['lost'])} judged cut(s) not held (open: a miss known and kept open):")
        for it, codes in res["lost"]:
            print(f"  line {it['line_no']}: {it['path']} @{it['offset']} ({it['setting']}): expected "
                  f"{expected(it)}, reported {', '.join(sorted(set(codes))) or 'clean'}"
                  f"{' (open)' if it.get('open') else ''}")
    if res["moot"]:
        print(f"\n{len(res['moot'])} item(s) moot: the chunker no longer cuts (or starts a chunk) there")
    if res["stale"]:
        print(f"\n{len(res['stale'])} item(s) whose corpus text changed (sha mismatch):")
        for it in res["stale"][:10]:
            print(f"  line {it['line_no']}: {it['path']} @{it['offset']}")


# -- sampling for labelling ----------------------------------------------------------------


def show(text: str, off: int, before: int = 220, after: int = 160) -> str:
    lo, hi = max(0, off - before), min(len(text), off + after)
    return (text[lo:off] + "⟂" + text[off:hi]).replace("\n", "⏎\n")


def sample(rule: str, n: int, settings: list[str], seed: int, judged: set,
           kinds=None, per_file: int = 2) -> list[dict]:
    """Up to ``n`` not-yet-judged reports of ``rule`` (or clean cuts), spread
    over files: at most ``per_file`` from one file and setting."""
    rng = random.Random(seed)
    pool = []
    for p in documents(kinds):
        path = rel(p)
        for s in settings:
            doc, chunks, issues = run(path, s)
            if rule == "clean":
                flagged = {item_offset(i, chunks) for i in issues}
                for off, alt in cut_pairs(path, s):
                    if off not in flagged and alt not in flagged:
                        pool.append((path, s, off, "", None))
                continue
            for i in issues:
                if i.code == rule:
                    pool.append((path, s, item_offset(i, chunks), i.message, i))
    pool = [x for x in pool if (x[0], x[1], x[2]) not in judged]
    rng.shuffle(pool)
    taken: Counter = Counter()
    out = []
    for path, s, off, msg, i in pool:
        if len(out) >= n:
            break
        if taken[path, s] >= per_file:
            continue
        taken[path, s] += 1
        text = _text(path)
        rng_txt = ""
        if i is not None and i.start is not None and i.end is not None:
            rng_txt = text[i.start:i.end]
        out.append({"path": path, "kind": kind_of(path), "setting": s, "offset": off, "rule": rule,
                    "message": msg, "range": rng_txt[:200], "sha": excerpt_sha(text, off),
                    "context": show(text, off)})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sp = sub.add_parser("sample")
    sp.add_argument("rule")
    sp.add_argument("n", type=int, nargs="?", default=20)
    sp.add_argument("--setting", action="append", choices=list(SETTINGS))
    sp.add_argument("--seed", type=int, default=9)
    sp.add_argument("--kind", action="append", choices=list(KINDS))
    sp.add_argument("--per-file", type=int, default=2)
    sp.add_argument("--out")
    args = ap.parse_args(argv)
    if args.cmd == "sample":
        judged = {(i["path"], i["setting"], i["offset"]) for i in load_items()} if ITEMS.exists() else set()
        got = sample(args.rule, args.n, args.setting or list(SETTINGS), args.seed, judged,
                     args.kind, args.per_file)
        lines = [json.dumps(g, ensure_ascii=False) for g in got]
        if args.out:
            Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        for g in got:
            print(f"=== {g['path']} [{g['setting']}] @{g['offset']} {g['rule']} sha={g['sha']}\n"
                  f"--- {g['message']}\n--- range: {g['range']!r}\n{g['context']}\n")
        return 0
    res = score(load_items())
    print_score(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
