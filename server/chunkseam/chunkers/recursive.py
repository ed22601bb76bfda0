"""``recursive``: LangChain's ``RecursiveCharacterTextSplitter``, offset-exact.

The semantics are those of ``langchain_text_splitters`` (``character.py`` and
``base.py``), so LangChain users see the chunks their pipeline makes:

1. Of the separators (default paragraph ``"\\n\\n"``, line ``"\\n"``, space
   ``" "``, character ``""``) take the first that occurs in the text (``""``
   always "occurs"); the separators after it are the ones left for recursion.
2. Split the text at every match. ``keep_separator`` ``True``/``"start"``
   attaches the separator to the start of the following piece, ``"end"`` to the
   end of the preceding one, ``False`` drops it. Empty pieces are dropped.
3. A piece measuring less than ``size`` is "good"; runs of good pieces are
   merged greedily: a piece joins the current chunk while the running total
   (piece sizes, plus the separator's size between pieces when separators are
   not kept) stays within ``size``; when the chunk is full it is emitted and
   pieces are dropped from its front while the total exceeds ``overlap`` (or
   while the next piece would still not fit) — overlap by whole pieces.
   Each emitted chunk is whitespace-stripped (``strip_whitespace``) and dropped
   when empty.
4. A piece of ``size`` or more is split again with the remaining separators,
   or, when none remain, emitted as it is (not stripped).

Sizes are the sizer's: ``len`` for characters; for tokens the tiktoken count,
which is what ``RecursiveCharacterTextSplitter.from_tiktoken_encoder`` measures
(LangChain encodes with ``disallowed_special="all"`` and so raises on text that
contains a special-token string such as ``<|endoftext|>``; chunkseam counts it
as plain text instead).

What differs from LangChain is bookkeeping, not behaviour: pieces are spans
``[start, end)`` of the source, never re-joined strings, so every chunk carries
its true ``start`` (LangChain's ``add_start_index`` searches for the chunk text
with ``str.find`` and is wrong on repeated text), and each piece is measured
once instead of up to three times. A chunk's ``tokens`` is the exact count of
its own text (computed from its pieces' counts, see :class:`SpanCounter`);
LangChain's running total is a sum over pieces, before stripping, so a chunk
can measure a little more than ``size`` on its own (a stripped leading space
that was part of a one-token word: " adipiscing" is one token, "adipiscing"
three): such chunks, like a piece no separator can split, have ``oversize``
set.

Two documented corner cases where a span cannot equal LangChain's re-joined
text: with ``keep_separator=False`` LangChain joins the pieces with the
separator string, which is not the source text when a run of separators was
collapsed (empty pieces dropped) or when the separator is a regular
expression; the chunk is then the true source span from the first piece to
the last. And a regular-expression separator containing capturing groups is
treated as if its groups were non-capturing.

Options: ``separators`` (list of str), ``keep_separator`` (``"start"``,
``"end"``, ``True``, ``False``; default ``True``), ``strip_whitespace``
(default ``True``), ``is_separator_regex`` (default ``False``) and
``language`` (``"python"``, ``"markdown"``, ``"js"``, ``"ts"``, ``"go"``,
``"rust"``, ``"java"``, ``"c"``, ``"cpp"``, ``"ruby"``, ``"rst"``: LangChain's
separators for that language, as regular expressions, like
``RecursiveCharacterTextSplitter.from_language``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any, Callable, Sequence

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer, TokenSizer, memo_count
from chunkseam.chunkers import incremental, register
from chunkseam.chunkers.incremental import LINEAGE, common_prefix, common_suffix

name = "recursive"
description = (
    "LangChain RecursiveCharacterTextSplitter semantics (paragraph, line, space, "
    "character separators; overlap by whole pieces), offset-exact"
)

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")

_TAIL = ("\n\n", "\n", " ", "")

#: LangChain's per-language separators (regular expressions), most specific first
LANGUAGE_SEPARATORS: dict[str, tuple[str, ...]] = {
    "python": ("\nclass ", "\ndef ", "\n\tdef ", *_TAIL),
    "markdown": (
        "\n#{1,6} ",
        "```\n",
        "\n\\*\\*\\*+\n",
        "\n---+\n",
        "\n___+\n",
        *_TAIL,
    ),
    "js": (
        "\nfunction ", "\nconst ", "\nlet ", "\nvar ", "\nclass ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ",
        *_TAIL,
    ),
    "ts": (
        "\nenum ", "\ninterface ", "\nnamespace ", "\ntype ", "\nclass ",
        "\nfunction ", "\nconst ", "\nlet ", "\nvar ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ",
        *_TAIL,
    ),
    "go": (
        "\nfunc ", "\nvar ", "\nconst ", "\ntype ",
        "\nif ", "\nfor ", "\nswitch ", "\ncase ",
        *_TAIL,
    ),
    "rust": (
        "\nfn ", "\nconst ", "\nlet ",
        "\nif ", "\nwhile ", "\nfor ", "\nloop ", "\nmatch ",
        *_TAIL,
    ),
    "java": (
        "\nclass ", "\npublic ", "\nprotected ", "\nprivate ", "\nstatic ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ",
        *_TAIL,
    ),
    "cpp": (
        "\nclass ", "\nvoid ", "\nint ", "\nfloat ", "\ndouble ",
        "\nif ", "\nfor ", "\nwhile ", "\nswitch ", "\ncase ",
        *_TAIL,
    ),
    "ruby": (
        "\ndef ", "\nclass ",
        "\nif ", "\nunless ", "\nwhile ", "\nfor ", "\ndo ", "\nbegin ", "\nrescue ",
        *_TAIL,
    ),
    "rst": ("\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n", *_TAIL),
}
LANGUAGE_SEPARATORS["c"] = LANGUAGE_SEPARATORS["cpp"]
_LANGUAGE_ALIASES = {
    "py": "python", "md": "markdown", "javascript": "js", "typescript": "ts",
    "rs": "rust", "c++": "cpp", "rb": "ruby", "restructuredtext": "rst",
}


def separators_for_language(language: Any) -> tuple[str, ...]:
    """LangChain's separators for ``language`` (a name or a LangChain ``Language``)."""
    key = str(getattr(language, "value", language)).lower()
    key = _LANGUAGE_ALIASES.get(key, key)
    try:
        return LANGUAGE_SEPARATORS[key]
    except KeyError:
        raise ValueError(
            f"recursive: unknown language {language!r}: expected one of "
            f"{', '.join(sorted(LANGUAGE_SEPARATORS))}"
        ) from None


