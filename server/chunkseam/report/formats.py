"""Results of a lint or audit run, and their output formats.

A run produces one :class:`FileResult` per file (or per audited document);
each carries :class:`Record` s — issues with their 1-based line/column already
computed through :meth:`chunkseam.document.text.Document.line_col` (the only place
offsets become positions). This module turns them into text, JSON, SARIF
2.1.0 and GitHub annotations, plus the summary line and ``--statistics``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

from chunkseam.core.version import __version__
from chunkseam.core.issue import SEVERITY_RANK
from chunkseam.core.printable import printable  # noqa: F401  (re-exported: the report's escaping)

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
from chunkseam.checks.registry import REPOSITORY_URL as INFORMATION_URI
from chunkseam.checks.registry import rule_url


@dataclass
class Record:
    """One issue, ready for output."""

    path: str
    code: str
    name: str
    severity: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    start_offset: int
    end_offset: int
    chunk: int | None = None
    other_chunk: int | None = None
    fingerprint: str = ""
    #: extra JSON fields (cut, fix, related, doc_id, source, chunk_index, dump_line, mode …)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in _RECORD_FIELDS}
        d.update(self.extra)
        return d


#: the fields of a Record in order, but ``extra`` (merged into the dict)
_RECORD_FIELDS = tuple(f.name for f in fields(Record) if f.name != "extra")


@dataclass
class FileResult:
    path: str
    chunker: str = ""
    chunks: int = 0
    chunks_with_issues: int = 0
    per_rule: dict[str, int] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    #: set when the file could not be read / analysed (reported, skipped)
    error: str | None = None
    approximate: bool = False
    #: audit: "source-aware" | "text-only" and why
    mode: str | None = None
    mode_reason: str | None = None
    doc_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def record_from_issue(doc, issue, path: str, *, fingerprint: str = "", **extra: Any) -> Record:
    """A :class:`Record` for ``issue`` of ``doc``; positions via ``doc.location``
    (for a notebook: ``cell`` and ``end_cell``, line and column in the cell's source)."""
    cell, line, col = doc.location(issue.start)
    end_cell, end_line, end_col = doc.location(max(issue.end, issue.start))
    fields_extra: dict[str, Any] = {}
    if cell is not None:
        fields_extra.update(cell=cell, end_cell=end_cell)
    if issue.cut is not None:
        cc_cell, cl, cc = doc.location(issue.cut)
        fields_extra.update(cut=issue.cut, cut_line=cl, cut_column=cc)
        if cc_cell is not None:
            fields_extra["cut_cell"] = cc_cell
    if issue.related:
        rs, re_ = issue.related
        r_cell, rl, rc = doc.location(rs)
        re_cell, rel, rec = doc.location(re_)
        fields_extra["related"] = {"start_offset": rs, "end_offset": re_, "line": rl, "column": rc,
                                   "end_line": rel, "end_column": rec,
                                   "message": issue.related_message}
        if r_cell is not None:
            fields_extra["related"].update(cell=r_cell, end_cell=re_cell)
    unit = getattr(issue, "unit", None)
    if unit is not None:
        us, ue = unit
        u_cell, ul, uc = doc.location(us)
        ue_cell, uel, uec = doc.location(max(ue, us))
        fields_extra["unit"] = {"start_offset": us, "end_offset": ue, "line": ul, "column": uc,
                                "end_line": uel, "end_column": uec}
        if u_cell is not None:
            fields_extra["unit"].update(cell=u_cell, end_cell=ue_cell)
    if issue.fix:
        fields_extra["fix"] = issue.fix
    if issue.data:
        fields_extra["data"] = issue.data
    fields_extra.update(extra)
    return Record(path, issue.code, issue.name, issue.severity, issue.message, line, col,
                  end_line, end_col, issue.start, issue.end, issue.chunk, issue.other_chunk,
                  fingerprint, fields_extra)


# --- summary -------------------------------------------------------------------------


@dataclass
class Summary:
    files: int = 0
    files_with_issues: int = 0
    unreadable: int = 0
    issues: int = 0
    chunks: int = 0
    chunks_with_issues: int = 0
    per_rule: dict[str, int] = field(default_factory=dict)
    per_severity: dict[str, int] = field(default_factory=dict)
    baselined: int = 0
    approximate: bool = False

    @property
    def rate(self) -> float:
        return self.chunks_with_issues / self.chunks if self.chunks else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "files_with_issues": self.files_with_issues,
            "unreadable": self.unreadable,
            "issues": self.issues,
            "chunks": self.chunks,
            "chunks_with_issues": self.chunks_with_issues,
            "rate": round(self.rate, 6),
            "per_rule": dict(sorted(self.per_rule.items())),
            "per_severity": self.per_severity,
            "baselined": self.baselined,
            "approximate_tokens": self.approximate,
        }


    def add(self, r: FileResult) -> None:
        if r.error is not None:
            self.unreadable += 1
            return
        self.files += 1
        self.chunks += r.chunks
        self.chunks_with_issues += r.chunks_with_issues
        self.approximate = self.approximate or r.approximate
        if r.records:
            self.files_with_issues += 1
        for rec in r.records:
            self.issues += 1
            self.per_rule[rec.code] = self.per_rule.get(rec.code, 0) + 1
            self.per_severity[rec.severity] = self.per_severity.get(rec.severity, 0) + 1


