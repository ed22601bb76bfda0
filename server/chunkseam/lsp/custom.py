"""Custom requests for clients that paint chunk bands or show a status.

``chunkseam/chunks`` — params ``{"textDocument": {"uri": …}}`` — answers::

    {"uri", "version", "chunker", "unit", "size", "overlap", "error",
     "chunks": [{"index", "range", "startOffset", "endOffset", "startLine", "endLine",
                 "tokens", "unit", "headingPath", "strategy", "oversize",
                 "overlapPrevious" (size of the overlap with the previous chunk),
                 "overlapRange" (its range, or null), "issues" (the issues the chunk is
                 charged with: each issue counts on one chunk), "title"}, …]}

``chunkseam/stats`` answers::

    {"uri", "version", "chunker", "chunks", "chunksWithIssues", "rate", "issues",
     "perRule": {code: count}, "perSeverity": {severity: count}, "error"}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .view import chunk_info

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result

CHUNKS = "chunkseam/chunks"
STATS = "chunkseam/stats"


def uri_of(params: Any) -> str | None:
    """The document uri of custom request params (a dict or pygls' namedtuple)."""
    if params is None:
        return None
    td = params.get("textDocument") if isinstance(params, dict) else getattr(params, "textDocument", None)
    if td is None:
        uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    else:
        uri = td.get("uri") if isinstance(td, dict) else getattr(td, "uri", None)
    return uri if isinstance(uri, str) else None


def _common(result: "Result") -> dict[str, Any]:
    a = result.analysis
    s = result.settings
    return {
        "uri": result.uri,
        "version": result.version,
        "chunker": a.chunker if a is not None else None,
        "unit": result.unit,
        "size": getattr(s, "size", None),
        "overlap": getattr(s, "overlap", None),
        "enabled": not result.disabled,
        "error": result.error,
    }


def chunks(result: "Result", encoding: str) -> dict[str, Any]:
    out = _common(result)
    out["chunks"] = [chunk_info(result, c, encoding) for c in result.chunks]
    return out


def stats(result: "Result") -> dict[str, Any]:
    out = _common(result)
    a = result.analysis
    per_severity: dict[str, int] = {}
    for i in result.issues:
        per_severity[i.severity] = per_severity.get(i.severity, 0) + 1
    st = getattr(a, "stats", None)
    n_chunks = getattr(st, "chunks", len(result.chunks)) if st is not None else len(result.chunks)
    broken = getattr(st, "chunks_with_issues", len(result.issues_by_chunk)) if st is not None else 0
    rate = getattr(st, "rate", (broken / n_chunks) if n_chunks else 0.0) if st is not None else 0.0
    per_rule = dict(getattr(st, "per_rule", {}) or {}) if st is not None else {}
    out.update({
        "chunks": n_chunks,
        "chunksWithIssues": broken,
        "rate": rate,
        "issues": len(result.issues),
        "perRule": per_rule,
        "perSeverity": per_severity,
    })
    return out
