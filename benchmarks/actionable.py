"""Actionable precision: how many loud diagnostics are worth acting on.

A diagnostic can be true and still worth nothing: a cut through a badge row,
a sponsor wall or a licence paragraph is real, but nobody retrieves those for
an answer, and a list item cut at one chunk's end that is whole in the next
chunk (overlap) loses nothing. This scorer measures what a user sees as loud
(``warning`` or ``error``) against a reader's judgement of its value.

The held-apart set
------------------

``benchmarks/judged/heldout/docs/<project>/…`` holds documents of projects that
are neither in ../shared/corpus nor in ``benchmarks/judged/items.jsonl``
(sources and licences: ``benchmarks/judged/heldout/SOURCES.md``).
``benchmarks/judged/heldout/items.jsonl`` holds diagnostics drawn at random
from them (seeded, stratified by configuration and rule) and cuts reported
clean, each judged by reading the source around the cut *before* any rule
was changed for them. One JSON object a line:

``path``      the document, relative to ``heldout/docs``
``kind``      ``markdown``, ``mdx`` or ``rst``
``setting``   the configuration (:data:`CONFIGS`): ``default`` (no flags),
              ``langchain`` (LangChain's RecursiveCharacterTextSplitter, 256/32
              tokens), ``fix500`` (fixed 500 characters), ``llamaindex``
              (LlamaIndex SentenceSplitter, 512/50 tokens)
``offset``    the cut (``Issue.cut``); for a per-chunk rule (CS101–CS105) the
              chunk's start
``rule``      the code reported when the item was drawn, or ``clean``
``severity``  the severity it was reported with then (``None`` for clean)
``chunk``     the chunk index then (the chunk left of the cut, or the chunk
              concerned); ``end`` the end of that chunk
``verdict``   for a diagnostic: ``T`` harmful, rule and message right (a user
              should act), ``F`` wrong (the claim is false, or the wrong
              rule), ``P`` right but worth nothing (decoration, boilerplate,
              whole in a neighbour through overlap, harmless); for a clean
              cut: ``clean``, ``missed`` (``expect`` names the rule) or
              ``borderline``
``note``      why, in a few words
``sha``       first 12 hex digits of the SHA-1 of ``text[offset-40:offset+40]``

``benchmarks/judged/heldout/population.jsonl`` is the whole population the
sample was drawn from (every diagnostic of every document in every
configuration, with its severity then), so that a rule change that makes new
diagnostics loud is seen: they are listed as *not judged yet*, to be judged
(``show``) before the figures are trusted.

Scoring
-------

``python benchmarks/actionable.py`` lints the held-apart documents again with
the current code in the four configurations and prints per configuration, per
rule and overall, *before* (the recorded severities) and *now* side by side:
items judged, loud, T/F/P among the loud, **actionable precision = T ÷ judged
items reported loud**, judged-T items no longer reported at all (*lost*) and
those still reported but no longer loud (*quiet*); then the clean cuts now
reported loud, items whose surroundings changed (sha: reported, never
silently matched) and the loud diagnostics of the population not judged yet.

An item matches a current diagnostic when the file, configuration, rule and
offset are the same (the cut; a per-chunk rule: the chunk's start).

``--items FILE`` scores another items file the same way: the tuning part,
``--items benchmarks/judged/items.jsonl`` (its paths are found under
../shared/corpus as benchmarks/judged.py reads them, or under ``--root DIR``;
its ``setting`` may also be ``rec256`` = chunkseam's ``recursive`` 256/32
tokens; verdicts ``true``/``false``/``partial`` are read as T/F/F, and items
without a recorded ``severity`` were reported with the rule's default). It has
no recorded population unless ``--population FILE`` names one, so unjudged
loud diagnostics are not listed for it.

The sample is stratified, so its overall row weighs every (configuration,
rule) stratum alike; the *population-weighted* line weighs each stratum's
precision by its number of loud diagnostics, the precision a user would meet
linting all the documents.

``show [N…]`` prints items (by line number) with the source around the cut
(±300 characters, the cut marked ``⟂``) and the chunks and unit there; ``new``
prints the unjudged loud diagnostics the same way, for judging; ``--json``
prints the tables as JSON. ``draw`` made the sample and the population (kept
for reproducibility: ``--seed``; it overwrites population.jsonl).

Other held-apart parts
----------------------

``--set DIR`` scores another part laid out the same way (``DIR/docs``,
``DIR/items.jsonl``, ``DIR/population.jsonl``, ``DIR/SOURCES.md``), e.g.
``--set benchmarks/judged/heldout2`` (or ``heldout3``). Its ``draw`` samples what users see as
loud *now* (:func:`draw_loud`): at least :data:`LOUD_TARGET` loud diagnostics,
every rule that reports loud with at least :data:`PER_RULE` of them (all, when
it reports fewer), the defaults with at least :data:`DEFAULT_MIN` (all, when
fewer), every (configuration, rule) stratum with at least one, the rest drawn
one configuration after another (uniformly within each); then :data:`INFO_N` info or hint diagnostics
(one rule after another) and :data:`CLEAN_N` cuts reported clean, spread over
the configurations.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
HELDOUT = Path(__file__).resolve().parent / "judged" / "heldout"
DOCS = HELDOUT / "docs"
ITEMS = HELDOUT / "items.jsonl"
POPULATION = HELDOUT / "population.jsonl"

from chunkseam.document.text import load  # noqa: E402
from chunkseam.core.settings import Settings  # noqa: E402

CONFIGS = {
    "default": Settings(),
    "langchain": Settings(chunker="langchain", size=256, overlap=32, unit="tokens"),
    "fix500": Settings(chunker="fixed", size=500, overlap=0, unit="chars"),
    "llamaindex": Settings(chunker="llamaindex", size=512, overlap=50, unit="tokens"),
}
#: configurations of the tuning part's items (benchmarks/judged/items.jsonl)
EXTRA_CONFIGS = {"rec256": Settings(chunker="recursive", size=256, overlap=32, unit="tokens")}
PER_CHUNK = ("CS101", "CS102", "CS103", "CS104", "CS105")
LOUD = ("error", "warning")
SUFFIXES = (".md", ".markdown", ".mdx", ".rst")
VERDICTS = {"T": "T", "F": "F", "P": "P", "true": "T", "false": "F", "partial": "F"}
CLEAN_VERDICTS = ("clean", "missed", "borderline")


def excerpt_sha(text: str, offset: int) -> str:
    piece = text[max(0, offset - 40) : offset + 40]
    return hashlib.sha1(piece.encode("utf-8")).hexdigest()[:12]


def kind_of(path: str) -> str:
    suffix = Path(path).suffix
    return {".mdx": "mdx", ".rst": "rst"}.get(suffix, "markdown")


def locate(root: Path, path: str) -> str:
    """The directory ``path`` is relative to: ``root``, or for the tuning part's
    items (paths relative to ../shared/corpus/markdown or ../shared/corpus, see
    benchmarks/judged.py) the corpus folder that holds it."""
    corpus = ROOT.parent / "shared" / "corpus"
    for base in (Path(root), corpus / "markdown", corpus):
        if (base / path).is_file():
            return str(base)
    raise FileNotFoundError(f"{path}: not under {root} (nor ../shared/corpus)")


def documents(root: Path = DOCS) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and p.suffix in SUFFIXES)


def settings_of(setting: str) -> Settings:
    if setting in CONFIGS:
        return CONFIGS[setting]
    if setting in EXTRA_CONFIGS:
        return EXTRA_CONFIGS[setting]
    raise KeyError(f"unknown setting {setting!r} (one of {', '.join([*CONFIGS, *EXTRA_CONFIGS])})")


@lru_cache(maxsize=None)
def run(root: str, path: str, setting: str):
    """(text, chunks, issues) of ``root/path`` under ``setting``: the pipeline
    ``chunkseam lint`` runs (make_chunks, then validate)."""
    from chunkseam.engine.analysis import make_chunks, sizer_for
    from chunkseam.engine.validate import validate

    doc = load(str(Path(root) / path))
    s = settings_of(setting)
    sizer = sizer_for(s)
    _, chunks = make_chunks(doc, s, sizer)
    return doc.text, chunks, validate(doc, chunks, s, sizer=sizer)


def issue_offset(issue, chunks) -> int | None:
    """The offset an item of ``issue`` is keyed by: its cut, or (a per-chunk
    rule) its chunk's start."""
    if issue.code in PER_CHUNK or issue.cut is None:
        if issue.chunk is not None and 0 <= issue.chunk < len(chunks):
            return chunks[issue.chunk].start
        return issue.cut
    return issue.cut


