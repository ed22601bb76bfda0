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

import functools
import json
import re
import threading
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

SOURCE = "chunkseam"
INTERNAL_ERROR = "internal-error"
TOO_MANY = "too-many-issues"
from chunkseam.checks.registry import REPOSITORY_URL, RULE_DOC_PATH  # noqa: E402  one source of truth

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
        from chunkseam.checks.registry import RULES  # type: ignore[import-not-found]
    except Exception:
        return None
    try:
        return RULES.get(code) if hasattr(RULES, "get") else RULES[code]
    except Exception:
        return None


#: rule code -> its diagnostics' ``codeDescription`` (one object, shared)
_DESCRIPTIONS: dict[str, types.CodeDescription] = {}


def _description(code: str) -> types.CodeDescription:
    got = _DESCRIPTIONS.get(code)
    if got is None:
        got = types.CodeDescription(href=rule_url(code))
        if len(_DESCRIPTIONS) < 1000:  # (codes are few; any other is made each time)
            _DESCRIPTIONS[code] = got
    return got


def rule_url(code: str) -> str:
    r = rule(code)
    url = getattr(r, "url", None) if r is not None else None
    return url if isinstance(url, str) and url else RULES_URL.format(code=code)


def lsp_range(doc: Any, start: int, end: int, encoding: str) -> types.Range:
    start = doc.clamp(start)
    end = max(start, doc.clamp(end))
    s, e = doc.range_to_lsp(start, end, encoding)
    return types.Range(types.Position(s.line, s.character), types.Position(e.line, e.character))


class Positions:
    """LSP positions of offsets in one document version: what
    :meth:`chunkseam.document.text.Document.offset_to_position` gives, with the
    line index looked up once per offset (thousands of diagnostics of a
    large document are converted per edit), each offset computed once (and
    its ``Position`` made once: the diagnostics of one build share them)."""

    __slots__ = ("doc", "text", "starts", "n", "encoding", "memo", "points")

    def __init__(self, doc: Any, encoding: str) -> None:
        self.doc = doc
        self.text = doc.text
        self.starts = doc.line_starts
        self.n = len(self.text)
        self.encoding = encoding
        self.memo: dict[int, tuple[int, int]] = {}
        self.points: dict[int, types.Position] = {}

    def clamp(self, offset: int) -> int:
        return 0 if offset < 0 else (self.n if offset > self.n else offset)

    def at(self, offset: int) -> tuple[int, int]:
        """``(line, character)`` of ``offset`` (clamped into the text)."""
        got = self.memo.get(offset)
        if got is not None:
            return got
        o = self.clamp(offset)
        starts = self.starts
        line = bisect_right(starts, o) - 1
        if line < 0:
            line = 0
        start = starts[line]
        nxt = starts[line + 1] if line + 1 < len(starts) else self.n
        if o > nxt - 3:  # perhaps inside the line break (at most 2 characters): clamp to the content
            end = self.doc.line_end(line)
            if o > end:
                o = end
        piece = self.text[start:o]
        if self.encoding == "utf-32" or piece.isascii():
            col = len(piece)
        elif self.encoding == "utf-16":
            col = len(piece.encode("utf-16-le", "surrogatepass")) // 2
        else:
            col = len(piece.encode("utf-8", "surrogatepass"))
        got = self.memo[offset] = (line, col)
        return got

    def range_json(self, start: int, end: int) -> str:
        """The JSON of :meth:`range` (as :func:`_range_json` writes it),
        without the objects."""
        start = self.clamp(start)
        end = self.clamp(end)
        if end < start:
            end = start
        a, b = self.at(start)
        c, d = self.at(end)
        return f'{{"start": {{"line": {a}, "character": {b}}}, "end": {{"line": {c}, "character": {d}}}}}'

    def range(self, start: int, end: int) -> types.Range:
        """Equal to :func:`lsp_range` ``(doc, start, end, encoding)``."""
        start = self.clamp(start)
        end = self.clamp(end)
        if end < start:
            end = start
        points = self.points
        s = points.get(start)
        if s is None:
            s = points[start] = types.Position(*self.at(start))
        e = points.get(end)
        if e is None:
            e = points[end] = types.Position(*self.at(end))
        return types.Range(s, e)


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


