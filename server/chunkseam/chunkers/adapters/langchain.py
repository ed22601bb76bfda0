"""``langchain``: the user's real, installed LangChain text splitter.

Where ``recursive`` re-implements ``RecursiveCharacterTextSplitter``, this
strategy *runs* ``langchain_text_splitters`` (the optional dependency
``chunkseam[langchain]``), so users see exactly the chunks their pipeline
makes, whatever splitter class they use.

Options (``chunker-options`` / ``chunkseam.chunk(..., splitter=...)``):

* ``splitter``: the name of a class exported by ``langchain_text_splitters``
  that derives from its ``TextSplitter`` (default
  ``"RecursiveCharacterTextSplitter"``; e.g. ``MarkdownTextSplitter``,
  ``PythonCodeTextSplitter``, ``LatexTextSplitter``, ``CharacterTextSplitter``,
  ``TokenTextSplitter``). Only such names are accepted — never an import
  path — so a configuration file cannot make chunkseam import arbitrary code.
* any keyword the class's constructor accepts (``separators``,
  ``keep_separator``, ``strip_whitespace``, ``is_separator_regex`` …);
  unknown keywords are a :class:`ValueError`. ``chunk_size``,
  ``chunk_overlap``, ``length_function``, ``encoding_name`` and
  ``model_name`` come from chunkseam's size, overlap, unit and encoding
  settings instead; ``add_start_index`` is meaningless here (see below).
  With unit ``tokens``, ``allowed_special`` / ``disallowed_special`` are
  passed to ``from_tiktoken_encoder``.

From an untrusted workspace's config file (see :mod:`chunkseam.config.loader`), only
the splitters of :data:`UNTRUSTED_SPLITTERS` are taken (the others import
another library or load a model when built), and no regular expression
separator; regular expression separators from anywhere are first run by the
``regex`` engine under the time budget (:func:`_probe_separators`).

Sizes: unit ``chars`` builds ``cls(chunk_size=size, chunk_overlap=overlap)``
(LangChain's default ``len``); unit ``tokens`` builds
``cls.from_tiktoken_encoder(encoding_name=..., chunk_size=size,
chunk_overlap=overlap)``. ``from_tiktoken_encoder`` calls
``tiktoken.get_encoding``, which would download the encoding file; while the
splitter is built (under a lock), ``tiktoken.get_encoding`` answers the
sizer's encoding name with the sizer's own, offline-resolved Encoding.

Offsets: LangChain returns strings. For ``RecursiveCharacterTextSplitter``
and its subclasses, chunkseam's own ``recursive`` (the same algorithm, on
spans) is run with the splitter's separators; when it gives exactly
LangChain's chunk texts, its spans — known from the pieces, never searched
for — are used. Otherwise (other splitters, or any difference) each string is
located in the source by a *tracked* search (:func:`locate`) — from a cursor
that never goes back before the previous chunk's start (with overlap a chunk
may start inside the previous one) — and never by a search from the top of
the document, which is how LangChain's own ``add_start_index`` misplaces
repeated text. A chunk the splitter rewrote is
placed at the source it came from, its text kept in ``meta["library_text"]``:
``TokenTextSplitter``'s decoded token windows at the bytes their tokens cover
(:mod:`chunkseam.chunkers.windows`), ``CharacterTextSplitter``'s pieces
re-joined with one separator where the source has a run of them (``"\\n\\n"``
over four newlines, ``keep_separator = false``) from the first piece to the
last. Any other chunk text that is not in the source is an error naming the
chunk, the splitter and the cause: offsets are never invented.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import threading
from typing import Any

from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import Sizer, TokenizerUnavailable
from chunkseam.chunkers import register
from chunkseam.chunkers.adapters.common import accepted_keywords, gaps
from chunkseam.chunkers.adapters.placing import locate

name = "langchain"
description = (
    "your installed LangChain splitter (option `splitter`, default "
    "RecursiveCharacterTextSplitter), chunk texts located by tracked search"
)

DEFAULT_SPLITTER = "RecursiveCharacterTextSplitter"
MODULE = "langchain_text_splitters"
MISSING = ('the "langchain" chunker needs langchain-text-splitters: '
           'pip install "chunkseam[langchain]"')

#: constructor keywords chunkseam sets itself, and where the user sets them instead
_RESERVED = {
    "chunk_size": "use the size setting",
    "chunk_overlap": "use the overlap setting",
    "length_function": "use the unit setting",
    "encoding_name": "use the encoding setting",
    "model_name": "use the encoding setting",
    "add_start_index": "chunkseam locates chunks itself",
}
#: ``from_tiktoken_encoder`` keywords accepted with unit tokens
_TIKTOKEN_KEYWORDS = ("allowed_special", "disallowed_special")

_patch_lock = threading.Lock()
_cache_lock = threading.Lock()
_CACHE_SIZE = 32
_NON_SPACE = re.compile(r"\S")
#: (splitter, unit, encoding id, size, overlap, options) -> splitter instance
_splitters: dict[tuple[Any, ...], Any] = {}


def _module() -> Any:
    try:
        return importlib.import_module(MODULE)
    except ImportError as exc:
        raise RuntimeError(MISSING) from exc


def splitter_class(splitter: Any) -> Any:
    """The ``TextSplitter`` subclass called ``splitter`` in ``langchain_text_splitters``."""
    if not isinstance(splitter, str) or not splitter.isidentifier() or splitter.startswith("_"):
        raise ValueError(
            f"langchain: `splitter` must be the name of a class of {MODULE} "
            f"(e.g. {DEFAULT_SPLITTER!r}), not an import path: got {splitter!r}"
        )
    module = _module()
    base = module.TextSplitter
    try:
        cls = getattr(module, splitter)
    except AttributeError:
        cls = None
    except ImportError as exc:  # a lazily imported splitter whose library is missing
        raise ValueError(f"langchain: splitter {splitter!r} cannot be loaded: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, base) and not inspect.isabstract(cls)):
        known = sorted(
            n for n in getattr(module, "__all__", dir(module))
            if isinstance(module.__dict__.get(n), type) and issubclass(module.__dict__[n], base)
            and not inspect.isabstract(module.__dict__[n])
        )
        raise ValueError(
            f"langchain: unknown splitter {splitter!r}: expected a TextSplitter class of "
            f"{MODULE}, one of {', '.join(known)}"
        )
    return cls


def _check_options(cls: type, splitter: str, options: dict[str, Any], unit: str) -> None:
    accepted = accepted_keywords(cls)
    for key in options:
        if key in _RESERVED:
            raise ValueError(f"langchain: option {key!r} is set by chunkseam: {_RESERVED[key]}")
        if key in _TIKTOKEN_KEYWORDS:
            if unit != "tokens":
                raise ValueError(f"langchain: option {key!r} applies only with unit = tokens")
            continue
        if key not in accepted:
            usable = sorted(accepted - set(_RESERVED))
            raise ValueError(
                f"langchain: {splitter} does not accept option {key!r}: expected one of "
                f"{', '.join(usable) or '(none)'}"
            )


def _freeze(options: dict[str, Any]) -> str:
    return json.dumps(options, sort_keys=True, default=repr)


def _build(cls: type, splitter: str, sizer: Sizer, size: int, overlap: int,
           options: dict[str, Any]) -> Any:
    kwargs = {k: v for k, v in options.items() if k not in _TIKTOKEN_KEYWORDS}
    try:
        if sizer.unit == "chars":
            if getattr(sizer, "approximate", False):
                raise ValueError("langchain: an approximate character count is not supported")
            if issubclass(cls, _module().TokenTextSplitter):
                raise ValueError(
                    f"langchain: {splitter} measures tokens: use unit = tokens with it"
                )
            return cls(chunk_size=size, chunk_overlap=overlap, **kwargs)
        encoding = getattr(sizer, "encoding", None)
        if encoding is None:
            raise TokenizerUnavailable(
                "langchain: LangChain's from_tiktoken_encoder needs the exact tiktoken encoding "
                f"{sizer.name!r}; " + (getattr(sizer, "reason", "") or "it is not available"),
                encoding=getattr(sizer, "encoding_name", sizer.name),
            )
        extra = {}
        for key in _TIKTOKEN_KEYWORDS:
            if key in options:
                value = options[key]
                extra[key] = value if value == "all" else set(
                    [value] if isinstance(value, str) else value)
        return _from_tiktoken(cls, encoding, size, overlap, kwargs, extra)
    except TypeError as exc:  # e.g. `separators` for a class that sets them itself
        raise ValueError(f"langchain: cannot build {splitter} with {kwargs!r}: {exc}") from exc


def _from_tiktoken(cls: type, encoding: Any, size: int, overlap: int,
                   kwargs: dict[str, Any], extra: dict[str, Any]) -> Any:
    from chunkseam.tokens.tiktoken import import_tiktoken

    tiktoken = import_tiktoken()

    enc_name = encoding.name
    with _patch_lock:
        original = tiktoken.get_encoding

        def get_encoding(encoding_name: str) -> Any:
            return encoding if encoding_name == enc_name else original(encoding_name)

        tiktoken.get_encoding = get_encoding
        try:
            return cls.from_tiktoken_encoder(
                encoding_name=enc_name, chunk_size=size, chunk_overlap=overlap, **extra, **kwargs
            )
        finally:
            tiktoken.get_encoding = original


def get_splitter(sizer: Sizer, *, size: int, overlap: int = 0, **options: Any) -> Any:
    """The LangChain splitter for these settings (cached; splitters are stateless)."""
    options = dict(options)
    splitter = options.pop("splitter", None)
    if splitter is None:
        splitter = DEFAULT_SPLITTER
    key = (splitter, sizer.unit, id(getattr(sizer, "encoding", None)), sizer.name, size,
           overlap, _freeze(options))
    if isinstance(splitter, str):  # (a splitter is built only once its options checked out)
        _module()  # (the library still there)
        with _cache_lock:
            hit = _splitters.get(key)
        if hit is not None:
            return hit
    cls = splitter_class(splitter)
    _check_options(cls, splitter, options, sizer.unit)
    built = _build(cls, splitter, sizer, size, overlap, options)
    with _cache_lock:
        if len(_splitters) >= _CACHE_SIZE:
            _splitters.pop(next(iter(_splitters)))
        _splitters.setdefault(key, built)
    return built


def _token_spans(text: str, pieces: list[str], splitter: Any,
                 recording: Any = None) -> list[tuple[int, int]] | None:
    """TokenTextSplitter's chunks as the token windows it decoded them from
    (see :mod:`chunkseam.chunkers.windows`), or None. ``recording``: what the
    splitter's tokenizer encoded and decoded for ``text``, when kept (else the
    text is encoded again)."""
    from chunkseam.chunkers.windows import tiktoken_bytes, token_lengths, token_window_spans

    enc = getattr(splitter, "_tokenizer", None)
    token_bytes = tiktoken_bytes(enc)
    if token_bytes is None:
        return None
    ids = recording.ids_of(text) if recording is not None else None
    try:
        if ids is None:
            ids = enc.encode(  # type: ignore[union-attr]
                text, allowed_special=splitter._allowed_special,
                disallowed_special=splitter._disallowed_special)
        size, overlap = int(splitter._chunk_size), int(splitter._chunk_overlap)
    except (AttributeError, TypeError, ValueError):
        return None
    decoded = recording.decodes if recording is not None and recording.ids is ids else None
    return token_window_spans(text, ids, token_bytes, size, overlap, pieces,
                              lengths=token_lengths(enc), decoded=decoded)


def _rejoined_spans(text: str, pieces: list[str], splitter: Any) -> list[tuple[int, int]] | None:
    """Spans of a ``CharacterTextSplitter``'s chunks that it re-joined with its
    separator where the source has a run of them (``"\n\n"`` over four
    newlines, with ``keep_separator = false``): each chunk is the source from its
    first piece to its last, found from the previous chunk's start with every
    separator of the chunk standing for one or more in the source. None when a
    chunk is not found so (or the splitter is another kind)."""
    import regex

    from chunkseam.core import budget
    separator = getattr(splitter, "_separator", None)
    if not isinstance(separator, str) or not separator or getattr(splitter, "_keep_separator", True):
        return None
    sep = separator if getattr(splitter, "_is_separator_regex", False) else regex.escape(separator)
    overlap = int(getattr(splitter, "_chunk_overlap", 0) or 0)
    # the overlap is counted in the splitter's length (characters or tokens) over the
    # re-joined text: in the source it can be longer by the separators dropped
    reach = overlap * (2 if getattr(splitter, "_length_function", len) is len else 16) + 64
    spans: list[tuple[int, int]] = []
    for piece in pieces:
        parts = piece.split(separator)
        pattern = regex.compile(f"(?:{sep})+".join(_escape(p) for p in parts))
        found = None
        # from where the overlap could begin first (repeated text has earlier copies),
        # then from the previous chunk's start
        froms = [max(spans[-1][0] + 1, spans[-1][1] - reach), spans[-1][0] + 1] if spans else [0]
        for cursor in froms:
            try:
                found = pattern.search(text, cursor, timeout=budget.remaining())
            except TimeoutError:
                raise budget.timed_out("langchain: placing CharacterTextSplitter's chunks") \
                    from None
            if found is not None:
                break
        if found is None:
            return None
        spans.append((found.start(), found.end()))
    if gaps(text, spans):  # repeated text: an earlier copy was taken; place from the end
        return _rejoined_backward(text, pieces, separator, sep, reach)
    return spans


def _rejoined_backward(text: str, pieces: list[str], separator: str, sep: str,
                       reach: int) -> list[tuple[int, int]] | None:
    """:func:`_rejoined_spans` from the last chunk back: the last at the last copy,
    each one before at the last copy that ends where the next one begins, or
    within its overlap. None when some chunk has none such or text is left out."""
    import regex

    from chunkseam.core import budget
    out: list[tuple[int, int]] = []
    for piece in reversed(pieces):
        pattern = regex.compile(f"(?:{sep})+".join(_escape(p) for p in piece.split(separator)))
        try:
            if not out:  # the last chunk: the last copy
                found = regex.compile(pattern.pattern, flags=regex.REVERSE).search(
                    text, timeout=budget.remaining())
                if found is None:
                    return None
                out.append((found.start(), found.end()))
                continue
            nxt = out[-1][0]
            ws = nxt
            while ws > 0 and text[ws - 1].isspace():
                ws -= 1
            # the copy that reaches the next chunk with the least overlap
            best: tuple[int, int] | None = None
            lo = max(0, ws - 2 * len(piece) - reach)
            for m in pattern.finditer(text, lo, min(len(text), nxt + reach),
                                      overlapped=True, timeout=budget.remaining()):
                if m.start() < nxt and m.end() >= ws and (best is None or m.end() < best[1]):
                    best = (m.start(), m.end())
        except TimeoutError:
            raise budget.timed_out("langchain: placing CharacterTextSplitter's chunks") from None
        if best is None:
            return None
        out.append(best)
    out.reverse()
    return None if gaps(text, out) else out


@functools.lru_cache(maxsize=1)
def _escapes() -> dict[int, str]:
    # the characters regex.escape escapes: its metacharacters and whitespace (str.isspace;
    # none above U+3000, which tests/chunkers/test_chunker_pipeline.py checks over every code point)
    return {i: "\\" + chr(i) for i in range(0x3001)
            if chr(i) in "()[]{}?*+|^$\\.-#&~" or chr(i).isspace()}


def _escape(text: str) -> str:
    """``regex.escape(text)`` (the same string), by one ``str.translate``: a
    chunk's text is escaped whole, and ``regex.escape`` goes a character at a time."""
    return text.translate(_escapes())