def diagnostics(root: str, path: str, setting: str) -> dict[tuple[str, int], str]:
    """(rule, offset) -> severity of every current diagnostic (the loudest
    when one rule reports twice at one offset)."""
    _text, chunks, issues = run(root, path, setting)
    out: dict[tuple[str, int], str] = {}
    rank = {"error": 0, "warning": 1, "info": 2, "hint": 3}
    for i in issues:
        off = issue_offset(i, chunks)
        if off is None:
            continue
        key = (i.code, off)
        if key not in out or rank.get(i.severity, 9) < rank.get(out[key], 9):
            out[key] = i.severity
    return out


def cuts(root: str, path: str, setting: str) -> list[int]:
    """The offsets of every cut between consecutive chunks."""
    from chunkseam.checks.base import ChunkView
    from chunkseam.checks.inputs import make_cuts

    text, chunks, _ = run(root, path, setting)
    views = sorted((ChunkView(k, c.start, c.end, None, (), False) for k, c in enumerate(chunks)),
                   key=lambda v: (v.start, v.end))
    return sorted({c.offset for c in make_cuts(text, views)})


# --------------------------------------------------------------------- items


def load_items(path: Path = ITEMS) -> list[dict]:
    items = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        d = json.loads(line)
        d["line_no"] = n
        items.append(d)
    return items