_compiled: dict[str, Any] = {}


def _pattern(separator: str, is_regex: bool) -> Any:
    """The compiled separator: a literal with ``re``; a regular expression with
    the ``regex`` engine (``re``-compatible), whose matching takes a timeout —
    a separator such as ``(a+)+$`` from a configuration file backtracks for
    hours, and Python's ``re`` cannot be interrupted."""
    key = separator if is_regex else "\0lit\0" + separator
    pat = _compiled.get(key)
    if pat is None:
        if is_regex:
            import regex

            pat = regex.compile(separator)
        else:
            pat = re.compile(re.escape(separator))
        _compiled[key] = pat
    return pat


def _timed_out(pat: Any) -> budget.BudgetExceeded:
    return budget.timed_out(f"the regular expression separator {pat.pattern[:60]!r}")


def _search(separator: str, is_regex: bool, text: str) -> Any:
    pat = _pattern(separator, is_regex)
    if not is_regex:
        return pat.search(text)
    try:
        return pat.search(text, timeout=budget.remaining())
    except TimeoutError:
        raise _timed_out(pat) from None


def separator_bounds(separator: str, is_regex: bool, text: str) -> list[tuple[int, int]]:
    pat = _pattern(separator, is_regex)
    if not is_regex:
        return [(m.start(), m.end()) for m in pat.finditer(text)]
    try:
        return [(m.start(), m.end()) for m in pat.finditer(text, timeout=budget.remaining())]
    except TimeoutError:
        raise _timed_out(pat) from None


def split_spans(
    text: str, separator: str, *, keep_separator: bool | str, is_regex: bool = False
) -> list[tuple[int, int]]:
    """The non-empty pieces of ``text`` split at ``separator``, as ``(start, end)``
    offsets into ``text`` (LangChain's ``_split_text_with_regex``, as spans)."""
    if not separator:
        return [(i, i + 1) for i in range(len(text))]
    bounds = separator_bounds(separator, is_regex, text)
    if not bounds:
        return [(0, len(text))] if text else []
    spans: list[tuple[int, int]] = []
    if keep_separator == "end":
        prev = 0
        for _, e in bounds:
            spans.append((prev, e))
            prev = e
        spans.append((prev, len(text)))
    elif keep_separator:
        prev = 0
        for s, _ in bounds:
            spans.append((prev, s))
            prev = s
        spans.append((prev, len(text)))
    else:
        prev = 0
        for s, e in bounds:
            spans.append((prev, s))
            prev = e
        spans.append((prev, len(text)))
    return [(a, b) for a, b in spans if a < b]