def _data(issue: Any, unit: Any, version: Any) -> dict[str, Any]:
    """A diagnostic's ``data``: what names its issue (code, cut and range:
    the server finds the issue again by them when the client asks for its
    fixes), the chunks on either side, the broken unit, the hint and the
    document version. The rule's own details (``Issue.data``: a fence's
    marker, a sentence's offsets …) stay with the server, which reads them
    from its issue: the client has no use for them, and a publication of a
    large document holds a thousand diagnostics."""
    return {
        "code": issue.code,
        "name": issue.name,
        "chunk": issue.chunk,
        "otherChunk": issue.other_chunk,
        "cut": issue.cut,
        "start": issue.start,
        "end": issue.end,
        "unit": list(unit) if unit is not None else None,
        "fix": issue.fix,
        "version": version,
    }


def _related_spans(issue: Any) -> list[tuple[int, int, str]]:
    """The related information of ``issue``'s diagnostic: ``(start, end,
    message)`` of the other side of the cut and of the whole broken unit
    (the diagnostic's range is only the part at the cut)."""
    out = []
    if issue.related:
        rs, re_ = issue.related
        other = issue.other_chunk if issue.other_chunk is not None else issue.chunk
        message = issue.related_message or (
            f"the other side of the cut (chunk {other + 1})" if other is not None
            else "the other side of the cut")
        out.append((rs, re_, message))
    unit = getattr(issue, "unit", None)
    if unit is not None and tuple(unit) != (issue.start, issue.end):
        out.append((unit[0], unit[1], f"the {unit_noun(issue)} that the cut breaks"))
    return out


def to_diagnostic(issue: Any, doc: Any, uri: str, encoding: str,
                  positions: Positions | None = None) -> types.Diagnostic:
    """The diagnostic of ``issue`` (``positions``: a :class:`Positions` of
    ``doc`` and ``encoding`` shared by the diagnostics of one build)."""
    if positions is None:
        positions = Positions(doc, encoding)
    related = [types.DiagnosticRelatedInformation(
        location=types.Location(uri=uri, range=positions.range(a, b)), message=message)
        for a, b, message in _related_spans(issue)] or None
    data = _data(issue, getattr(issue, "unit", None), getattr(doc, "version", None))
    return types.Diagnostic(
        range=positions.range(issue.start, issue.end),
        message=issue.message or issue.name,
        severity=severity(issue.severity),
        code=issue.code,
        code_description=_description(issue.code),
        source=SOURCE,
        related_information=related,
        data=data,
    )


def _issue_template(issue: Any, uri_json: str, positions: Positions) -> tuple[str, str] | None:
    """:func:`_template` of ``to_diagnostic(issue, …)``, written from the
    issue without making the diagnostic (``uri_json``: the document's URI as
    JSON); None where that diagnostic would have none."""
    message = issue.message or issue.name
    if type(message) is not str:
        return None
    range_json = positions.range_json
    related = [(uri_json, range_json(a, b), m) for a, b, m in _related_spans(issue)] or None
    return _compose(range_json(issue.start, issue.end), message, severity(issue.severity).value,
                    issue.code, _description(issue.code).href, SOURCE, None, related,
                    _data(issue, getattr(issue, "unit", None), _VERSION_MARK))


def _wire_range(r: types.Range) -> dict[str, Any]:
    s, e = r.start, r.end
    return {"start": {"line": s.line, "character": s.character},
            "end": {"line": e.line, "character": e.character}}