def is_clean(item: dict) -> bool:
    return item["rule"] == "clean"


def verdict(item: dict) -> str | None:
    """T, F or P for a diagnostic item; None for a clean cut."""
    if is_clean(item):
        return None
    v = VERDICTS.get(str(item.get("verdict")))
    if v is None:
        raise ValueError(f"line {item.get('line_no')}: verdict {item.get('verdict')!r} is not T, F or P")
    return v


def recorded_severity(item: dict) -> str | None:
    """The severity the item was reported with when judged (``None``: clean).
    Items of the tuning part without one were reported with the rule's
    default severity."""
    if is_clean(item):
        return None
    if item.get("severity"):
        return item["severity"]
    from chunkseam.checks import registry

    rule = registry.RULES.get(item["rule"]) if hasattr(registry, "RULES") else None
    return getattr(rule, "severity", "warning") if rule else "warning"


def match(item: dict, current: dict[tuple[str, int], str], text: str) -> dict:
    """The item against the current diagnostics of its document and setting:
    ``changed`` (the text around the offset is not what was judged),
    ``severity`` (now, ``None`` = not reported) and for a clean cut
    ``now_loud`` (the loud rules now reported at that cut)."""
    if excerpt_sha(text, item["offset"]) != item["sha"]:
        return {"changed": True, "severity": None, "now_loud": []}
    if is_clean(item):
        loud = sorted(r for (r, off), sev in current.items()
                      if off == item["offset"] and sev in LOUD and r not in PER_CHUNK)
        return {"changed": False, "severity": None, "now_loud": loud}
    return {"changed": False, "severity": current.get((item["rule"], item["offset"])), "now_loud": []}