def _plain_recursive(splitter: Any) -> bool:
    """Is ``splitter`` a RecursiveCharacterTextSplitter (or a subclass that
    only sets its separators), whose algorithm ``recursive`` follows?"""
    base = getattr(_module(), "RecursiveCharacterTextSplitter", None)
    if base is None or not isinstance(splitter, base):
        return False
    cls = type(splitter)
    return all(getattr(cls, m, None) is getattr(base, m, None)
               for m in ("split_text", "_split_text", "_merge_splits", "_join_docs"))


def _recursive_options(splitter: Any) -> dict[str, Any]:
    return {
        "separators": tuple(splitter._separators),
        "keep_separator": splitter._keep_separator,
        "strip_whitespace": splitter._strip_whitespace,
        "is_separator_regex": splitter._is_separator_regex,
    }


def _recursive_spans(splitter: Any, doc: Document, pieces: list[str], sizer: Sizer, size: int,
                     overlap: int, counts: dict[str, int] | None = None
                     ) -> list[tuple[int, int, int]] | None:
    """For a ``RecursiveCharacterTextSplitter`` (and its Markdown, Python, LaTeX …
    subclasses): the spans of chunkseam's own ``recursive`` run with the
    splitter's separators, when — and only when — it gives exactly LangChain's
    chunk texts. Its spans come from the pieces, so they are exact even where
    a string search is ambiguous (long runs of one character, chunks repeated
    within the overlap), each with the run's exact count of its text (the sizer's
    count, see :class:`~chunkseam.chunkers.recursive.SpanCounter`). None when it
    does not apply or differs. ``counts``: LangChain's own counts of the texts it
    measured, when they are the sizer's (the run counts only the others)."""
    base = getattr(_module(), "RecursiveCharacterTextSplitter", None)
    if base is None or not isinstance(splitter, base):
        return None
    text = doc.text
    try:
        from chunkseam.chunkers.recursive import recursive_chunks

        run = recursive_chunks(doc, sizer, size=size, overlap=overlap, known_counts=counts,
                               **_recursive_options(splitter))
    except (AttributeError, TypeError, ValueError):  # another LangChain version, odd options
        return None
    spans = [(start, end, tokens) for _step, start, end, tokens in run.emits]
    if len(spans) != len(pieces) or any(
        text[a:b] != piece for (a, b, _t), piece in zip(spans, pieces)
    ):
        return None
    return spans