def _wire_diagnostic(d: types.Diagnostic) -> dict[str, Any]:
    """What pygls' converter makes of a diagnostic (None fields left out,
    enumerations as their values), written out: cattrs' generic functions
    take ~30 µs per diagnostic, and a publication of a large document holds
    a thousand of them (tests/lsp/test_lsp_unit.py compares the two)."""
    out: dict[str, Any] = {"range": _wire_range(d.range), "message": d.message}
    if d.severity is not None:
        out["severity"] = getattr(d.severity, "value", d.severity)
    if d.code is not None:
        out["code"] = d.code
    if d.code_description is not None:
        out["codeDescription"] = {"href": d.code_description.href}
    if d.source is not None:
        out["source"] = d.source
    if d.tags is not None:
        out["tags"] = [getattr(t, "value", t) for t in d.tags]
    if d.related_information is not None:
        out["relatedInformation"] = [
            {"location": {"uri": r.location.uri, "range": _wire_range(r.location.range)},
             "message": r.message} for r in d.related_information]
    if d.data is not None:
        # JSON data as built here; anything else is turned into JSON by the
        # writer's fallback (pygls' json.dumps default), as it would be
        out["data"] = d.data
    return out


@functools.lru_cache(maxsize=1)
def _wire_fields_known() -> bool:
    """Whether lsprotocol's classes have exactly the fields written out above
    (a newer lsprotocol with more: its own converter is used)."""
    import attrs

    def names(cls: type) -> tuple[str, ...]:
        return tuple(f.name for f in attrs.fields(cls))

    return (names(types.Diagnostic) == ("range", "message", "severity", "code", "code_description",
                                        "source", "tags", "related_information", "data")
            and names(types.DiagnosticRelatedInformation) == ("location", "message")
            and names(types.Location) == ("uri", "range")
            and names(types.Range) == ("start", "end")
            and names(types.Position) == ("line", "character")
            and names(types.CodeDescription) == ("href",))


def converter() -> Any:
    """pygls' converter, diagnostics written out by :func:`_wire_diagnostic`."""
    from pygls.protocol import default_converter

    conv = default_converter()
    if _wire_fields_known():
        conv.register_unstructure_hook(types.Diagnostic, _wire_diagnostic)
    # a list of built diagnostics is a list
    conv.register_unstructure_hook(Built, lambda built: [conv.unstructure(d, types.Diagnostic)
                                                         for d in built])
    return conv


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
#: an issue's severity name -> its diagnostic's rank (``_RANK[severity(name)]``)
_RANK_OF_NAME = {name: _RANK[value] for name, value in _SEVERITY.items()}


def _rank(d: types.Diagnostic) -> int:
    return _RANK.get(d.severity, 1) if d.severity is not None else 1


def cap(diagnostics: list[types.Diagnostic], limit: int) -> list[types.Diagnostic]:
    """At most ``limit`` diagnostics (0: all): the most severe first (ties in
    document order), kept in document order, the last place taken by a summary
    of the rest. A :class:`Built` made for a publication capped at ``limit``
    is that already; for another limit its other diagnostics are made first."""
    capped = getattr(diagnostics, "capped", 0)
    if capped:
        if limit == capped:
            return diagnostics
        diagnostics = diagnostics.everything()
    if limit <= 0 or len(diagnostics) <= limit:
        return diagnostics
    kept, counts = _selection([_rank(d) for d in diagnostics], limit)
    return [_summary(counts, limit - 1, len(diagnostics)), *(diagnostics[i] for i in kept)]


def _selection(ranks: list[int], limit: int) -> tuple[list[int], list[int]]:
    """The indexes :func:`cap` keeps of diagnostics of ``ranks`` (more than
    ``limit``), in order, and how many of each rank it leaves out."""
    keep = limit - 1
    order = sorted(range(len(ranks)), key=ranks.__getitem__)  # stable: ties in document order
    counts = [0, 0, 0, 0]
    for i in order[keep:]:
        counts[ranks[i]] += 1
    return sorted(order[:keep]), counts


def _summary(counts: list[int], keep: int, total: int) -> types.Diagnostic:
    """The diagnostic that stands for those :func:`cap` leaves out."""
    left = sum(counts)
    what = ", ".join(f"{n:,} {name}" for n, name in zip(counts, _SEVERITY_NAMES) if n)
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=f"{left:,} more chunkseam issues are not shown ({what}): only the {keep:,} most "
                f"severe of {total:,} are listed. Raise the setting maxDiagnostics "
                "(0: no cap) or run `chunkseam lint` on this file to see them all.",
        severity=types.DiagnosticSeverity.Information,
        code=TOO_MANY,
        source=SOURCE,
        data={"code": TOO_MANY, "omitted": left, "total": total},
    )