def summarize(results: Iterable[FileResult], baselined: int = 0) -> Summary:
    s = Summary(baselined=baselined)
    for r in results:
        s.add(r)
    return s


def plural(n: int, word: str, plural: str | None = None) -> str:
    """``1 issue``, ``2 issues``, ``0 issues``."""
    return f"{n} {word if n == 1 else (plural or word + 's')}"


_plural = plural


def broken_chunks(records: Iterable[Record]) -> int:
    """Chunks broken by these records (errors and warnings), counted the way
    :func:`chunkseam.engine.validate.statistics` counts them: after a baseline drops
    known issues, the broken count follows the issues still shown."""
    broken: set[int] = set()
    for rec in records:
        if rec.severity not in ("error", "warning"):
            continue
        data = rec.extra.get("data") if rec.extra else None
        side = data.get("side") if isinstance(data, dict) else None
        chunk = rec.other_chunk if side == "start" else rec.chunk
        if chunk is not None:
            broken.add(chunk)
    return len(broken)


def summary_line(s: Summary, *, noun: str = "file") -> str:
    """``12 issues in 4 files; 38 of 412 chunks broken (9.2%)``."""
    head = "No issues" if s.issues == 0 else _plural(s.issues, "issue")
    line = (f"{head} in {_plural(s.files, noun)}; "
            f"{s.chunks_with_issues} of {_plural(s.chunks, 'chunk')} broken ({s.rate * 100:.1f}%)")
    extras = []
    if s.baselined:
        extras.append(f"{s.baselined} baselined {'issue' if s.baselined == 1 else 'issues'} not shown")
    if s.unreadable:
        extras.append(f"{_plural(s.unreadable, noun)} could not be checked")
    if s.approximate:
        extras.append("token counts approximate")
    if extras:
        line += " (" + "; ".join(extras) + ")"
    return line


# --- colour ----------------------------------------------------------------------------


def use_color(stream: TextIO, choice: str = "auto") -> bool:
    """Colour on a terminal only; ``NO_COLOR`` turns it off, ``FORCE_COLOR`` on."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, t: str) -> str:
        return self._wrap("1", t)

    def dim(self, t: str) -> str:
        return self._wrap("2", t)

    def cyan(self, t: str) -> str:
        return self._wrap("36", t)

    def severity(self, sev: str, t: str) -> str:
        code = {"error": "1;31", "warning": "1;33", "info": "1;34", "hint": "1;36"}.get(sev, "1")
        return self._wrap(code, t)


# --- rules metadata --------------------------------------------------------------------


def rules_table() -> dict[str, Any]:
    """``chunkseam.checks.registry.RULES`` when the validator provides it, else {}."""
    try:
        from chunkseam.checks.registry import RULES  # type: ignore[import-not-found]
    except Exception:  # the registry is optional until the validator lands
        return {}
    return dict(RULES)


def rule_attr(rule: Any, name: str, default: Any = None) -> Any:
    if rule is None:
        return default
    if isinstance(rule, dict):
        return rule.get(name, default)
    return getattr(rule, name, default)


# --- formats -------------------------------------------------------------------------------


def _where(rec: Record) -> str:
    """``line:column``, or ``cell N:line:column`` in a notebook."""
    cell = rec.extra.get("cell") if rec.extra else None
    return f"cell {cell}:{rec.line}:{rec.column}" if cell is not None else f"{rec.line}:{rec.column}"


def _file_region(rec: Record) -> tuple[int, int | None, int, int | None]:
    """(line, column, end line, end column) in the file itself: a notebook's
    issue is placed on the line of the .ipynb holding the cell's source line
    (``file_line``/``end_file_line``, set by lint), without columns — those
    are the cell's (see ``cell``, ``line`` and ``column``)."""
    if rec.extra and rec.extra.get("cell") is not None:
        fl = rec.extra.get("file_line", 1)
        return fl, None, max(fl, rec.extra.get("end_file_line", fl)), None
    end_col = max(rec.end_column, rec.column + (1 if rec.end_line == rec.line else 0))
    return rec.line, rec.column, rec.end_line, end_col