class _Run:
    """One ``chunk()`` call: the text, the options and the measure.

    ``spans`` collects ``(start, end, group)``: ``group`` is ``(pieces, i, j)``
    for a chunk merged from ``pieces[i:j]`` (each ``(start, end, size)``) or the
    size of a piece emitted as it is.
    """

    __slots__ = ("text", "size", "overlap", "keep", "strip", "regex", "measure", "spans")

    def __init__(
        self,
        text: str,
        size: int,
        overlap: int,
        keep: bool | str,
        strip: bool,
        regex: bool,
        measure: Callable[[str], int],
    ) -> None:
        self.text = text
        self.size = size
        self.overlap = overlap
        self.keep = keep
        self.strip = strip
        self.regex = regex
        self.measure = measure
        self.spans: list[tuple[int, int, Any]] = []

    def split(self, lo: int, hi: int, separators: Sequence[str]) -> None:
        budget.check("recursive splitting")
        segment = self.text[lo:hi]
        separator = separators[-1]
        rest: Sequence[str] = ()
        for i, sep in enumerate(separators):
            if not sep:
                separator = sep
                break
            if _search(sep, self.regex, segment):
                separator = sep
                rest = separators[i + 1 :]
                break
        pieces = split_spans(segment, separator, keep_separator=self.keep, is_regex=self.regex)
        joiner = "" if self.keep else separator
        measure = self.measure
        size = self.size
        good: list[tuple[int, int, int]] = []
        for k, (a, b) in enumerate(pieces):
            if not k & 4095:
                budget.check("recursive splitting")
            n = measure(segment[a:b])
            if n < size:
                good.append((lo + a, lo + b, n))
                continue
            if good:
                self.merge(good, joiner)
                good = []
            if rest:
                self.split(lo + a, lo + b, rest)
            else:
                self.spans.append((lo + a, lo + b, n))  # emitted as is, like LangChain
        if good:
            self.merge(good, joiner)

    def merge(self, pieces: list[tuple[int, int, int]], joiner: str) -> None:
        sep_len = self.measure(joiner) if joiner else 0
        size = self.size
        overlap = self.overlap
        first = 0  # the current chunk is pieces[first:k]
        total = 0
        for k, (_, _, n) in enumerate(pieces):
            if total + n + (sep_len if k > first else 0) > size:
                if k > first:
                    self.emit(pieces, first, k)
                    while total > overlap or (
                        total + n + (sep_len if k > first else 0) > size and total > 0
                    ):
                        total -= pieces[first][2] + (sep_len if k - first > 1 else 0)
                        first += 1
            total += n + (sep_len if k > first else 0)
        if len(pieces) > first:
            self.emit(pieces, first, len(pieces))

    def emit(self, pieces: list[tuple[int, int, int]], i: int, j: int) -> None:
        start = pieces[i][0]
        end = pieces[j - 1][1]
        if self.strip:
            piece = self.text[start:end]
            left = len(piece) - len(piece.lstrip())
            if left == len(piece):
                return
            right = len(piece) - len(piece.rstrip())
            start += left
            end -= right
        if start < end:
            self.spans.append((start, end, (pieces, i, j)))
            if not len(self.spans) & 4095:
                budget.check_chunks(len(self.spans))
                budget.check("recursive splitting")


#: tiktoken pre-tokenizer patterns for which :class:`SpanCounter` is exact
#: (cl100k_base as tiktoken writes it now, and as older releases wrote it)
_CL100K_PATTERNS = frozenset(
    {
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    }
)

#: ``m.end()`` of a match is a *stable boundary* (see :class:`SpanCounter`):
#: an ASCII letter followed by an ASCII non-letter, an ASCII digit followed by
#: an ASCII non-digit, or ASCII punctuation followed by a space or a tab
STABLE_BOUNDARY = re.compile(
    r"[A-Za-z](?=[\x00-@\[-`{-\x7f])|[0-9](?=[\x00-/:-\x7f])|[!-/:-@\[-`{-~](?=[ \t])"
)
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: ``m.end()`` is the last stable boundary of the searched range
STABLE_BOUNDARY_LAST = re.compile(r"(?s:.*)(?:" + STABLE_BOUNDARY.pattern + ")")


def stable_boundaries_apply(sizer: Sizer) -> bool:
    """Does ``sizer`` count exact tiktoken tokens with a pre-tokenizer for
    which stable boundaries (see :class:`SpanCounter`) are proven?"""
    return (
        sizer.unit == "tokens"
        and not getattr(sizer, "approximate", False)
        and getattr(getattr(sizer, "encoding", None), "_pat_str", None) in _CL100K_PATTERNS
        and hasattr(sizer, "encode")
    )


#: counts of the short texts around piece boundaries (".", "\n\nThe",
#: ").\n\n```rust"), shared by all calls: on ../shared/corpus/markdown 53k
#: such counts are 11k distinct strings. Per encoding; cleared when full.
_SMALL_COUNTS: dict[str, dict[str, int]] = {}
SMALL_COUNTS_MAX = 65536
SMALL_TEXT_MAX = 256


def clear_caches() -> None:
    """Forget the shared short-text counts (benchmarks measure a cold start)."""
    _SMALL_COUNTS.clear()


def _small_counter(encoding: Any, count: Callable[[str], int]) -> Callable[[str], int]:
    cache = _SMALL_COUNTS.setdefault(encoding.name + "\0" + encoding._pat_str, {})
    encode = encoding.encode_ordinary

    def count_small(text: str) -> int:
        n = cache.get(text)
        if n is None:
            if len(text) > SMALL_TEXT_MAX:
                return count(text)
            if len(cache) >= SMALL_COUNTS_MAX:
                cache.clear()
            n = cache[text] = len(encode(text))
        return n

    return count_small