class Built(list):
    """The diagnostics of one result (a list), with the JSON of each as the
    client receives it, made in the worker thread that built them:
    ``templates`` maps ``id(diagnostic)`` (of the diagnostics in this list)
    to the diagnostic's JSON split around the document version in its data,
    or to None when it is written the ordinary way. An unchanged diagnostic
    of the next version takes its template over, so a publication of a large
    document serialises only what changed (:func:`params_json`).

    ``capped``: 0 when the list holds every diagnostic; else it holds only
    what a publication capped at ``capped`` holds (``cap(all, capped)``, the
    summary first), and :meth:`everything` makes the others when asked."""

    __slots__ = ("templates", "capped", "_rest", "_full", "_lock", "_pending", "_make")

    def __init__(self, items: Any = (), templates: dict[int, Any] | None = None, *,
                 capped: int = 0, rest: Any = None, pending: list | None = None,
                 make: Any = None) -> None:
        super().__init__(items)
        self.templates: dict[int, Any] = templates if templates is not None else {}
        self.capped = capped
        self._rest = rest
        self._full: Built | None = None
        self._lock = threading.Lock()
        #: the items still to be made (:class:`_Pending`, see :meth:`made`),
        #: kept for the life of the list (their ids key ``templates``)
        self._pending = pending or []
        self._make = make

    def made(self) -> "Built":
        """This list with every item a diagnostic: the ones :func:`build`
        left to make after the publication (``deferred``) are made now, once,
        whichever thread asks first. Until then an item may be a
        :class:`_Pending`, which only a publication (written from
        ``templates``) reads."""
        if self._make is None:
            return self
        with self._lock:
            make = self._make
            if make is not None:
                made = {id(p): make(p) for p in self._pending}
                for p in self._pending:
                    self.templates[id(made[id(p)])] = self.templates.get(id(p))
                    p.renew = None  # (the previous version's diagnostic: not kept alive by this one)
                # (one slice assignment: a thread copying the list meanwhile
                # gets either item of each pair, both with their template)
                self[:] = [made.get(id(d), d) for d in self]
                self._make = None
        return self

    def everything(self) -> "Built":
        """Every diagnostic of the result (this list when it holds them all),
        made once, whichever thread asks first."""
        self.made()
        if not self.capped:
            return self
        with self._lock:
            if self._full is None:
                self._full = self._rest()
            return self._full


class _Pending:
    """A diagnostic of a :class:`Built` still to be made (``k``: its issue's
    place among the build's issues; ``renew``: the previous version's
    diagnostic it renews, else None; ``data``: ``{"version": …}``, what
    :func:`diagnostic_json` reads of it besides its template)."""

    __slots__ = ("k", "renew", "data")

    def __init__(self, k: int, renew: Any, data: dict[str, Any]) -> None:
        self.k = k
        self.renew = renew
        self.data = data


#: stands for the version while a diagnostic's template is made (JSON-escaped
#: in the output: a message holding it makes the split ambiguous, see _template)
_VERSION_MARK = "\x00chunkseam-version\x00"
_VERSION_JSON = json.dumps(_VERSION_MARK)


def _template(d: types.Diagnostic) -> tuple[str, str] | None:
    """The JSON of ``d`` (as :func:`_wire_diagnostic` and ``json.dumps``
    write it) before and after the value of ``data.version``; None when it
    cannot be split exactly there (no such key, data that is not plain JSON,
    or the marker elsewhere in the text).

    Written piece by piece (:func:`_written_template`) when ``d`` holds what
    this module's diagnostics hold; ``json.dumps`` of the wire form with a
    marker for the version, split there, is the general way."""
    try:
        got = _written_template(d)
    except (TypeError, ValueError):
        got = None
    return got if got is not None else _dumped_template(d)


