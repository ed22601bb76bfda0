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
  CS102 ``{"tokens": n, "min_tokens": n}`` (with ``unit = "chars"``: ``{"chars": n,
  "min_chars": n}``); CS103 ``{"phrase": "as mentioned above"}`` (plus
  ``"direction": "forward"`` when what it points at follows in the chunk: no chunk is named);
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
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable

from chunkseam.core import budget
from chunkseam.core.cache import ByteLRU
from chunkseam.checks import registry
from chunkseam.checks.base import REACH, ChunkView, Context, CutMessage
from chunkseam.checks.chunks import chunk_issues
from chunkseam.checks.impact import grade
from chunkseam.checks.code import CODE_ORDER, PYTHON_ORDER
from chunkseam.checks.cuts import (
    MARKDOWN_ORDER,
    TEXT_ORDER,
    Where,
    locate,
    split_code_fence,
    split_link_definition,
    split_list_item,
    split_raw_block,
    split_table,
)
from chunkseam.checks.inputs import content_bounds, make_cuts, read_chunks, uncovered
from chunkseam.checks.textonly import validate_text_only
from chunkseam.document.text import Document, load
from chunkseam.core.issue import SEVERITY_RANK, Issue
from chunkseam.core.settings import Settings

__all__ = ["Stats", "statistics", "total", "validate", "validate_text_only", "BROKEN_SEVERITIES"]

_FIRST_EOL = re.compile(r"\r\n|\r|\n")
_NOT_SPACE = re.compile(r"\S")

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
        from chunkseam.tokens import sizer_for

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
             *, sizer: Any = None, share: bool = False) -> list[Issue]:
    """Issues for ``chunks`` of ``doc`` (see the module documentation).

    ``share=True``: the issues may be the very objects this validation keeps
    for the next version of the document (no copies made), for a caller that
    never changes an issue (the language server); by default the caller gets
    its own."""
    from chunkseam.structure.sentences import language

    settings = settings or Settings()
    with language(getattr(settings, "language", None)):  # sentence rules of the document's language
        return _validate(doc, chunks, settings, sizer, share)


def _validate(doc: Document | str, chunks: Iterable[Any] | None, settings: Settings, sizer: Any,
              share: bool = False) -> list[Issue]:
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
    judge = _CutJudge(ctx, order, share) if doc.kind == "markdown" else None
    if order:
        blocks = doc.kind in ("markdown", "text")
        cuts = _cuts(doc, text, views)
        if judge is not None:
            issues.extend(judge.judge_all(cuts))
        else:
            for k, cut in enumerate(cuts):
                if not k % budget.STRIDE:
                    budget.check("checking the cuts")
                found = _judge(ctx, order, cut, blocks)
                if found is not None:
                    issues.append(found)

    if any(c in enabled for c in ("CS101", "CS102")):
        _fill_tokens(views, text, settings, sizer)
    content = _NOT_SPACE.search(text)  # (no stripped copy of a large text)
    first_content = content.start() if content is not None else len(text)
    if judge is not None:
        issues.extend(judge.chunk_issues_all(first_content))
    else:
        issues.extend(chunk_issues(ctx, first_content))
    if "CS304" in enabled:
        issues.extend(uncovered(ctx, claimed))
    # what each cut costs: a unit whole in another chunk, or decoration, is info
    # (kept for the next version when the issues are shared with it: see grade)
    issues = grade(ctx, issues, keep=share)

    from chunkseam.checks.suppress import apply

    issues = apply(doc, issues, enabled, make_issue)
    issues.sort(key=lambda i: (i.start, i.cut if i.cut is not None else -1, i.code))
    return issues


#: the rules that find nothing at a cut inside a leaf none of whose blocks
#: (the leaf and its ancestors) is of a kind in :data:`_STRUCTURAL`: code
#: (fence, indented), raw blocks (front matter, HTML, reStructuredText
#: explicit markup and directives, MDX import/export, expressions and JSX),
#: tables and list items; a link reference definition is never in a leaf
_BLOCK_RULES = frozenset({split_code_fence, split_raw_block, split_table, split_link_definition,
                          split_list_item})