def _shares_counts(splitter: Any, sizer: Sizer, options: dict[str, Any]) -> bool:
    """Are the splitter's counts the sizer's exact counts? A recursive splitter from
    ``from_tiktoken_encoder`` on the sizer's own tiktoken encoding, with LangChain's
    default special-token handling (none allowed, all disallowed: a text with one
    stops LangChain, so every count it makes is ``encode_ordinary``'s)."""
    from chunkseam.tokens.tiktoken import TokenSizer

    return (sizer.unit == "tokens" and isinstance(sizer, TokenSizer)
            and type(sizer).count is TokenSizer.count
            and not any(k in options for k in _TIKTOKEN_KEYWORDS)
            and _plain_recursive(splitter))


def _counting_copy(splitter: Any) -> tuple[Any, dict[str, int] | None]:
    """A shallow copy of ``splitter`` for one call (the cached one is shared by
    threads) whose length function keeps its count of each text it measures (each
    text measured once: LangChain measures a separator and a split again on every
    merge); ``(splitter, None)`` when it cannot be made so."""
    import copy

    length = getattr(splitter, "_length_function", None)
    if not callable(length):
        return splitter, None
    counts: dict[str, int] = {}

    def measured(text: str) -> int:
        n = counts.get(text)
        if n is None:
            n = counts[text] = length(text)
        return n

    try:
        running = copy.copy(splitter)
        running._length_function = measured
    except Exception:  # (a splitter that cannot be copied so)
        return splitter, None
    return running, counts