def write_text_records(out: TextIO, records: Iterable[Record], st: Style) -> None:
    for rec in records:
        # one location per issue, the same in every format: the range at the cut
        # (the whole broken unit is the JSON "unit" / SARIF relatedLocations)
        loc = f"{display_path(rec.path)}:{_where(rec)}:"
        out.write(f"{st.bold(loc)} {st.severity(rec.severity, rec.code)} "
                  f"{st.dim('[' + rec.name + ']')} {rec.message}\n")


def write_text(out: TextIO, results: list[FileResult], summary: Summary, *, color: bool,
               show_summary: bool = True, statistics: bool = False) -> None:
    st = Style(color)
    if statistics:
        write_statistics(out, summary, st)
    else:
        for r in results:
            write_text_records(out, r.records, st)
    if show_summary:
        out.write(st.bold(summary_line(summary)) + "\n")


def write_statistics(out: TextIO, summary: Summary, st: Style | None = None) -> None:
    st = st or Style(False)
    rules = rules_table()
    names: dict[str, str] = {}
    if not summary.per_rule:
        return
    width = max(len(str(n)) for n in summary.per_rule.values())
    for code, count in sorted(summary.per_rule.items(), key=lambda kv: (-kv[1], kv[0])):
        name = rule_attr(rules.get(code), "name", names.get(code, ""))
        out.write(f"{count:>{width}}\t{st.severity('warning', code)}\t{name}\n")


def file_entry(r: FileResult) -> dict[str, Any]:
    """A file's (or document's) entry in the JSON report's ``files``."""
    return {"path": r.path, "chunker": r.chunker, "chunks": r.chunks,
            "chunks_with_issues": r.chunks_with_issues, "issues": len(r.records),
            **({"mode": r.mode, "mode_reason": r.mode_reason} if r.mode else {}),
            **({"doc_id": r.doc_id} if r.doc_id is not None else {}), **r.extra}


def json_document(results: list[FileResult], summary: Summary, errors: list[dict[str, Any]],
                  **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": __version__,
        "issues": [rec.to_dict() for r in results for rec in r.records],
        "summary": summary.to_dict(),
        "files": [file_entry(r) for r in results if r.error is None],
        "errors": errors,
    }
    doc.update(extra)
    return doc


def write_json(out: TextIO, results: list[FileResult], summary: Summary,
               errors: list[dict[str, Any]], **extra: Any) -> None:
    json.dump(json_document(results, summary, errors, **extra), out, indent=2, ensure_ascii=False)
    out.write("\n")


class _ListSpool:
    """Items of a JSON list, formatted as ``json.dump(indent=2)`` would at
    ``depth``, written to ``out`` as they come (``out`` may be a temporary file)."""

    def __init__(self, out: TextIO, depth: int) -> None:
        self.out, self.pad, self.n = out, "  " * depth, 0

    def add(self, item: Any) -> None:
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n" + self.pad + "  ")
        self.out.write(("[\n" if self.n == 0 else ",\n") + self.pad + "  " + text)
        self.n += 1

    def close(self) -> None:
        self.out.write("[]" if self.n == 0 else "\n" + self.pad + "]")


def _spool() -> TextIO:
    import tempfile

    return tempfile.TemporaryFile("w+", encoding="utf-8")  # type: ignore[return-value]


def _copy(src: TextIO, out: TextIO) -> None:
    src.seek(0)
    while block := src.read(1 << 16):
        out.write(block)
    src.close()


