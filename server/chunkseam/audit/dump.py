"""``chunkseam audit DUMP.jsonl``: validate the chunks of an existing index.

Each line of the dump is one chunk: ``text`` (required; LangChain's
``page_content`` is accepted too) and any of ``doc_id``, ``source`` (a path),
``chunk_index``, ``start``/``end``, ``start_index``, ``metadata.start_index``
(LangChain), ``start_char_idx``/``end_char_idx`` (LlamaIndex); the same keys
are looked up in ``metadata`` too.

Chunks are grouped into documents by ``doc_id`` (else ``source``) as they come
— consecutive lines of the same document form one group — so memory grows
with the largest document, not with the dump. For each document:

* **source-aware** when the source file can be read and *every* chunk can be
  located in it: the offset given matches the text there, or the text occurs
  exactly once, or (repeated text) exactly once within reach of the previous
  chunk. The full validator runs against the document.
* **text-only** otherwise (no source, unreadable, or a chunk not found): the
  text-only checks of :func:`chunkseam.engine.validate.validate_text_only`.

The mode each document got, and why, is part of the report.
"""

from __future__ import annotations

import json
import re
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from chunkseam.report.formats import FileResult, record_from_issue
from chunkseam.engine.validate import statistics


class SourceError(Exception):
    """A file that cannot be linted: unreadable, binary, not UTF-8 …"""


#: ``root`` of :func:`read_source_bytes` when the repository root applies
PROJECT_ROOT: Any = object()


def read_source(
    path: str | Path, root: str | Path | None = PROJECT_ROOT, *, keep_bom: bool = False
) -> str:
    """The text of a UTF-8 file (a leading BOM dropped unless ``keep_bom``), or
    :class:`SourceError` saying why not.

    Only regular files are opened (a FIFO or a device would block or never end), and no
    symbolic link that leaves ``root`` is followed (see :func:`read_source_bytes`).
    """
    return decode_source(read_source_bytes(path, root), keep_bom=keep_bom)


def too_large(size: int | str) -> SourceError:
    """The error of a file over :data:`MAX_SOURCE_BYTES` (``size``: its size in bytes, or a phrase)."""
    from chunkseam.core.budget import MAX_SOURCE_BYTES, SEE

    what = f"{size:,} bytes" if isinstance(size, int) else size
    return SourceError(f"too large: {what} (files of at most {MAX_SOURCE_BYTES:,} bytes are read; "
                       f"{SEE}), skipped")