def _dumped_template(d: types.Diagnostic) -> tuple[str, str] | None:
    """:func:`_template` the general way."""
    data = d.data
    if not isinstance(data, dict) or "version" not in data:
        return None
    wire = _wire_diagnostic(d)
    marked = dict(data)
    marked["version"] = _VERSION_MARK
    wire["data"] = marked
    try:
        text = json.dumps(wire)
    except (TypeError, ValueError):
        return None
    parts = text.split(_VERSION_JSON)
    if len(parts) != 2:
        return None
    return parts[0], parts[1]


def _no_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


#: ``json.dumps``'s encoder (its separators, ASCII escapes, no key sorting),
#: made once: ``json.dumps`` makes one per call, most of the cost of a small
#: value. No circular-reference markers: those are shared state, and the
#: values written here (an issue's data) are trees.
_ENCODE = json.encoder.c_make_encoder(None, _no_json, json.encoder.encode_basestring_ascii, None,
                                      ": ", ", ", False, False, True) \
    if json.encoder.c_make_encoder is not None else None
_STRING = json.encoder.encode_basestring_ascii


def _json(value: Any) -> str:
    """``json.dumps(value)``."""
    t = type(value)
    if t is str:
        return _STRING(value)
    if t is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if _ENCODE is None:
        return json.dumps(value)
    return "".join(_ENCODE(value, 0))


def _range_json(r: types.Range) -> str:
    s, e = r.start, r.end
    a, b, c, d = s.line, s.character, e.line, e.character
    if not (type(a) is int and type(b) is int and type(c) is int and type(d) is int):
        raise TypeError("a position that is not made of ints")
    return f'{{"start": {{"line": {a}, "character": {b}}}, "end": {{"line": {c}, "character": {d}}}}}'


def _written_template(d: types.Diagnostic) -> tuple[str, str] | None:
    """:func:`_template` written piece by piece, as ``json.dumps`` writes
    :func:`_wire_diagnostic`'s dictionary (keys in its order, None fields
    left out); None when the data has no version or the version's marker
    is elsewhere in it. TypeError for anything else unusual (the general way
    then)."""
    data = d.data
    if type(data) is not dict or "version" not in data or type(d.message) is not str:
        return None
    marked = dict(data)
    marked["version"] = _VERSION_MARK
    return _compose(
        _range_json(d.range), d.message,
        None if d.severity is None else getattr(d.severity, "value", d.severity), d.code,
        None if d.code_description is None else d.code_description.href, d.source,
        None if d.tags is None else [getattr(t, "value", t) for t in d.tags],
        None if d.related_information is None else [
            (_json(r.location.uri), _range_json(r.location.range), r.message)
            for r in d.related_information],
        marked)


def _compose(range_json: str, message: str, severity_value: Any, code: Any, href: Any, source: Any,
             tags: Any, related: list[tuple[str, str, Any]] | None,
             marked: dict[str, Any]) -> tuple[str, str] | None:
    """A diagnostic's JSON template from its parts, written as ``json.dumps``
    writes :func:`_wire_diagnostic`'s dictionary; ``related``: ``(uri as
    JSON, range as JSON, message)``; ``marked``: the data with
    :data:`_VERSION_MARK` for the version (None when that is not where the
    text splits)."""
    parts = ['{"range": ', range_json, ', "message": ', _STRING(message)]
    if severity_value is not None:
        parts += [', "severity": ', _json(severity_value)]
    if code is not None:
        parts += [', "code": ', _json(code)]
    if href is not None:
        parts += [', "codeDescription": {"href": ', _json(href), "}"]
    if source is not None:
        parts += [', "source": ', _json(source)]
    if tags is not None:
        parts += [', "tags": ', _json(tags)]
    if related is not None:
        parts.append(', "relatedInformation": [')
        parts.append(", ".join(
            '{"location": {"uri": ' + uri_json + ', "range": ' + rng + '}, "message": ' + _json(m) + "}"
            for uri_json, rng, m in related))
        parts.append("]")
    written = _json(marked).split(_VERSION_JSON)
    if len(written) != 2:
        return None
    parts += [', "data": ', written[0]]
    return "".join(parts), written[1] + "}"


