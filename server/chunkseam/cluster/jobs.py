"""``chunkseam audit DUMP --scheduler ADDRESS|local``: the audit on a Dask cluster.

The dump (a local path or any fsspec URL) is split into byte ranges that start
on a document boundary (a document's chunks are consecutive lines, so a range
boundary is moved forward to the first line of the next document). Each
worker audits its range with the same per-document audit as the single-process
run, writes its full records to a part in the output directory
(``part-00000.jsonl`` or ``.sarif``) and returns a small summary; the client
merges the summaries. Line numbers are the dump's own: a first pass counts the
lines of each range on the workers.

Dask (``pip install 'chunkseam[dask]'``) is imported only here, only when
``--scheduler`` is given.
"""

from __future__ import annotations

import io
import json
import os
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

__all__ = ["PartResult", "audit_range", "connect", "count_lines", "lint_batch", "lint_on_cluster",
           "make_output_dir", "merge", "split_ranges", "write_summary"]

#: a range is at most this many bytes (a worker holds one range in memory)
MAX_RANGE = 32 * 1024 * 1024


def _open(url: str, mode: str = "rb"):
    if "://" in url and not url.startswith("file://"):
        import fsspec

        return fsspec.open(url, mode).open()
    path = url.removeprefix("file://")
    return open(path, mode)


def _size(url: str) -> int:
    if "://" in url and not url.startswith("file://"):
        import fsspec

        fs, path = fsspec.core.url_to_fs(url)
        return int(fs.size(path))
    return os.path.getsize(url.removeprefix("file://"))


def _key(raw: bytes, n: int) -> Any:
    from chunkseam.audit.dump import DumpChunk, parse_line

    item = parse_line(raw.decode("utf-8", "surrogateescape"), n)
    if isinstance(item, DumpChunk):
        return item.doc_id if item.doc_id is not None else item.source
    return ...  # a blank or bad line belongs to no document: never a boundary on its own


def _boundary(f, pos: int, size: int) -> int:
    """The first line start at or after ``pos`` where a new document begins."""
    if pos <= 0:
        return 0
    f.seek(pos - 1)
    if f.read(1) != b"\n":
        f.readline()  # the rest of the line ``pos`` fell in
    start = f.tell()
    first = None
    while start < size:
        raw = f.readline()
        if not raw:
            return size
        k = _key(raw, 2)
        if k is not ...:
            if first is None:
                first = k
            elif k != first:
                return start
        start += len(raw)
    return size