class SpanCounter:
    r"""Exact token counts of spans made of already-counted pieces, cheaply.

    Call a position ``q`` of the text a *stable boundary* when its left
    character is an ASCII letter and its right one an ASCII non-letter, or
    left an ASCII digit and right an ASCII non-digit, or left ASCII
    punctuation and right a space or a tab. With the cl100k_base pre-tokenizer
    (``'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|
    ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s``) such a ``q``
    ends a pre-token in *every* string that contains both characters: a letter
    is only ever matched by the contraction or the letter-run alternative,
    which cannot continue into a non-letter (digits likewise); a punctuation
    character followed by a space is matched by the punctuation alternative,
    which stops before a space (it may take newlines, not spaces; and a
    punctuation character only prefixes a letter run when a letter follows it).
    The match that ends at ``q`` is found the same whether ``q`` is followed by
    that character or by the end of the string, and the pattern has no
    look-behind, so ``count(s[a:b]) == count(s[a:q]) + count(s[q:b])``.
    (Only ASCII neighbours are used, so no Unicode-version question arises.)

    A span covering pieces ``P1 … Pm`` (ordered, disjoint, each counted) is then
    counted as the sum of the piece counts, corrected only around the piece
    ends that are not stable boundaries: ``count(cursor .. hk) + count(Pk) -
    count(Pk start .. hk) - count(tk .. Pk end)``, where ``hk``/``tk`` are the
    first/last stable boundary inside piece ``k``. Only a few characters around
    such a piece end are tokenized again (".\n\nThe"), not the whole span.
    For other sizers and encodings, the span is counted directly.
    """

    #: pieces shorter than this are not worth splitting into head/mid/tail
    MIN_PIECE = 48

    def __init__(self, text: str, sizer: Sizer, count: Callable[[str], int]) -> None:
        self.text = text
        encoding = getattr(sizer, "encoding", None)
        self.enabled = stable_boundaries_apply(sizer)
        self.count = count
        if self.enabled:
            self.count = _small_counter(encoding, count)

    def _stable_at(self, q: int) -> bool:
        """Is ``q`` (0 < q < len) a stable boundary?"""
        text = self.text
        left = text[q - 1]
        right = text[q]
        if right >= "\x80" or left >= "\x80":
            return False
        if left.isalpha():
            return not right.isalpha()
        if left.isdigit():
            return not right.isdigit()
        return (right == " " or right == "\t") and left in _PUNCT

    def span(self, a: int, b: int, pieces: Sequence[tuple[int, int, int]]) -> int:
        """Count of ``text[a:b]``. ``pieces`` are ``(start, end, count)``, ordered
        and disjoint, inside ``[a, b)`` except that ``a``/``b`` may cut
        whitespace off the first/last piece."""
        text = self.text
        count = self.count
        if not self.enabled:
            return count(text[a:b])
        total = 0
        cursor = a  # text[a:cursor] is counted; cursor is a cut point
        last = len(pieces) - 1
        min_piece = self.MIN_PIECE
        for k, (s, e, n) in enumerate(pieces):
            # is the end of this piece a cut point of the span?
            right = e == b if k == last else (e == pieces[k + 1][0] and self._stable_at(e))
            if cursor == s:
                if right:
                    total += n  # both ends are cut points: the piece counts as is
                    cursor = e
                    continue
                if e - s < min_piece:
                    continue  # counted with the text around it
                m = STABLE_BOUNDARY_LAST.match(text, max(s, e - 64), e) or (
                    STABLE_BOUNDARY_LAST.match(text, s, e)
                )
                if m is None:
                    continue
                t = m.end()
                if t > b:  # cannot happen for whitespace-stripped ends
                    return count(text[a:b])
                total += n - count(text[t:e])
                cursor = t
                continue
            if e - s < min_piece:
                continue
            m = STABLE_BOUNDARY.search(text, s, e)
            if m is None:
                continue
            h = m.end()
            if h <= cursor or h > b:  # cannot happen for whitespace-stripped ends
                return count(text[a:b])
            total += count(text[cursor:h]) + n - count(text[s:h])
            if right:
                cursor = e
                continue
            m = STABLE_BOUNDARY_LAST.match(text, max(h - 1, e - 64), e) or (
                STABLE_BOUNDARY_LAST.match(text, h - 1, e)
            )
            t = m.end() if m is not None else h
            if t > b:
                return count(text[a:b])
            total -= count(text[t:e])
            cursor = t
        if cursor < b:
            total += count(text[cursor:b])
        return total