_STRUCTURAL = frozenset({"fence", "code", "front_matter", "html_block", "explicit", "esm", "jsx",
                         "directive", "table", "list_item"})


def _plain_order(order: list) -> tuple[list, list]:
    """``(plain, in_list)``: ``order`` without :data:`_BLOCK_RULES`, the same
    first match at a cut inside a leaf with no structural block around it;
    and ``order`` without the block rules but :func:`split_list_item`, the
    same first match at a cut inside a leaf whose only structural blocks are
    list items (the commonest cut of a list-heavy page: in the paragraph of
    a list item). See :func:`_judge`."""
    return ([(c, fn) for c, fn in order if fn not in _BLOCK_RULES],
            [(c, fn) for c, fn in order if fn not in _BLOCK_RULES or fn is split_list_item])


def _judge(ctx: Context, order: list, cut: Any, blocks: bool,
           plain: tuple[list, list] | None = None) -> Issue | None:
    """The issue of one cut: the first rule in ``order`` that applies (at the
    cut, then at its alternative offset when the cut is clean). With
    ``plain`` (:func:`_plain_order` of ``order``), a cut inside a leaf none of
    whose blocks is structural, or whose only structural blocks are list
    items, is judged by the rules that can apply there only: the others
    return None there."""
    for at in (cut, cut.at(cut.alt)) if cut.alt is not None else (cut,):
        where = locate(ctx, at.offset) if blocks else Where([], None)
        rules = order
        if plain is not None and where.leaf is not None:
            listed = False
            for b in where.blocks:
                kind = b.kind
                if kind in _STRUCTURAL:
                    if kind != "list_item":
                        break
                    listed = True
            else:
                rules = plain[1] if listed else plain[0]
        for _c, fn in rules:
            found = fn(ctx, at, where)
            if found is not None:
                return found
    return None


def _cuts(doc: Document, text: str, views: list[ChunkView]) -> list:
    """``make_cuts(text, views)``; those before an edit are the nearest
    ancestor's (kept on each version, see :meth:`Document.lineage`): a cut at
    an offset before the first chunk that differs between the two versions
    and before the edit (and before the end of either text's content) reads
    only the chunks before it, which are the same, and the text before it
    (whether two cuts with only whitespace between are one), which is the
    same, so it is the same cut. The last of those is made again (whether it
    joins the next one depends on that one)."""
    sig = [(v.start, v.end, v.position) for v in views]
    bounds = content_bounds(text)
    cuts = None
    previous = edited = None
    if bounds is not None:
        for ancestor, edited, _end, _n in doc.lineage():
            previous = ancestor.memoised("cuts")
            if previous is not None:
                break
    if previous is not None:
        old_sig, old_cuts, old_bounds = previous
        if old_bounds is not None and old_bounds[0] == bounds[0]:
            k, n = 0, min(len(sig), len(old_sig))
            while k < n and sig[k] == old_sig[k]:
                k += 1
            limit = min(sig[k][0] if k < len(sig) else bounds[1],
                        old_sig[k][0] if k < len(old_sig) else old_bounds[1], bounds[1], old_bounds[1],
                        edited)
            j = 0
            while j < len(old_cuts) and (old_cuts[j].offset if old_cuts[j].alt is None
                                         else old_cuts[j].alt) < limit:
                j += 1
            if j > 0:
                j -= 1
                cuts = old_cuts[:j] + make_cuts(text, views, old_cuts[j].offset)
    if cuts is None:
        cuts = make_cuts(text, views)
    doc.memo("cuts", lambda: (sig, cuts, bounds))
    return cuts


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
# the end of the chunk after the cut (an excerpt that says nothing reaches for
# words only up to it),
# the document's first line break (CS003/CS004 fixes) and the enabled rules
# and severities. So a judgement is cached by all of these, with offsets
# relative to the neighbourhood, and an edit re-judges only the cuts near it.
# tests/chunkers/test_incremental.py checks cached == fresh over random edits.

