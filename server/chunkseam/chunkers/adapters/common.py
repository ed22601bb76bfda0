"""The one helper behind every pipeline-library adapter (``llamaindex``,
``chonkie``, ``semchunk``, ``text-splitter``, ``haystack``).

An adapter is a thin subclass of :class:`Adapter` that says which library it
runs and how to build and call it; everything else is here, alike for all:

* **allow-list**: the ``splitter`` option names one of :attr:`Adapter.classes`
  — a plain class name, never an import path. Strategies that need a model
  or the network (semantic, late, neural chunkers …) are in
  :attr:`Adapter.excluded` and refused with a message that says so.
* **option checking**: keywords the class does not accept, keywords chunkseam
  sets itself (:attr:`Adapter.reserved`: size, overlap, tokenizer …) and
  keywords that would pass code, import strings, file paths or hub names
  (:attr:`Adapter.forbidden`) are a :class:`ValueError` naming the key.
* **tokenizer injection**: the library always gets chunkseam's own offline
  sizer (a tiktoken ``Encoding``, a Hugging Face ``Tokenizer`` or a counting
  function), never a name it would resolve — and download — itself.
* **cache**: built splitters are kept (bounded) per settings.
* **trust**: options that hand the library a regular expression (run by
  Python's ``re``, which cannot be interrupted) are listed in
  :attr:`Adapter.untrusted`: from an untrusted workspace's config file they
  are dropped with a warning (:meth:`Adapter.untrusted_options`, used by
  :mod:`chunkseam.config.loader`); from anywhere else each is first run over the
  document by the ``regex`` engine under the analysis' time budget
  (:func:`probe_regex`), so a backtracking pattern ends with the budget's
  message instead of hanging inside the library.
* **span resolution**, in this order: the library's *native* offsets when
  every chunk checks out (``source[start:end] == text``, starts in order,
  and no chunk starting before the overlap the settings allow — a copy of
  the same text earlier in the document is not the chunk); else the
  *tracked* search (:func:`~chunkseam.chunkers.adapters.langchain.locate`) that
  follows the library's real overlap; else, only when the user asked for it
  (option ``approximate = true``) for libraries that rewrite text, an
  *approximate* placement marking every chunk ``approximate``; else a clear
  error. ``Chunk.meta["offsets"]`` says which one was used.

A third-party adapter can register through the entry-point group
``chunkseam.chunkers`` (see :func:`load_entry_points`); those are loaded only
in a trusted workspace.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import threading
from dataclasses import dataclass
from typing import Any, ClassVar

from chunkseam.core.errors import LibraryError  # noqa: F401  (re-exported)
from chunkseam.core.chunk import Chunk, chunk_of, lazy_chunk
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer

ENTRY_POINT_GROUP = "chunkseam.chunkers"
_NON_SPACE = re.compile(r"\S")
_SURROGATE = re.compile("[\ud800-\udfff]")
_entry_points_loaded = False
_CACHE_SIZE = 16


@dataclass(frozen=True)
class Piece:
    """One chunk as the library returned it: its text and, when it has them,
    its own offsets (unverified)."""

    text: str
    start: int | None = None
    end: int | None = None
    #: the library's own size of the chunk, when it is in the sizer's unit
    tokens: int | None = None


def _has_surrogates(text: str) -> bool:
    """Does ``text`` hold a lone surrogate? (What ``_SURROGATE`` finds, told at the
    speed of ``str.isascii`` / a UTF-8 encode rather than a regular expression's scan:
    UTF-8 refuses exactly the surrogates.)"""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def accepted_keywords(cls: Any) -> set[str]:
    """Keyword arguments ``cls(...)`` accepts, following ``**kwargs`` up the MRO."""
    if not isinstance(cls, type):  # a factory function (semchunk.chunkerify)
        params = inspect.signature(cls).parameters.values()
        return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if klass is object:
            break
        try:
            params = list(inspect.signature(init).parameters.values())[1:]
        except (TypeError, ValueError):
            break
        forwards = False
        for p in params:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.add(p.name)
            elif p.kind is p.VAR_KEYWORD:
                forwards = True
        if not forwards:
            break
    return names


def freeze(options: dict[str, Any]) -> str:
    return json.dumps(options, sort_keys=True, default=repr)


def verified_native(text: str, pieces: list[Piece], sizer: Sizer,
                    overlap_ok: Any = None, overlap: int = 0) -> list[tuple[int, int]] | None:
    """The library's own offsets if every one checks out, else None.

    ``overlap_ok(prev_start, prev_end, start)`` says whether a chunk starting at
    ``start`` inside the previous chunk is within the library's overlap (None:
    not checked); a chunk starting at or after the previous end always is. With
    an ``overlap``, a start inside the previous chunk is only measured when the
    chunk's text occurs again later, before the text after the previous chunk
    (the wrong-copy case): otherwise no other placement exists."""
    spans: list[tuple[int, int]] = []
    for p in pieces:
        if not isinstance(p.start, int) or not isinstance(p.end, int):
            return None
        if not (0 <= p.start <= p.end <= len(text)) or text[p.start:p.end] != p.text:
            return None
        if spans:
            prev_start, prev_end = spans[-1]
            if p.start < prev_start:
                return None
            if overlap_ok is not None and p.start < prev_end:
                ambiguous = True
                if overlap:
                    after = _NON_SPACE.search(text, prev_end)
                    limit = (after.start() if after else len(text)) + len(p.text)
                    ambiguous = text.find(p.text, p.start + 1, limit) >= 0
                if ambiguous and not overlap_ok(prev_start, prev_end, p.start):
                    return None
        spans.append((p.start, p.end))
    return spans


def approximate_spans(text: str, texts: list[str]) -> list[tuple[int, int]]:
    """Best-effort spans for chunk texts that are not verbatim source spans
    (rewritten by the library): each chunk's first and last non-blank line
    are looked for from the previous chunk's start; a chunk whose lines are
    not found takes the text after the previous one. Always marked approximate."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in texts:
        lines = [ln.strip() for ln in piece.splitlines() if ln.strip()]
        start = end = -1
        if lines:
            start = text.find(lines[0], cursor)
            if start >= 0:
                last = text.find(lines[-1], start)
                end = last + len(lines[-1]) if last >= 0 else start + len(lines[0])
        if start < 0:
            start = min(spans[-1][1] if spans else 0, len(text))
            end = min(len(text), start + len(piece))
        spans.append((start, max(start, end)))
        cursor = start
    return spans