def _options(options: dict[str, Any]) -> tuple[tuple[str, ...], bool | str, bool, bool]:
    language = options.get("language")
    separators = options.get("separators")
    is_regex = bool(options.get("is_separator_regex", False))
    if language is not None:
        if separators:
            raise ValueError("recursive: give either `language` or `separators`, not both")
        separators = separators_for_language(language)
        is_regex = True
    if separators is None or len(separators) == 0:
        separators = DEFAULT_SEPARATORS
    if isinstance(separators, str) or not all(isinstance(s, str) for s in separators):
        raise ValueError(f"recursive: `separators` must be a list of strings, got {separators!r}")
    keep = options.get("keep_separator", True)
    if keep not in (True, False, "start", "end"):
        raise ValueError(
            f"recursive: `keep_separator` must be 'start', 'end', true or false, got {keep!r}"
        )
    strip = options.get("strip_whitespace", True)
    if not isinstance(strip, bool):
        raise ValueError(f"recursive: `strip_whitespace` must be true or false, got {strip!r}")
    if is_regex:
        import regex

        for sep in separators:
            try:
                regex.compile(sep)
            except (regex.error, re.error) as exc:
                raise ValueError(
                    f"recursive: separator {sep!r} is not a valid regex: {exc}"
                ) from None
    return tuple(separators), keep, strip, is_regex


def _measurer(sizer: Sizer, known: dict[str, int] | None = None) -> Callable[[str], int]:
    if sizer.unit == "chars" and not getattr(sizer, "approximate", False):
        return len
    count: Callable[[str], int] = sizer.count
    if isinstance(sizer, TokenSizer) and type(sizer).count is TokenSizer.count:
        # exactly TokenSizer.count, without its cross-call LRU cache: the pieces
        # of one document are mostly distinct, and the per-call overhead of the
        # cache is a measurable share of the whole splitter's time
        encode = sizer.encoding.encode_ordinary

        def count_direct(text: str) -> int:
            return len(encode(text))

        count = count_direct
    else:
        known = None  # (counts known are the exact tiktoken counts of TokenSizer.count)

    return memo_count(count, known)


def recursive_spans(
    text: str,
    sizer: Sizer,
    *,
    size: int,
    overlap: int = 0,
    **options: Any,
) -> tuple[list[tuple[int, int, Any]], Callable[[str], int]]:
    """The chunk spans ``(start, end, group)`` of ``text`` (see :class:`_Run`)
    and the (cached) measure used to make them."""
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"recursive: size must be a positive integer, got {size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise ValueError(f"recursive: overlap must be a non-negative integer, got {overlap!r}")
    if overlap > size:
        raise ValueError(f"recursive: overlap ({overlap}) must not be larger than size ({size})")
    separators, keep, strip, is_regex = _options(options)
    measure = _measurer(sizer)
    run = _Run(text, size, overlap, keep, strip, is_regex, measure)
    if text:
        run.split(0, len(text), separators)
    return run.spans, measure


def run_key(sizer: Sizer, size: int, overlap: int, options: dict[str, Any]) -> tuple | None:
    """The key a document keeps its ``recursive`` run under (None: not kept)."""
    try:
        key = ("recursive", sizer, size, overlap, tuple(sorted(options.items())))
        hash(key)
    except TypeError:  # unhashable options or sizer: no reuse
        return None
    return key


def recursive_chunks(doc: Document, sizer: Sizer, *, size: int, overlap: int = 0,
                     previous: tuple | None = None, known_counts: dict[str, int] | None = None,
                     **options: Any) -> Any:
    """The top-level run (:class:`RecursiveRun`) of ``recursive`` over ``doc``,
    updated from the run of the document it was edited from when that one is
    still known (see :mod:`chunkseam.chunkers.incremental`), or from
    ``previous`` (``(run, start, end, inserted)``) when given. ``known_counts``:
    texts already counted by the sizer's exact tiktoken count (another run over
    the same text, e.g. LangChain's own), used instead of counting them again."""

    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"recursive: size must be a positive integer, got {size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise ValueError(f"recursive: overlap must be a non-negative integer, got {overlap!r}")
    if overlap > size:
        raise ValueError(f"recursive: overlap ({overlap}) must not be larger than size ({size})")
    separators, keep, strip, is_regex = _options(options)
    key = run_key(sizer, size, overlap, options)
    if key is not None and previous is None:
        kept = doc.memoised(key)
        if kept is not None:
            return kept
    text = doc.text
    measure = _measurer(sizer, known_counts)
    run = _Run(text, size, overlap, keep, strip, is_regex, measure)
    counter = None if measure is len else SpanCounter(text, sizer, measure)
    if previous is None and key is not None:
        previous = incremental.find_previous(doc, key)
    if previous is not None:
        old, a, b, ins = previous
        top = recursive_run(text, run, separators, counter, old, (a, b, ins))
    else:
        top = recursive_run(text, run, separators, counter)
    if key is not None:
        doc.memo(key, lambda: top)
    return top


class RecursiveChunker:
    name = name
    description = description

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        text = doc.text
        top = recursive_chunks(doc, sizer, size=size, overlap=overlap, **options)
        return [
            Chunk(start, end, i, source=text, tokens=tokens, strategy=name,
                  oversize=tokens > size)
            for i, (_step, start, end, tokens) in enumerate(top.emits)
        ]


register(RecursiveChunker())


# -- recursive ---------------------------------------------------------------------------