def _probe_separators(splitter: Any, text: str) -> None:
    """LangChain matches regular expression separators with Python's ``re``,
    which cannot be interrupted: each one (``separators`` of the recursive
    splitters, ``separator`` of ``CharacterTextSplitter``) is first run over
    the text with the ``regex`` engine under the analysis' time budget, so that
    a backtracking pattern is abandoned here with a clear message rather than
    hanging inside LangChain."""
    if text and getattr(splitter, "_is_separator_regex", False):
        from chunkseam.chunkers.recursive import separator_bounds

        seps = list(getattr(splitter, "_separators", None) or ())
        single = getattr(splitter, "_separator", None)
        if isinstance(single, str):
            seps.append(single)
        for sep in seps:
            if sep:
                separator_bounds(sep, True, text)


#: the splitters an untrusted workspace's config file may name: pure text
#: splitting inside langchain_text_splitters. The others import another library
#: or load a model when built (spaCy pipelines by name or path, NLTK data,
#: sentence-transformers models, KoNLPy/Java), or are not known to chunkseam.
UNTRUSTED_SPLITTERS = frozenset({
    "RecursiveCharacterTextSplitter", "CharacterTextSplitter", "TokenTextSplitter",
    "MarkdownTextSplitter", "PythonCodeTextSplitter", "LatexTextSplitter",
    "JSFrameworkTextSplitter",
})
_REGEX_WHY = "LangChain runs regular expression separators with Python's re, which cannot be interrupted"