class JsonStream:
    """The ``--format json`` document written as results arrive: the issues
    go out at once, the per-file entries wait in a temporary file, the summary
    and errors follow at the end. The text is exactly :func:`write_json`'s."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        out.write('{\n  "version": ' + json.dumps(__version__) + ',\n  "issues": ')
        self.issues = _ListSpool(out, 1)
        self.files_out = _spool()
        self.files = _ListSpool(self.files_out, 1)

    def add(self, r: FileResult) -> None:
        for rec in r.records:
            self.issues.add(rec.to_dict())
        if r.error is None:
            self.files.add(file_entry(r))

    def close(self, summary: Summary, errors: list[dict[str, Any]], **extra: Any) -> None:
        out = self.out
        self.issues.close()
        out.write(',\n  "summary": ' + _indented(summary.to_dict(), 1) + ',\n  "files": ')
        self.files.close()
        _copy(self.files_out, out)
        out.write(',\n  "errors": ' + _indented(errors, 1))
        for k, v in extra.items():
            out.write(",\n  " + json.dumps(k) + ": " + _indented(v, 1))
        out.write("\n}\n")


def _indented(value: Any, depth: int) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)


class JsonLinesStream:
    """``--format jsonl``: one JSON object a line, written as results arrive —
    ``{"type": "issue", …}`` per issue (the fields of ``--format json``'s
    issues), then ``{"type": "summary", …}`` with the summary and the files
    that could not be checked."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def add(self, r: FileResult) -> None:
        for rec in r.records:
            self.out.write(json.dumps({"type": "issue", **rec.to_dict()}, ensure_ascii=False) + "\n")

    def close(self, summary: Summary, errors: list[dict[str, Any]], **extra: Any) -> None:
        self.out.write(json.dumps({"type": "summary", "version": __version__, "summary": summary.to_dict(),
                                   "errors": errors, **extra}, ensure_ascii=False) + "\n")


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def _sarif_uri(path: str) -> str:
    p = Path(path)
    try:
        rel = p.resolve().relative_to(Path.cwd().resolve())
        return rel.as_posix()
    except (ValueError, OSError):
        return p.resolve().as_uri() if p.is_absolute() else p.as_posix()


def sarif_document(results: list[FileResult], summary: Summary,
                   errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """SARIF 2.1.0 with one rule entry per code (help text from the rule docs)."""
    registry = rules_table()
    used: dict[str, Record] = {}
    for r in results:
        for rec in r.records:
            used.setdefault(rec.code, rec)
    codes = sorted(set(registry) | set(used))
    index = {code: i for i, code in enumerate(codes)}
    rules = [_sarif_rule(code, registry.get(code), used.get(code)) for code in codes]
    sarif_results = [_sarif_result(rec, index) for r in results for rec in r.records]
    return _sarif_wrap(rules, sarif_results, summary, errors)


def _sarif_rule(code: str, rule: Any, sample: Record | None) -> dict[str, Any]:
    name = rule_attr(rule, "name", sample.name if sample else code)
    summary_text = rule_attr(rule, "summary", None) or (sample.name if sample else code)
    doc = rule_attr(rule, "doc", None) or (
        f"{code} {name}: see `chunkseam rule {code}` for what it means and how to fix it.")
    severity = rule_attr(rule, "severity", sample.severity if sample else "warning")
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary_text},
        "fullDescription": {"text": summary_text},
        "help": {"text": doc, "markdown": doc},
        "helpUri": rule_url(code),
        "defaultConfiguration": {"level": _SARIF_LEVEL.get(severity, "warning")},
        "properties": {"tags": ["chunking", "rag"]},
    }