def split_ranges(url: str, parts: int) -> list[tuple[int, int]]:
    """Byte ranges covering the dump, each starting on a document boundary."""
    size = _size(url)
    if size == 0:
        return []
    parts = max(parts, -(-size // MAX_RANGE))
    with _open(url) as f:
        head = f.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"["):
            raise ValueError("--scheduler needs a JSON Lines dump (one chunk a line), not a JSON array")
        cuts = sorted({_boundary(f, size * i // parts, size) for i in range(1, parts)} | {0, size})
    return [(a, b) for a, b in pairwise(cuts) if b > a]


def _lines(data: bytes) -> io.TextIOWrapper:
    # the same line splitting as the single-process run (universal newlines, endings kept)
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline="")


def _read(url: str, start: int, end: int) -> bytes:
    with _open(url) as f:
        f.seek(start)
        return f.read(end - start)


def count_lines(url: str, start: int, end: int) -> int:
    return sum(1 for _ in _lines(_read(url, start, end)))


@dataclass
class PartResult:
    index: int
    summary: dict[str, Any] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    fails: bool = False
    #: BLAKE2b-64 digests of the document keys seen (a document split over ranges = a dump not grouped)
    keys: set[int] = field(default_factory=set)
    repeated: bool = False
    part: str = ""


def _digest(key: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def _join(out_dir: str, name: str) -> str:
    return out_dir.rstrip("/") + "/" + name if "://" in out_dir else os.path.join(out_dir, name)


def audit_range(url: str, dump_name: str, start: int, end: int, first_line: int, index: int,
                settings: Any, source_root: str | None, allow_outside_root: bool, out_dir: str,
                fmt: str, fail_on: str) -> PartResult:
    """Audit the documents of one byte range; full records to a part file, a summary back."""
    from chunkseam.audit.dump import DumpError, read_groups

    errors: list[dict[str, Any]] = []

    def on_error(e: DumpError) -> None:
        errors.append({"path": dump_name, "line": e.line, "message": f"line {e.line}: {e.message}"})

    def lines():
        for n, raw in enumerate(_lines(_read(url, start, end)), first_line):
            if any("\udc80" <= ch <= "\udcff" for ch in raw):
                on_error(DumpError(n, "not UTF-8"))
                yield "\n"
                continue
            yield raw

    groups = read_groups(lines(), on_error, first_line=first_line)
    return _audit_groups(groups, index, dump_name, settings, source_root, allow_outside_root, out_dir, fmt,
                         fail_on, errors)


def _audit_groups(groups: Any, index: int, dump_name: str, settings: Any, source_root: str | None,
                  allow_outside_root: bool, out_dir: str, fmt: str, fail_on: str,
                  errors: list[dict[str, Any]]) -> PartResult:
    from chunkseam.report import formats as report
    from chunkseam.audit.dump import AuditJob, audit_group

    result = PartResult(index, errors=errors)
    summary = report.Summary()
    modes = {"source-aware": 0, "text-only": 0}
    name = f"part-{index:05d}.{'sarif' if fmt == 'sarif' else 'jsonl'}"
    result.part = name
    if "://" in out_dir:
        import fsspec

        out = fsspec.open(_join(out_dir, name), "w", encoding="utf-8").open()
    else:
        out = open(_join(out_dir, name), "w", encoding="utf-8")  # noqa: SIM115
    with out:
        stream = report.SarifStream(out) if fmt == "sarif" else report.JsonLinesStream(out)
        for group in groups:
            if group.key is not None:
                result.keys.add(_digest(group.key))
            result.repeated = result.repeated or group.repeated
            r = audit_group(AuditJob(group, dump_name, source_root, settings,
                                     allow_outside_root=allow_outside_root))
            if r.error is not None:
                errors.append({"path": r.path, "message": r.error})
            summary.add(r)
            modes[r.mode or "text-only"] = modes.get(r.mode or "text-only", 0) + 1
            result.fails = result.fails or report.failing(r.records, fail_on)
            stream.add(r)
        if fmt == "sarif":
            stream.close(summary, errors)
        else:
            stream.close(summary, errors, modes=modes)
    result.summary = _summary_state(summary)
    result.modes = modes
    return result


def keyed_lines(url: str, start: int, end: int, first_line: int) -> list[tuple[str, int, Any]]:
    """(document key, line, parsed object) of each chunk line of a range; ("\0error", line,
    message) for a line that is not a chunk (for the shuffle of a dump not grouped by document)."""
    from chunkseam.audit.dump import DumpChunk, DumpError, parse_line

    out: list[tuple[str, int, Any]] = []
    for n, raw in enumerate(_lines(_read(url, start, end)), first_line):
        if any("\udc80" <= ch <= "\udcff" for ch in raw):
            out.append(("\0error", n, "not UTF-8"))
            continue
        item = parse_line(raw, n)
        if isinstance(item, DumpError):
            out.append(("\0error", n, item.message))
        elif isinstance(item, DumpChunk):
            key = item.doc_id if item.doc_id is not None else item.source
            out.append(("k" + json.dumps(key), n, json.loads(raw.strip().lstrip("\ufeff"))))
    return out


def audit_shuffled(groups: list[tuple[str, list[tuple[str, int, Any]]]], index: int, dump_name: str,
                   settings: Any, source_root: str | None, allow_outside_root: bool, out_dir: str,
                   fmt: str, fail_on: str) -> PartResult:
    """Audit whole documents gathered by the shuffle (each group: one document's lines)."""
    from chunkseam.audit.dump import DumpError, read_groups

    errors: list[dict[str, Any]] = []
    docs = []
    for key, rows in groups:
        rows = sorted(rows, key=lambda r: r[1])
        if key == "\0error":
            errors.extend({"path": dump_name, "line": n, "message": f"line {n}: {m}"} for _, n, m in rows)
        else:
            docs.append(rows)
    docs.sort(key=lambda rows: rows[0][1])  # documents in the order they start in the dump

    def triples():
        for rows in docs:
            for _, n, obj in rows:
                yield (n, obj, None)

    def on_error(e: DumpError) -> None:
        errors.append({"path": dump_name, "line": e.line, "message": f"line {e.line}: {e.message}"})

    return _audit_groups(read_groups(triples(), on_error), index, dump_name, settings, source_root,
                         allow_outside_root, out_dir, fmt, fail_on, errors)


def _summary_state(s: Any) -> dict[str, Any]:
    return {"files": s.files, "files_with_issues": s.files_with_issues, "unreadable": s.unreadable,
            "issues": s.issues, "chunks": s.chunks, "chunks_with_issues": s.chunks_with_issues,
            "per_rule": dict(s.per_rule), "per_severity": dict(s.per_severity), "baselined": s.baselined,
            "approximate": s.approximate}


def merge(parts: list[PartResult]) -> tuple[Any, dict[str, int], list[dict[str, Any]], bool, bool]:
    """(Summary, modes, errors, fails, grouped) of all the parts, in dump order."""
    from chunkseam.report.formats import Summary

    total = Summary()
    modes: dict[str, int] = {"source-aware": 0, "text-only": 0}
    errors: list[dict[str, Any]] = []
    fails, grouped = False, True
    seen: set[int] = set()
    for p in sorted(parts, key=lambda p: p.index):
        s = p.summary
        for k in ("files", "files_with_issues", "unreadable", "issues", "chunks", "chunks_with_issues",
                  "baselined"):
            setattr(total, k, getattr(total, k) + s[k])
        for k, v in s["per_rule"].items():
            total.per_rule[k] = total.per_rule.get(k, 0) + v
        for k, v in s["per_severity"].items():
            total.per_severity[k] = total.per_severity.get(k, 0) + v
        total.approximate = total.approximate or s["approximate"]
        for k, v in p.modes.items():
            modes[k] = modes.get(k, 0) + v
        errors.extend(p.errors)
        fails = fails or p.fails
        grouped = grouped and not p.repeated and not (seen & p.keys)
        seen |= p.keys
    return total, modes, errors, fails, grouped


def make_output_dir(out_dir: str) -> None:
    if "://" not in out_dir:
        os.makedirs(out_dir, exist_ok=True)
    else:
        import fsspec

        fs, path = fsspec.core.url_to_fs(out_dir)
        fs.makedirs(path, exist_ok=True)


def write_summary(out_dir: str, doc: dict[str, Any]) -> None:
    with (_open(_join(out_dir, "summary.json"), "w") if "://" in out_dir
          else open(_join(out_dir, "summary.json"), "w", encoding="utf-8")) as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def local_cluster(workers: int) -> tuple[Any, Any]:
    """(cluster, security) of ``--scheduler local``: worker processes on loopback that no other
    local user can join nor submit work to. The scheduler and workers speak mutual TLS with a
    certificate authority made for this run and kept in memory (``Security.temporary()``: a
    connection without its certificate fails the handshake); without the ``cryptography``
    library, one in-process worker pool on Dask's ``inproc://`` transport (no socket at all)."""
    from dask.distributed import LocalCluster

    try:
        from distributed.security import Security

        security = Security.temporary()
    except ImportError:  # cryptography is not installed: no listening socket instead
        return LocalCluster(n_workers=1, threads_per_worker=workers, processes=False,
                            dashboard_address=None), None
    import dask

    # Dask's HTTP servers (dashboard, metrics, task information) have no authentication:
    # they serve no route at all here
    with dask.config.set({"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               protocol="tls", security=security, dashboard_address=None)
    return cluster, security


@contextmanager
def connect(scheduler: str, workers: int) -> Iterator[Any]:
    """A Dask client of the scheduler at ``scheduler``, or of a LocalCluster of ``workers``
    processes on loopback for ``local``; closed (with the cluster) on exit."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("--scheduler needs Dask: pip install 'chunkseam[dask]'") from None
    cluster = None
    if scheduler == "local":
        cluster, security = local_cluster(max(1, workers))
        client = Client(cluster, security=security) if security is not None else Client(cluster)
    else:
        client = Client(scheduler)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run(url: str, dump_name: str, scheduler: str, workers: int, settings: Any, source_root: str | None,
        allow_outside_root: bool, out_dir: str, fmt: str, fail_on: str,
        on_shuffle: Any = None) -> tuple[Any, dict[str, int], list[dict[str, Any]], bool, bool]:
    """Audit the dump on the cluster at ``scheduler`` (``local``: a LocalCluster of ``workers``)."""
    make_output_dir(out_dir)
    with connect(scheduler, workers) as client:
        n = max(1, sum(client.nthreads().values()))
        ranges = split_ranges(url, n * 4)
        counts = client.gather(client.map(count_lines, [url] * len(ranges), [a for a, _ in ranges],
                                          [b for _, b in ranges], pure=False))
        first, firsts = 1, []
        for c in counts:
            firsts.append(first)
            first += c
        futures = [client.submit(audit_range, url, dump_name, a, b, firsts[i], i, settings, source_root,
                                 allow_outside_root, out_dir, fmt, fail_on, pure=False)
                   for i, (a, b) in enumerate(ranges)]
        parts = client.gather(futures)
        *_, grouped = merge(parts)
        if not grouped:  # a document's chunks in several places: gather each document whole, again
            if on_shuffle is not None:
                on_shuffle()
            import dask.bag as db
            from dask import delayed

            bag = db.from_delayed([delayed(keyed_lines)(url, a, b, firsts[i]) for i, (a, b) in enumerate(ranges)])
            shuffled = bag.groupby(lambda row: row[0], shuffle="tasks", npartitions=len(ranges))
            tasks = [delayed(audit_shuffled)(part, i, dump_name, settings, source_root, allow_outside_root,
                                             out_dir, fmt, fail_on)
                     for i, part in enumerate(shuffled.to_delayed())]
            parts = client.gather(client.compute(tasks))
            for p in parts:
                p.keys, p.repeated = set(), False
    total, modes, errors, fails, grouped = merge(parts)
    write_summary(out_dir, {"summary": total.to_dict(), "modes": modes, "errors": errors,
                            "parts": [p.part for p in sorted(parts, key=lambda p: p.index)]})
    return total, modes, errors, fails, grouped


# --- lint on a cluster ------------------------------------------------------------------------------
#
# The client discovers the files and resolves each one's settings (config files, per-file ignores)
# exactly as the single-process run does, reads each file's bytes and sends them with the task: the
# workers need not see the client's filesystem (a cluster's workers usually do not), and a file's
# name in the report is the name the client gave it. The bytes are decoded and checked on the worker
# by the same code as `lint` (decode_source, lint_one). Path patterns (per-file-ignores, chunker
# routes) match a relative path against the current directory, which is the client's, not the
# worker's: the worker checks the file under its absolute client path, with the settings anchored
# at their configuration directory (the client's current directory when there is none), and the
# results are renamed back to the path the user gave. A batch closes at BATCH_BYTES; a few batches
# per worker thread are in flight, so the client never holds the whole tree in memory.

#: a lint task closes once its files weigh this many bytes (or hold MAX_ITEMS files)
BATCH_BYTES = 256 * 1024
MAX_ITEMS = 64
IN_FLIGHT = 3


def lint_batch(batch: list[tuple[str, str, Any, bytes | str]], index: int, out_dir: str | None,
               fmt: str, fail_on: str) -> list[Any] | PartResult:
    """Lint one batch of files on a worker: each item is (path, absolute path, settings, bytes),
    or (path, absolute path, settings, message) for a file the client could not read. The results, or with ``out_dir``
    their full records in ``part-NNNNN.jsonl``/``.sarif`` and a summary back."""
    from chunkseam.audit.dump import SourceError, decode_source
    from chunkseam.lint.files import lint_one
    from chunkseam.report.formats import FileResult

    results = []
    for path, where, settings, data in batch:
        if isinstance(data, str):
            results.append(FileResult(path=path, error=data))
            continue
        try:
            text = decode_source(data, keep_bom=True)
        except SourceError as exc:
            results.append(FileResult(path=path, error=str(exc)))
            continue
        r = lint_one((where, settings, text))
        r.path = path
        for rec in r.records:
            rec.path = path
        results.append(r)
    if out_dir is None:
        return results
    return _write_lint_part(results, index, out_dir, fmt, fail_on)


def _write_lint_part(results: list[Any], index: int, out_dir: str, fmt: str, fail_on: str) -> PartResult:
    from chunkseam.report import formats as report
    part = PartResult(index, part=f"part-{index:05d}.{'sarif' if fmt == 'sarif' else 'jsonl'}")
    summary = report.Summary()
    if "://" in out_dir:
        import fsspec

        out = fsspec.open(_join(out_dir, part.part), "w", encoding="utf-8").open()
    else:
        out = open(_join(out_dir, part.part), "w", encoding="utf-8")  # noqa: SIM115
    with out:
        stream = report.SarifStream(out) if fmt == "sarif" else report.JsonLinesStream(out)
        for r in results:
            if r.error is not None:
                part.errors.append({"path": r.path, "message": r.error})
            summary.add(r)
            part.fails = part.fails or report.failing(r.records, fail_on)
            stream.add(r)
        stream.close(summary, part.errors)
    part.summary = _summary_state(summary)
    return part


def _read_for_worker(path: str) -> bytes | str:
    from chunkseam.audit.dump import SourceError, read_source_bytes

    try:
        return read_source_bytes(path)
    except SourceError as exc:
        return str(exc)


def _lint_batches(items: Iterable[tuple[str, Any]],
                  limit: int) -> Iterator[list[tuple[str, str, Any, bytes | str]]]:
    from dataclasses import replace

    cwd = os.getcwd()
    anchored: dict[int, Any] = {}  # id(settings) -> the same settings, anchored (one copy each)
    batch: list[tuple[str, str, Any, bytes | str]] = []
    size = 0
    for path, settings in items:
        s = anchored.get(id(settings))
        if s is None:
            s = anchored[id(settings)] = (settings if getattr(settings, "config_root", None)
                                          else replace(settings, config_root=cwd))
        data = _read_for_worker(path)
        batch.append((path, os.path.abspath(path), s, data))
        size += len(data)
        if size >= limit or len(batch) >= MAX_ITEMS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def lint_on_cluster(client: Any, items: list[tuple[str, Any]], out_dir: str | None, fmt: str,
                    fail_on: str) -> Iterator[Any]:
    """Each batch's answer (its list of results, or with ``out_dir`` its :class:`PartResult`), in
    the order of ``items`` whatever order the workers finish in."""
    threads = max(1, sum(client.nthreads().values()))
    total = 0
    for path, _ in items:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    limit = max(4096, min(BATCH_BYTES, total // (threads * 4) or 1))
    pending: deque = deque()
    for index, batch in enumerate(_lint_batches(items, limit)):
        pending.append(client.submit(lint_batch, batch, index, out_dir, fmt, fail_on, pure=False))
        if len(pending) >= threads * IN_FLIGHT:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