#: ``data`` keys of cut issues holding offsets (an int, or a list of ints) ...
_OFFSET_KEYS = frozenset({"word", "paragraph", "offset", "sentence", "sentence_start", "block",
                          "table", "header", "item", "span", "heading", "body", "element", "lead_in",
                          "wrapper"})
#: ... and those holding anything else; an issue with a key in neither set is
#: not cached (always judged afresh), so a new key can never be shifted wrongly
_PLAIN_KEYS = frozenset({"side", "fix", "marker", "info", "closed", "insert", "rows_before",
                         "kind", "label"})
#: estimated bytes of the cut judgements kept (see :mod:`chunkseam.core.cache`)
CUT_CACHE_BYTES = 16 * 1024 * 1024


def _new_cut_cache() -> ByteLRU:
    return ByteLRU("cut judgements", CUT_CACHE_BYTES)


_CUT_CACHE = _new_cut_cache()
#: each distinct (rules, severities, line break) of a validation -> a small number that
#: stands for it in the cut keys (a tuple is hashed anew in every key that holds it)
_RULE_KEYS: dict[tuple, int] = {}
_RULE_KEYS_LOCK = threading.Lock()
_MISSING = object()
_NO_ISSUE = (None,)  # a cached "the cut is clean"

# Whether the cache pays for itself. An edit of a windowed chunker's document
# (``fixed``) that changes its token count moves every later window: each cut
# after the edit lands where no run judged one before, and a lookup, the key
# it builds and the copy a put keeps then cost a tenth of the edit for no hit
# (0.1% hits over random edits of 1 MB). So a run of a document whose last
# run judged at least :data:`_CACHE_TRIAL` cuts and found fewer than one in
# :data:`_CACHE_HIT_RATIO` of its lookups cached looks up only every
# :data:`_CACHE_PROBE`-th cut it judges; once two of those, and at least one
# in four, were found in the cache (an edit undone, a text the cache has
# seen), it looks up every cut again for the rest of the run, and so does the
# next run. A run that judges fewer than :data:`_CACHE_TRIAL` cuts (an edit
# that leaves the later windows where they were: they are moved, not judged)
# passes the last verdict on. Judgements are the same either way.
_CACHE_TRIAL = 256
_CACHE_HIT_RATIO = 50
_CACHE_PROBE = 16


def _cache_pays(stats: tuple[int, int, int]) -> bool:
    """Whether a run after one of ``stats`` (cuts judged, cache lookups,
    hits) uses the cut cache for every cut it judges (see above)."""
    judged, lookups, hits = stats
    return judged < _CACHE_TRIAL or hits * _CACHE_HIT_RATIO >= lookups


def clear_caches() -> None:
    """Forget every cached cut judgement and bracket-span index (benchmarks
    use it for cold figures)."""
    from chunkseam.checks import base

    _CUT_CACHE.clear()
    base.clear_caches()


def _shiftable(issue: Issue) -> bool:
    """Whether ``issue`` may be cached and moved: its ``data`` keys all in
    :data:`_OFFSET_KEYS`, with int or list-of-int values, or in
    :data:`_PLAIN_KEYS`."""
    data = issue.data
    if not isinstance(data, dict):
        return False
    for k, v in data.items():
        if k in _OFFSET_KEYS:
            t = type(v)
            if t is list:
                for x in v:
                    if type(x) is not int:  # (not a bool, nor another int type)
                        return False
            elif t is not int:
                return False
        elif k not in _PLAIN_KEYS:
            return False
    return True