def _sarif_result(rec: Record, index: dict[str, int]) -> dict[str, Any]:
    line, col, end_line, end_col = _file_region(rec)
    region: dict[str, Any] = {"startLine": line, "endLine": end_line}
    message = rec.message
    if col is None:  # a notebook: the message names the cell, offsets are the view's
        message = f"{_where(rec)}: {message}"
    else:
        region.update(startColumn=col, endColumn=end_col, charOffset=rec.start_offset,
                      charLength=max(0, rec.end_offset - rec.start_offset))
    result: dict[str, Any] = {
        "ruleId": rec.code,
        "ruleIndex": index[rec.code],
        "level": _SARIF_LEVEL.get(rec.severity, "warning"),
        "message": {"text": message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": _sarif_uri(rec.path), "uriBaseId": "%SRCROOT%"},
                "region": region,
            }
        }],
        "properties": {"chunk": rec.chunk, "otherChunk": rec.other_chunk},
    }
    if col is None:
        result["properties"].update(cell=rec.extra["cell"], cellLine=rec.line, cellColumn=rec.column)
    unit = rec.extra.get("unit") if rec.extra else None
    if col is not None and unit and (unit["start_offset"], unit["end_offset"]) != (rec.start_offset, rec.end_offset):
        result["relatedLocations"] = [{
            "id": 1,
            "message": {"text": "the whole unit that the cut breaks"},
            "physicalLocation": {
                "artifactLocation": {"uri": _sarif_uri(rec.path), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": unit["line"], "startColumn": unit["column"],
                           "endLine": unit["end_line"], "endColumn": unit["end_column"],
                           "charOffset": unit["start_offset"],
                           "charLength": max(0, unit["end_offset"] - unit["start_offset"])},
            },
        }]
    if rec.fingerprint:
        result["partialFingerprints"] = {"chunkseamCut/v1": rec.fingerprint}
    return result


def _sarif_wrap(rules: list[dict[str, Any]], sarif_results: Any, summary: Summary,
                errors: list[dict[str, Any]] | None) -> dict[str, Any]:
    notifications = [
        {"level": "error", "message": {"text": e.get("message", "")},
         **({"locations": [{"physicalLocation": {"artifactLocation": {"uri": _sarif_uri(e["path"])}}}]}
            if e.get("path") else {})}
        for e in (errors or [])
    ]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "chunkseam",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": INFORMATION_URI,
            "rules": rules,
        }},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "results": sarif_results,
        "invocations": [{
            "executionSuccessful": not errors,
            "toolExecutionNotifications": notifications,
        }],
        "properties": {"summary": summary.to_dict()},
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


_SENTINEL = "\u0000chunkseam-sarif-results\u0000"


