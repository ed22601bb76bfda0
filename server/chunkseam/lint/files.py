"""One file linted: read, chunked, judged, and its result kept in the result cache.

Runs in worker processes (``--jobs``) and on Dask workers, so it depends on
nothing of the command line."""

from __future__ import annotations

from chunkseam.chunkers.adapters.common import LibraryError
from chunkseam.core.budget import BudgetExceeded
from chunkseam.core.settings import Settings
from chunkseam.engine.analysis import ChunkerOptionError
from chunkseam.report.formats import (
    FileResult,
)


def lint_one(item: tuple[str, Settings]) -> FileResult:
    """Read, chunk and validate one file (runs in a worker process with --jobs)."""
    from chunkseam.audit.dump import SourceError, read_source
    from chunkseam.document.notebook import NotebookError, open_document
    from chunkseam.engine.analysis import analyze
    from chunkseam.report.baseline import fingerprint
    from chunkseam.report.formats import record_from_issue

    path, settings, *given = item
    try:
        text = given[0] if given else read_source(path, keep_bom=True)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    try:
        doc = open_document(text, path, settings)
    except NotebookError as exc:
        return FileResult(path=path, error=str(exc))
    try:
        analysis = analyze(doc, settings)
    except (ChunkerOptionError, BudgetExceeded, LibraryError) as exc:  # bad settings, over the budget,
        return FileResult(path=path, error=str(exc))  # a pipeline library that failed on the file
    except Exception as exc:  # a bug in a chunker or a check must not stop the run
        return FileResult(path=path, error=f"internal error while checking: {type(exc).__name__}: {exc}")
    stats = analysis.stats
    records = [record_from_issue(doc, i, path, fingerprint=fingerprint(doc.text, i.code, i.start, i.end, i.cut))
               for i in sorted(analysis.issues, key=lambda i: (i.start, i.end, i.code))]
    if doc.notebook is not None and records:
        from chunkseam.document.notebook import file_line, source_lines

        lines = source_lines(text)  # the .ipynb's own lines, for SARIF and GitHub annotations
        for rec in records:
            rec.extra["file_line"] = file_line(lines, rec.extra["cell"], rec.line)
            rec.extra["end_file_line"] = file_line(lines, rec.extra["end_cell"], rec.end_line)
    sizer_approx = bool(getattr(settings, "approximate_tokens", False))
    return FileResult(path=path, chunker=analysis.chunker, chunks=stats.chunks,
                      chunks_with_issues=stats.chunks_with_issues, per_rule=dict(stats.per_rule),
                      records=records, approximate=sizer_approx and settings.unit == "tokens")


def lint_cached(item: tuple[str, Settings, str, str]) -> FileResult:
    """:func:`lint_one` through the persistent cache (runs in a worker process with --jobs)."""
    from chunkseam.audit.dump import SourceError, decode_source, read_source_bytes
    from chunkseam.lint.resultcache import ResultCache

    path, settings, cache_dir, skey = item
    try:
        data = read_source_bytes(path)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    cache = ResultCache(cache_dir)
    key = cache.key(path, data, skey)
    hit = cache.get(key)
    if hit is not None:
        hit.cached = True  # type: ignore[attr-defined]
        return hit
    try:
        text = decode_source(data, keep_bom=True)
    except SourceError as exc:
        return FileResult(path=path, error=str(exc))
    result = lint_one((path, settings, text))
    if result.error is None:
        cache.put(key, result)
    return result
