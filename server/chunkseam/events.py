"""Structured events: validation results as JSON lines for pipelines.

A pipeline that indexes documents logs one line per issue and one summary
line per document, each tagged with what produced it, so it can chart the
broken-chunk rate per indexing run and per chunker configuration::

    from chunkseam import events
    with open("chunkseam.jsonl", "a") as fp:
        events.write(fp, events.for_document(doc, chunks, issues, settings,
                                             chunker="markdown", run="2024-06-01"))

Every event has:

``event``      ``"chunkseam.issue"`` or ``"chunkseam.summary"``
``version``    chunkseam's version
``time``       ISO 8601 UTC time of the run (the same for all events of a call)
``run``        the caller's run id (or None)
``document``   the document's path, else its URI, else ``"<text>"``
``chunker``    the chunker's name (``Chunk.strategy`` when not given)
``params``     ``{"size", "overlap", "unit", "encoding", "options"}`` of the chunker
``size``       the chunk size budget (``params.size``, repeated for easy filtering)

An issue event adds ``issue``: :meth:`chunkseam.core.issue.Issue.to_dict` plus
``line``/``column`` (1-based) of its start and ``rule`` (the rule name). A
summary event adds ``stats`` (:meth:`chunkseam.engine.validate.Stats.to_dict`) and
``rate`` (the broken-chunk rate, repeated at the top level).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import IO, Any, Iterable

from chunkseam.core.version import __version__
from chunkseam.document.text import Document
from chunkseam.core.issue import Issue


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _params(settings: Any) -> dict[str, Any]:
    if settings is None:
        return {}
    return {"size": getattr(settings, "size", None), "overlap": getattr(settings, "overlap", None),
            "unit": getattr(settings, "unit", None), "encoding": getattr(settings, "encoding", None),
            "options": dict(getattr(settings, "chunker_options", {}) or {})}


def for_document(doc: Document, chunks: list[Any], issues: list[Issue], settings: Any = None, *,
                 chunker: str | None = None, run: str | None = None, time: str | None = None,
                 stats: Any = None) -> list[dict[str, Any]]:
    """Issue events and one summary event for one document."""
    from chunkseam.engine.validate import statistics

    chunks = list(chunks or ())
    if chunker is None:
        chunker = getattr(settings, "chunker", None) or next(
            (getattr(c, "strategy", None) for c in chunks if getattr(c, "strategy", None)), None)
    params = _params(settings)
    base = {"version": __version__, "time": time or _now(), "run": run,
            "document": doc.path or doc.uri or "<text>", "chunker": chunker, "params": params,
            "size": params.get("size")}
    out: list[dict[str, Any]] = []
    for i in issues:
        rec = i.to_dict()
        line, col = doc.line_col(i.start)
        rec.update(line=line, column=col, rule=i.name)
        out.append({"event": "chunkseam.issue", **base, "issue": rec})
    st = stats if stats is not None else statistics(chunks, issues)
    out.append({"event": "chunkseam.summary", **base, "rate": st.rate, "stats": st.to_dict()})
    return out


def for_analysis(analysis: Any, *, run: str | None = None, time: str | None = None) -> list[dict[str, Any]]:
    """Events for a :class:`chunkseam.engine.analysis.Analysis`."""
    return for_document(analysis.doc, analysis.chunks, analysis.issues, analysis.settings,
                        chunker=analysis.chunker, run=run, time=time, stats=analysis.stats)


def dumps(events: Iterable[dict[str, Any]]) -> str:
    """JSON lines (one compact object per line, a final newline)."""
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":"), default=str) for e in events]
    return "".join(line + "\n" for line in lines)


def write(fp: IO[str], events: Iterable[dict[str, Any]]) -> int:
    """Append events to a text stream as JSON lines; returns the number written."""
    text = dumps(events)
    fp.write(text)
    return text.count("\n")


def read(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Events back from JSON lines (blank lines skipped)."""
    return [json.loads(line) for line in lines if line.strip()]