class SarifStream:
    """``--format sarif`` written as results arrive: the results wait in a
    temporary file (not in memory) and the document is written at the end, the
    same text as :func:`write_sarif`'s when every rule is a registered one."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.registry = rules_table()
        self.codes = sorted(self.registry)
        self.index = {code: i for i, code in enumerate(self.codes)}
        self.samples: dict[str, Record] = {}
        self.spool = _spool()
        self.results = _ListSpool(self.spool, 3)

    def add(self, r: FileResult) -> None:
        for rec in r.records:
            if rec.code not in self.index:  # a plugin's rule: listed after the registered ones
                self.index[rec.code] = len(self.codes)
                self.codes.append(rec.code)
            self.samples.setdefault(rec.code, rec)
            self.results.add(_sarif_result(rec, self.index))

    def close(self, summary: Summary, errors: list[dict[str, Any]] | None = None) -> None:
        rules = [_sarif_rule(c, self.registry.get(c), self.samples.get(c)) for c in self.codes]
        text = json.dumps(_sarif_wrap(rules, _SENTINEL, summary, errors), indent=2, ensure_ascii=False)
        head, _, tail = text.partition(json.dumps(_SENTINEL))
        self.out.write(head)
        self.results.close()
        _copy(self.spool, self.out)
        self.out.write(tail + "\n")


def write_sarif(out: TextIO, results: list[FileResult], summary: Summary,
                errors: list[dict[str, Any]] | None = None) -> None:
    json.dump(sarif_document(results, summary, errors), out, indent=2, ensure_ascii=False)
    out.write("\n")


def _gh_escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_prop(s: str) -> str:
    return _gh_escape_data(s).replace(":", "%3A").replace(",", "%2C")


def write_github(out: TextIO, results: list[FileResult], summary: Summary | None) -> None:
    """GitHub Actions workflow commands: ``::warning file=…,line=…,col=…::message``."""
    for r in results:
        for rec in r.records:
            kind = {"error": "error", "warning": "warning"}.get(rec.severity, "notice")
            line, col, end_line, _ = _file_region(rec)
            if col is None:  # a notebook: the file's line, the cell's position in the message
                props = f"file={_gh_escape_prop(rec.path)},line={line},endLine={end_line},"
                message = f"{rec.code} {_where(rec)}: {rec.message}"
            else:
                props = (f"file={_gh_escape_prop(rec.path)},line={rec.line},col={rec.column},"
                         f"endLine={rec.end_line},endColumn={rec.end_column},")
                message = f"{rec.code} {rec.message}"
            props += f"title={_gh_escape_prop(rec.code + ' [' + rec.name + ']')}"
            out.write(f"::{kind} {props}::{_gh_escape_data(message)}\n")
    if summary is not None:
        out.write(summary_line(summary) + "\n")


# --- Azure Pipelines ---------------------------------------------------------------------------


def _azure_escape(s: str, prop: bool) -> str:
    # the logging commands' escapes: % first, then line breaks (a message never ends the
    # command's line), and in a property the separators ; and ]
    s = s.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")
    return s.replace(";", "%3B").replace("]", "%5D") if prop else s


def write_azure(out: TextIO, results: list[FileResult], summary: Summary | None) -> None:
    """Azure Pipelines logging commands, as ruff writes them:
    ``##vso[task.logissue type=warning;sourcepath=…;linenumber=…;columnnumber=…;code=…;]message``.
    Azure knows only errors and warnings: info and hint issues are plain log lines."""
    for r in results:
        for rec in r.records:
            line, col, _end_line, _ = _file_region(rec)
            if rec.severity not in ("error", "warning"):
                out.write(printable(f"{display_path(rec.path)}:{_where(rec)}: {rec.code} "
                                    f"[{rec.severity}] {rec.message}") + "\n")
                continue
            props = f"type={rec.severity};sourcepath={_azure_escape(rec.path, True)};linenumber={line};"
            if col is not None:
                props += f"columnnumber={col};"
            props += f"code={_azure_escape(rec.code, True)};"
            message = rec.message if col is not None else f"{_where(rec)}: {rec.message}"
            out.write(f"##vso[task.logissue {props}]{_azure_escape(message, False)}\n")
    if summary is not None:
        out.write(summary_line(summary) + "\n")


# --- GitLab Code Quality, JUnit XML, Markdown -----------------------------------------------------

_GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info", "hint": "info"}


def gitlab_document(results: list[FileResult]) -> list[dict[str, Any]]:
    """GitLab Code Quality report (``artifacts: reports: codequality``): one entry per issue."""
    import hashlib

    out = []
    for r in results:
        for rec in r.records:
            key = f"{rec.path}\0{rec.code}\0{rec.fingerprint or (rec.start_offset, rec.end_offset)}\0{len(out)}"
            line, col, end_line, end_col = _file_region(rec)
            where = f"{_where(rec)}: " if col is None else ""  # a notebook: the cell in the text
            out.append({
                "type": "issue",
                "check_name": rec.code,
                "description": f"{rec.code} [{rec.name}] {where}{rec.message}",
                "content": {"body": f"See {rule_url(rec.code)}"},
                "categories": ["Style"],
                "severity": _GITLAB_SEVERITY.get(rec.severity, "minor"),
                "fingerprint": hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32],
                "location": {
                    "path": _sarif_uri(rec.path),
                    "positions": {"begin": {"line": line, "column": col or 1},
                                  "end": {"line": end_line, "column": end_col or 1}},
                },
            })
    return out


def write_gitlab(out: TextIO, results: list[FileResult]) -> None:
    json.dump(gitlab_document(results), out, indent=2, ensure_ascii=False)
    out.write("\n")


def junit_xml(results: list[FileResult], summary: Summary, errors: list[dict[str, Any]] | None = None,
              *, noun: str = "file") -> str:
    """JUnit XML: one test suite per file, one failing test case per issue (a file
    without issues is one passing case); unreadable inputs are test cases in error."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="chunkseam", tests="0", failures="0", errors="0")
    total = failures = errs = 0
    for r in results:
        if r.error is not None:
            continue
        suite = ET.SubElement(root, "testsuite", name=r.path)
        cases = 0
        for rec in r.records:
            where = _where(rec)
            line = _file_region(rec)[0]
            case = ET.SubElement(suite, "testcase", name=f"{rec.code} [{rec.name}] at {where}",
                                 classname=r.path, file=r.path, line=str(line))
            fail = ET.SubElement(case, "failure", message=rec.message, type=rec.code)
            fail.text = f"{rec.path}:{where}: {rec.code} [{rec.name}] {rec.message}\n{rule_url(rec.code)}"
            cases += 1
        if not cases:
            ET.SubElement(suite, "testcase", name="no issues", classname=r.path)
        suite.set("tests", str(max(cases, 1)))
        suite.set("failures", str(cases))
        suite.set("errors", "0")
        total += max(cases, 1)
        failures += cases
    if errors:
        suite = ET.SubElement(root, "testsuite", name="unreadable inputs", tests=str(len(errors)),
                              failures="0", errors=str(len(errors)))
        for e in errors:
            case = ET.SubElement(suite, "testcase", name=str(e.get("path", "")), classname="chunkseam")
            ET.SubElement(case, "error", message=str(e.get("message", "")))
        total += len(errors)
        errs += len(errors)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(errs))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(out: TextIO, results: list[FileResult], summary: Summary,
                errors: list[dict[str, Any]] | None = None, *, noun: str = "file") -> None:
    out.write(junit_xml(results, summary, errors, noun=noun))


