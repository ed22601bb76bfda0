"""Sentence spans from pysbd, cached by the text segmented.

``segment(text)`` returns ``[(start, end), …]`` offsets into ``text`` of each
sentence, trailing whitespace excluded, covering every non-space character.
Results are cached by content, so the same paragraph is segmented once
whatever document or version it appears in.

Sentences are split with the rules of the document's language (the
``language`` setting: one of pysbd's :data:`LANGUAGES`, default ``en``), so
German ordinals (``am 3. Oktober``), Hindi dandas or Armenian full stops are
read the way their languages use them. :func:`language` sets it for the code
run inside it (the pipeline does, from the settings); ``segment(text,
language=...)`` names it explicitly.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from typing import Iterator

from chunkseam.core.cache import ByteLRU, text_key

_local = threading.local()

#: pysbd's languages (ISO 639-1 codes)
LANGUAGES = ("am", "ar", "bg", "da", "de", "el", "en", "es", "fa", "fr", "hi", "hy", "it", "ja", "kk",
             "mr", "my", "nl", "pl", "ru", "sk", "ur", "zh")
_LANGUAGE: contextvars.ContextVar[str] = contextvars.ContextVar("chunkseam_language", default="en")


@contextlib.contextmanager
def language(code: str | None) -> Iterator[None]:
    """Segment sentences with the rules of ``code`` inside the ``with`` block (None: keep the current one)."""
    if not code:
        yield
        return
    token = _LANGUAGE.set(code)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def current_language() -> str:
    return _LANGUAGE.get()


def _segmenter(lang: str = "en"):
    segs = getattr(_local, "segs", None)
    if segs is None:
        segs = _local.segs = {}
    seg = segs.get(lang)
    if seg is None:
        import pysbd

        seg = segs[lang] = pysbd.Segmenter(language=lang, clean=False)
    return seg


#: a line break that does not start a blank line (blank lines still separate)
_LINE_BREAK = re.compile(r"(?:\r\n|\r|\n)(?![ \t]*(?:\r\n|\r|\n))")


#: inline code spans, HTML comments and tags (autolinks too), link targets
_INLINE = re.compile(
    r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)"
    r"|<!--.*?-->|</?[A-Za-z][^<>]*>"
    r"|(?<=\])\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)",
    re.S,
)


def _as_word(m: re.Match[str]) -> str:
    """A same-length capitalised word (no sentence punctuation, offsets kept)."""
    return "Q" + "q" * (len(m.group()) - 1)


#: estimated bytes of the sentence spans kept (see :mod:`chunkseam.core.cache`)
SENTENCE_CACHE_BYTES = 12 * 1024 * 1024
_CACHE = ByteLRU("sentences", SENTENCE_CACHE_BYTES)


def clear_caches() -> None:
    """Forget every cached segmentation (benchmarks use it for cold figures)."""
    _CACHE.clear()


def segment(text: str, language: str | None = None) -> tuple[tuple[int, int], ...]:
    """Sentence spans of ``text`` (in ``language``, default: the current one),
    cached by content (a digest of it for texts longer than a line, so the
    cache keeps no paragraph alive) and language."""
    lang = language or _LANGUAGE.get()
    raw = text if len(text) <= 64 else text_key(text)
    key = raw if lang == "en" else (lang, raw)
    hit = _CACHE.get(key)
    if hit is None:
        hit = _segment(text, lang)
        _CACHE.put(key, hit, (len(text) if raw is text else 40) + 64 + 72 * len(hit))
    return hit


def _segment(text: str, lang: str | None = None) -> tuple[tuple[int, int], ...]:
    lang = lang or _LANGUAGE.get()
    if not text.strip():
        return ()
    # a line break inside a paragraph is not a sentence end, but pysbd with
    # clean=False takes every one for one: segment a same-length copy with
    # those line breaks as spaces (offsets are unchanged)
    text = _LINE_BREAK.sub(lambda m: " " * len(m.group()), text)
    # pysbd ends sentences inside inline code (`panic!`), HTML (<!-- x -->)
    # and link targets, and pairs backticks like quotes (a paragraph with two
    # code spans became one "sentence"): segment them as plain words
    text = _INLINE.sub(_as_word, text)
    try:
        # pysbd's processor directly: Segmenter.segment() would then search
        # the text for every sentence again (char spans), which this function
        # does itself (and more exactly, from a cursor) below. The output is
        # the same (checked on every paragraph the corpus gives, and in
        # tests/chunkers/test_incremental.py) at about two thirds of the time.
        pieces = _segmenter(lang).processor(text).process()
    except Exception:  # pysbd has regex edge cases; one sentence is the safe answer
        pieces = [text]
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in pieces:
        core = piece.strip()
        if not core:
            continue
        at = text.find(core, cursor)
        if at < 0:  # pysbd altered the text; fall back to what is left
            break
        end = at + len(core)
        spans.append((at, end))
        cursor = end
    if not spans:
        stripped = text.strip()
        at = text.find(stripped)
        return ((at, at + len(stripped)),)
    # whatever pysbd dropped after the last found sentence belongs to it
    tail = text[cursor:].rstrip()
    if tail.strip():
        s, _ = spans[-1]
        spans[-1] = (s, cursor + len(tail))
    return tuple(spans)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as absolute offsets."""
    end = len(text) if end is None else end
    return [(start + a, start + b) for a, b in segment(text[start:end])]


segment.__wrapped__ = _segment  # type: ignore[attr-defined]  # the uncached function
