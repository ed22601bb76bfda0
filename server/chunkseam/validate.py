"""Document + chunks -> issues; statistics; text-only mode.

``validate(doc, chunks, settings=None, *, sizer=None) -> list[Issue]`` judges
every *cut* — each offset where a chunk starts or ends inside the document's
content — against the document's structure, then each chunk on its own, then
applies the document's suppression comments. Rules, codes and docs:
:mod:`chunkseam.checks.registry` (``chunkseam rule CODE``).

Cuts
----
With contiguous chunks a cut is where chunk N ends and chunk N+1 starts
(``side = "both"``); with overlap the end of N (``"end"``) and the start of
N+1 (``"start"``) are two cuts; a gap gives two as well, except a gap of
whitespace only (a chunker that drops the blank line or space between
chunks), which is one cut judged at the end of N and, when that is clean, at
the start of N+1. Offsets at the document's edges or in its leading/trailing
whitespace are not cuts. A cut in the whitespace between two blocks is clean.

One cut gets at most one issue, of the first rule in this order that applies
and is enabled (see :mod:`chunkseam.checks.cuts`):

* Markdown: CS003 > CS008 > CS004 > CS001 > CS006 > CS005 > CS002 > CS006
  (emphasis), then CS007 at an otherwise clean cut;
* Python: CS202 > CS001 > CS201; other code: CS001;
* plain text: CS001 > CS006 > CS002.

Chunk numbers
-------------
``Issue.chunk`` and ``Issue.other_chunk`` are 0-based positions in the list
passed in (which need not be sorted). For a cut, ``chunk`` is the chunk on the
left (holding the text just before the cut) and ``other_chunk`` the one on the
right; either may be None when no chunk covers that side. For per-chunk and
input issues ``chunk`` is the chunk concerned. Messages number chunks from 1:
``chunk 3 ends mid-sentence: "…set the timeout to" | "30 seconds…" is in chunk 4``
is ``chunk=2, other_chunk=3``.

Ranges
------
``start``/``end`` cover the thing that is broken: the sentence (CS002), the
word (CS001), the fence or indented code block (CS003), the table (CS004),
the list item (CS005), the bracket pair / link / code span (CS006), the heading
(CS007), the front matter or HTML block (CS008), the definition (CS201), the
string literal (CS202). ``related`` is the part of it on the other side of the
cut: ``(cut, end)`` when the left chunk ends there, ``(start, cut)`` when the
right chunk starts there. Per-chunk issues cover the chunk's first line
(CS101, CS104), the whole trimmed chunk (CS102) or the opening phrase (CS103).

``Issue.fix`` is a short hint for people. ``Issue.data`` (JSON-serialisable)
carries what quick fixes need. Keys present on every cut issue:

* ``"side"``: ``"end" | "start" | "both"`` — which chunk the cut counts against
  in the statistics (the left one for "end"/"both", the right one for "start").

Per rule (offsets are absolute string offsets into the document):

* CS001 ``{"word": [s, e]}`` plus, in a paragraph, ``"paragraph": [s, e]``
  (sentences are not computed for CS001/CS005/CS006: get them lazily with
  :func:`chunkseam.checks.base.sentence_spans(doc.text, s, e) <chunkseam.checks.base.sentence_spans>`).
* CS002 ``{"fix": "paragraph-break", "offset": sentence_start,
  "sentence": [s, e], "sentence_start": s, "paragraph": [s, e]}`` — insert a
  paragraph break before the cut sentence so a paragraph-aware chunker cuts
  there.
* CS003 ``{"block": [s, e], "marker": "```", "info": "python", "closed": bool}``
  and, when the cut is inside the body of a fence that is not in a list or
  quote, ``"fix": "split-fence", "offset": line_start, "insert": text`` — insert
  ``text`` (a closing marker, a blank line and the same opening marker) at the
  start of the line holding the cut, making two complete fences.
* CS004 ``{"table": [s, e], "header": [s, e], "rows_before": k}`` (body rows wholly
  before the cut) and, for a cut between
  body rows of a top-level table, ``"fix": "repeat-header", "offset":
  next_row_line_start, "insert": text`` — a blank line plus the header and
  delimiter rows, so the rows after the cut form a table with its header.
* CS005 ``{"item": [s, e]}`` (+ ``"paragraph"`` when in a paragraph).
* CS006 ``{"span": [s, e], "kind": "link" | "code" | "parentheses" | "brackets" |
  "braces" | "html" | "link_definition" | "emphasis"}`` (+ ``"paragraph"``).
* CS007 ``{"fix": "move-heading", "heading": [s, e], "body": body_start}`` —
  the heading belongs with the body that starts at ``body``.
* CS008 ``{"block": [s, e], "kind": "front_matter" | "html_block" | "esm" | "jsx"}``; for
  HTML also ``"element": [s, e]``, the tag, comment or element the cut leaves open.
* CS101 ``{"chunk_span": [s, e], "tokens": n, "size": n}``;
  CS102 ``{"tokens": n, "min_tokens": n}``; CS103 ``{"phrase": "as mentioned above"}``;
  CS104 ``{"heading_path": [...]}``; CS105 ``{"chunk_span": [s, e], "tokens": n, "limit": n}``.
* CS201 ``{"definition": [s, e], "name": "Class.method", "kind": "function" | "class"}``;
  CS202 ``{"string": [s, e], "kind": "docstring" | "string" | "fstring" | "bytes" | "tstring"}``.
* CS301 ``{"found": [offsets where the chunk's text occurs, up to 5],
  "occurrences": n | None (None = more than 5)}``; for the str.find case
  (same offsets as another chunk, text uncovered elsewhere)
  ``{"found": [offset of the uncovered copy], "duplicate_of": chunk}``; CS302 ``{"offsets": [start, end],
  "length": len(document)}``.
* CS900 ``{"fix": "remove-suppression", "offset": s, "length": n, "name": rule?}``
  — delete the comment (or, when ``name`` is set, that rule from it);
  CS901 ``{"fix": "remove-name", "name": "..."}``.

Suppressions and text-only mode
-------------------------------
Suppression comments (``<!-- chunkseam-disable CS002 -->`` …, ``# chunkseam:
ignore[CS201]``) are applied last; see :mod:`chunkseam.checks.suppress` for
their exact scope and the CS900/CS901 reports. :func:`validate_text_only`
(CS401–CS405, :mod:`chunkseam.checks.textonly`) judges chunk texts with no
source; its offsets are relative to each chunk's text.

Statistics
----------
:func:`statistics` counts a chunk as broken when at least one issue at
severity *error* or *warning* (after configuration re-grades them) is charged
to it; *info* and *hint* issues never make a chunk broken. A cut issue is
charged to the chunk that ends there ("end"/"both": the field's number counts
chunks that end mid-sentence), or to the chunk that starts there ("start").
``per_rule`` counts every issue of every severity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from . import budget
from .cache import ByteLRU
from .checks import registry
from .checks.base import ChunkView, Context
from .checks.chunks import chunk_issues
from .checks.code import CODE_ORDER, PYTHON_ORDER
from .checks.cuts import MARKDOWN_ORDER, TEXT_ORDER, Where, locate
from .checks.inputs import make_cuts, read_chunks, uncovered
from .checks.textonly import validate_text_only
from .document import Document, load
from .issue import SEVERITY_RANK, Issue
from .settings import Settings

__all__ = ["Stats", "statistics", "total", "validate", "validate_text_only", "BROKEN_SEVERITIES"]

_FIRST_EOL = re.compile(r"\r\n|\r|\n")

#: severities that make a chunk "broken" in the statistics
BROKEN_SEVERITIES = frozenset({"error", "warning"})


def _order(doc: Document):
    if doc.kind == "markdown":
        return MARKDOWN_ORDER
    if doc.kind == "python":
        return PYTHON_ORDER
    if doc.kind == "code":
        return CODE_ORDER
    return TEXT_ORDER


def _sizer(settings: Settings, sizer: Any):
    if sizer is not None:
        return sizer
    try:
        from .analysis import sizer_for

        return sizer_for(settings)
    except Exception:  # no tokenizer available: size checks use what chunks carry
        return None


def _fill_tokens(views: list[ChunkView], text: str, settings: Settings, sizer: Any) -> None:
    missing = [v for v in views if v.tokens is None]
    if not missing:
        return
    sizer = _sizer(settings, sizer)
    if sizer is None:
        return
    for k, v in enumerate(missing):
        if not k % budget.STRIDE:
            budget.check("counting the chunks")
        try:
            v.tokens = int(sizer.count(text[v.start : v.end]))
        except Exception:
            return


def validate(doc: Document | str, chunks: Iterable[Any] | None, settings: Settings | None = None,
             *, sizer: Any = None) -> list[Issue]:
    """Issues for ``chunks`` of ``doc`` (see the module documentation)."""
    from .sentences import language

    settings = settings or Settings()
    with language(getattr(settings, "language", None)):  # sentence rules of the document's language
        return _validate(doc, chunks, settings, sizer)


def _validate(doc: Document | str, chunks: Iterable[Any] | None, settings: Settings, sizer: Any) -> list[Issue]:
    doc = load(doc) if not isinstance(doc, Document) else doc
    enabled = registry.resolve_selection(settings, doc.path)
    text = doc.text

    def make_issue(code: str, message: str, start: int, end: int, **kw: Any) -> Issue:
        rule = registry.RULES[code]
        hint = kw.pop("hint", None)
        chunk = kw.pop("chunk", None)
        other = kw.pop("other_chunk", None)
        return Issue(code, rule.name, enabled.get(code, rule.severity), message, start, end,
                     chunk=chunk, other_chunk=other, fix=hint, data=kw)

    views, issues = read_chunks(text, chunks, make_issue)
    claimed = [(i.start, i.end) for i in issues if i.code in ("CS301", "CS302")]
    claimed += [(o, o + i.end - i.start) for i in issues if i.code == "CS301"
                and i.data.get("duplicate_of") is not None for o in i.data.get("found", ())]
    issues = [i for i in issues if i.code in enabled]
    ctx = Context(doc, settings, enabled, views, sizer)

    order = [(code, fn) for code, fn in _order(doc) if code in enabled]
    if order:
        blocks = doc.kind in ("markdown", "text")
        cached = _CutJudge(ctx, order) if doc.kind == "markdown" else None
        for k, cut in enumerate(make_cuts(text, views)):
            if not k % budget.STRIDE:
                budget.check("checking the cuts")
            found = cached.judge(cut) if cached is not None else _judge(ctx, order, cut, blocks)
            if found is not None:
                issues.append(found)

    if any(c in enabled for c in ("CS101", "CS102")):
        _fill_tokens(views, text, settings, sizer)
    first_content = len(text) - len(text.lstrip())
    issues.extend(chunk_issues(ctx, first_content))
    if "CS304" in enabled:
        issues.extend(uncovered(ctx, claimed))

    from .checks.suppress import apply

    issues = apply(doc, issues, enabled, make_issue)
    issues.sort(key=lambda i: (i.start, i.cut if i.cut is not None else -1, i.code))
    return issues


def _judge(ctx: Context, order: list, cut: Any, blocks: bool) -> Issue | None:
    """The issue of one cut: the first rule in ``order`` that applies (at the
    cut, then at its alternative offset when the cut is clean)."""
    for at in (cut, cut.at(cut.alt)) if cut.alt is not None else (cut,):
        where = locate(ctx, at.offset) if blocks else Where([], None)
        found = next((i for _c, fn in order if (i := fn(ctx, at, where)) is not None), None)
        if found is not None:
            return found
    return None


# -- reuse across versions: cut judgements cached by their neighbourhood -----------------
#
# The judgement of a cut in a Markdown document reads only the document around
# it: the blocks that contain it, the word, sentence or bracket pair it splits,
# the leaf before it and the one after (CS007), all inside the structure
# segments from the one before the cut's segment to the one after
# (Structure.neighbourhood: their text and parse are identified by a key, and
# segment boundaries are line starts after a blank line, where no word or line
# scan crosses). Beyond that it depends on the chunk numbers on either side
# (messages), the starts of those chunks relative to the neighbourhood (CS007),
# the document's first line break (CS003/CS004 fixes) and the enabled rules
# and severities. So a judgement is cached by all of these, with offsets
# relative to the neighbourhood, and an edit re-judges only the cuts near it.
# tests/test_incremental.py checks cached == fresh over random edits.

#: ``data`` keys of cut issues holding offsets (an int, or a list of ints) ...
_OFFSET_KEYS = frozenset({"word", "paragraph", "offset", "sentence", "sentence_start", "block",
                          "table", "header", "item", "span", "heading", "body", "element"})
#: ... and those holding anything else; an issue with a key in neither set is
#: not cached (always judged afresh), so a new key can never be shifted wrongly
_PLAIN_KEYS = frozenset({"side", "fix", "marker", "info", "closed", "insert", "rows_before",
                         "kind", "label"})
#: estimated bytes of the cut judgements kept (see :mod:`chunkseam.cache`)
CUT_CACHE_BYTES = 16 * 1024 * 1024


def _new_cut_cache() -> ByteLRU:
    return ByteLRU("cut judgements", CUT_CACHE_BYTES)


_CUT_CACHE = _new_cut_cache()
_RULE_KEYS: dict[tuple, tuple] = {}
_MISSING = object()
_NO_ISSUE = (None,)  # a cached "the cut is clean"


def clear_caches() -> None:
    """Forget every cached cut judgement (benchmarks use it for cold figures)."""
    _CUT_CACHE.clear()


def _cacheable(issue: Issue) -> bool:
    data = issue.data
    if not isinstance(data, dict):
        return False
    for k, v in data.items():
        if k in _OFFSET_KEYS:
            if not (_is_int(v) or (isinstance(v, list) and all(_is_int(x) for x in v))):
                return False
        elif k not in _PLAIN_KEYS:
            return False
    return True


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _shifted(issue: Issue, delta: int) -> Issue:
    """A copy of a cached cut issue moved by ``delta`` characters."""
    data = {}
    for k, v in issue.data.items():
        if k in _OFFSET_KEYS:
            v = v + delta if _is_int(v) else [x + delta for x in v]
        elif isinstance(v, list):
            v = list(v)
        data[k] = v
    related = issue.related
    return Issue(issue.code, issue.name, issue.severity, issue.message, issue.start + delta,
                 issue.end + delta, issue.chunk, issue.other_chunk,
                 None if issue.cut is None else issue.cut + delta,
                 None if related is None else (related[0] + delta, related[1] + delta),
                 issue.related_message, issue.fix, data,
                 None if issue.unit is None else (issue.unit[0] + delta, issue.unit[1] + delta))


class _CutJudge:
    """Judges the cuts of one Markdown validation through the cache."""

    def __init__(self, ctx: Context, order: list) -> None:
        self.ctx = ctx
        self.order = order
        self.st = ctx.structure
        eol = _FIRST_EOL.search(ctx.text)
        rules = (tuple(c for c, _fn in order), tuple(sorted(ctx.enabled.items())),
                 eol.group() if eol else "")
        # one object per distinct value: every cached key holds it
        self.rules = _RULE_KEYS.setdefault(rules, rules) if len(_RULE_KEYS) < 256 else rules

    def _start(self, position: int | None, lo: int, hi: int) -> int | None:
        if position is None:
            return None
        view = self.ctx.by_position.get(position)
        if view is None:
            return None
        return min(max(view.start - lo, -1), hi - lo + 1)

    def judge(self, cut: Any) -> Issue | None:
        ctx = self.ctx
        last = cut.alt if cut.alt is not None else cut.offset
        seg_key, lo, hi = self.st.neighbourhood(cut.offset, last)
        key = (self.rules, seg_key, cut.offset - lo, None if cut.alt is None else cut.alt - lo,
               cut.left, cut.right, cut.side, self._start(cut.left, lo, hi),
               self._start(cut.right, lo, hi))
        hit = _CUT_CACHE.get(key, _MISSING)
        if hit is not _MISSING:
            if hit is _NO_ISSUE:
                return None
            base, issue = hit
            return _shifted(issue, lo - base)
        found = _judge(ctx, self.order, cut, True)
        if found is None:
            _CUT_CACHE.put(key, _NO_ISSUE, 250)
        elif _cacheable(found):
            _CUT_CACHE.put(key, (lo, _shifted(found, 0)),
                           900 + len(found.message) + len(found.data) * 120)
        return found


# -- statistics ----------------------------------------------------------------------------


def charged_chunk(issue: Issue) -> int | None:
    """The chunk an issue counts against (see "Statistics" above)."""
    side = (issue.data or {}).get("side") if isinstance(issue.data, dict) else None
    if side == "start":
        return issue.other_chunk
    return issue.chunk


@dataclass
class Stats:
    """Counts for one document (or, from :func:`total`, many)."""

    chunks: int = 0
    chunks_with_issues: int = 0
    per_rule: dict[str, int] = field(default_factory=dict)
    per_severity: dict[str, int] = field(default_factory=dict)
    issues: int = 0
    documents: int = 1

    @property
    def rate(self) -> float:
        """The broken-chunk rate: chunks with an error/warning issue / chunks."""
        return self.chunks_with_issues / self.chunks if self.chunks else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"documents": self.documents, "chunks": self.chunks,
                "chunks_with_issues": self.chunks_with_issues, "rate": self.rate,
                "issues": self.issues, "per_rule": dict(sorted(self.per_rule.items())),
                "per_severity": {k: self.per_severity[k] for k in sorted(
                    self.per_severity, key=lambda s: SEVERITY_RANK.get(s, 9))}}

    def __add__(self, other: "Stats") -> "Stats":
        if not isinstance(other, Stats):
            return NotImplemented
        per_rule = dict(self.per_rule)
        for k, v in other.per_rule.items():
            per_rule[k] = per_rule.get(k, 0) + v
        per_sev = dict(self.per_severity)
        for k, v in other.per_severity.items():
            per_sev[k] = per_sev.get(k, 0) + v
        return Stats(self.chunks + other.chunks, self.chunks_with_issues + other.chunks_with_issues,
                     per_rule, per_sev, self.issues + other.issues, self.documents + other.documents)


def statistics(chunks: Iterable[Any], issues: Iterable[Issue]) -> Stats:
    """Counts for one document's chunks and issues."""
    chunks = list(chunks or ())
    issues = list(issues or ())
    broken: set[int] = set()
    per_rule: dict[str, int] = {}
    per_sev: dict[str, int] = {}
    for i in issues:
        per_rule[i.code] = per_rule.get(i.code, 0) + 1
        per_sev[i.severity] = per_sev.get(i.severity, 0) + 1
        if i.severity in BROKEN_SEVERITIES:
            c = charged_chunk(i)
            if c is not None and 0 <= c < len(chunks):
                broken.add(c)
    return Stats(len(chunks), len(broken), per_rule, per_sev, len(issues), 1)


def total(stats: Iterable[Stats]) -> Stats:
    """Totals over documents: sums of counts; the rate is recomputed from them."""
    out = Stats(documents=0)
    for s in stats:
        out = out + s
    return out