class Tally:
    """Counts of one row of the table (one configuration × rule, or a total)."""

    def __init__(self) -> None:
        self.judged = 0
        self.loud = Counter()  # verdict -> count among the loud
        self.lost = 0          # judged T, no longer reported at all
        self.quiet = 0         # judged T, still reported, no longer loud

    @property
    def n_loud(self) -> int:
        return sum(self.loud.values())

    @property
    def precision(self) -> float | None:
        return self.loud["T"] / self.n_loud if self.n_loud else None

    def as_dict(self) -> dict:
        return {"judged": self.judged, "loud": self.n_loud, "T": self.loud["T"],
                "F": self.loud["F"], "P": self.loud["P"], "precision": self.precision,
                "lost": self.lost, "quiet": self.quiet}


def tally(items: list[dict], now: dict[int, dict] | None) -> dict[tuple[str, str], Tally]:
    """Rows keyed by (setting, rule), with ("*", rule), (setting, "*") and
    ("*", "*") totals. ``now``: item line -> :func:`match` result (None:
    *before*, from the recorded severities). Changed items are left out of
    *now*."""
    rows: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for it in items:
        if is_clean(it):
            continue
        v = verdict(it)
        if now is None:
            sev = recorded_severity(it)
        else:
            m = now[it["line_no"]]
            if m["changed"]:
                continue
            sev = m["severity"]
        for key in ((it["setting"], it["rule"]), ("*", it["rule"]), (it["setting"], "*"), ("*", "*")):
            row = rows[key]
            row.judged += 1
            if sev in LOUD:
                row.loud[v] += 1
            elif v == "T":
                if sev is None:
                    row.lost += 1
                else:
                    row.quiet += 1
    return rows


def evaluate(items: list[dict], root: Path = DOCS) -> dict[int, dict]:
    """line -> :func:`match` of every item against the current code."""
    out = {}
    for it in items:
        base = locate(root, it["path"])
        text, _chunks, _ = run(base, it["path"], it["setting"])
        out[it["line_no"]] = match(it, diagnostics(base, it["path"], it["setting"]), text)
    return out


def unjudged_loud(items: list[dict], root: Path = DOCS, population: Path | None = POPULATION) -> list[dict]:
    """Loud diagnostics now that no item judges and that were not loud in
    the recorded population (a rule change made them loud, or they are new)."""
    judged = {(it["path"], it["setting"], it["rule"], it["offset"]) for it in items}
    before: set[tuple] = set()
    pairs: set[tuple[str, str]] = {(it["path"], it["setting"]) for it in items}
    if population is not None and Path(population).exists():
        for line in Path(population).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            d = json.loads(line)
            pairs.add((d["path"], d["setting"]))
            for rule, off, sev in d["issues"]:
                if sev in LOUD:
                    before.add((d["path"], d["setting"], rule, off))
    out = []
    for path, setting in sorted(pairs):
        try:
            base = locate(root, path)
        except FileNotFoundError:
            continue
        for (rule, off), sev in sorted(diagnostics(base, path, setting).items()):
            key = (path, setting, rule, off)
            if sev in LOUD and key not in judged and key not in before:
                out.append({"path": path, "setting": setting, "rule": rule, "offset": off, "severity": sev})
    return out


def loud_counts(root: Path = DOCS, population: Path | None = POPULATION,
                recorded: bool = False) -> Counter:
    """(setting, rule) -> loud diagnostics of the population: as recorded in
    ``population`` (``recorded=True``, *before*) or as the current code
    reports them on the same documents (*now*)."""
    out: Counter = Counter()
    if population is None or not Path(population).exists():
        return out
    for line in Path(population).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        if recorded:
            pairs = ((r, s) for r, _o, s in d["issues"])
        else:
            try:
                base = locate(root, d["path"])
            except FileNotFoundError:
                continue
            pairs = ((r, s) for (r, _o), s in diagnostics(base, d["path"], d["setting"]).items())
        for rule, sev in pairs:
            if sev in LOUD:
                out[(d["setting"], rule)] += 1
    return out


def weighted(rows: dict[tuple[str, str], Tally], counts: Counter) -> tuple[float | None, int, int]:
    """The precision a user would meet over the whole population: each
    (setting, rule) stratum's actionable precision weighted by its number of
    loud diagnostics. Returns (estimate, loud diagnostics covered by a judged
    stratum, loud diagnostics in all)."""
    total = sum(counts.values())
    covered = 0
    acc = 0.0
    for key, n in counts.items():
        t = rows.get(key)
        if t is not None and t.precision is not None:
            covered += n
            acc += n * t.precision
    return (acc / covered if covered else None), covered, total