def _own_copy(issue: Issue) -> Issue | None:
    """``_shifted(issue, 0)`` when ``issue`` may be cached (its ``data`` keys
    all in :data:`_OFFSET_KEYS`, with int or list-of-int values, or in
    :data:`_PLAIN_KEYS`), else None. A message still to be written is kept
    as it is, without the document's text (see :class:`CutMessage`)."""
    if not _shiftable(issue):
        return None
    own = {}
    for k, v in issue.data.items():
        if isinstance(v, list):
            v = v.copy()
        own[k] = v
    related, unit = issue.related, issue.unit
    return Issue(issue.code, issue.name, issue.severity, issue._message, issue.start, issue.end,
                 issue.chunk, issue.other_chunk, issue.cut,
                 related if related is None or type(related) is tuple else (related[0], related[1]),
                 issue.related_message, issue.fix, own,
                 unit if unit is None or type(unit) is tuple else (unit[0], unit[1]))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _shifted(issue: Issue, delta: int, text: str, reach: tuple[int, int | None]) -> Issue:
    """A copy of a cached cut issue moved by ``delta`` characters into
    ``text``, where its cut's excerpts may reach as far as ``reach`` (see
    :meth:`~chunkseam.checks.base.Context.reach`)."""
    message = issue._message
    if type(message) is CutMessage:
        message = message.moved(delta, reach)
    data = {}
    for k, v in issue.data.items():
        if k in _OFFSET_KEYS:
            v = v + delta if _is_int(v) else [x + delta for x in v]
        elif isinstance(v, list):
            v = list(v)
        data[k] = v
    related = issue.related
    moved = Issue(issue.code, issue.name, issue.severity, message, issue.start + delta,
                  issue.end + delta, issue.chunk, issue.other_chunk,
                  None if issue.cut is None else issue.cut + delta,
                  None if related is None else (related[0] + delta, related[1] + delta),
                  issue.related_message, issue.fix, data,
                  None if issue.unit is None else (issue.unit[0] + delta, issue.unit[1] + delta))
    moved._text = text
    return moved


