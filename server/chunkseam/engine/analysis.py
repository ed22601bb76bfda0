"""Document -> chunker -> chunks -> checks -> issues: the one pipeline.

The CLI, the language server and the library all call :func:`analyze` (or its
two halves :func:`make_chunks` and :func:`chunkseam.engine.validate.validate`) with a
resolved :class:`~chunkseam.core.settings.Settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chunkseam import chunkers

from chunkseam.core import budget
from chunkseam.core.chunk import Chunk
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue
from chunkseam.core.settings import Settings
from chunkseam.tokens import Sizer, sizer_for  # noqa: F401  (sizer_for: re-exported)


def chunker_name(doc: Document, settings: Settings) -> str:
    return settings.chunker or chunkers.route(doc, settings.chunkers, getattr(settings, "config_root", None))


def _overlap_builtin() -> frozenset[str]:
    from chunkseam.chunkers.overlap import BUILTIN

    return BUILTIN


class ChunkerOptionError(ValueError):
    """A chunker refused its settings (size, overlap or chunker options): a
    configuration error, not a bug — front ends report it and exit 2."""


def make_chunks(doc: Document, settings: Settings, sizer: Sizer | None = None) -> tuple[str, list[Chunk]]:
    name = chunker_name(doc, settings)
    sizer = sizer or sizer_for(settings)
    try:
        chunker = chunkers.get(name)
    except KeyError as exc:
        raise ChunkerOptionError(str(exc.args[0] if exc.args else exc)) from None
    from chunkseam.structure.sentences import language

    by_sentences = getattr(settings, "overlap_unit", "unit") == "sentences" and settings.overlap > 0
    if by_sentences and name not in ("sentence", *_overlap_builtin()):
        raise ChunkerOptionError(f"chunker {name}: overlap-unit = \"sentences\" works with the built-in "
                                 "strategies (fixed, recursive, sentence, markdown, code); a library's "
                                 "splitter keeps its own overlap")
    # the sentence strategy counts its overlap in sentences already; the others
    # are run without overlap and extended by whole sentences (chunkseam.chunkers.overlap)
    overlap = settings.overlap if (not by_sentences or name == "sentence") else 0
    try:
        with language(getattr(settings, "language", None)):  # sentence rules of the document's language
            size = settings.size
            if by_sentences and name != "sentence":  # room for the overlap (chunkseam.chunkers.overlap)
                from chunkseam.chunkers.overlap import reserve

                size = max(1, size - reserve(doc, sizer, size, settings.overlap))
            chunks = chunker.chunk(
                doc, sizer, size=size, overlap=overlap, **settings.chunker_options
            )
            if by_sentences and name != "sentence":
                from chunkseam.chunkers.overlap import sentence_overlap

                chunks = sentence_overlap(doc, chunks, settings.overlap, sizer, settings.size)
    except ValueError as exc:
        if isinstance(exc, ChunkerOptionError):
            raise
        message = str(exc)
        if not message.startswith(f"{name}:"):
            message = f"{name}: {message}"
        raise ChunkerOptionError(f"chunker {message}") from exc
    return name, chunks


@dataclass
class Analysis:
    doc: Document
    settings: Settings
    chunker: str
    chunks: list[Chunk]
    issues: list[Issue]
    stats: Any  # chunkseam.engine.validate.Stats
    extra: dict[str, Any] = field(default_factory=dict)


def analyze(doc: Document, settings: Settings | None = None, *,
            seconds: float | None = -1.0, stats: bool = True, share: bool = False) -> Analysis:
    """Chunk and check ``doc`` within the budget of :mod:`chunkseam.core.budget`
    (``seconds`` of wall time, by default :func:`~chunkseam.core.budget.default_seconds`;
    None: no time limit); over it, :class:`~chunkseam.core.budget.BudgetExceeded`.
    ``stats=False``: :attr:`Analysis.stats` is left None, for a caller that
    counts later (the language server, after publishing the diagnostics).
    ``share``: see :func:`chunkseam.engine.validate.validate`."""
    if seconds is not None and seconds < 0:
        seconds = budget.default_seconds(len(doc.text))
    from chunkseam.engine.validate import statistics, validate

    settings = settings or Settings()
    budget.check_document(len(doc.text))
    if settings.unit == "chars" and len(doc.text) > 2 * budget.MAX_CHUNKS * settings.size:
        budget.check_chunks(len(doc.text) // max(1, settings.size))  # refused before any work
    with budget.limits(seconds):
        sizer = sizer_for(settings)
        name, chunks = make_chunks(doc, settings, sizer)
        budget.check_chunks(len(chunks))
        budget.check("chunking")
        issues = validate(doc, chunks, settings, sizer=sizer, share=share)
    return Analysis(doc, settings, name, chunks, issues, statistics(chunks, issues) if stats else None)


def describe_chunker(settings: Settings, sources: dict[str, str] | None = None) -> str:
    """One line for `lint` and `preview`: which chunker is simulated, and where
    that came from (the config file, the command line, the editor)."""
    sources = sources or {}
    if not settings.chunker:
        routed = sources.get("chunkers", "default")
        extra = f", routes from {routed}" if routed not in ("default", None) else ""
        return ("simulating chunkseam's own chunkers by file type (no `chunker` configured"
                f"{extra}; `chunkseam init` writes your pipeline's)")
    options = settings.chunker_options or {}
    what = settings.chunker
    detail = options.get("splitter")
    if detail:
        what += f" ({detail})"
    overlap = f", overlap {settings.overlap}" if settings.overlap else ""
    unit = settings.unit if settings.unit == "chars" else f"{settings.encoding} tokens"
    approx = ("; chunks the library rewrote are placed approximately (approximate = true)"
              if options.get("approximate") is True else "")
    # where each part came from: one source when they agree, else each its own
    # (a size set in the editor is not "from chunkseam.toml" because the chunker is)
    parts = {k: sources.get(k, "default") for k in ("chunker", "size", "overlap", "unit")}
    parts = {k: v for k, v in parts.items() if k == "chunker" or v != "default"}
    if len(set(parts.values())) <= 1:
        origin = f"from {parts['chunker']}"
    else:
        origin = ", ".join(f"{k} from {v}" for k, v in parts.items())
    return f"simulating chunker {what}, size {settings.size} {unit}{overlap} ({origin}){approx}"