# ------------------------------------------------------------------ printing


def _fmt(t: Tally | None) -> str:
    if t is None or t.judged == 0:
        return f"{'':>5} {'':>5} {'':>11} {'':>6} {'':>4} {'':>5}"
    p = "  -  " if t.precision is None else f"{t.precision:5.2f}"
    return f"{t.judged:5d} {t.n_loud:5d} {t.loud['T']:3d}/{t.loud['F']:2d}/{t.loud['P']:3d} {p:>6} {t.lost:4d} {t.quiet:5d}"


def print_table(before: dict, now: dict | None, out=None) -> None:
    out = out or sys.stdout
    head = f"{'judged':>5} {'loud':>5} {'T/F/P loud':>11} {'prec':>6} {'lost':>4} {'quiet':>5}"
    print(f"{'setting':<11} {'rule':<6} | before: {head} | now: {head}", file=out)
    keys = sorted(set(before) | set(now or {}),
                  key=lambda k: (k[0] == "*", k[0], k[1] == "*", k[1]))
    for key in keys:
        b = before.get(key)
        n = (now or {}).get(key)
        print(f"{key[0]:<11} {key[1]:<6} | {'':8}{_fmt(b)} | {'':5}{_fmt(n) if now is not None else ''}",
              file=out)


def context(text: str, offset: int, width: int = 300) -> str:
    return text[max(0, offset - width):offset] + "⟂" + text[offset:offset + width]


def show(item: dict, root: Path = DOCS, out=None) -> None:
    out = out or sys.stdout
    text, chunks, issues = run(locate(root, item["path"]), item["path"], item["setting"])
    off = item["offset"]
    print("=" * 100, file=out)
    print(f"#{item.get('line_no', '?')} {item['setting']} {item['path']} @{off} {item['rule']} "
          f"{item.get('severity') or ''} chunk {item.get('chunk')}", file=out)
    spans = [(k, c.start, c.end) for k, c in enumerate(chunks)]
    near = [s for s in spans if s[1] <= off + 1 and s[2] >= off - 1]
    print(f"  chunks around: {near}", file=out)
    for i in issues:
        if issue_offset(i, chunks) == off and (i.code == item["rule"] or is_clean(item)):
            unit = i.unit
            whole = [k for k, s, e in spans if unit and s <= unit[0] and unit[1] <= e]
            print(f"  {i.code} {i.severity}: {i.message}", file=out)
            print(f"  unit {unit} whole in chunks {whole}", file=out)
            if i.code in PER_CHUNK and i.chunk is not None:
                c = chunks[i.chunk]
                body = text[c.start:c.end]
                print(f"  chunk [{c.start},{c.end}) {len(body)} chars:\n"
                      + (body if len(body) < 900 else body[:500] + "\n   […]\n" + body[-300:]), file=out)
    print("-" * 100, file=out)
    print(context(text, off), file=out)


# -------------------------------------------------------------------- sample

#: the sample drawn before any rule change: (setting, rule) -> how many
PLAN = {
    ("default", "CS002"): 16, ("default", "CS101"): 14, ("default", "CS102"): 6, ("default", "CS103"): 4,
    ("langchain", "CS002"): 8, ("langchain", "CS003"): 7, ("langchain", "CS004"): 5,
    ("langchain", "CS005"): 6, ("langchain", "CS007"): 10, ("langchain", "CS008"): 7,
    ("langchain", "CS102"): 3, ("langchain", "CS103"): 4,
    ("fix500", "CS001"): 10, ("fix500", "CS002"): 6, ("fix500", "CS003"): 6, ("fix500", "CS004"): 4,
    ("fix500", "CS005"): 5, ("fix500", "CS006"): 9, ("fix500", "CS007"): 5, ("fix500", "CS008"): 5,
    ("llamaindex", "CS001"): 7, ("llamaindex", "CS002"): 4, ("llamaindex", "CS003"): 6,
    ("llamaindex", "CS004"): 4, ("llamaindex", "CS005"): 5, ("llamaindex", "CS006"): 5,
    ("llamaindex", "CS008"): 6, ("llamaindex", "CS102"): 1, ("llamaindex", "CS103"): 4,
}
CLEAN_PLAN = {"default": 10, "langchain": 10, "fix500": 10, "llamaindex": 10}