def diagnostic_json(d: types.Diagnostic, template: tuple[str, str] | None) -> str:
    """The JSON of ``d``: from its template (with the version in its data)
    when there is one, else written out."""
    if template is not None and isinstance(d.data, dict):
        return template[0] + _json(d.data.get("version")) + template[1]
    return json.dumps(_wire_diagnostic(d))


def params_json(params: types.PublishDiagnosticsParams, built: Any) -> str | None:
    """The JSON of a ``publishDiagnostics`` notification's params whose
    diagnostics are (a selection of) ``built`` (a :class:`Built`), each
    diagnostic's text from its template; None when ``built`` has none."""
    templates = getattr(built, "templates", None)
    if templates is None or not _wire_fields_known():
        return None
    head = json.dumps({"uri": params.uri, "version": params.version, "diagnostics": []}
                      if params.version is not None else {"uri": params.uri, "diagnostics": []})
    try:
        items = ", ".join(diagnostic_json(d, templates.get(id(d))) for d in params.diagnostics)
    except (TypeError, ValueError):  # data that is not plain JSON: pygls' writer and its fallback
        return None
    # the key is the only place the text ``"diagnostics": []`` can occur (quotes
    # inside a JSON string are escaped)
    return head.replace('"diagnostics": []', '"diagnostics": [' + items + "]", 1)


def build(result: "Result", encoding: str, limit: int = 0, *,
          published: int = 0, json_templates: bool = True,
          deferred: bool = False) -> list[types.Diagnostic]:
    """The diagnostics of a result (runs in the worker thread), at most
    ``limit`` of them (0: no cap; see :func:`cap`), as a :class:`Built`.

    An issue of an edited document that is equal to one of the previous
    version's and lies on the lines before the edit has the same positions:
    its diagnostic is that version's, with this version's number in its data
    (see :func:`_previous`), and so is its JSON template. Templates are made
    for the diagnostics a publication capped at ``published`` holds (0: all).
    Uncapped (``limit`` 0) with more issues than ``published``, only the
    diagnostics that publication holds are made: the issues' severities
    choose them as :func:`cap` would choose among their diagnostics, and the
    list is that publication's (``capped``; the others made on demand).

    ``json_templates`` False: no templates are made (a server whose client
    pulls its diagnostics never writes a publication: the pull's answer is
    written the ordinary way).

    ``deferred``: in such a publication's list (uncapped, more issues than
    ``published``, templates made), a new diagnostic's template is written
    from its issue and a renewed one takes the previous version's, and the
    diagnostic objects are made later, by :meth:`Built.made` (the server
    calls it once the publication has gone): until then those items are
    :class:`_Pending`, which only the publication reads (by their
    templates). A diagnostic a template cannot be written for is made at
    once."""
    if result.error is not None:
        return [internal_error(result.error)]
    if result.disabled or result.analysis is None:
        return []
    doc = result.doc
    uri = result.uri
    positions = Positions(doc, encoding)
    version = getattr(doc, "version", None)
    previous, bound, shifted = _previous(doc, uri, encoding)
    issues = [i for i in result.analysis.issues if i.severity != "off"]
    lazy = limit <= 0 < published < len(issues)
    if lazy:
        ranks = _RANK_OF_NAME
        chosen, counts = _selection([ranks.get(i.severity) if i.severity in ranks
                                     else _RANK[severity(i.severity)] for i in issues], published)
    else:
        chosen = range(len(issues))
    out: list[Any] = [None] * len(issues)  # None: not made (not published)
    templates: list[Any] = [None] * len(issues)  # carried over, or None (made below if published)
    defer = deferred and lazy and json_templates and _wire_fields_known()
    pending: list[_Pending] = []
    uri_json = _json(uri)
    versioned = {"version": version}  # (read, never changed)
    for k in chosen:
        issue = issues[k]
        d = None
        if previous and _below(issue, bound):
            hit = previous.get((issue.start, issue.end, issue.cut, issue.code))
            if hit is not None and _same_issue(hit[0], issue):
                templates[k] = hit[2]
                if defer and hit[2] is not None:
                    d = _Pending(k, hit[1], versioned)
                    pending.append(d)
                else:
                    d = _renewed(hit[1], version)
        if d is None and shifted is not None:
            d = _moved(issue, shifted, version)
        if d is None and defer:
            template = _issue_template(issue, uri_json, positions)
            if template is not None:
                templates[k] = template
                d = _Pending(k, None, versioned)
                pending.append(d)
        if d is None:
            d = to_diagnostic(issue, doc, uri, encoding, positions)
        out[k] = d
    # kept for the next version: read there, never changed
    doc.memo(("lsp-diagnostics", uri, encoding), lambda: (result.analysis.issues, out, templates))
    if lazy:
        if json_templates and _wire_fields_known():
            for k in chosen:
                if templates[k] is None:
                    templates[k] = _template(out[k])
        capped = [_summary(counts, published - 1, len(issues)), *(out[k] for k in chosen)]

        def rest() -> Built:
            full = [d if d is not None else to_diagnostic(issues[k], doc, uri, encoding, positions)
                    for k, d in enumerate(out)]
            return Built(full, {id(d): t for d, t in zip(full, templates)})

        def make(p: _Pending) -> types.Diagnostic:
            # (also in what the next version reads of this one: see _previous)
            d = out[p.k] = (_renewed(p.renew, version) if p.renew is not None
                            else to_diagnostic(issues[p.k], doc, uri, encoding, positions))
            return d

        return Built(capped, {id(out[k]): templates[k] for k in chosen}, capped=published, rest=rest,
                     pending=pending, make=make if pending else None)
    capped = cap(out, limit)
    index = {id(d): k for k, d in enumerate(out)}
    if json_templates and _wire_fields_known():  # templates of the published diagnostics only
        for d in cap(capped, published):
            k = index.get(id(d))
            if k is not None and templates[k] is None:
                templates[k] = _template(d)
    return Built(capped, {id(d): templates[index[id(d)]] if id(d) in index else None for d in capped})


