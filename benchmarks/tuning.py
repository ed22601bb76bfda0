"""Actionable precision on the tuning part of the corpus: a value-judged sample.

``benchmarks/judged/tuning-value.jsonl`` holds diagnostics drawn at random
(seeded, stratified by rule) from the reports of ``chunkseam lint`` over
../shared/corpus/markdown/{readmes,rag-docs,mdx} and ../shared/corpus/rst in
four configurations, each read at the source and judged for its *value*:

``verdict``   ``T`` harmful, rule and message right (worth acting on);
              ``F`` wrong (no break there, or the wrong rule);
              ``P`` right but worth nothing (decoration, a unit whole in a
              neighbouring chunk through the overlap, a cut nobody retrieves)
``setting``   ``default`` (no flags), ``rec256`` (LangChain recursive 256/32
              tokens), ``fix500`` (fixed 500 characters), ``llama512``
              (LlamaIndex SentenceSplitter 512/50 tokens)
``severity``  the severity reported when the item was sampled
``round``     ``after`` for items drawn from the reports of the changed rules
``expect``    (optional) the rule that should be reported there when it is
              not the one judged: a report of it now counts as right

The other keys are those of ``benchmarks/judged.py`` (path, kind, offset,
rule, note, sha).

*Actionable precision* = T ÷ judged items reported loud (error or warning).
``python benchmarks/tuning.py`` lints the judged documents with the current
code and prints it per rule, per setting and overall, for the items as
sampled (*before*: the severities recorded) and now (the items the current
code still reports loud at that offset with that rule).

``python benchmarks/tuning.py sample N [--seed S] [--loud] [--out F]``
draws N reports not judged yet, stratified by rule, with the source around
each, for judging.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import judged as J  # noqa: E402
from chunkseam.core.settings import Settings  # noqa: E402

J.SETTINGS.setdefault("llama512", Settings(chunker="llamaindex", size=512, overlap=50, unit="tokens"))
ITEMS = HERE / "judged" / "tuning-value.jsonl"
SETTINGS = ("default", "rec256", "fix500", "llama512")
LOUD = ("error", "warning")


def load_items(path: Path = ITEMS) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("//"):
            out.append(json.loads(line))
    return out


def _issues(path: str, setting: str, cache: dict):
    key = (path, setting)
    if key not in cache:
        try:
            _doc, chunks, issues = J.run(path, setting)
        except Exception as exc:  # a library that refuses a document: nothing reported
            print(f"  {path} [{setting}]: {type(exc).__name__}: {exc}", file=sys.stderr)
            chunks, issues = [], []
        cache[key] = [(J.item_offset(i, chunks), i.code, i.severity, i) for i in issues]
    return cache[key]


def now(item: dict, cache: dict) -> str | None:
    """The severity the current code reports ``item``'s rule (or the rule it
    ``expect``s there) at its offset with (the loudest), or None."""
    return now_report(item, cache)[1]


def now_report(item: dict, cache: dict) -> tuple[str | None, str | None]:
    """(code, severity) of the loudest report of ``item``'s rule or of its
    ``expect`` at its offset now, or (None, None)."""
    codes = {item["rule"], item.get("expect") or item["rule"]}
    found = [(s, code) for off, code, s, _i in _issues(item["path"], item["setting"], cache)
             if off == item["offset"] and code in codes]
    if not found:
        return None, None
    s, code = min(found, key=lambda x: ("error", "warning", "info", "hint").index(x[0]))
    return code, s


def verdict_now(item: dict, code: str | None) -> str:
    """An item's verdict for what is reported now: a report with the code
    the item ``expect``s (another than the one judged) is right."""
    if code is not None and code != item["rule"] and code == item.get("expect"):
        return "T"
    return item["verdict"]


def _ap(c: Counter) -> str:
    n = c["T"] + c["F"] + c["P"]
    return f"{c['T'] / n:.2f} ({c['T']}/{n}; F {c['F']}, P {c['P']})" if n else "—"


def score(items: list[dict], cache: dict | None = None) -> None:
    cache = {} if cache is None else cache
    before: dict[str, Counter] = defaultdict(Counter)
    after: dict[str, Counter] = defaultdict(Counter)
    quiet: Counter = Counter()
    stale = 0
    for it in items:
        if J.excerpt_sha(J._text(it["path"]), it["offset"]) != it["sha"]:
            stale += 1
            continue
        keys = (it["rule"], "all", "setting:" + it["setting"])
        if it.get("round") != "after" and it["severity"] in LOUD:
            for k in keys:
                before[k][it["verdict"]] += 1
        code, sev = now_report(it, cache)
        if sev in LOUD:
            for k in ((code,) + keys[1:]):
                after[k][verdict_now(it, code)] += 1
        else:
            quiet[it["verdict"], sev or "gone"] += 1
    print(f"{'':16} {'actionable precision before':34} {'now':34}")
    for k in sorted(set(before) | set(after), key=lambda k: (k.startswith("setting:"), k == "all", k)):
        print(f"{k:16} {_ap(before[k]):34} {_ap(after[k]):34}")
    print("\nnot loud now (verdict, severity now):", dict(sorted(quiet.items())))
    if stale:
        print(f"{stale} item(s) whose corpus text changed (sha mismatch)")


def sample(n: int, seed: int, loud_only: bool, judged: set) -> list[dict]:
    rng = random.Random(seed)
    cache: dict = {}
    pool: dict[str, list] = defaultdict(list)
    docs = J.documents(("markdown", "mdx", "rst"))
    for p in docs:
        path = J.rel(p)
        for s in SETTINGS:
            for off, code, sev, i in _issues(path, s, cache):
                if off is None or (path, s, off) in judged:
                    continue
                if loud_only and sev not in LOUD:
                    continue
                pool[code].append((path, s, off, sev, i))
    rules = sorted(pool)
    for r in rules:
        rng.shuffle(pool[r])
    out, taken = [], Counter()
    k = 0
    while len(out) < n and any(pool[r] for r in rules):
        r = rules[k % len(rules)]
        k += 1
        while pool[r]:
            path, s, off, sev, i = pool[r].pop()
            if taken[path] >= 2:
                continue
            taken[path] += 1
            text = J._text(path)
            out.append({"path": path, "kind": J.kind_of(path), "setting": s, "offset": off, "rule": r,
                        "severity": sev, "message": i.message, "sha": J.excerpt_sha(text, off),
                        "context": J.show(text, off, 300, 200)})
            break
    print("pool sizes:", {r: len(pool[r]) for r in rules}, file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sp = sub.add_parser("sample")
    sp.add_argument("n", type=int)
    sp.add_argument("--seed", type=int, default=27)
    sp.add_argument("--loud", action="store_true", help="only reports at error/warning")
    sp.add_argument("--out")
    args = ap.parse_args(argv)
    if args.cmd == "sample":
        judged = {(i["path"], i["setting"], i["offset"]) for i in load_items()}
        got = sample(args.n, args.seed, args.loud, judged)
        if args.out:
            Path(args.out).write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in got),
                                      encoding="utf-8")
        for g in got:
            print(f"=== {g['path']} [{g['setting']}] @{g['offset']} {g['rule']} {g['severity']}"
                  f" sha={g['sha']}\n--- {g['message']}\n{g['context']}\n")
        return 0
    items = load_items()
    print("== the sample drawn before the rules changed (as sampled, and now)")
    score([i for i in items if i.get("round") != "after"])
    after = [i for i in items if i.get("round") == "after"]
    if after:
        print("\n== reports drawn after the rules changed (new loud reports and a fresh sample; now)")
        score([dict(i, round=None) for i in after])
    return 0


if __name__ == "__main__":
    sys.exit(main())