def read_bounded(f, limit: int | None = None, size: int | None = None) -> bytes:
    """At most ``limit`` (:data:`~chunkseam.core.budget.MAX_SOURCE_BYTES`) bytes of
    the binary stream ``f``; :class:`SourceError` when there are more (a file
    that grew since its ``size`` was read, a pipe): never more than the limit is
    held in memory. ``size``, a regular file's size, is read at once; anything
    else in pieces (a read of N bytes sets N bytes aside before reading)."""
    from chunkseam.core.budget import MAX_SOURCE_BYTES

    limit = MAX_SOURCE_BYTES if limit is None else limit
    parts: list[bytes] = []
    total = 0
    if size is not None:
        first = f.read(min(limit, size) + 1)
        if len(first) <= size:
            return first  # the whole file
        parts.append(first)
        total = len(first)
    while total <= limit:
        piece = f.read(min(1 << 20, limit + 1 - total))
        if not piece:
            break
        parts.append(piece)
        total += len(piece)
    if total > limit:
        raise too_large(f"more than {limit:,} bytes")
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_source_bytes(path: str | Path, root: str | Path | None = PROJECT_ROOT) -> bytes:
    """The bytes of a regular file, or :class:`SourceError` saying why not
    (over :data:`~chunkseam.core.budget.MAX_SOURCE_BYTES`: "too large", before any
    byte is read).

    A path through a symbolic link is read only when the link stays inside ``root``
    (the repository root by default, see :mod:`chunkseam.config.confine`; None: anywhere)
    and out of ``.git``; the reason names no part of the target.
    """
    from chunkseam.core.budget import MAX_SOURCE_BYTES

    p = Path(path)
    if root is not None:
        from chunkseam.config.confine import refusal

        why = refusal(p, None if root is PROJECT_ROOT else root)
        if why is not None:
            raise SourceError(why)
    try:
        import stat

        st = os.stat(p)
        if stat.S_ISDIR(st.st_mode):
            raise SourceError("is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise SourceError("not a regular file (a FIFO, socket or device), skipped")
        if st.st_size > MAX_SOURCE_BYTES:
            raise too_large(st.st_size)
        with open(p, "rb") as f:
            data = read_bounded(f, size=st.st_size)
    except SourceError:
        raise
    except FileNotFoundError:
        raise SourceError("broken symbolic link" if os.path.islink(p) else "No such file or directory") from None
    except PermissionError:
        raise SourceError("Permission denied") from None
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None
    return data


def decode_source(data: bytes, *, keep_bom: bool = False) -> str:
    """The text of a file's bytes (UTF-8; a leading BOM dropped unless ``keep_bom``:
    a pipeline that reads the file as UTF-8 keeps it as U+FEFF, and ``lint`` reports
    the offsets of the file as read), or :class:`SourceError` saying why not."""
    if b"\x00" in data[:8192]:
        raise SourceError(_nul_reason(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(f"not UTF-8: invalid byte 0x{data[exc.start]:02x} at byte {exc.start} "
                          f"(line {line}), skipped") from None
    return text[1:] if text.startswith("\ufeff") and not keep_bom else text


def _nul_reason(data: bytes) -> str:
    """Why a file with NUL bytes is skipped: UTF-16/32 text is named as such."""
    boms = ((b"\xff\xfe\x00\x00", "UTF-32 LE"), (b"\x00\x00\xfe\xff", "UTF-32 BE"),
            (b"\xff\xfe", "UTF-16 LE"), (b"\xfe\xff", "UTF-16 BE"))
    found = next((name for bom, name in boms if data.startswith(bom)), None)
    if found is None:
        head = data[:8192]
        even, odd = head[0::2], head[1::2]
        # ASCII-range text in UTF-16 without a byte order mark: every other byte is NUL
        if len(head) >= 4 and odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
            found = "UTF-16 LE"
        elif len(head) >= 4 and even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
            found = "UTF-16 BE"
    if found is not None:
        return f"{found} text, not UTF-8: convert it to UTF-8 to check it, skipped"
    return "binary file (contains NUL bytes), skipped"


# --- bounded parallel map (keeps memory flat on huge inputs) -------------------------------


def bounded_map(func: Callable, items: Iterable, jobs: int, *, window: int | None = None) -> Iterator:
    """``map(func, items)`` in order, on ``jobs`` processes, with at most
    ``window`` items in flight (``Pool.imap`` would read the whole input)."""
    if jobs <= 1:
        for item in items:
            yield func(item)
        return
    import multiprocessing as mp

    method = "fork" if "fork" in mp.get_all_start_methods() else None
    ctx = mp.get_context(method)
    window = window or jobs * 4
    with ctx.Pool(jobs) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.apply_async(func, (item,)))
            if len(pending) >= window:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


# --- reading the dump -----------------------------------------------------------------------


@dataclass
class DumpChunk:
    line: int
    text: str
    doc_id: str | None = None
    source: str | None = None
    chunk_index: int | None = None
    start: int | None = None
    end: int | None = None
    #: 1-based position in a JSON array dump (None for JSON Lines)
    item: int | None = None

    @property
    def where(self) -> str:
        """``dump line 12`` (JSON Lines) or ``dump item 3, line 12`` (a JSON array)."""
        return f"dump line {self.line}" if self.item is None else f"dump item {self.item}, line {self.line}"


@dataclass
class DumpError:
    line: int
    message: str


def _lookup(obj: dict, *names: str) -> Any:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    for n in names:
        if n in obj and obj[n] is not None:
            return obj[n]
    for n in names:
        if n in meta and meta[n] is not None:
            return meta[n]
    return None


def _int_or_none(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    return None


def parse_line(raw: str, line_no: int) -> DumpChunk | DumpError | None:
    raw = raw.strip()
    if not raw:
        return None
    if line_no == 1 and raw.startswith("\ufeff"):  # a UTF-8 byte order mark
        raw = raw[1:].strip()
    try:
        obj = json.loads(raw)
    except ValueError as exc:
        return DumpError(line_no, f"malformed JSON line: {exc}")
    except RecursionError:
        return DumpError(line_no, "malformed JSON line: nested too deeply")
    return parse_object(obj, line_no)


def _unwrap(obj: Any) -> Any:
    """LangChain's ``Document.to_json()`` (``{"lc": 1, "type": "constructor",
    "kwargs": {...}}``) -> its fields; LlamaIndex's ``TextNode`` keeps its
    document id under ``relationships`` ("1" = SOURCE) -> ``ref_doc_id``."""
    if isinstance(obj, dict) and obj.get("lc") is not None and isinstance(obj.get("kwargs"), dict):
        obj = obj["kwargs"]
    if isinstance(obj, dict) and isinstance(obj.get("relationships"), dict) and "ref_doc_id" not in obj:
        rel = obj["relationships"]
        source = rel.get("1", rel.get("SOURCE", rel.get("NodeRelationship.SOURCE")))
        if isinstance(source, dict) and isinstance(source.get("node_id"), str):
            obj = {**obj, "ref_doc_id": source["node_id"]}
    return obj


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_object(obj: Any, line_no: int) -> DumpChunk | DumpError:
    """One chunk of the dump: a JSON object (a record, a LangChain ``Document``
    or a LlamaIndex ``TextNode`` as their own exports write them)."""
    obj = _unwrap(obj)
    if not isinstance(obj, dict):
        return DumpError(line_no, "expected a JSON object with a \"text\" field")
    text = obj.get("text", obj.get("page_content"))
    if not isinstance(text, str):
        return DumpError(line_no, "missing \"text\" (a string)")
    doc_id = _lookup(obj, "doc_id", "ref_doc_id", "document_id")
    source = _lookup(obj, "source", "file_path", "path")
    for name, value in (("text", text), ("doc_id", doc_id), ("source", source)):
        bad = _SURROGATE.search(value) if isinstance(value, str) else None
        if bad is not None:  # JSON's "\ud800" escape decodes to a lone surrogate: not text
            return DumpError(line_no, f"\"{name}\" holds a lone surrogate escape "
                                      f"(\\u{ord(bad.group()):04x}), not text; the line is skipped")
    start = _int_or_none(_lookup(obj, "start", "start_index", "start_char_idx"))
    end = _int_or_none(_lookup(obj, "end", "end_index", "end_char_idx"))
    return DumpChunk(
        line=line_no, text=text,
        doc_id=None if doc_id is None else str(doc_id),
        source=None if source is None else str(source),
        chunk_index=_int_or_none(_lookup(obj, "chunk_index", "chunk_id", "index")),
        start=start, end=end,
    )


@dataclass
class DocGroup:
    key: str | None
    doc_id: str | None
    source: str | None
    chunks: list[DumpChunk] = field(default_factory=list)
    #: True when this key already appeared earlier in the dump (lines not consecutive)
    repeated: bool = False


def array_items(text: str, on_error: Callable[[DumpError], None]) -> Iterator[tuple[int, Any, int]]:
    """(line, object, 1-based item) of each element of a JSON array file (what ``json.dump([...])``
    writes, indented or not); the line is where the element starts."""
    decoder = json.JSONDecoder()
    i = text.index("[") + 1
    line, counted = 1, 0

    def skip(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        return i

    i = skip(i)
    item = 0
    while i < len(text) and text[i] != "]":
        line += text.count("\n", counted, i)
        counted = i
        try:
            obj, end = decoder.raw_decode(text, i)
        except ValueError as exc:
            on_error(DumpError(line, f"malformed JSON array element: {exc}"))
            return
        except RecursionError:
            on_error(DumpError(line, "malformed JSON array element: nested too deeply"))
            return
        item += 1
        yield line, obj, item
        i = skip(end)
    if i >= len(text):
        on_error(DumpError(line, "malformed JSON array: no closing ']'"))


def read_groups(lines: Iterable[Any], on_error: Callable[[DumpError], None],
                on_progress: Callable[[int], None] | None = None, *, first_line: int = 1) -> Iterator[DocGroup]:
    """Consecutive chunks of the same document, streamed. ``lines`` are JSON
    Lines (the first is line ``first_line`` of the dump), or (line, object,
    item) triples from :func:`array_items`."""
    current: DocGroup | None = None
    seen: set[str] = set()
    for n, raw in enumerate(lines, first_line):
        if isinstance(raw, tuple):
            n, obj, k = raw
            item: DumpChunk | DumpError | None = parse_object(obj, n)
            if isinstance(item, DumpChunk):
                item.item = k
        else:
            if on_progress is not None:
                on_progress(len(raw.encode("utf-8", "surrogatepass")))
            item = parse_line(raw, n)
        if item is None:
            continue
        if isinstance(item, DumpError):
            on_error(item)
            continue
        key = item.doc_id if item.doc_id is not None else item.source
        if current is None or key != current.key:
            if current is not None:
                yield current
            current = DocGroup(key, item.doc_id, item.source, repeated=key is not None and key in seen)
            if key is not None:
                seen.add(key)
        current.chunks.append(item)
    if current is not None:
        yield current


# --- locating chunks --------------------------------------------------------------------------


def locate(text: str, chunks: list[DumpChunk],
           misplaced: list[tuple[int, int, int]] | None = None) -> tuple[list[tuple[int, int]] | None, str]:
    """Offsets of every chunk in ``text``, or (None, why not).

    A chunk whose given ``start`` does not point at its text but that is
    located all the same is appended to ``misplaced`` as (position in
    ``chunks``, given start, located start): wrong offsets in the dump are
    reported (CS301), never silently corrected.

    A chunk is located by its offset when the text there matches; else where
    its text occurs exactly once; else (repeated text) right where the
    previous chunk ends (after whitespace a splitter may have stripped), or at
    the one occurrence that starts inside the previous chunk (overlap). The
    first chunk's "previous chunk" is the start of the document. Never the
    first match of a search, which is wrong on repeated text.
    """
    spans: list[tuple[int, int]] = []
    prev = (0, 0)
    for c in chunks:
        if not c.text:
            return None, f"chunk on line {c.line} is empty"
        at: int | None = None
        if c.start is not None and 0 <= c.start <= len(text) and text.startswith(c.text, c.start):
            at = c.start
        else:
            first = text.find(c.text)
            if first >= 0 and text.find(c.text, first + 1) < 0:
                at = first
            elif first >= 0:
                lo, hi = prev
                reach = hi
                while reach < len(text) and text[reach].isspace():
                    reach += 1
                if text.startswith(c.text, hi):
                    at = hi
                elif reach != hi and text.startswith(c.text, reach):
                    at = reach
                else:
                    near = []
                    pos = text.find(c.text, lo + 1 if spans else lo)
                    while 0 <= pos < hi:
                        near.append(pos)
                        pos = text.find(c.text, pos + 1)
                    if len(near) == 1:
                        at = near[0]
        if at is None:
            given = f" at offset {c.start}" if c.start is not None else ""
            found = text.count(c.text) if len(c.text) < 10000 else (1 if c.text in text else 0)
            why = "not found in the source" if found == 0 else f"found {found} times in the source (ambiguous)"
            return None, f"chunk on line {c.line}{given}: {why}"
        if c.start is not None and at != c.start and misplaced is not None:
            misplaced.append((len(spans), c.start, at))
        spans.append((at, at + len(c.text)))
        prev = spans[-1]
    n = len(chunks)
    return spans, ("the chunk located in the source" if n == 1 else f"all {n} chunks located in the source")


# --- auditing one document ----------------------------------------------------------------------


@dataclass
class AuditJob:
    group: DocGroup
    dump_path: str
    source_root: str | None
    settings: Any
    fingerprints: bool = True
    #: read sources outside ``source_root`` (else they are refused: a dump is untrusted input)
    allow_outside_root: bool = False
    #: also measure each chunk (``FileResult.sizes``, for ``audit --report``)
    sizes: bool = False


def _resolve_source(source: str, root: str | None) -> Path:
    if source.startswith("file://"):
        from urllib.parse import unquote, urlparse

        source = unquote(urlparse(source).path)
    p = Path(source).expanduser()
    if not p.is_absolute() and root:
        p = Path(root) / p
    return p


def outside_root(path: Path, root: str | None) -> str | None:
    """Why ``path`` may not be read as a source, or None: a dump's ``source``
    must stay inside the source root (the current directory by default),
    after resolving ``..`` and symbolic links."""
    try:
        base = Path(root or ".").resolve()
        real = path.resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL in the path
        return f"cannot be resolved ({exc})"
    if real == base or base in real.parents:
        return None
    where = f"--source-root {root}" if root else "the current directory (no --source-root)"
    return f"is outside {where}; not read (pass --allow-outside-root to read it)"


def audit_group(job: AuditJob) -> FileResult:
    """The audit of one document of the dump."""
    result = _audit_group(job)
    if job.sizes:  # not a dataclass field: never part of a report, travels with the result
        from chunkseam.engine.analysis import sizer_for

        sizer = sizer_for(job.settings)
        result.sizes = [sizer.count(c.text) for c in job.group.chunks]  # type: ignore[attr-defined]
    return result


def _audit_group(job: AuditJob) -> FileResult:
    from chunkseam.report.baseline import fingerprint
    from chunkseam.core.chunk import Chunk, renumber
    from chunkseam.document.text import Document
    from chunkseam.engine.validate import validate

    g = job.group
    settings = job.settings
    label = g.doc_id if g.doc_id is not None else (g.source or "(no doc_id)")
    sizer = None
    text = None
    reason = "no source given"
    src_path: Path | None = None
    if g.source:
        src_path = _resolve_source(g.source, job.source_root)
        refused = None if job.allow_outside_root else outside_root(src_path, job.source_root)
        if refused is not None:
            reason = f"source {g.source} {refused}"
        else:
            try:
                text = read_source(src_path, None if job.allow_outside_root else (job.source_root or "."))
            except SourceError as exc:
                reason = f"source {src_path} not readable: {exc}"
    nb_doc = None
    if text is not None and src_path is not None and src_path.suffix.lower() == ".ipynb":
        # a notebook's chunks come from the text of its cells (the view), not its JSON
        from chunkseam.document.notebook import NotebookError, open_document

        try:
            nb_doc = open_document(text, str(src_path), settings)
            nb_raw, text = text, nb_doc.text
        except NotebookError as exc:
            text, reason = None, f"source {src_path}: {exc}"
    if text is not None:
        misplaced: list[tuple[int, int, int]] = []
        spans, reason = locate(text, g.chunks, misplaced)
        if spans is not None:
            from chunkseam.engine.analysis import sizer_for

            sizer = sizer_for(settings)
            doc = nb_doc if nb_doc is not None else Document(text, path=str(src_path))
            # chunks are numbered in dump order (chunk N = the document's N-th line in the dump);
            # the validator takes them unsorted and numbers them by position
            chunks = [Chunk(s, e, i, text, sizer.count(text[s:e]), "audit") for i, (s, e) in enumerate(spans)]
            dump_of = dict(enumerate(g.chunks))
            issues = validate(doc, chunks, settings, sizer=sizer)
            issues.extend(_wrong_offsets(doc, g.chunks, misplaced, settings))
            issues.sort(key=lambda i: (i.start, i.cut if i.cut is not None else -1, i.code))
            records = []
            for i in issues:
                dc = dump_of.get(i.chunk) if i.chunk is not None else None
                extra = {"doc_id": g.doc_id, "source": g.source, "mode": "source-aware",
                         "chunk_index": (dc.chunk_index if dc and dc.chunk_index is not None else i.chunk),
                         "dump_line": dc.line if dc else None}
                if dc is not None:
                    i.message += f" ({dc.where})"
                    if dc.item is not None:
                        extra["dump_item"] = dc.item
                fp = fingerprint(text, i.code, i.start, i.end, i.cut) if job.fingerprints else ""
                records.append(record_from_issue(doc, i, str(src_path), fingerprint=fp, **extra))
            if nb_doc is not None and records:
                from chunkseam.document.notebook import file_line, source_lines

                lines = source_lines(nb_raw)  # the .ipynb's own lines, for SARIF and GitHub annotations
                for rec in records:
                    rec.extra["file_line"] = file_line(lines, rec.extra["cell"], rec.line)
                    rec.extra["end_file_line"] = file_line(lines, rec.extra["end_cell"], rec.end_line)
            stats = statistics(chunks, issues)
            return FileResult(path=str(src_path), chunker="audit", chunks=len(chunks),
                              chunks_with_issues=stats.chunks_with_issues, per_rule=dict(stats.per_rule),
                              records=records,
                              approximate=bool(getattr(sizer, "approximate", False)),
                              mode="source-aware", mode_reason=reason, doc_id=g.doc_id,
                              extra={"source": g.source, "label": label, "dump_lines": [g.chunks[0].line, g.chunks[-1].line]})
    return _text_only(job, label, reason)


def _wrong_offsets(doc: Any, chunks: list[DumpChunk], misplaced: list[tuple[int, int, int]],
                   settings: Any) -> list[Any]:
    """CS301 for chunks whose given ``start`` does not point at their text (found elsewhere)."""
    from chunkseam.checks import registry
    from chunkseam.core.issue import Issue

    enabled = registry.resolve_selection(settings, doc.path)
    if "CS301" not in enabled:
        return []
    rule = registry.RULES["CS301"]
    out = []
    for pos, given, at in misplaced:
        c = chunks[pos]
        shown = " ".join(c.text[:40].split())
        out.append(Issue(
            "CS301", rule.name, enabled["CS301"],
            f'chunk {pos + 1}\'s start is {given} but its text ("{shown}…") is at {at} in the source: '
            f"the dump's offsets are wrong",
            at, at + len(c.text), chunk=pos,
            fix="track offsets while chunking instead of searching for the text",
            data={"found": [at], "given": given, "occurrences": None}))
    return out


def _text_only(job: AuditJob, label: str, reason: str) -> FileResult:
    from chunkseam.report.baseline import fingerprint
    from chunkseam.document.text import Document

    g = job.group
    texts = [c.text for c in g.chunks]
    from chunkseam.engine.validate import validate_text_only

    issues = validate_text_only(texts, job.settings)
    records = []
    for i in issues:
        k = i.chunk if i.chunk is not None and 0 <= i.chunk < len(g.chunks) else None
        dc = g.chunks[k] if k is not None else g.chunks[0]
        ctext = dc.text
        cdoc = Document(ctext, path=job.dump_path)
        rec = record_from_issue(cdoc, i, job.dump_path,
                                fingerprint=fingerprint(ctext, i.code, i.start, i.end, i.cut) if job.fingerprints else "",
                                doc_id=g.doc_id, source=g.source, mode="text-only",
                                chunk_index=dc.chunk_index if dc.chunk_index is not None else k,
                                dump_line=dc.line, offsets_in="chunk text")
        # in text-only mode the place to look is the dump line holding the chunk
        rec.line = dc.line
        rec.end_line = dc.line
        rec.column, rec.end_column = 1, 1
        records.append(rec)
    stats = statistics(range(len(g.chunks)), issues)
    return FileResult(path=job.dump_path, chunker="audit", chunks=len(g.chunks),
                      chunks_with_issues=stats.chunks_with_issues, per_rule=dict(stats.per_rule), records=records, mode="text-only", mode_reason=reason,
                      doc_id=g.doc_id, extra={"source": g.source, "label": label,
                                              "dump_lines": [g.chunks[0].line, g.chunks[-1].line]})