def _previous(doc: Any, uri: str, encoding: str) -> tuple[dict | None, int, Any]:
    """The diagnostics built for this document or its nearest ancestor
    (:meth:`~chunkseam.document.text.Document.lineage`), by issue, and the offset
    below which positions are unchanged since: the start of the line before
    the one the edit starts on (a CR there may have been joined to an LF).

    Third: for an edit that left the number of lines as it was, ``(by_old,
    delta, after)``: the ancestor's diagnostics of issues that start at or
    after ``after - delta`` (by their offsets there), ``delta`` what the edit
    changed the length by, and ``after`` the start of the line after the one
    the edit ends on. An offset ``x >= after`` shows the line and column that
    ``x - delta`` showed in the ancestor: the text from ``after - delta`` on
    is unchanged (including the character before it, which ends a line), so
    are its line starts, shifted by ``delta``, and with as many lines in all
    as many line starts come before it. Otherwise None."""
    key = ("lsp-diagnostics", uri, encoding)
    found = doc.memoised(key)
    bound = len(doc.text) + 1
    shift = None
    if found is None:
        for ancestor, a, b, n in doc.lineage():
            found = ancestor.memoised(key)
            if found is not None:
                starts = doc.line_starts
                bound = starts[max(bisect_right(starts, a) - 2, 0)]
                line = bisect_right(starts, a + n)  # the line after the one the edit ends on
                if line < len(starts) and len(starts) == len(ancestor.line_starts):
                    shift = (n - (b - a), starts[line])
                break
    if found is None:
        return None, 0, None
    issues, diags, templates = found
    by_issue: dict = {}
    by_old: dict = {}
    old_after = shift[1] - shift[0] if shift is not None else 0
    k = 0
    for issue in issues:
        if issue.severity == "off":
            continue
        if diags[k] is None or type(diags[k]) is _Pending:  # not published, never made (or not yet)
            k += 1
            continue
        if issue.start < bound:
            by_issue.setdefault((issue.start, issue.end, issue.cut, issue.code),
                                (issue, diags[k], templates[k]))
        elif shift is not None and issue.start >= old_after:
            by_old.setdefault((issue.start, issue.end, issue.cut, issue.code), (issue, diags[k]))
        k += 1
    if bound <= 0:
        by_issue = {}
    return by_issue, bound, ((by_old, shift[0], shift[1]) if shift is not None and by_old else None)