class RecursiveRun:
    """The top level of one ``recursive`` run over a whole text.

    ``pieces[k]`` is ``(start, end)``, ``sizes[k]`` its measure; ``post[k]``
    the first piece of the merge buffer after the emission (if any) that
    piece ``k`` caused, before ``k`` joins it (``k``: empty); ``kids[k]`` is
    None for a piece that joins the buffer, else the output of the piece split
    on its own (a tuple of ``(start, end, tokens)`` relative to its start).
    ``emits`` are the chunks ``(step, start, end, tokens)`` in order, where
    ``step`` is ``2k`` for a chunk emitted when piece ``k`` came (``2n`` for
    the last one) and ``2k + 1`` for the output of a piece split on its own.
    """

    __slots__ = ("sep_index", "sep_len", "pieces", "sizes", "post", "kids", "emits", "steps",
                 "walked")

    def __init__(self, sep_index: int, sep_len: int) -> None:
        self.sep_index = sep_index
        self.sep_len = sep_len
        self.pieces: list[tuple[int, int]] = []
        self.sizes: list[int] = []
        self.post: list[int] = []
        self.kids: list[Any] = []
        self.emits: list[tuple[int, int, int, int]] = []
        self.steps: list[int] = []  # emits' steps, for bisection
        #: the pieces ``[i, j)`` this run walked (the rest was the old run's)
        self.walked: tuple[int, int] = (0, 0)

    def pre(self, k: int) -> int:
        """The first piece of the buffer when piece ``k`` comes."""
        if k == 0:
            return 0
        return k if self.kids[k - 1] is not None else self.post[k - 1]


def top_separator(text: str, separators: Sequence[str], regex: bool) -> int:
    """Index of the separator the top level splits at (LangChain's choice)."""
    for i, sep in enumerate(separators):
        if not sep:
            return i
        if _search(sep, regex, text):
            return i
    return len(separators) - 1



def _rescan_literal(text: str, old: list[tuple[int, int]], separator: str,
                    edit: tuple[int, int, int]) -> tuple[list, int, int, int] | None:
    """The top-level pieces of ``text`` split at the literal ``separator``
    (kept at the start of each piece) from the old pieces and a scan around
    the edit: ``(pieces, i0, tail_new, tail_old)`` where ``pieces[:i0]`` are
    ``old[:i0]`` and ``pieces[tail_new:]`` are ``old[tail_old:]`` shifted.

    Every piece but the first starts with a match. The scan starts at the last
    old piece that ends before the edit (its match ends before it too, and
    matches of a literal read only their own characters, so the scan up to
    there is the old one) and stops at a match past the edit where an old
    piece started: from there on both scans continue alike."""
    a, b, ins = edit
    delta = ins - (b - a)
    p = bisect_right([q[1] for q in old], a) - 1
    if p < 0:
        p = 0
    start = old[p][0] if p > 0 else 0
    old_starts = [q[0] for q in old]
    bounds = [start]
    stop, resume = len(text), len(old)
    for m in _pattern(separator, False).finditer(text, start):
        q = m.start()
        if q >= a + ins:
            r = bisect_left(old_starts, q - delta)
            if 0 < r < len(old) and old_starts[r] == q - delta:
                stop, resume = q, r
                break
        if q > bounds[-1]:
            bounds.append(q)
    if stop > bounds[-1]:
        bounds.append(stop)
    window = list(zip(bounds, bounds[1:]))
    pieces = old[:p]
    pieces.extend(window)
    tail_new = len(pieces)
    pieces.extend((s + delta, e + delta) for s, e in old[resume:])
    return pieces, p, tail_new, resume