def gaps(text: str, spans: list[tuple[int, int]]) -> bool:
    """True when text other than whitespace lies outside every span."""
    if not spans:
        return bool(text.strip())
    if text[: spans[0][0]].strip() or text[spans[-1][1]:].strip():
        return True
    reach = spans[0][1]
    for start, end in spans[1:]:
        if start > reach and text[reach:start].strip():
            return True
        reach = max(reach, end)
    return False


def place_backward(text: str, texts: list[str], sizer: Sizer,
                   overlap: int) -> list[tuple[int, int]] | None:
    """Spans placed from the last chunk back: each chunk at the occurrence before
    the next chunk's start that leaves only whitespace between them and overlaps
    the next one by the most that is within ``overlap`` (with a little slack for
    tokens counted in context). None when some chunk has no such occurrence."""
    if not texts:
        return []
    last = text.rfind(texts[-1])
    if last < 0:
        return None
    out: list[tuple[int, int]] = [(last, last + len(texts[-1]))]
    slack = overlap if sizer.unit == "chars" else overlap + max(4, overlap // 4)
    for piece in reversed(texts[:-1]):
        nxt = out[-1][0]
        ws = nxt
        while ws > 0 and text[ws - 1].isspace():
            ws -= 1
        best: tuple[int, int, int] | None = None  # (within exact budget, overlap, start)
        pos = text.find(piece, max(0, ws - len(piece)))
        while 0 <= pos < nxt:
            end = pos + len(piece)
            if end >= ws:
                size = (end - nxt if sizer.unit == "chars" else sizer.count(text[nxt:end])) \
                    if end > nxt else 0
                if size <= slack:
                    cand = (int(size <= overlap), size, pos)
                    best = cand if best is None or cand > best else best
            pos = text.find(piece, pos + 1)
        if best is None:
            return None
        out.append((best[2], best[2] + len(piece)))
    out.reverse()
    return out


def place_least_overlap(text: str, texts: list[str], sizer: Sizer,
                        overlap: int) -> list[tuple[int, int]] | None:
    """Spans placed forward, each chunk at the latest occurrence after the previous
    chunk's start that leaves no text out before it — the least overlap, within
    ``overlap`` (with the same slack as :func:`place_backward`). On a long run of one
    character (``>>>>…``) every shift of a chunk is a copy of it: this keeps the
    chunks end to end where taking the most overlap would leave text out. None
    when some chunk has no such occurrence."""
    out: list[tuple[int, int]] = []
    slack = overlap if sizer.unit == "chars" else overlap + max(4, overlap // 4)
    prev_start, prev_end = -1, 0
    for piece in texts:
        ws = prev_end
        while ws < len(text) and text[ws].isspace():
            ws += 1
        pos = text.rfind(piece, prev_start + 1, ws + len(piece))
        if pos < 0:
            return None
        if pos < prev_end:
            shared = prev_end - pos if sizer.unit == "chars" else sizer.count(text[pos:prev_end])
            if shared > slack:
                return None
        prev_start, prev_end = pos, pos + len(piece)
        out.append((prev_start, prev_end))
    return out


def _library_failed(name: str, exc: BaseException) -> LibraryError:
    what = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return LibraryError(f"{name}: the library failed on this document ({type(exc).__name__}"
                        f"{': ' + what if what else ''}); this is a bug in the library, not "
                        "in the document: try another chunker or library version")


class Adapter:
    """One pipeline library, run for real; subclasses fill in the class attributes
    and :meth:`build` / :meth:`split`."""

    #: the chunker name (``chunker = "..."``)
    name: ClassVar[str]
    description: ClassVar[str]
    #: the module imported (lazily) and the extra that installs it
    module: ClassVar[str]
    extra: ClassVar[str]
    #: the allow-list: class name -> how it is imported (attribute path from ``module``)
    classes: ClassVar[dict[str, str]]
    default: ClassVar[str]
    #: class names refused, with the reason
    excluded: ClassVar[dict[str, str]] = {}
    #: options chunkseam sets itself -> where the user sets them instead
    reserved: ClassVar[dict[str, str]] = {}
    #: options never passed -> why
    forbidden: ClassVar[dict[str, str]] = {}
    #: options never taken from an untrusted workspace's config file -> why
    #: (regular expressions the library runs with Python's ``re``)
    untrusted: ClassVar[dict[str, str]] = {}
    #: options this adapter consumes itself (not passed to the class)
    own_options: ClassVar[tuple[str, ...]] = ("splitter", "approximate")
    #: the library may rewrite chunk text: ``approximate = true`` is offered
    rewrites_text: ClassVar[bool] = False
    #: the library leaves no text out (only whitespace between chunks)
    covers_text: ClassVar[bool] = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[tuple[Any, ...], Any] = {}

    # --- the library ------------------------------------------------------

    def unavailable(self) -> str | None:
        """Why this strategy cannot run here (its library is not installed), or None;
        checked without importing the library (``--help``, configuration checks)."""
        import importlib.util

        top = self.module.split(".")[0]
        try:
            found = importlib.util.find_spec(top) is not None  # the top package only: nothing imported
        except (ImportError, ValueError):
            found = False
        return None if found else f'the "{self.name}" chunker needs {top}: pip install "chunkseam[{self.extra}]"'

    def library(self) -> Any:
        try:
            return importlib.import_module(self.module)
        except ImportError as exc:
            raise RuntimeError(
                f'the "{self.name}" chunker needs {self.module.split(".")[0]}: '
                f'pip install "chunkseam[{self.extra}]" ({exc})') from exc

    def resolve_class(self, splitter: Any) -> Any:
        if not isinstance(splitter, str) or not splitter.isidentifier():
            raise ValueError(
                f"{self.name}: `splitter` must be a class name (one of "
                f"{', '.join(self.classes)}), not an import path: got {splitter!r}")
        if splitter in self.excluded:
            raise ValueError(f"{self.name}: {splitter} is not supported: {self.excluded[splitter]}")
        where = self.classes.get(splitter)
        if where is None:
            raise ValueError(
                f"{self.name}: unknown splitter {splitter!r}: expected one of "
                f"{', '.join(self.classes)}")
        module_name, _, attr = where.rpartition(":")
        module = importlib.import_module(module_name) if module_name else self.library()
        return getattr(module, attr or splitter)

    def check_options(self, cls: Any, splitter: str, options: dict[str, Any]) -> None:
        accepted = self.accepted(cls)
        for key, value in options.items():
            if key in self.forbidden:
                raise ValueError(f"{self.name}: option {key!r} is not accepted: {self.forbidden[key]}")
            if key in self.reserved:
                raise ValueError(f"{self.name}: option {key!r} is set by chunkseam: {self.reserved[key]}")
            if key not in accepted:
                usable = sorted(accepted - set(self.reserved) - set(self.forbidden))
                raise ValueError(
                    f"{self.name}: {splitter} does not accept option {key!r}: expected one of "
                    f"{', '.join(usable) or '(none)'}")
            if callable(value) and not isinstance(value, (str, int, float, bool, list, dict)):
                raise ValueError(f"{self.name}: option {key!r} must be a plain value")

    def accepted(self, cls: Any) -> set[str]:
        return accepted_keywords(cls)

    def untrusted_options(self, options: dict[str, Any]) -> dict[str, str]:
        """The keys of ``options`` an untrusted workspace's config file may not
        set for this chunker -> why (see :mod:`chunkseam.config.loader`)."""
        return {k: self.untrusted[k] for k in options if k in self.untrusted}

    # --- per library ------------------------------------------------------

    def build(self, cls: Any, splitter: str, sizer: Sizer, size: int, overlap: int,
              options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def split(self, built: Any, text: str) -> list[Piece]:
        raise NotImplementedError

    def split_document(self, built: Any, text: str, doc: Document,
                       options: dict[str, Any]) -> list[Piece]:
        """The library's chunks of ``text`` (the document's, as the library gets it);
        ``options`` are all the chunker options, the adapter's own included. An
        adapter whose library reads more than the text (file metadata) overrides this."""
        return self.split(built, text)

    def overlap_check(self, built: Any, splitter: str, text: str, sizer: Sizer, size: int,
                      overlap: int, options: dict[str, Any]) -> Any:
        """``f(prev_start, prev_end, start) -> bool``: may a chunk start at ``start``,
        inside the previous chunk, under the library's overlap? (None: the
        library's offsets are trusted as they are.) Only the overlapping text is
        measured, so checking costs little."""
        if overlap == 0:
            return lambda _s, _e, _start: False
        if sizer.unit == "chars":
            return lambda _s, e, start: e - start <= overlap
        slack = overlap + max(4, overlap // 4)  # a region counted in context can differ
        # a token is at least one character: a short region needs no counting
        return lambda _s, e, start: e - start <= slack or sizer.count(text[start:e]) <= slack

    def tracked_overlap(self, splitter: str, sizer: Sizer, overlap: int,
                        options: dict[str, Any]) -> int:
        """The overlap the tracked search allows (in the sizer's unit)."""
        return overlap

    def meta(self, splitter: str, built: Any) -> dict[str, Any]:
        return {"library": self.name, "splitter": splitter}

    # --- shared -----------------------------------------------------------

    def get(self, sizer: Sizer, *, size: int, overlap: int, options: dict[str, Any]) -> tuple[str, Any]:
        options = dict(options)
        splitter = options.pop("splitter", None) or self.default
        for own in self.own_options:  # consumed by the adapter, not the library's class
            options.pop(own, None)
        key = (splitter, sizer.unit, sizer.name, id(sizer), size, overlap, freeze(options))
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None and hit[0] is sizer:  # options checked when it was built
            return splitter, hit[1]
        cls = self.resolve_class(splitter)
        self.check_options(cls, splitter, options)
        try:
            built = self.build(cls, splitter, sizer, size, overlap, options)
        except TypeError as exc:
            raise ValueError(f"{self.name}: cannot build {splitter} with {options!r}: {exc}") from exc
        with self._lock:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = (sizer, built)  # the sizer kept: its id is not reused
        return splitter, built

    def resolve_spans(self, text: str, pieces: list[Piece], *, built: Any, splitter: str,
                      sizer: Sizer, size: int, overlap: int, options: dict[str, Any],
                      approximate: bool) -> tuple[list[tuple[int, int]], str]:
        if not text.strip():  # an empty or blank document: what the library returned, placed
            return self._blank_spans(text, pieces), "native"
        pieces = [p for p in pieces if p.text]
        check = self.overlap_check(built, splitter, text, sizer, size, overlap, options)
        native = verified_native(text, pieces, sizer, check, overlap)
        if native is not None:
            return native, "native"
        from chunkseam.chunkers.adapters.placing import locate

        texts = [p.text for p in pieces]
        tracked_overlap = self.tracked_overlap(splitter, sizer, overlap, options)
        try:
            spans = locate(text, texts, sizer, splitter=splitter, label=self.name,
                           overlap=tracked_overlap)
            if tracked_overlap and self.covers_text and gaps(text, spans):
                # on periodic text the forward search can take too much overlap and
                # leave text out later; place the chunks again from the end
                again = place_backward(text, texts, sizer, tracked_overlap)
                if again is None or gaps(text, again):
                    again = place_least_overlap(text, texts, sizer, tracked_overlap)
                if again is not None and not gaps(text, again):
                    spans = again
            return spans, "tracked"
        except ValueError as exc:
            if approximate and self.rewrites_text:
                return approximate_spans(text, texts), "approximate"
            hint = (" (set the chunker option approximate = true to place its chunks "
                    "approximately, marked so in every output)") if self.rewrites_text else ""
            raise ValueError(f"{exc}{hint}") from None

    @staticmethod
    def _blank_spans(text: str, pieces: list[Piece]) -> list[tuple[int, int]]:
        """Spans of the chunks a library makes of an empty or whitespace-only
        document (LlamaIndex: one empty node for ``""``; chonkie, Haystack: the
        whitespace as one chunk): at their own offsets when they check out, else
        found in order."""
        spans: list[tuple[int, int]] = []
        cursor = 0
        for p in pieces:
            if isinstance(p.start, int) and isinstance(p.end, int) and \
                    0 <= p.start <= p.end <= len(text) and text[p.start:p.end] == p.text:
                start = p.start
            else:
                start = text.find(p.text, cursor)
                if start < 0:
                    continue  # a library's rewritten blank: nothing to show
            spans.append((start, start + len(p.text)))
            cursor = start
        return spans

    def chunk(self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0,
              **options: Any) -> list[Chunk]:
        approximate = options.get("approximate", False)
        if not isinstance(approximate, bool):
            raise ValueError(f"{self.name}: option 'approximate' must be true or false")
        if approximate and not self.rewrites_text:
            raise ValueError(f"{self.name}: option 'approximate' is not needed: its chunks are "
                             "always source spans")
        splitter, built = self.get(sizer, size=size, overlap=overlap, options=options)
        source = doc.text
        # lone surrogates (a broken string) cannot be encoded for a library that
        # runs Rust or a tokenizer: as the built-in strategies do, the library gets
        # each replaced by U+FFFD, one code point for one, so every offset is the
        # same in the source; the chunks are spans of the source, sized by the sizer
        surrogates = _has_surrogates(source)
        text = _SURROGATE.sub("\ufffd", source) if surrogates else source
        rest = {k: v for k, v in options.items() if k not in self.own_options}
        try:
            pieces = self.split_document(built, text, doc, options)
            spans, how = self.resolve_spans(text, pieces, built=built, splitter=splitter,
                                            sizer=sizer, size=size, overlap=overlap,
                                            options=rest, approximate=approximate)
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except Exception:
            raise
        except BaseException as exc:  # (a panic in the library's native code)
            raise _library_failed(self.name, exc) from None
        meta = {**self.meta(splitter, built), "offsets": how}
        # a library that rewrites text (decoded token windows): its own text is kept
        # alongside the source span the chunk came from
        library_texts = [p.text for p in pieces if p.text] if text.strip() else []
        if len(library_texts) != len(spans):
            library_texts = []
        if how == "approximate":
            meta["approximate"] = True
        counts = [p.tokens for p in pieces if p.text] if how == "native" and not surrogates else []
        chunks: list[Chunk] = []
        # without a size in the sizer's unit to hold a chunk to, no chunk is oversize;
        # else it is judged from the count: either way counted when first asked for
        oversize = self.oversize

        def judge(tokens: int) -> bool:
            return oversize(tokens, size, splitter, rest, sizer=sizer)

        over: Any = judge if self.oversize_counts(splitter, rest, sizer) else False

        count = sizer.count
        name = self.name
        same = bool(library_texts)
        for i, (start, end) in enumerate(spans):
            chunk_meta = dict(meta)
            if same and library_texts[i] != text[start:end]:
                chunk_meta["library_text"] = library_texts[i]
            tokens = counts[i] if i < len(counts) else None
            if tokens is None:
                chunks.append(lazy_chunk(start, end, i, source, count, name, over, chunk_meta))
                continue
            chunks.append(chunk_of(start, end, i, source, tokens, name, (), judge(tokens),
                                   chunk_meta))
        return chunks

    def oversize_counts(self, splitter: str, options: dict[str, Any], sizer: Sizer) -> bool:
        """Does :meth:`oversize` need a chunk's count? (False: chunks are counted
        lazily, when first asked for.)"""
        return True

    def oversize(self, tokens: int, size: int, splitter: str, options: dict[str, Any],
                 sizer: Sizer | None = None) -> bool:
        """Is a chunk of ``tokens`` (the sizer's count) over the size? Only when the
        library's size is in the sizer's unit can it tell."""
        return tokens > size


def probe_regex(pattern: str, text: str, what: str) -> None:
    """Run ``pattern`` over ``text`` with the ``regex`` engine under the analysis'
    time budget before a library runs it with Python's ``re`` (which cannot be
    interrupted): a pattern that backtracks for hours ends here with
    :class:`~chunkseam.core.budget.BudgetExceeded`; a pattern that is not a valid
    regular expression is a :class:`ValueError` naming ``what``."""
    import regex

    from chunkseam.core import budget
    try:
        compiled = regex.compile(pattern)
    except (regex.error, re.error, TypeError) as exc:
        raise ValueError(f"{what} {pattern!r} is not a valid regular expression: {exc}") from None
    try:
        for _ in compiled.finditer(text, timeout=budget.remaining()):
            pass
    except TimeoutError:
        raise budget.timed_out(f"{what} {pattern[:60]!r}") from None


def load_entry_points(trusted: bool) -> list[str]:
    """Register third-party chunkers of the entry-point group ``chunkseam.chunkers``
    (each entry point names a chunker object or class); only when ``trusted``.
    Returns the names loaded; a broken entry point is skipped with a warning."""
    global _entry_points_loaded
    if not trusted or _entry_points_loaded:
        return []
    _entry_points_loaded = True
    import logging
    from importlib.metadata import entry_points

    from chunkseam.chunkers import register, registered

    loaded = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in registered():
            continue
        try:
            obj = ep.load()
            register(obj)
        except Exception as exc:  # a third party's error must not take the tool down
            logging.getLogger(__name__).warning(
                "chunkseam: chunker entry point %r could not be loaded: %s", ep.name, exc)
            continue
        loaded.append(ep.name)
    return loaded