#: the loud-now sample of another part (``--set``, :func:`draw_loud`)
LOUD_TARGET = 180
PER_RULE = 10
DEFAULT_MIN = 30
INFO_N = 20
CLEAN_N = 30


def _pools(root: Path):
    """(setting, rule) -> [(path, offset, severity)] of every diagnostic, and
    setting -> [(path, offset)] of every cut reported clean."""
    pool: dict[tuple[str, str], list[tuple[str, int, str]]] = defaultdict(list)
    clean_pool: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for setting in CONFIGS:
        for path in documents(root):
            diags = diagnostics(str(root), path, setting)
            for (rule, off), sev in sorted(diags.items()):
                pool[(setting, rule)].append((path, off, sev))
            reported_at = {off for (rule, off) in diags if rule not in PER_CHUNK}
            for off in cuts(str(root), path, setting):
                if off not in reported_at:
                    clean_pool[setting].append((path, off))
    return pool, clean_pool


def draw_loud(seed: int, root: Path) -> list[dict]:
    """The sample of another held-apart part: loud diagnostics as reported
    now, stratified (see the module docstring), then info diagnostics and
    clean cuts. Item dicts without verdicts."""
    rng = random.Random(seed)
    pool, clean_pool = _pools(root)
    loud = {k: [d for d in v if d[2] in LOUD] for k, v in pool.items()}
    loud = {k: v for k, v in loud.items() if v}
    chosen: set[tuple[str, str, str, int]] = set()  # (setting, rule, path, offset)

    def key(setting, rule, d):
        return (setting, rule, d[0], d[1])

    picked: list[tuple[str, str, tuple]] = []

    def take(setting, rule, d):
        k = key(setting, rule, d)
        if k not in chosen:
            chosen.add(k)
            picked.append((setting, rule, d))

    def remaining(keys):
        return [(s, r, d) for (s, r) in keys for d in loud[(s, r)] if key(s, r, d) not in chosen]

    for k in sorted(loud):  # every stratum at least once
        take(*k, rng.choice(loud[k]))
    for rule in sorted({r for _s, r in loud}):  # every rule at least PER_RULE
        keys = sorted(k for k in loud if k[1] == rule)
        have = sum(1 for s, r, _d in picked if r == rule)
        rest = remaining(keys)
        for s, r, d in rng.sample(rest, max(0, min(PER_RULE - have, len(rest)))):
            take(s, r, d)
    keys = sorted(k for k in loud if k[0] == "default")  # the defaults at least DEFAULT_MIN
    have = sum(1 for s, _r, _d in picked if s == "default")
    rest = remaining(keys)
    for s, r, d in rng.sample(rest, max(0, min(DEFAULT_MIN - have, len(rest)))):
        take(s, r, d)
    while len(picked) < LOUD_TARGET:  # the rest: one configuration after another
        added = False
        for setting in CONFIGS:
            rest = remaining(sorted(k for k in loud if k[0] == setting))
            if rest and len(picked) < LOUD_TARGET:
                take(*rng.choice(rest))
                added = True
        if not added:
            break
    out = [new_item(root, d[0], s, d[1], r, d[2]) for s, r, d in
           sorted(picked, key=lambda p: (list(CONFIGS).index(p[0]), p[1], p[2][0], p[2][1]))]
    quiet = defaultdict(list)
    for (s, r), v in sorted(pool.items()):
        for d in v:
            if d[2] not in LOUD:
                quiet[r].append((s, d))
    rules = sorted(quiet)
    for r in rules:
        rng.shuffle(quiet[r])
    n = 0
    while n < INFO_N and any(quiet[r] for r in rules):
        for r in rules:
            if quiet[r] and n < INFO_N:
                s, d = quiet[r].pop()
                out.append(new_item(root, d[0], s, d[1], r, d[2]))
                n += 1
    settings = list(CONFIGS)
    for i, s in enumerate(settings):
        k = CLEAN_N // len(settings) + (1 if i < CLEAN_N % len(settings) else 0)
        for path, off in rng.sample(clean_pool[s], min(k, len(clean_pool[s]))):
            out.append(new_item(root, path, s, off, "clean", None))
    return out


