"""A labelled set of cuts over ../shared/corpus/markdown, and how validators judge it.

The labels come from a plain scan of the Markdown *source lines* — no
markdown-it, no pysbd, nothing the validator uses — so the validator is
measured against an independent reading of the document:

clean cuts
    ``clean-paragraph``  in the blank lines between two prose paragraphs
                         (a paragraph = a blank-line-separated group of lines
                         that all start at column 0 with a letter and hold no
                         ``|``), at the end of the first, at the start of the
                         second, or at the start of a blank line between;
    ``clean-sentence``   at a sentence start inside a prose paragraph: after
                         ``. ``/``! ``/``? `` following a lower-case word of 3+
                         letters (not an abbreviation), before a capitalised
                         word, outside parentheses/brackets and inline code
                         (a cut there would split those, rightly);
    ``clean-block``      in the blank lines between any two top-level blocks
                         (next block at column 0, not inside a fence, an HTML
                         comment or raw HTML, and the block before it is not a
                         heading — a cut right after a heading orphans it — nor
                         a lead-in: a paragraph ending with ":" before a list,
                         a table or markup, orphaned the same way).
bad cuts (expected code)
    ``mid-sentence``     (CS002) at a space between two letters in a prose
                         paragraph line, outside brackets and inline code;
    ``mid-word``         (CS001) strictly inside a word of 8+ ASCII letters
                         in a prose line;
    ``split-fence``      (CS003) at the start of, or inside, a line strictly
                         between the opening and closing line of a closed
                         ````` / ``~~~`` fence (tracked by a line scan);
    ``split-table``      (CS004) at the start of a body row of a ``|`` table
                         (after the delimiter row, or between two body rows);
    ``split-list-item``  (CS005) inside a multi-line list item: at the start
                         of (or after the indentation of) a continuation line,
                         or at a space between two letters in the item's first
                         line, outside brackets and inline code.

For every cut the set also records a window ``[lo, hi)`` of blank-line
boundaries (outside fences) about 300 characters around it: the two chunks a
text-only validator sees are ``text[lo:cut]`` and ``text[cut:hi]``.

:func:`evaluate` runs three judges on the same cuts:

* ``chunkseam``  the source-aware validator, :func:`chunkseam.engine.validate.validate`
  with the labelled cuts as chunk boundaries (one call per document); a cut is
  flagged when an error/warning issue has ``cut == offset``, or an issue that
  the impact grading made info (a cut in decoration such as a badge table or
  a licence, or a unit whole but for a mark: detected, and worth less; the
  run prints how many);
* ``text-only``  chunkseam's Markdown-aware text-only mode
  (:func:`chunkseam.engine.validate.validate_text_only`) on the two window chunks;
* ``article``    the field article's four text-only checks, as published:
  the left chunk does not end with ``.!?``, the right chunk does not start
  with a capital letter (or a digit), brackets ``() [] {}`` are unbalanced in
  either chunk, or either chunk holds an odd number of ```` ``` ````.

Recall per bad kind = flagged / cuts of that kind (and, for chunkseam, the share
reported with the expected code); false-positive rate per clean kind = flagged
/ cuts of that kind.

Run: ``python benchmarks/labelled.py [--per-file 20] [--files N]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "markdown"

CLEAN = ("clean-paragraph", "clean-sentence", "clean-block")
BAD = {"mid-sentence": "CS002", "mid-word": "CS001", "split-fence": "CS003",
       "split-table": "CS004", "split-list-item": "CS005"}
LABELS = CLEAN + tuple(BAD)

_FENCE = re.compile(r"^((?:[ \t]*>[ \t]?)*)([ \t]*)(`{3,}|~{3,})(.*)$")
_LIST = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])( +)(?=\S)")
_ANY_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_DELIM = re.compile(r"^ {0,3}\|?[ \t]*:?-{1,}:?[ \t]*(?:\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$")
_RAW_OPEN = re.compile(r"^ {0,3}<(pre|script|style|textarea)\b", re.I)
_ABBREV = {"etc", "approx", "incl", "resp", "vol", "fig", "sec", "min", "max", "avg", "est", "dept"}
_SENT_START = re.compile(r"(?<=[a-z]{3}[.!?]) (?=[A-Z][a-z]+\b)")
_LONG_WORD = re.compile(r"(?<![A-Za-z0-9_./:-])[A-Za-z]{8,}(?![A-Za-z0-9_])")


@dataclass(frozen=True)
class LabelledCut:
    path: str
    offset: int
    label: str
    lo: int
    hi: int

    @property
    def expected(self) -> str | None:
        return BAD.get(self.label)


@dataclass
class _Line:
    start: int  # offset of the line's first character
    end: int  # end of its content (before the line break)
    text: str
    kind: str = "other"
    item_indent: int = -1  # list: content column


def _lines(text: str) -> list[_Line]:
    out = []
    pos = 0
    for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n|$)", text):
        if m.start() == len(text) and m.group() == "":
            break
        body = m.group().rstrip("\r\n")
        out.append(_Line(m.start(), m.start() + len(body), body))
        pos = m.end()
    return out


def classify(text: str) -> list[_Line]:
    """Each source line with a kind from a simple scan (see the module doc)."""
    lines = _lines(text)
    i = 0
    n = len(lines)
    # front matter
    if n and lines[0].text.strip() in ("---", "+++"):
        mark = lines[0].text.strip()
        j = 1
        while j < n and lines[j].text.strip() not in (mark, "..."):
            j += 1
        if j < n:
            for k in range(0, j + 1):
                lines[k].kind = "front"
            i = j + 1
    fence: tuple[str, int] | None = None
    fence_lines: list[int] = []
    raw_close: re.Pattern[str] | None = None
    item_indent = -1  # content column of the open list item, -1 = none
    prev_blank = True
    while i < n:
        ln = lines[i]
        t = ln.text
        if fence is not None:
            m = _FENCE.match(t)
            if m and m.group(3)[0] == fence[0][0] and len(m.group(3)) >= fence[1] and not m.group(4).strip():
                ln.kind = "fence-close"
                for k in fence_lines:
                    lines[k].kind = "fence-body"
                fence = None
            else:
                fence_lines.append(i)
                ln.kind = "fence-open-body"  # becomes fence-body once closed
            i += 1
            prev_blank = False
            continue
        if raw_close is not None:
            ln.kind = "raw"
            if raw_close.search(t):
                raw_close = None
            i += 1
            continue
        stripped = t.strip()
        if not stripped:
            ln.kind = "blank"
            prev_blank = True
            i += 1
            continue
        indent = len(t) - len(t.lstrip(" "))
        m = _FENCE.match(t)
        if m and not (m.group(3)[0] == "`" and "`" in m.group(4)):
            ln.kind = "fence-open"
            fence = (m.group(3), len(m.group(3)))
            fence_lines = []
            i += 1
            prev_blank = False
            continue
        if stripped.startswith("<!--") and "-->" not in stripped:
            ln.kind = "raw"
            raw_close = re.compile(r"-->")
            i += 1
            continue
        rm = _RAW_OPEN.match(t)
        if rm and not re.search(rf"</{rm.group(1)}>", t, re.I):
            ln.kind = "raw"
            raw_close = re.compile(rf"</{rm.group(1)}>", re.I)
            i += 1
            continue
        lm = _LIST.match(t)
        if lm:
            ln.kind = "list"
            item_indent = lm.end()
            ln.item_indent = item_indent
        elif item_indent >= 0 and _ANY_LIST.match(t):
            ln.kind = "list-nested"  # a nested item: its own item, not a continuation
        elif item_indent >= 0 and not prev_blank and indent >= item_indent:
            ln.kind = "list-cont"
            ln.item_indent = item_indent
        elif item_indent >= 0 and prev_blank and indent >= item_indent:
            ln.kind = "list-para"
        elif item_indent >= 0 and not prev_blank and indent == 0:
            ln.kind = "list-lazy"
        else:
            item_indent = -1
            if stripped.startswith(">"):
                ln.kind = "quote"
            elif _HEADING.match(t):
                ln.kind = "heading"
            elif stripped.startswith("|"):
                ln.kind = "table"
            elif stripped.startswith("<"):
                ln.kind = "html"
            elif indent >= 4:
                ln.kind = "indented"
            elif indent == 0 and t[0].isalpha():
                ln.kind = "prose"
            else:
                ln.kind = "other"
        i += 1
        prev_blank = False
    for ln in lines:
        if ln.kind == "fence-open-body":
            ln.kind = "unclosed"
    return lines


def _groups(lines: list[_Line]) -> list[list[int]]:
    """Runs of non-blank lines (outside fences the runs follow blank lines)."""
    groups: list[list[int]] = []
    cur: list[int] = []
    for i, ln in enumerate(lines):
        if ln.kind == "blank":
            if cur:
                groups.append(cur)
                cur = []
        else:
            cur.append(i)
    if cur:
        groups.append(cur)
    return groups


def _depth_ok(text: str, start: int) -> list[bool]:
    """For each offset of ``text`` from ``start``: outside brackets, inline code
    and HTML tags (``<`` + letter, ``/`` or ``!`` … ``>``)."""
    out = []
    depth = 0
    tick = False
    tag = False
    seg = text[start:]
    for i, ch in enumerate(seg):
        if tag:
            if ch == ">":
                tag = False
        elif ch == "`":
            tick = not tick
        elif not tick and ch == "<" and i + 1 < len(seg) and (seg[i + 1].isalpha() or seg[i + 1] in "/!"):
            tag = True
        elif not tick and ch in "([{":
            depth += 1
        elif not tick and ch in ")]}":
            depth = max(0, depth - 1)
        out.append(depth == 0 and not tick and not tag)
    return out


def _is_prose_group(lines: list[_Line], g: list[int]) -> bool:
    return all(lines[i].kind == "prose" and "|" not in lines[i].text for i in g)


def label_text(text: str, path: str = "") -> dict[str, list[int]]:
    """Candidate cut offsets per label for one document."""
    lines = classify(text)
    groups = _groups(lines)
    found: dict[str, list[int]] = defaultdict(list)
    # -- paragraph and block boundaries
    for g0, g1 in zip(groups, groups[1:]):
        a, b = lines[g0[-1]], lines[g1[0]]
        kinds_ok = all(lines[k].kind not in ("fence-open", "fence-body", "raw", "front", "unclosed",
                                             "fence-open-body")
                       for k in (g0[-1], g1[0]))
        blanks = [k for k in range(g0[-1] + 1, g1[0])]
        if not kinds_ok or not blanks or any(lines[k].kind != "blank" for k in blanks):
            continue
        offsets = [a.end, b.start, lines[blanks[-1]].start]
        if _is_prose_group(lines, g0) and _is_prose_group(lines, g1):
            found["clean-paragraph"].extend(offsets)
        prev_heading = a.kind == "heading" or bool(
            len(g0) > 1 and _SETEXT.match(a.text) and lines[g0[-2]].kind in ("prose", "other"))
        next_ok = b.text[:1] not in (" ", "\t") and b.kind not in (
            "list-para", "list-cont", "list-lazy", "indented")
        # a lead-in: a top-level paragraph ending with a colon before a list, a
        # table or markup (a fence is never a clean-block sample): a cut after
        # it orphans it as a cut after a heading does
        last = a.text.rstrip()
        prev_lead_in = (lines[g0[0]].kind in ("prose", "other") and last.endswith(":") and not last.endswith(":::")
                        and b.kind in ("list", "table", "html"))
        if next_ok and not prev_heading and not prev_lead_in:
            found["clean-block"].extend(offsets)
    # -- inside prose paragraphs
    for g in groups:
        if not _is_prose_group(lines, g):
            continue
        start = lines[g[0]].start
        end = lines[g[-1]].end
        ok = _depth_ok(text[:end], start)
        for k in g:
            ln = lines[k]
            for m in _SENT_START.finditer(ln.text):
                word = re.search(r"([A-Za-z]+)[.!?]$", ln.text[: m.start()])
                if word and word.group(1).lower() in _ABBREV:
                    continue
                off = ln.start + m.end()
                if ok[off - start] and ok[off - 1 - start]:
                    found["clean-sentence"].append(off)
            for m in re.finditer(r"(?<=[A-Za-z]) (?=[A-Za-z])", ln.text):
                off = ln.start + m.start()
                if ok[off - start] and ok[off + 1 - start]:
                    found["mid-sentence"].append(off if (off % 2) else off + 1)
            for m in _LONG_WORD.finditer(ln.text):
                w0 = ln.start + m.start()
                found["mid-word"].append(w0 + 2 + (w0 % max(1, len(m.group()) - 3)))
    # -- fences
    i = 0
    while i < len(lines):
        if lines[i].kind == "fence-open":
            j = i + 1
            while j < len(lines) and lines[j].kind == "fence-body":
                j += 1
            if j < len(lines) and lines[j].kind == "fence-close":
                for k in range(i + 1, j):
                    ln = lines[k]
                    found["split-fence"].append(ln.start)
                    if ln.end - ln.start > 4:
                        found["split-fence"].append(ln.start + 1 + (ln.start % (ln.end - ln.start - 2)))
                if j > i + 1:
                    found["split-fence"].append(lines[j].start)
            i = j + 1
            continue
        i += 1
    # -- tables
    i = 0
    while i < len(lines) - 1:
        ln = lines[i]
        if ln.kind == "table" and lines[i + 1].kind == "table" and _DELIM.match(lines[i + 1].text) \
                and ln.text[:1] != " " and (i == 0 or lines[i - 1].kind == "blank"):
            j = i + 2
            while j < len(lines) and lines[j].kind == "table":
                found["split-table"].append(lines[j].start)
                j += 1
            i = j
            continue
        i += 1
    # -- list items spanning several lines
    for k, ln in enumerate(lines):
        if ln.kind != "list" or k + 1 >= len(lines) or lines[k + 1].kind != "list-cont":
            continue
        j = k + 1
        item_lines = [k]
        while j < len(lines) and lines[j].kind == "list-cont":
            item_lines.append(j)
            j += 1
        body = text[ln.start : lines[item_lines[-1]].end]
        if "```" in body or "~~~" in body or "|" in body:
            continue
        ok = _depth_ok(text[: lines[item_lines[-1]].end], ln.start)
        for c in item_lines[1:]:
            cl = lines[c]
            content = cl.start + len(cl.text) - len(cl.text.lstrip())
            for off in (cl.start, content):
                if ok[off - ln.start] and ok[max(off - 1, ln.start) - ln.start]:
                    found["split-list-item"].append(off)
        for m in re.finditer(r"(?<=[A-Za-z]) (?=[A-Za-z])", ln.text):
            off = ln.start + m.start()
            if off > ln.start + ln.item_indent and ok[off - ln.start] and ok[off + 1 - ln.start]:
                found["split-list-item"].append(off)
    return found


def _windows(text: str) -> list[int]:
    """Offsets of blank lines outside fences and raw HTML (window bounds)."""
    return [ln.start for ln in classify(text) if ln.kind == "blank"]


def build(files: Iterable[Path] | None = None, *, per_file: int = 20, seed: int = 0,
          corpus: Path = CORPUS, per_label: dict[str, int] | None = None) -> list[LabelledCut]:
    """The labelled set: up to ``per_file`` cuts per label per document
    (``per_label`` overrides the cap for some labels, e.g. the rare tables)."""
    from bisect import bisect_left, bisect_right

    if files is None:
        files = sorted(corpus.rglob("*.md"))
    out: list[LabelledCut] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        text = text.lstrip("\ufeff")
        found = label_text(text, str(path))
        para = set(found.get("clean-paragraph", ()))
        found["clean-block"] = [o for o in found.get("clean-block", ()) if o not in para]
        # an offset with two labels is ambiguous: drop it
        owner: dict[int, set[str]] = defaultdict(set)
        for label, offs in found.items():
            for o in offs:
                if 0 < o < len(text):
                    owner[o].add(label)
        bounds = _windows(text)
        rng = random.Random(f"{seed}:{path.name}:{len(text)}")
        for label in LABELS:
            offs = sorted({o for o in found.get(label, ()) if owner.get(o) == {label}})
            cap = (per_label or {}).get(label, per_file)
            if len(offs) > cap:
                offs = sorted(rng.sample(offs, cap))
            for o in offs:
                i = bisect_right(bounds, o - 300) - 1
                lo = bounds[i] if i >= 0 else 0
                j = bisect_left(bounds, o + 300)
                hi = bounds[j] if j < len(bounds) else len(text)
                out.append(LabelledCut(str(path), o, label, lo, hi))
    return out


# -- judges ---------------------------------------------------------------------------------

_END = re.compile(r"[.!?][\"')\]]*\s*$")


def article_flags(left: str, right: str) -> bool:
    """The field article's four text-only checks, naive as published."""
    if not _END.search(left):
        return True
    r = right.lstrip()
    if r and not (r[0].isupper() or r[0].isdigit()):
        return True
    for a, b in ("()", "[]", "{}"):
        if left.count(a) != left.count(b) or right.count(a) != right.count(b):
            return True
    return left.count("```") % 2 == 1 or right.count("```") % 2 == 1