class _CutJudge:
    """Judges the cuts of one Markdown validation through the cache."""

    def __init__(self, ctx: Context, order: list, share: bool = False) -> None:
        self.ctx = ctx
        self.order = order
        #: the issues handed out are the run's own (see validate's ``share``)
        self.share = share
        self.plain = _plain_order(order)
        self.st = ctx.structure
        eol = _FIRST_EOL.search(ctx.text)
        from chunkseam.structure.sentences import current_language

        # the sentence rules' language is part of a judgement (CS002's sentences)
        rules = (tuple(c for c, _fn in order), tuple(sorted(ctx.enabled.items())),
                 eol.group() if eol else "", current_language())
        with _RULE_KEYS_LOCK:  # worker threads: two settings must never get one number
            number = _RULE_KEYS.get(rules)
            if number is None and len(_RULE_KEYS) < 256:
                number = _RULE_KEYS[rules] = len(_RULE_KEYS)
        # past 256 distinct settings the tuple itself (never equal to a number)
        self.rules = number if number is not None else rules
        #: whether every cut judged is looked up (else every _CACHE_PROBE-th)
        self.cached = True
        #: cuts judged, cache lookups and hits (what the next run's policy reads)
        self.judged = self.lookups = self.hits = 0

    def judge_all(self, cuts: list) -> list[Issue]:
        """The issues of ``cuts`` (in order). Those before the first structure
        segment that differs from the last run's on this document's nearest
        ancestor (:meth:`~chunkseam.document.text.Document.lineage`) are that run's
        when the cut is the same and so are the starts of its two chunks: the
        key :meth:`judge` would look up is then the same (same segments around
        it, same relative offsets), so is its judgement — found without
        computing the key, per edit only the cuts from the edit on are looked
        up. Those after the edit's neighbourhood that are that run's cuts moved
        by the edit are that run's judgements, moved (see :meth:`_moved_tail`).
        The run is kept on the document for the next version."""
        ctx = self.ctx
        text = ctx.text
        key = ("validate-cuts", self.rules)
        previous, delta = _previous_run_moved(ctx.doc, key)
        reused = 0
        tail = len(cuts)
        found_all: list[Any] = []  # the run's own copies (the caller may change what it gets)
        out: list[Issue] = []
        if previous is not None:
            old_serials, old_cuts, old_found, old_starts, old_ends, stats = previous
            self.cached = _cache_pays(stats)
            # a cut's neighbourhood reaches two segments past the one holding it
            bound = self._common_bound(old_serials)
            by_position = ctx.by_position
            n = min(len(cuts), len(old_cuts))
            while reused < n:
                cut = cuts[reused]
                alt = cut.alt
                if (alt if alt is not None else cut.offset) >= bound:
                    break
                old = old_cuts[reused]  # (cut == old, field by field: no tuples made)
                if (cut.offset != old.offset or alt != old.alt or cut.left != old.left
                        or cut.right != old.right or cut.side != old.side):
                    break
                p = cut.left
                if p is not None and ((view := by_position.get(p)) is None
                                      or view.start != old_starts.get(p)):
                    break
                p = cut.right
                if p is not None and ((view := by_position.get(p)) is None
                                      or view.start != old_starts.get(p) or view.end != old_ends.get(p)):
                    break
                kept = old_found[reused]
                found_all.append(kept)
                if kept is not None:
                    if self.share:
                        # (its message, still to be written, reads this text: the same here)
                        kept._text = text
                        out.append(kept)
                    else:
                        out.append(_copy(kept, text))
                reused += 1
            tail = self._moved_tail(cuts, previous, delta, reused)
        for k, cut in enumerate(cuts[reused:tail]):
            if not k % budget.STRIDE:
                budget.check("checking the cuts")
            found, own = self._judge_own(cut)
            found_all.append(own)
            if found is not None:
                out.append(found)
        if tail < len(cuts):
            # the previous run's judgements, moved as a cache hit moves them
            old_found = previous[2]
            shift = len(previous[1]) - len(cuts)
            reach = ctx.reach
            for k in range(tail, len(cuts)):
                kept = old_found[k + shift]
                if kept is None:
                    found_all.append(None)
                    continue
                found = _shifted(kept, delta, text, reach(cuts[k]))
                out.append(found)
                found_all.append(found if self.share else _copy(found, None))
        starts = {v.position: v.start for v in ctx.chunks}
        ends = {v.position: v.end for v in ctx.chunks}
        stats = (self.judged, self.lookups, self.hits)
        if self.judged < _CACHE_TRIAL and previous is not None:
            # too few cuts judged to tell (an edit that moved the rest): the
            # last verdict on the cache stands for the next run
            stats = previous[5]
        ctx.doc.memo(key, lambda: (self.st._serials, cuts, found_all, starts, ends, stats))
        return out

    def _moved_tail(self, cuts: list, previous: tuple, delta: int, floor: int) -> int:
        """The first of the trailing cuts (none before ``floor``) whose
        judgements are the previous run's moved by the edit (``delta``
        characters): each is the cut the previous run had at the same place
        from the end, ``delta`` further on, between the same chunks (same
        numbers, moved by ``delta`` too), in a neighbourhood of structure
        segments both versions share (the trailing segments with the same
        texts and parses, so ``delta`` further on): the key :meth:`judge`
        would look up is the previous run's key for that cut, so the
        judgement is its own, moved (as :meth:`_judge_own` moves a cached
        one). An edit that leaves the chunks after it as they were (the
        sentence chunker's, the markdown chunker's) re-judges no cut past
        it."""
        old_serials, old_cuts, old_found, old_starts, old_ends, _stats = previous
        # a cut's neighbourhood starts one segment before the one holding it
        # (and its key says whether that is the document's first)
        bound = self._shared_tail(old_serials)
        if bound is None:
            return len(cuts)
        by_position = self.ctx.by_position
        shift = len(old_cuts) - len(cuts)
        k = len(cuts)
        while k > floor and k - 1 + shift >= 0:
            cut = cuts[k - 1]
            old = old_cuts[k - 1 + shift]
            offset, alt = cut.offset, cut.alt
            if offset < bound or offset != old.offset + delta:
                break
            if alt is None:
                if old.alt is not None:
                    break
            elif alt < bound or old.alt is None or alt != old.alt + delta:
                break
            left, right = cut.left, cut.right
            if left != old.left or right != old.right or cut.side != old.side:
                break
            if left is not None:
                view = by_position.get(left)
                was = old_starts.get(left)
                if view is None or was is None or view.start != was + delta:
                    break
            if right is not None:
                view = by_position.get(right)
                was = old_starts.get(right)
                end = old_ends.get(right)
                if (view is None or was is None or view.start != was + delta
                        or view.end != end + delta):
                    break
            kept = old_found[k - 1 + shift]
            if kept is not None and not _shiftable(kept):
                break  # (not cached: judged afresh)
            k -= 1
        return k

    def _common_bound(self, old_serials: list) -> int:
        """The offset before which a judgement reads only structure segments
        that this version and the run of ``old_serials`` share (same texts,
        same places): two segments before the first that differs."""
        new_serials = self.st._serials
        k = 0
        limit = min(len(old_serials), len(new_serials))
        while k < limit and old_serials[k] == new_serials[k]:
            k += 1
        return self.st._seg_starts[k - 2] if k >= 2 else 0

    def chunk_issues_all(self, first_content: int) -> list[Issue]:
        """The per-chunk issues (:func:`~chunkseam.checks.chunks.chunk_issues`).
        Chunks ending before the edit's neighbourhood (see :meth:`judge_all`)
        that are the last run's chunks (same place, size, heading path, size
        flag and unit) keep that run's issues, when what every chunk's checks
        share is unchanged too: the settings, the document's first content,
        whether it has headings and whether it has more than one chunk. So do
        the trailing chunks that are the last run's moved by the edit, moved
        (see :meth:`_moved_chunks`)."""
        ctx = self.ctx
        st = self.st
        views = ctx.chunks
        keys = [_view_key(v) for v in views]
        shared = (ctx.settings, first_content, st.has_headings, len(views) < 2)
        key = ("validate-chunks", self.rules)
        previous, delta, old_st = None, 0, None
        for ancestor, a, b, ins in ctx.doc.lineage():
            run = ancestor.memoised(key)
            if run is not None:
                previous, delta, old_st = run, ins - (b - a), ancestor.memoised("structure")
                break
        reused: list[Issue] = []
        moved: list[Issue] = []
        n = tail = 0
        if previous is not None and previous[1] == shared:
            old_serials, _shared, old_views, old_issues = previous
            bound = self._common_bound(old_serials)
            limit = min(len(views), len(old_views))
            while n < limit and views[n].end < bound and keys[n] == old_views[n]:
                n += 1
            if n:
                kept = {views[i].position for i in range(n)}
                reused = [i for i in old_issues if i.chunk in kept]
            tail = self._moved_chunks(keys, old_views, old_serials, old_st, delta, n)
            if tail < len(views):
                later = {views[i].position for i in range(tail, len(views))}
                for i in old_issues:
                    if i.chunk in later:
                        m = _chunk_issue_moved(i, delta)
                        if m is None:  # (an issue this cannot move: all checked afresh)
                            moved, tail = [], len(views)
                            break
                        moved.append(m)
        else:
            tail = len(views)
        fresh = chunk_issues(ctx, first_content, views[n:tail])
        if self.share:  # (a caller that changes no issue: one set of them)
            own = reused + fresh + moved
            ctx.doc.memo(key, lambda: (st._serials, shared, keys, own))
            return list(own)
        # the run keeps its own copies, the caller gets others (it may change them)
        own = reused + [_copy(i) for i in fresh] + moved
        ctx.doc.memo(key, lambda: (st._serials, shared, keys, own))
        return [_copy(i) for i in reused] + fresh + [_copy(i) for i in moved]

    def _moved_chunks(self, keys: list, old_keys: list, old_serials: list, old_st: Any,
                      delta: int, floor: int) -> int:
        """The first of the trailing chunks (none before ``floor``) whose
        per-chunk issues are the last run's moved by the edit (``delta``
        characters): the same number of chunks, each the last run's chunk at
        the same place from the end (same number, size, heading path, size
        flag and unit), ``delta`` further on, starting past the first
        structure segment of those both versions share at the end (see
        :meth:`_shared_tail`), so the blocks, sentences and text its checks
        read are the same; and, when CS104 may apply, with the same heading
        path at its start (read from every heading before it)."""
        n = len(keys)
        if n != len(old_keys):
            return n
        bound = self._shared_tail(old_serials)
        if bound is None:
            return n
        paths = "CS104" in self.ctx.enabled and self.st.has_headings
        if paths and old_st is None:
            return n
        st = self.st
        k = n
        while k > floor:
            new, old = keys[k - 1], old_keys[k - 1]
            # (position, start, end, tokens, heading_path, oversize, unit)
            if (new[1] < bound or new[1] != old[1] + delta or new[2] != old[2] + delta
                    or new[0] != old[0] or new[3:] != old[3:]):
                break
            if paths and not new[4] and st.heading_path_at(new[1]) != old_st.heading_path_at(old[1]):
                break
            k -= 1
        return k

    def _shared_tail(self, old_serials: list) -> int | None:
        """The offset from which every structure segment and the one before
        it are segments the version of ``old_serials`` ends with too (same
        texts and parses, so ``delta`` further on there), the first segment
        of either version left out; None when there is no such offset."""
        new_serials = self.st._serials
        n_new, n_old = len(new_serials), len(old_serials)
        t = 0
        limit = min(n_new, n_old) - 1
        while t < limit and new_serials[n_new - 1 - t] == old_serials[n_old - 1 - t]:
            t += 1
        if t < 2:
            return None
        return self.st._seg_starts[n_new - t + 1]

    def judge(self, cut: Any) -> Issue | None:
        return self._judge_own(cut)[0]

    def _judge_own(self, cut: Any) -> tuple[Issue | None, Issue | None]:
        """The issue of ``cut`` (None: clean) and a copy of it that shares
        nothing changeable with it, for what this validation keeps: the
        cache's own copy when it has just been put there (neither the cache
        nor a kept run ever changes an issue; both hand out copies). Sharing
        its issues (``share``), the validation keeps the issue itself (never
        the cache's copy: the cache serves other documents)."""
        ctx = self.ctx
        self.judged += 1
        share = self.share
        if not self.cached and (self.judged - 1) % _CACHE_PROBE:
            found = _judge(ctx, self.order, cut, True, self.plain)
            return (None, None) if found is None else (found, found if share else _copy(found, None))
        self.lookups += 1
        offset, alt, left, right = cut.offset, cut.alt, cut.left, cut.right
        seg_key, lo, hi = self.st.neighbourhood(offset, offset if alt is None else alt)
        by_position = ctx.by_position
        before = by_position.get(left) if left is not None else None
        after = by_position.get(right) if right is not None else None
        # the chunks' starts relative to the neighbourhood (-1: before it, past
        # it: one past its end), and the end of the one after the cut as far
        # as an excerpt may reach for words (past the neighbourhood, never
        # further than REACH from the cut)
        span = hi - lo
        key = (self.rules, seg_key, offset - lo, None if alt is None else alt - lo,
               left, right, cut.side,
               None if before is None else min(max(before.start - lo, -1), span + 1),
               None if after is None else min(max(after.start - lo, -1), span + 1),
               None if after is None else min(after.end - lo, span + REACH + 1))
        hit = _CUT_CACHE.get(key, _MISSING)
        if hit is not _MISSING:
            self.hits += 1
            if not self.cached and self.hits >= 2 and self.hits * 4 >= self.lookups:
                self.cached = True  # (an edit undone: the rest is likely cached too)
            if hit is _NO_ISSUE:
                return None, None
            base, issue = hit
            found = _shifted(issue, lo - base, ctx.text, ctx.reach(cut))
            return found, found if share else _copy(found, None)
        found = _judge(ctx, self.order, cut, True, self.plain)
        if found is None:
            _CUT_CACHE.put(key, _NO_ISSUE, 250)
            return None, None
        own = _own_copy(found)
        if own is None:
            return found, found if share else _copy(found, None)
        message = found._message
        size = len(message) if type(message) is str else 300 + len(message[8])
        _CUT_CACHE.put(key, (lo, own), 900 + size + len(found.data) * 120)
        return found, found if share else own