def recursive_run(
    text: str,
    run_opts: Any,
    separators: Sequence[str],
    counter: Any,
    old: RecursiveRun | None = None,
    edit: tuple[int, int, int] | None = None,
) -> RecursiveRun:
    """The top level of ``recursive`` over ``text`` (see :class:`RecursiveRun`),
    updated from ``old`` — the run of the text before ``edit`` ``(start, end,
    inserted)`` replaced ``[start, end)`` by ``inserted`` characters — when
    given. ``run_opts`` is a :class:`chunkseam.chunkers.recursive._Run` for
    ``text`` (options and measure); ``counter`` its span counter."""
    size = run_opts.size
    overlap = run_opts.overlap
    measure = run_opts.measure
    if not text:
        return RecursiveRun(-1, 0)
    sep_index = top_separator(text, separators, run_opts.regex)
    separator = separators[sep_index]
    rest = separators[sep_index + 1 :] if separator else ()
    joiner = "" if run_opts.keep else separator
    sep_len = measure(joiner) if joiner else 0
    new = RecursiveRun(sep_index, sep_len)
    reuse = old is not None and edit is not None and old.sep_index == sep_index and old.pieces
    local = None
    if reuse and separator and not run_opts.regex and run_opts.keep in (True, "start"):
        local = _rescan_literal(text, old.pieces, separator, edit)
    if local is not None:
        pieces, i0, tail_new, tail_old = local
        delta = edit[2] - (edit[1] - edit[0])
        n = len(pieces)
    else:
        pieces = split_spans(text, separator, keep_separator=run_opts.keep,
                             is_regex=run_opts.regex)
        n = len(pieces)
    new.pieces = pieces

    if local is not None:
        pass
    elif reuse:
        a, b, ins = edit
        delta = ins - (b - a)
        old_pieces = old.pieces
        # pieces before the edit: unchanged text, same spans
        i0 = common_prefix(pieces, old_pieces, bisect_right([p[1] for p in old_pieces], a))
        # pieces after it: unchanged text, spans shifted by delta
        tail_old = bisect_left([p[0] for p in old_pieces], b)
        shifted = [(s + delta, e + delta) for s, e in old_pieces[tail_old:]]
        same = common_suffix(pieces, shifted, n - i0)
        tail_new = n - same
        tail_old = len(old_pieces) - same
    else:
        old = None

    if old is None:
        i0, tail_new, tail_old, delta = 0, n, len(pieces), 0
        sizes = [measure(text[s:e]) for s, e in pieces]
    else:
        sizes = old.sizes[:i0]
        sizes.extend(measure(text[s:e]) for s, e in pieces[i0:tail_new])
        sizes.extend(old.sizes[tail_old:])
    new.sizes = sizes

    # the walk: from piece i0 with the old state there, until the state meets
    # the old run's past the edit
    post = old.post[:i0] if old is not None else []
    kids = old.kids[:i0] if old is not None else []
    if old is not None:
        cut = bisect_left(old.steps, 2 * i0)
        emits = old.emits[:cut]
    else:
        emits = []
    first = old.pre(i0) if old is not None else 0
    total = 0
    if first < i0:
        total = sum(sizes[first:i0]) + sep_len * (i0 - first - 1)
    shift = tail_new - tail_old
    strip = run_opts.strip
    resumed_at = -1
    k = i0
    while k < n:
        if not k & 4095:
            budget.check("recursive splitting")
        if old is not None and k >= tail_new and first >= tail_new:
            m = k - shift
            if old.pre(m) == first - shift:
                resumed_at = m
                break
        s, e = pieces[k]
        nk = sizes[k]
        if nk >= size:
            if first < k:
                _emit(text, strip, counter, pieces, sizes, first, k, 2 * k, emits)
            post.append(k)
            if old is not None and k >= tail_new:
                out = old.kids[k - shift]
            elif rest:
                out = _split_alone(text, run_opts, counter, s, e, rest)
            else:
                out = ((0, e - s, nk),)  # emitted as it is, like LangChain
            kids.append(out)
            emits.extend((2 * k + 1, s + rs, s + re_, t) for rs, re_, t in out)
            first = k + 1
            total = 0
            k += 1
            continue
        if total + nk + (sep_len if k > first else 0) > size and k > first:
            _emit(text, strip, counter, pieces, sizes, first, k, 2 * k, emits)
            while total > overlap or (
                total + nk + (sep_len if k > first else 0) > size and total > 0
            ):
                total -= sizes[first] + (sep_len if k - first > 1 else 0)
                first += 1
        post.append(first)
        kids.append(None)
        total += nk + (sep_len if k > first else 0)
        k += 1
    if resumed_at >= 0:
        m = resumed_at
        post.extend(p + shift for p in old.post[m:])
        kids.extend(old.kids[m:])
        cut = bisect_left(old.steps, 2 * m)
        step_shift = 2 * shift
        emits.extend((st + step_shift, s + delta, e + delta, t)
                     for st, s, e, t in old.emits[cut:])
    elif first < n:
        _emit(text, strip, counter, pieces, sizes, first, n, 2 * n, emits)
    new.walked = (i0, k)
    new.post = post
    new.kids = kids
    new.emits = emits
    new.steps = [x[0] for x in emits]
    return new


def _emit(text: str, strip: bool, counter: Any, pieces: list[tuple[int, int]], sizes: list[int],
          i: int, j: int, step: int, out: list) -> None:
    start = pieces[i][0]
    end = pieces[j - 1][1]
    if strip:
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        if left == len(piece):
            return
        right = len(piece) - len(piece.rstrip())
        start += left
        end -= right
    if start < end:
        out.append((step, start, end, _tokens(counter, start, end, pieces, sizes, i, j)))


def _tokens(counter: Any, start: int, end: int, pieces: list[tuple[int, int]], sizes: list[int],
            i: int, j: int) -> int:
    if counter is None:  # characters
        return end - start
    return counter.span(start, end, [(pieces[k][0], pieces[k][1], sizes[k]) for k in range(i, j)])