def population(root: Path = DOCS) -> list[dict]:
    rows = []
    for setting in CONFIGS:
        for path in documents(root):
            diags = diagnostics(str(root), path, setting)
            rows.append({"path": path, "setting": setting,
                         "issues": [[r, o, s] for (r, o), s in sorted(diags.items())]})
    return rows


def draw(seed: int, root: Path = DOCS) -> list[dict]:
    """The stratified sample of :data:`PLAN` and :data:`CLEAN_PLAN`, as item
    dicts without verdicts."""
    rng = random.Random(seed)
    pool: dict[tuple[str, str], list[tuple[str, int, str]]] = defaultdict(list)
    clean_pool: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for setting in CONFIGS:
        for path in documents(root):
            diags = diagnostics(str(root), path, setting)
            for (rule, off), sev in sorted(diags.items()):
                pool[(setting, rule)].append((path, off, sev))
            reported_at = {off for (rule, off) in diags if rule not in PER_CHUNK}
            for off in cuts(str(root), path, setting):
                if off not in reported_at:
                    clean_pool[setting].append((path, off))
    out = []
    for (setting, rule), n in PLAN.items():
        for path, off, sev in rng.sample(pool[(setting, rule)], min(n, len(pool[(setting, rule)]))):
            out.append(new_item(root, path, setting, off, rule, sev))
    for setting, n in CLEAN_PLAN.items():
        for path, off in rng.sample(clean_pool[setting], n):
            out.append(new_item(root, path, setting, off, "clean", None))
    return out


def new_item(root: Path, path: str, setting: str, off: int, rule: str, sev: str | None) -> dict:
    text, chunks, _ = run(str(root), path, setting)
    if rule in PER_CHUNK:
        k = next(k for k, c in enumerate(chunks) if c.start == off)
    else:  # the chunk left of the cut: the last one starting before it
        k = max(k for k, c in enumerate(chunks) if c.start < off)
    return {"path": path, "kind": kind_of(path), "setting": setting, "offset": off, "rule": rule,
            "severity": sev, "chunk": k, "end": chunks[k].end, "verdict": None, "note": "",
            "sha": excerpt_sha(text, off)}