def _other_libraries_splitters() -> set[str]:
    """The class names the other pipeline adapters take (``SentenceSplitter`` …):
    options meant for them are not LangChain's, and LangChain refuses such a name."""
    from chunkseam.chunkers import registered

    return {c for chunker in list(registered().values()) if chunker is not _CHUNKER
            for c in (getattr(chunker, "classes", None) or ())}


def untrusted_options(options: dict[str, Any]) -> dict[str, str]:
    """The keys of ``options`` an untrusted workspace's config file may not set
    for ``langchain`` -> why: all of them for a splitter that loads another
    library or a model; ``separator``/``separators`` with ``is_separator_regex``."""
    splitter = options.get("splitter") or DEFAULT_SPLITTER
    if splitter not in UNTRUSTED_SPLITTERS and splitter not in _other_libraries_splitters():
        why = (f"the splitter {splitter!r} imports another library or loads a model when built "
               f"(in an untrusted workspace: one of {', '.join(sorted(UNTRUSTED_SPLITTERS))})")
        return {k: why for k in options}
    out: dict[str, str] = {}
    if options.get("is_separator_regex"):
        for key in ("separator", "separators"):
            if options.get(key):
                out[key] = out["is_separator_regex"] = _REGEX_WHY
    return out


class LangChainChunker:
    name = name
    description = description
    #: the extra that provides the library this strategy runs
    extra = "langchain"

    def untrusted_options(self, options: dict[str, Any]) -> dict[str, str]:
        return untrusted_options(options)

    def unavailable(self) -> str | None:
        """Why this strategy cannot run here (its library is not installed), or None."""
        import importlib.util

        try:
            found = importlib.util.find_spec(MODULE) is not None
        except (ImportError, ValueError):
            found = False
        return None if found else MISSING

    def chunk(
        self, doc: Document, sizer: Sizer, *, size: int, overlap: int = 0, **options: Any
    ) -> list[Chunk]:
        splitter_name = options.get("splitter")
        if splitter_name is None:
            splitter_name = DEFAULT_SPLITTER
        splitter = get_splitter(sizer, size=size, overlap=overlap, **options)
        text = doc.text
        _probe_separators(splitter, text)
        meta = {"splitter": splitter_name}
        # a RecursiveCharacterTextSplitter is re-run only around an edit (see
        # recursive.langchain_update); the result is kept for the next version
        from chunkseam.chunkers import recursive

        key = recursive.langchain_key(splitter, sizer)
        kept = doc.memoised(key)
        if kept is None and text and _plain_recursive(splitter):
            try:
                kept = recursive.langchain_update(doc, splitter, sizer, size, overlap,
                                        _recursive_options(splitter))
            except (AttributeError, TypeError, ValueError):
                kept = None
        if kept is None:
            tokens = isinstance(splitter, _module().TokenTextSplitter)
            recording = counts = None
            if tokens and text:  # its encoding of the text kept, to lay out its windows
                from chunkseam.chunkers.windows import recording_copy

                running, recording = recording_copy(splitter, "_tokenizer")
                pieces = running.split_text(text)
            elif text and _shares_counts(splitter, sizer, options):
                # its counts kept (each text counted once) for the run that places its chunks
                running, counts = _counting_copy(splitter)
                pieces = running.split_text(text)
            else:
                pieces = splitter.split_text(text) if text else []
            counted = _recursive_spans(splitter, doc, pieces, sizer, size, overlap, counts)
            if counted is not None and _plain_recursive(splitter):
                kept = counted  # (the run's exact counts: nothing counted again)
            else:
                spans = [(a, b) for a, b, _t in counted] if counted is not None else None
                if spans is None and tokens:
                    spans = _token_spans(text, pieces, splitter, recording)
                if spans is None:
                    try:
                        spans = locate(text, pieces, sizer, overlap=overlap,
                                       splitter=splitter_name)
                    except ValueError:
                        spans = _rejoined_spans(text, pieces, splitter)
                        if spans is None:
                            raise
                # each chunk counted when first asked for; token windows hold at most
                # `size` of the sizer's tokens: none is oversize
                over = False if tokens and sizer.unit == "tokens" else size
                return self._lazy_chunks(text, spans, sizer, meta, pieces, over)
        result = kept
        doc.memo(key, lambda: result)
        return self._chunks(text, kept, size, meta)

    @staticmethod
    def _lazy_chunks(text: str, spans: list[tuple[int, int]], sizer: Sizer,
                     meta: dict[str, Any], pieces: list[str], size: int | bool) -> list[Chunk]:
        """Chunks counted when first asked for; ``size``: oversize over it (False:
        none is oversize)."""
        from chunkseam.core.chunk import lazy_chunk

        over: Any = False if size is False else (lambda tokens: tokens > size)
        count = sizer.count
        same = len(pieces) == len(spans)
        out = []
        for i, (start, end) in enumerate(spans):
            chunk_meta = dict(meta)
            if same and pieces[i] != text[start:end]:
                # the library rewrote it (re-joined pieces, decoded token windows): its
                # text is kept alongside the source span it came from
                chunk_meta["library_text"] = pieces[i]
            out.append(lazy_chunk(start, end, i, text, count, name, over, chunk_meta))
        return out

    @staticmethod
    def _chunks(text: str, spans: list[tuple[int, int, int]], size: int,
                meta: dict[str, Any]) -> list[Chunk]:
        from chunkseam.core.chunk import chunk_of

        return [chunk_of(start, end, i, text, tokens, name, (), tokens > size, dict(meta))
                for i, (start, end, tokens) in enumerate(spans)]


_CHUNKER = register(LangChainChunker())