def _md_cell(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


#: issues and files listed one by one in the Markdown report (the summary counts them all),
#: so a large corpus stays well under GitHub's 1 MiB step-summary limit
MARKDOWN_MAX_ISSUES = 200
MARKDOWN_MAX_FILES = 50


def markdown_report(results: list[FileResult], summary: Summary, *, noun: str = "file") -> str:
    """A Markdown summary for CI step summaries (``>> $GITHUB_STEP_SUMMARY``): the
    summary line, issues per rule, files with issues, then the issues themselves."""
    rules = rules_table()
    lines = ["## chunkseam", "", summary_line(summary, noun=noun), ""]
    if summary.per_rule:
        lines += ["| Rule | Name | Issues |", "| --- | --- | ---: |"]
        for code, count in sorted(summary.per_rule.items(), key=lambda kv: (-kv[1], kv[0])):
            name = rule_attr(rules.get(code), "name", "")
            lines.append(f"| [{code}]({rule_url(code)}) | {_md_cell(name)} | {count} |")
        lines.append("")
        lines += [f"| {noun.capitalize()} | Chunker | Chunks | Broken | Issues |", "| --- | --- | ---: | ---: | ---: |"]
        with_issues = sorted((r for r in results if r.records), key=lambda r: (-len(r.records), r.path))
        for r in with_issues[:MARKDOWN_MAX_FILES]:
            lines.append(f"| `{_md_cell(r.path)}` | {_md_cell(r.chunker)} | {r.chunks} | "
                         f"{r.chunks_with_issues} | {len(r.records)} |")
        if len(with_issues) > MARKDOWN_MAX_FILES:
            lines += ["", f"{len(with_issues) - MARKDOWN_MAX_FILES} more {noun}s with issues not listed."]
        lines.append("")
        shown = [rec for r in results for rec in r.records][:MARKDOWN_MAX_ISSUES]
        lines += ["<details><summary>Issues</summary>", "", "| Location | Rule | Message |", "| --- | --- | --- |"]
        for rec in shown:
            lines.append(f"| `{_md_cell(rec.path)}:{_where(rec)}` | {rec.code} {_md_cell(rec.name)} | "
                         f"{_md_cell(rec.message)} |")
        if summary.issues > len(shown):
            lines += ["", f"{summary.issues - len(shown)} more not listed; see `--format json`."]
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def write_markdown(out: TextIO, results: list[FileResult], summary: Summary, *, noun: str = "file") -> None:
    out.write(markdown_report(results, summary, noun=noun))


def failing(records: Iterable[Record], fail_on: str) -> bool:
    """True when a record is at or above ``fail_on`` (error > warning > info > hint)."""
    if fail_on == "never":
        return False
    limit = SEVERITY_RANK.get(fail_on, SEVERITY_RANK["warning"])
    return any(SEVERITY_RANK.get(r.severity, 0) <= limit for r in records)




def display_path(path: str) -> str:
    """A path as shown at the start of a line: control characters escaped, and never
    starting with ``::`` (a GitHub Actions workflow command such as ``::stop-commands::``)."""
    shown = printable(str(path))
    return "./" + shown if shown.lstrip().startswith("::") else shown


def error_line(path: str, message: str) -> str:
    return f"{display_path(path)}: error: {printable(message)}"


def eprint(message: str, stream: TextIO | None = None) -> None:
    # a line of ours never reads as a workflow command, whatever names it quotes (the Actions
    # runner looks for "::" after leading whitespace, so the mark is not a space)
    lines = [("\\" + line if line.lstrip().startswith("::") else line)
             for line in message.rstrip("\n").split("\n")]
    (stream or sys.stderr).write("\n".join(lines) + "\n")