def _moved(issue: Any, shifted: Any, version: Any) -> types.Diagnostic | None:
    """The diagnostic of ``issue`` made from the ancestor's of the same issue
    moved by an edit before it (see :func:`_previous`): its ranges and related
    information, which show the same lines and columns, shared; its data made
    from ``issue``. None when there is no such issue or ``issue`` shows an
    offset before the line after the edit."""
    by_old, delta, after = shifted
    if issue.start < after or issue.end < after:
        return None
    related = issue.related
    if related and (related[0] < after or related[1] < after):
        return None
    unit = issue.unit
    if unit is not None and (unit[0] < after or unit[1] < after):
        return None
    cut = issue.cut
    hit = by_old.get((issue.start - delta, issue.end - delta, None if cut is None else cut - delta,
                      issue.code))
    if hit is None:
        return None
    old, d = hit
    # what the ranges, message and related information are made of, besides positions
    if (old.message != issue.message or old.severity != issue.severity or old.name != issue.name
            or old.chunk != issue.chunk or old.other_chunk != issue.other_chunk
            or old.related_message != issue.related_message
            or (old.related is None) != (related is None)
            or (related is not None and (old.related[0] + delta, old.related[1] + delta) != tuple(related))
            or (old.unit is None) != (unit is None)
            or (unit is not None and (old.unit[0] + delta, old.unit[1] + delta) != tuple(unit))
            or unit_noun(old) != unit_noun(issue)):
        return None
    return types.Diagnostic(range=d.range, message=d.message, severity=d.severity, code=d.code,
                            code_description=d.code_description, source=d.source, tags=d.tags,
                            related_information=d.related_information,
                            data=_data(issue, unit, version))


def _same_issue(old: Any, issue: Any) -> bool:
    """``old == issue`` for two issues, their messages compared without
    writing them when they share what they are written from
    (:meth:`chunkseam.core.issue.Issue.same_message`)."""
    if old is issue:  # (the server's analyses share the issues a version keeps with the next)
        return True
    if type(old) is not type(issue):
        return False
    same = getattr(old, "same_message", None)
    if same is None:
        return bool(old == issue)
    return (old.start == issue.start and old.end == issue.end and old.code == issue.code
            and old.cut == issue.cut and old.severity == issue.severity
            and old.chunk == issue.chunk and old.other_chunk == issue.other_chunk
            and old.related == issue.related and old.unit == issue.unit
            and old.related_message == issue.related_message and old.name == issue.name
            and old.fix == issue.fix and old.data == issue.data and same(issue))


def _below(issue: Any, bound: int) -> bool:
    """Whether every offset a diagnostic of ``issue`` shows is below ``bound``."""
    if issue.start >= bound or issue.end >= bound:
        return False
    related = issue.related
    if related and (related[0] >= bound or related[1] >= bound):
        return False
    unit = issue.unit
    return unit is None or (unit[0] < bound and unit[1] < bound)


def _renewed(d: types.Diagnostic, version: Any) -> types.Diagnostic:
    """``d`` for another version of the same text before an edit: its parts
    (ranges, related information) shared, its data naming ``version``."""
    data = d.data
    if isinstance(data, dict) and data.get("version") != version:
        data = dict(data)
        data["version"] = version
    return types.Diagnostic(range=d.range, message=d.message, severity=d.severity, code=d.code,
                            code_description=d.code_description, source=d.source, tags=d.tags,
                            related_information=d.related_information, data=data)


def publish(server: Any, result: "Result", limit: int = 0) -> None:
    """Push a result's diagnostics: written from their JSON templates (see
    :class:`Built`) when the server's protocol can send prepared JSON."""
    params = types.PublishDiagnosticsParams(
        uri=result.uri, diagnostics=list(cap(result.diagnostics, limit)), version=result.version)
    send = getattr(getattr(server, "protocol", None), "notify_json", None)
    body = params_json(params, result.diagnostics) if send is not None else None
    if body is None:
        server.text_document_publish_diagnostics(params)
    else:
        send(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, body)


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
