"""Issues -> LSP diagnostics, pushed (``textDocument/publishDiagnostics``) or
pulled (``textDocument/diagnostic``).

Every diagnostic carries the rule code, a ``codeDescription`` link to the
rule's doc, ``relatedInformation`` pointing at the other side of the cut and
``data`` with what the quick fixes need. A document that could not be analysed
gets a single ``internal-error`` diagnostic (the traceback is in the log).

Editors keep a bounded number of diagnostics per file (VS Code: 1,000, dropping
the rest without a word). Past the cap (setting ``maxDiagnostics``) the most
severe are published, in document order, plus one ``too-many-issues``
diagnostic at the top of the file that says how many more there are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:  # pragma: no cover
    from .state import Result

SOURCE = "chunkseam"
INTERNAL_ERROR = "internal-error"
TOO_MANY = "too-many-issues"
from ..checks.registry import REPOSITORY_URL, RULE_DOC_PATH  # noqa: E402  one source of truth

RULES_URL = f"{REPOSITORY_URL}/blob/main/{RULE_DOC_PATH}"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def severity(name: str | None) -> types.DiagnosticSeverity:
    return _SEVERITY.get((name or "warning").lower(), types.DiagnosticSeverity.Warning)


def rule(code: str) -> Any | None:
    """The rule's registry entry (``.name``, ``.summary``, ``.doc``), if the
    validator's registry is there."""
    try:
        from ..checks.registry import RULES  # type: ignore[import-not-found]
    except Exception:
        return None
    try:
        return RULES.get(code) if hasattr(RULES, "get") else RULES[code]
    except Exception:
        return None


def rule_url(code: str) -> str:
    r = rule(code)
    url = getattr(r, "url", None) if r is not None else None
    return url if isinstance(url, str) and url else RULES_URL.format(code=code)


def lsp_range(doc: Any, start: int, end: int, encoding: str) -> types.Range:
    start = doc.clamp(start)
    end = max(start, doc.clamp(end))
    s, e = doc.range_to_lsp(start, end, encoding)
    return types.Range(types.Position(s.line, s.character), types.Position(e.line, e.character))


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)


_UNIT_NOUNS = {"CS001": "word", "CS002": "sentence", "CS003": "code block", "CS004": "table",
               "CS005": "list item", "CS006": "span", "CS007": "heading", "CS008": "block",
               "CS201": "definition", "CS202": "string"}


def unit_noun(issue: Any) -> str:
    """What the broken unit of an issue is called in a sentence."""
    kind = (issue.data or {}).get("kind") if isinstance(getattr(issue, "data", None), dict) else None
    if issue.code == "CS008" and kind == "front_matter":
        return "front matter"
    if issue.code == "CS008":
        return "HTML block"
    if issue.code == "CS006" and kind == "link_definition":
        return "link reference definition"
    return _UNIT_NOUNS.get(issue.code, "unit")


def to_diagnostic(issue: Any, doc: Any, uri: str, encoding: str) -> types.Diagnostic:
    related = None
    if issue.related:
        rs, re_ = issue.related
        other = issue.other_chunk if issue.other_chunk is not None else issue.chunk
        message = issue.related_message or (
            f"the other side of the cut (chunk {other + 1})" if other is not None
            else "the other side of the cut")
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=lsp_range(doc, rs, re_, encoding)),
            message=message,
        )]
    unit = getattr(issue, "unit", None)
    if unit is not None and tuple(unit) != (issue.start, issue.end):
        # the whole broken unit (the diagnostic's range is only the part at the cut)
        related = (related or []) + [types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=lsp_range(doc, unit[0], unit[1], encoding)),
            message=f"the {unit_noun(issue)} that the cut breaks",
        )]
    data = {
        "code": issue.code,
        "name": issue.name,
        "chunk": issue.chunk,
        "otherChunk": issue.other_chunk,
        "cut": issue.cut,
        "start": issue.start,
        "end": issue.end,
        "unit": list(unit) if unit is not None else None,
        "fix": issue.fix,
        "version": getattr(doc, "version", None),
    }
    if issue.data:
        data["data"] = _jsonable(issue.data)
    return types.Diagnostic(
        range=lsp_range(doc, issue.start, issue.end, encoding),
        message=issue.message or issue.name,
        severity=severity(issue.severity),
        code=issue.code,
        code_description=types.CodeDescription(href=rule_url(issue.code)),
        source=SOURCE,
        related_information=related,
        data=data,
    )


def internal_error(message: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=f"chunkseam could not analyse this document: {message} "
                "(the details are in the chunkseam log)",
        severity=types.DiagnosticSeverity.Warning,
        code=INTERNAL_ERROR,
        source=SOURCE,
    )


_RANK = {
    types.DiagnosticSeverity.Error: 0,
    types.DiagnosticSeverity.Warning: 1,
    types.DiagnosticSeverity.Information: 2,
    types.DiagnosticSeverity.Hint: 3,
}
_SEVERITY_NAMES = ("errors", "warnings", "infos", "hints")