#: ``data`` keys of per-chunk issues holding offsets (a list of ints) ...
_CHUNK_OFFSET_KEYS = frozenset({"chunk_span"})
#: ... and those holding anything else; an issue with another key is not moved (and
#: every chunk's issues are checked afresh): CS102's size in characters, CS103's
#: direction, and the impact of a chunk kept whole, in decoration or a whole section
#: (read from the chunk's own text and blocks, which a moved chunk keeps)
_CHUNK_PLAIN_KEYS = frozenset({"tokens", "size", "min_tokens", "chars", "min_chars", "phrase",
                               "direction", "heading_path", "limit", "impact"})


def _chunk_issue_moved(issue: Issue, delta: int) -> Issue | None:
    """A copy of a per-chunk issue ``delta`` characters further on (None: one
    this cannot move — a key it does not know, a range besides its own)."""
    data = issue.data
    if (issue.cut is not None or issue.related is not None or issue.unit is not None
            or type(issue._message) is not str or not isinstance(data, dict)):
        return None
    own = {}
    for k, v in data.items():
        if k in _CHUNK_OFFSET_KEYS:
            if type(v) is not list or any(type(x) is not int for x in v):
                return None
            v = [x + delta for x in v]
        elif k not in _CHUNK_PLAIN_KEYS:
            return None
        elif isinstance(v, list):
            v = list(v)
        own[k] = v
    return Issue(issue.code, issue.name, issue.severity, issue._message, issue.start + delta,
                 issue.end + delta, issue.chunk, issue.other_chunk, None, None,
                 issue.related_message, issue.fix, own, None)


