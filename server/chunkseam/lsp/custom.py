"""Custom requests for clients that paint chunk bands or show a status.

``chunkseam/chunks`` — params ``{"textDocument": {"uri": …}}`` — answers::

    {"uri", "version", "chunker", "simulated" (which chunker, and where that setting came
     from), "settings" (each setting that matters: {"key", "value", "source": "default",
     a config file's path or "editor", "overrides": the config file an editor setting
     overrode, when it did}), "unit", "size", "overlap", "error",
     "chunks": [{"index", "range", "startOffset", "endOffset", "startLine", "endLine",
                 "tokens", "unit", "headingPath", "strategy", "oversize",
                 "overlapPrevious" (size of the overlap with the previous chunk),
                 "overlapRange" (its range, or null), "issues" (the issues the chunk is
                 charged with: each issue counts on one chunk), "title"}, …]}

``chunkseam/stats`` answers::

    {"uri", "version", "chunker", "chunks", "chunksWithIssues", "rate", "issues",
     "perRule": {code: count}, "perSeverity": {severity: count}, "error"}

``chunkseam/compare`` — params ``{"textDocument": {"uri": …}, "strategies": [name, …]}``
— chunks the open document's current text (not the saved file) with each
strategy, with every other setting as resolved for the document (config file
and editor settings), and answers::

    {"uri", "version", "available": [name, …], "strategies": [name, …],
     "errors": {name: message}, "html": self-contained page or null}

Without ``strategies`` it only answers ``available`` (for a client's picker).

``chunkseam/willOpen`` — a notification, params ``{"textDocument": {"uri": …},
"diagnostics"?: bool}`` — says an editor is about to open the file (its tab
is there, its text not yet loaded): the server starts analysing the file from
disk, and the ``didOpen`` that follows takes that analysis over if the text is
the same. With ``"diagnostics": true``, when that analysis is done before the
document has opened, the server sends ``chunkseam/headStartDiagnostics`` —
a notification with the params of a ``textDocument/publishDiagnostics``
(``{"uri", "diagnostics"}``, no version: they are of the file on disk) — so
the editor can show them as the document appears; the diagnostics of the
document itself (pulled or published) replace them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chunkseam.lsp.view import chunk_info

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

CHUNKS = "chunkseam/chunks"
STATS = "chunkseam/stats"
COMPARE = "chunkseam/compare"
WILL_OPEN = "chunkseam/willOpen"
HEAD_START_DIAGNOSTICS = "chunkseam/headStartDiagnostics"


def wants_diagnostics(params: Any) -> bool:
    """Whether ``chunkseam/willOpen`` params ask for the head start's diagnostics."""
    value = params.get("diagnostics") if isinstance(params, dict) else getattr(params, "diagnostics", None)
    return value is True


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
        "simulated": result.simulated,
        # each setting that matters, its value and its layer (see lsp/settings.setting_layers)
        "settings": result.layers,
        "unit": result.unit,
        "size": getattr(s, "size", None),
        "overlap": getattr(s, "overlap", None),
        "enabled": not result.disabled,
        "error": result.error,
        # errors of the configuration (a broken config file, bad values), for a status bar
        "configErrors": [str(e) for e in result.config_errors if not getattr(e, "warning", False)],
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


def strategies_of(params: Any) -> list[str] | None:
    """The ``strategies`` of ``chunkseam/compare`` params: a list of names, or None."""
    if params is None:
        return None
    value = params.get("strategies") if isinstance(params, dict) else getattr(params, "strategies", None)
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError("strategies: expected a list of strategy names")
    return list(dict.fromkeys(value))


def compare(result: "Result", strategies: list[str] | None) -> dict[str, Any]:
    """``chunkseam/compare`` (runs in a worker thread)."""
    from chunkseam import chunkers as registry
    from chunkseam.engine.compare import StrategyStats, run_strategy, table_html
    from chunkseam.report.preview import compare_page

    available = registry.names()
    out: dict[str, Any] = {"uri": result.uri, "version": result.version, "available": available,
                           "strategies": [], "errors": {}, "html": None}
    if strategies is None:
        return out
    unknown = [s for s in strategies if s not in available]
    if unknown:
        raise ValueError(f"unknown strategy {', '.join(unknown)}: expected one of {', '.join(available)}")
    if len(strategies) < 2:
        raise ValueError("pick at least two strategies to compare")
    settings = result.settings
    if settings is None:
        from chunkseam.core.settings import Settings

        settings = Settings()
    doc = result.doc
    stats, columns = [], []
    for name in strategies:
        st = StrategyStats(name)
        try:
            chunks, issues = run_strategy(doc, settings, name)
        except Exception as exc:  # one strategy's failure (e.g. langchain not installed) is a column note
            out["errors"][name] = f"{type(exc).__name__}: {exc}"
            continue
        st.add(chunks, issues)
        stats.append(st)
        columns.append((name, chunks, issues))
    out["strategies"] = [name for name, _, _ in columns]
    out["html"] = compare_page([(doc, columns)], settings=settings,
                               table_html=table_html(stats, settings.unit)) if columns else None
    return out