def _split_alone(text: str, run_opts: Any, counter: Any, s: int, e: int,
                 rest: Sequence[str]) -> tuple[tuple[int, int, int], ...]:
    """The output of the piece ``[s, e)`` split with ``rest`` on its own,
    relative to ``s``."""
    run_opts.spans = []
    run_opts.split(s, e, rest)
    out = []
    for start, end, group in run_opts.spans:
        if counter is None:
            tokens = end - start
        elif isinstance(group, int):
            tokens = group
        else:
            pieces, a, b = group
            tokens = counter.span(start, end, pieces[a:b])
        out.append((start - s, end - s, tokens))
    run_opts.spans = []
    return tuple(out)


# -- langchain -----------------------------------------------------------------------------
#
# The ``langchain`` strategy runs the installed splitter. For a
# RecursiveCharacterTextSplitter whose chunks the ``recursive`` run reproduces
# (checked on the whole text when a document is first split), an edit is
# re-split by LangChain itself only in a window of the text around it.
#
# The window starts where the merge buffer began just after a chunk was
# emitted, before the first piece the edit changed (or after a piece split on
# its own): the buffer then holds at most ``overlap`` and takes the next piece
# without emitting, so a run started there with an empty buffer reaches the
# same state without emitting anything. It ends at a piece at or after the
# place where the updated run met the old one whose arrival emitted a chunk
# (or that is split on its own): a run that stops there emits the same last
# chunk by flushing its buffer. The window holds the top-level separator (else
# it is widened), so LangChain splits it into the same pieces. Its chunks
# from LangChain must equal the run's, else the whole text is split again;
# the chunks before and after it are the previous version's (LangChain's,
# checked then), shifted. This relies on LangChain's merge being the one
# ``recursive`` implements, which tests/chunkers/test_langchain_differential.py checks.


def langchain_key(splitter: Any, sizer: Any) -> tuple:
    return ("langchain", splitter, sizer)


def langchain_update(doc: Document, splitter: Any, sizer: Any, size: int, overlap: int,
                     options: dict[str, Any]) -> list[tuple[int, int, int]] | None:
    """The chunks ``(start, end, tokens)`` of ``doc`` by ``splitter`` from the
    previous version's, or None when they must be computed from scratch."""
    key = langchain_key(splitter, sizer)
    rkey = run_key(sizer, size, overlap, options)
    if rkey is None:
        return None
    for ancestor, a, b, ins in doc.lineage()[:LINEAGE]:
        kept = ancestor.memoised(key)
        if kept is None:
            continue
        old_run = ancestor.memoised(rkey)
        if old_run is None:
            return None
        break
    else:
        return None
    run = recursive_chunks(doc, sizer, size=size, overlap=overlap,
                           previous=(old_run, a, b, ins), **options)
    if run.sep_index != old_run.sep_index or not run.pieces:
        return None
    text = doc.text
    n = len(run.pieces)
    i0, k1 = run.walked
    steps = run.steps

    def anchor(k: int) -> bool:
        """Did the run empty or flush its buffer when piece ``k`` came?"""
        if k <= 0 or k >= n or run.kids[k] is not None:
            return True
        at = bisect_left(steps, 2 * k)
        return at < len(steps) and steps[at] == 2 * k

    # the window: from where the buffer held after an emission before the
    # first changed piece begins, to an emission at or after the place where
    # the run met the old one
    ka = i0 - 1
    while ka > 0 and not anchor(ka):
        ka -= 1
    kb = max(k1, ka + 1)
    while not anchor(kb):
        kb += 1
    separators = list(options.get("separators") or ())
    regex = bool(options.get("is_separator_regex", False))
    while True:
        start_piece = 0 if ka <= 0 else (ka if run.kids[ka] is not None else run.post[ka])
        lo = run.pieces[start_piece][0] if start_piece > 0 else 0
        hi = run.pieces[kb][0] if kb < n else len(text)
        window = text[lo:hi]
        if top_separator(window, separators, regex) == run.sep_index:
            break
        # the window lacks the top-level separator: widen it
        if kb < n:
            kb += 1
            while not anchor(kb):
                kb += 1
        elif ka > 0:
            ka -= 1
            while ka > 0 and not anchor(ka):
                ka -= 1
        else:
            return None
    first = bisect_left(steps, 2 * ka + 1) if ka > 0 else 0
    last = bisect_right(steps, 2 * kb)
    mine = [(s, e) for _st, s, e, _t in run.emits[first:last]]
    theirs = [t for t in splitter.split_text(window) if t]
    if len(theirs) != len(mine) or any(text[s:e] != t for (s, e), t in zip(mine, theirs)):
        return None
    # the chunks outside the window are the previous version's, shifted
    delta = ins - (b - a)
    after = len(run.emits) - last
    if first + after > len(kept):
        return None
    head = kept[:first]
    tail = [(s + delta, e + delta, t) for s, e, t in kept[len(kept) - after:]]
    spans = [(s, e) for _st, s, e, _t in run.emits]
    if [(s, e) for s, e, _t in head] != spans[:first] or (
        [(s, e) for s, e, _t in tail] != spans[last:]
    ):
        return None
    count = sizer.count
    return head + [(s, e, count(text[s:e])) for s, e in mine] + tail