def _copy(issue: Issue, text: str | None = None) -> Issue:
    """A copy of ``issue`` that shares nothing changeable with it (its data's
    lists copied, as :func:`_shifted` copies them). A message still to be
    written (:class:`~chunkseam.checks.base.CutMessage`) is shared, to be
    written from ``text`` (a version whose text is the same there); without
    ``text`` (what a run keeps for the next version) it is kept unwritten."""
    data = issue.data
    if isinstance(data, dict):
        data = {k: (list(v) if isinstance(v, list) else v) for k, v in data.items()}
    copy = Issue(issue.code, issue.name, issue.severity, issue._message, issue.start, issue.end,
                 issue.chunk, issue.other_chunk, issue.cut, issue.related, issue.related_message,
                 issue.fix, data, issue.unit)
    if text is not None:
        copy._text = text
    return copy


def _view_key(view: ChunkView) -> tuple:
    """What the per-chunk checks read of a chunk besides the document."""
    meta = getattr(view.obj, "meta", None)
    unit = meta.get("size_unit") if isinstance(meta, dict) else None
    return (view.position, view.start, view.end, view.tokens, view.heading_path, view.oversize, unit)


def _previous_run_moved(doc: Document, key: Any) -> tuple[Any, int]:
    """``(run, delta)``: :func:`_previous_run`, and how many characters
    longer ``doc``'s text is than the text of the version that kept it
    (``(None, 0)``: none did)."""
    for ancestor, a, b, n in doc.lineage():
        run = ancestor.memoised(key)
        if run is not None:
            return run, n - (b - a)
    return None, 0


def _previous_run(doc: Document, key: Any) -> Any:
    """What :meth:`_CutJudge.judge_all` kept under ``key`` on ``doc``'s
    nearest ancestor that has it."""
    for ancestor, _a, _b, _n in doc.lineage():
        run = ancestor.memoised(key)
        if run is not None:
            return run
    return None


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