# ---------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", nargs="?", default="score", choices=("score", "show", "new", "draw"))
    ap.add_argument("lines", nargs="*", type=int, help="show: item line numbers (default: all)")
    ap.add_argument("--set", type=Path, default=None, dest="set_dir",
                    help="another held-apart part laid out like benchmarks/judged/heldout "
                         "(DIR/docs, DIR/items.jsonl, DIR/population.jsonl)")
    ap.add_argument("--items", type=Path, default=None)
    ap.add_argument("--root", type=Path, default=None, help="the directory item paths are relative to")
    ap.add_argument("--population", type=Path, default=None,
                    help=f"the recorded population (default: {POPULATION.relative_to(ROOT)} "
                         "for the held-apart items, none otherwise)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--json", action="store_true", help="score: print the tables as JSON")
    a = ap.parse_args(argv)
    part = a.set_dir.resolve() if a.set_dir is not None else HELDOUT
    a.items = a.items if a.items is not None else part / "items.jsonl"
    root = (a.root if a.root is not None else part / "docs").resolve()
    own_pop = part / "population.jsonl"
    pop = a.population if a.population is not None else (
        own_pop if a.items.resolve() == (part / "items.jsonl").resolve() else None)

    if a.command == "draw":
        sample = draw(a.seed, root) if part == HELDOUT.resolve() else draw_loud(a.seed, root)
        for it in sample:
            print(json.dumps(it, ensure_ascii=False))
        if pop is not None:
            Path(pop).write_text("".join(json.dumps(r) + "\n" for r in population(root)), encoding="utf-8")
        return 0

    items = load_items(a.items)
    if a.command == "show":
        for it in items:
            if not a.lines or it["line_no"] in a.lines:
                show(it, root)
        return 0
    if a.command == "new":
        for d in unjudged_loud(items, root, pop):
            show({**d, "line_no": "new"}, root)
        return 0

    now = evaluate(items, root)
    before_rows = tally(items, None)
    now_rows = tally(items, now)
    changed = [it for it in items if now[it["line_no"]]["changed"]]
    clean = [it for it in items if is_clean(it) and not now[it["line_no"]]["changed"]]
    clean_loud = [it for it in clean if now[it["line_no"]]["now_loud"]]
    new = unjudged_loud(items, root, pop) if pop is not None else []
    if a.json:
        print(json.dumps({
            "before": {f"{s}/{r}": t.as_dict() for (s, r), t in before_rows.items()},
            "now": {f"{s}/{r}": t.as_dict() for (s, r), t in now_rows.items()},
            "changed": [it["line_no"] for it in changed],
            "clean_now_loud": [it["line_no"] for it in clean_loud],
            "unjudged_loud": new,
            "weighted": {
                "before": weighted(before_rows, loud_counts(root, pop, recorded=True))[0],
                "now": weighted(now_rows, loud_counts(root, pop))[0] if pop else None,
            },
        }, indent=1))
        return 0
    print(f"{a.items}: {len(items)} items ({sum(not is_clean(i) for i in items)} diagnostics, "
          f"{sum(is_clean(i) for i in items)} clean cuts)")
    print("actionable precision = T / judged items reported loud (warning or error); "
          "lost = judged T, not reported; quiet = judged T, reported below warning\n")
    print_table(before_rows, now_rows)
    for label, rows, counts in (("before", before_rows, loud_counts(root, pop, recorded=True)),
                                ("now", now_rows, loud_counts(root, pop) if pop else Counter())):
        est, covered, total = weighted(rows, counts)
        if total:
            print(f"population-weighted actionable precision {label}: "
                  + ("-" if est is None else f"{est:.2f}")
                  + f" (strata weighted by their loud diagnostics: {covered} of {total} covered by judged items)")
    cv = Counter(it["verdict"] for it in clean)
    missed = [it for it in clean if it["verdict"] in ("missed", "false")
              or it.get("expect") not in (None, "clean")]
    found = [it for it in missed if it.get("expect") in now[it["line_no"]]["now_loud"]]
    print(f"\nclean cuts: {len(clean)} judged ({dict(cv)}); now reported loud: {len(clean_loud)}"
          f"; of the {len(missed)} missed, now reported loud with the expected rule: {len(found)}")
    for it in clean_loud:
        print(f"  #{it['line_no']} {it['setting']} {it['path']} @{it['offset']} ({it['verdict']}): "
              f"{', '.join(now[it['line_no']]['now_loud'])}")
    print(f"items whose surroundings changed (not matched): {len(changed)}")
    for it in changed:
        print(f"  #{it['line_no']} {it['setting']} {it['path']} @{it['offset']} {it['rule']}")
    if pop is None:
        print("no recorded population (--population FILE): loud diagnostics not judged yet are not listed")
        return 0
    by = Counter((d["setting"], d["rule"]) for d in new)
    print(f"loud diagnostics not judged yet (not loud when the sample was drawn): {len(new)}"
          + (f" {dict(by)}" if by else "") + ("  -> judge them (`new`) before trusting 'now'" if new else ""))
    for d in new[:30]:
        print(f"  {d['setting']} {d['path']} @{d['offset']} {d['rule']} {d['severity']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