def judge_chunkseam(path: str, text: str, cuts: list[LabelledCut]) -> dict[int, list[str]]:
    """Codes of error/warning issues at each labelled cut (source-aware)."""
    from chunkseam.core.chunk import Chunk
    from chunkseam.document.text import Document
    from chunkseam.core.settings import Settings
    from chunkseam.tokens.tiktoken import CharSizer
    from chunkseam.engine.validate import validate

    doc = Document(text, path=path, kind="markdown")
    # cuts closer than GAP characters go to separate runs, so that no chunk is
    # whitespace only (the validator drops those, and their cuts with them)
    rounds: list[list[int]] = []
    for o in sorted({c.offset for c in cuts}):
        for r in rounds:
            if o - r[-1] >= GAP and text[r[-1]:o].strip():
                r.append(o)
                break
        else:
            rounds.append([o])
    settings = Settings(unit="chars", size=10**9, min_tokens=0, ignore=("CS1", "CS3", "CS9"))
    out: dict[int, list[str]] = defaultdict(list)
    for offs in rounds:
        bounds = [0, *offs, len(text)]
        chunks = [Chunk(a, b, i, source=text, tokens=b - a)
                  for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
        for i in validate(doc, chunks, settings, sizer=CharSizer()):
            if i.cut is None or i.cut not in offs:
                continue
            if i.severity in ("error", "warning"):
                out[i.cut].append(i.code)
            elif (i.data or {}).get("impact"):
                # found, and made info by what the cut costs (decoration, a unit
                # whole but for a mark): the cut is detected; counted apart
                out[i.cut].append(i.code)
                QUIETED[i.data.get("region") or i.data["impact"]] += 1
    return out


#: cuts found but made info by the impact grading (chunkseam.checks.impact), by why
QUIETED: Counter = Counter()


GAP = 40


def judge_text_only(text: str, cut: LabelledCut) -> list[str]:
    from chunkseam.engine.validate import validate_text_only

    return [i.code for i in validate_text_only([text[cut.lo:cut.offset], text[cut.offset:cut.hi]])
            if i.severity in ("error", "warning")]


@dataclass
class Result:
    label: str
    n: int = 0
    chunkseam: int = 0
    chunkseam_code: int = 0
    text_only: int = 0
    article: int = 0
    misses: list | None = None

    def rate(self, k: int) -> float:
        return k / self.n if self.n else 0.0


def evaluate(cuts: list[LabelledCut], *, keep_examples: int = 5) -> dict[str, Result]:
    by_path: dict[str, list[LabelledCut]] = defaultdict(list)
    for c in cuts:
        by_path[c.path].append(c)
    results = {label: Result(label, misses=[]) for label in LABELS}
    for path, group in by_path.items():
        text = Path(path).read_text(encoding="utf-8").lstrip("\ufeff")
        flagged = judge_chunkseam(path, text, group)
        for c in group:
            r = results[c.label]
            r.n += 1
            codes = flagged.get(c.offset, [])
            bad = c.label in BAD
            if codes:
                r.chunkseam += 1
            if bad and c.expected in codes:
                r.chunkseam_code += 1
            if (bool(codes) != bad or (bad and c.expected not in codes)) and len(r.misses) < keep_examples:
                r.misses.append((path, c.offset, codes, text[max(0, c.offset - 40):c.offset],
                                 text[c.offset:c.offset + 40]))
            if judge_text_only(text, c):
                r.text_only += 1
            if article_flags(text[c.lo:c.offset], text[c.offset:c.hi]):
                r.article += 1
    return results


def report(results: dict[str, Result], out=sys.stdout, examples: bool = False) -> None:
    out.write(f"{'label':<18}{'cuts':>7}  {'chunkseam':>10} {'(code)':>8}  {'text-only':>10}  {'article':>8}\n")
    for label in LABELS:
        r = results[label]
        what = "FP" if label in CLEAN else "recall"
        code = f"{r.rate(r.chunkseam_code):8.3f}" if label in BAD else " " * 8
        out.write(f"{label:<18}{r.n:>7}  {what:>6} {r.rate(r.chunkseam):.3f} {code}  "
                  f"{r.rate(r.text_only):10.3f}  {r.rate(r.article):8.3f}\n")
    clean = [results[k] for k in CLEAN]
    n = sum(r.n for r in clean)
    if n:
        out.write(f"{'all clean':<18}{n:>7}  {'FP':>6} {sum(r.chunkseam for r in clean) / n:.3f} {'':8}  "
                  f"{sum(r.text_only for r in clean) / n:10.3f}  {sum(r.article for r in clean) / n:8.3f}\n")
    if examples:
        for label in LABELS:
            for path, off, codes, left, right in results[label].misses or []:
                out.write(f"  {label}: {Path(path).name}:{off} {codes} {left!r} | {right!r}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-file", type=int, default=20)
    ap.add_argument("--files", type=int, default=0, help="only every k-th file so that about N remain")
    ap.add_argument("--examples", action="store_true", help="print misjudged cuts")
    args = ap.parse_args(argv)
    files = sorted(CORPUS.rglob("*.md"))
    if args.files:
        step = max(1, len(files) // args.files)
        files = files[::step]
    cuts = build(files, per_file=args.per_file)
    report(evaluate(cuts), examples=args.examples)
    if QUIETED:
        print("flagged at info by the impact grading (decoration, marks only on one side):",
              ", ".join(f"{k} {v}" for k, v in QUIETED.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