def _rank(d: types.Diagnostic) -> int:
    return _RANK.get(d.severity, 1) if d.severity is not None else 1


def cap(diagnostics: list[types.Diagnostic], limit: int) -> list[types.Diagnostic]:
    """At most ``limit`` diagnostics (0: all): the most severe first (ties in
    document order), kept in document order, the last place taken by a summary
    of the rest."""
    if limit <= 0 or len(diagnostics) <= limit:
        return diagnostics
    keep = limit - 1
    order = sorted(range(len(diagnostics)), key=lambda i: (_rank(diagnostics[i]), i))
    kept = [diagnostics[i] for i in sorted(order[:keep])]
    left = [diagnostics[i] for i in order[keep:]]
    counts = [0, 0, 0, 0]
    for d in left:
        counts[_rank(d)] += 1
    what = ", ".join(f"{n:,} {name}" for n, name in zip(counts, _SEVERITY_NAMES) if n)
    summary = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=f"{len(left):,} more chunkseam issues are not shown ({what}): only the {keep:,} most "
                f"severe of {len(diagnostics):,} are listed. Raise the setting maxDiagnostics "
                "(0: no cap) or run `chunkseam lint` on this file to see them all.",
        severity=types.DiagnosticSeverity.Information,
        code=TOO_MANY,
        source=SOURCE,
        data={"code": TOO_MANY, "omitted": len(left), "total": len(diagnostics)},
    )
    return [summary, *kept]


def build(result: "Result", encoding: str, limit: int = 0) -> list[types.Diagnostic]:
    """The diagnostics of a result (runs in the worker thread), at most
    ``limit`` of them (0: no cap; see :func:`cap`)."""
    if result.error is not None:
        return [internal_error(result.error)]
    if result.disabled or result.analysis is None:
        return []
    doc = result.doc
    out = []
    for issue in result.analysis.issues:
        if issue.severity == "off":
            continue
        out.append(to_diagnostic(issue, doc, result.uri, encoding))
    return cap(out, limit)


def publish(server: Any, result: "Result", limit: int = 0) -> None:
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
        uri=result.uri, diagnostics=cap(result.diagnostics, limit), version=result.version))


def clear(server: Any, uri: str, version: int | None = None) -> None:
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[], version=version))


def report(result: "Result", previous_result_id: str | None,
           limit: int = 0) -> types.DocumentDiagnosticReport:
    """The pull-model answer for ``textDocument/diagnostic``."""
    if previous_result_id is not None and previous_result_id == result.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result.result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=list(cap(result.diagnostics, limit)),
                                                     result_id=result.result_id)


_AT = re.compile(r"at line (\d+), column (\d+)")


def _config_range(err: Any, text: str | None) -> types.Range:
    """Where in the config file ``err`` is: the TOML parser's position, else the
    line that sets the key, else the top of the file."""
    m = _AT.search(str(err))
    if m:
        line, col = int(m.group(1)) - 1, max(0, int(m.group(2)) - 1)
        return types.Range(types.Position(line, col), types.Position(line, col + 1))
    key = getattr(err, "key", None)
    if text and isinstance(key, str) and key:
        last = key.rsplit(".", 1)[-1].strip("'\"")
        pattern = re.compile(rf"^[ \t]*[\"']?{re.escape(last)}[\"']?[ \t]*=", re.MULTILINE)
        hit = pattern.search(text)
        if hit:
            line = text.count("\n", 0, hit.start())
            start = hit.start() - (text.rfind("\n", 0, hit.start()) + 1)
            return types.Range(types.Position(line, start), types.Position(line, start + len(last)))
    return types.Range(types.Position(0, 0), types.Position(0, 0))


def config_file_diagnostics(errors: list[Any]) -> dict[str, list[types.Diagnostic]]:
    """Diagnostics on the config files themselves (uri -> diagnostics) for
    the configuration errors of a result."""
    from pathlib import Path

    out: dict[str, list[types.Diagnostic]] = {}
    texts: dict[str, str | None] = {}
    for err in errors:
        file = getattr(err, "file", None)
        if not isinstance(file, str) or not file or file in ("editor", "command line"):
            continue
        path = Path(file)
        if not path.is_absolute() or not path.name.endswith(".toml"):
            continue
        if file not in texts:
            try:
                texts[file] = path.read_text(encoding="utf-8") if path.is_file() and path.stat().st_size < 1 << 20 else None
            except (OSError, UnicodeDecodeError):
                texts[file] = None
        warning = getattr(err, "warning", False)
        message = str(err)
        prefix = f"{file}: "
        out.setdefault(path.as_uri(), []).append(types.Diagnostic(
            range=_config_range(err, texts[file]),
            message=message.removeprefix(prefix),
            severity=types.DiagnosticSeverity.Warning if warning else types.DiagnosticSeverity.Error,
            code="config",
            source=SOURCE,
        ))
    return out
