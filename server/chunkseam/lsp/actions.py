"""Code actions: quick fixes proven by :mod:`chunkseam.fix.edits`, and ``source.fixAll.chunkseam``.

The engine proposes the edits and re-simulates each one on a copy of the
document; this module only turns the verdicts into LSP:

- an action is offered only when its issue is gone in the re-simulation; its
  title says the net effect (``… (fixes this cut; 1 new hint)``); fixes that
  add errors or warnings come last, never preferred, with that cost in the title;
- the verification runs within a time budget, and its verdicts are kept with
  the document version, so what did not fit in one request is ready for the next;
- with ``codeAction/resolve`` support the edit itself is filled in on resolve;
- ``source.fixAll.chunkseam`` applies every verified, non-conflicting fix
  (:func:`chunkseam.fix.edits.fix_all`) as one edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from chunkseam.fix import edits as fixes
from chunkseam.lsp.diagnostics import SOURCE, to_diagnostic

if TYPE_CHECKING:  # pragma: no cover
    from chunkseam.lsp.state import Result

FIX_ALL = "source.fixAll.chunkseam"
#: seconds spent verifying the quick fixes of one request / the fix-all of one document
BUDGET = fixes.BUDGET
FIX_ALL_BUDGET = 5.0
#: a request the editor makes by itself (the light bulb, on every cursor move) verifies
#: at least one candidate and stops after this long; the rest is verified in the
#: background for the request the writer makes (Ctrl+.)
AUTOMATIC_BUDGET = 0.04


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    if a0 == a1:
        return b0 <= a0 <= b1
    if b0 == b1:
        return a0 <= b0 <= a1
    return a0 < b1 and b0 < a1


def _matches(diag: types.Diagnostic, issue: Any, doc: Any, enc: str) -> bool:
    if diag.code != issue.code:
        return False
    data = diag.data if isinstance(diag.data, dict) else None
    if data and "cut" in data:
        # the diagnostic names its issue exactly (several cuts may share one range)
        return (data.get("cut") == issue.cut and data.get("start") == issue.start
                and data.get("end") == issue.end)
    s = doc.position_to_offset(diag.range.start.line, diag.range.start.character, enc)
    e = doc.position_to_offset(diag.range.end.line, diag.range.end.character, enc)
    return s == doc.clamp(issue.start) and e == max(doc.clamp(issue.start), doc.clamp(issue.end))


def _kinds(only: Any) -> list[str]:
    return [str(getattr(o, "value", o)) for o in (only or [])]


def wants(only: Any, kind: str) -> bool:
    """Whether a request's ``only`` filter admits actions of ``kind``."""
    kinds = _kinds(only)
    return not kinds or any(k == "" or kind == k or kind.startswith(k + ".") for k in kinds)


def text_edits(doc: Any, edits: list[fixes.Edit], enc: str) -> list[types.TextEdit]:
    out = []
    for e in edits:
        s = doc.offset_to_position(e.start, enc)
        t = doc.offset_to_position(e.end, enc)
        out.append(types.TextEdit(range=types.Range(types.Position(s.line, s.character),
                                                     types.Position(t.line, t.character)),
                                  new_text=e.text))
    return out


def workspace_edit(result: "Result", edits: list[types.TextEdit],
                   document_changes: bool) -> types.WorkspaceEdit:
    if document_changes:
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=result.uri,
                                                                        version=result.version),
            edits=edits)])
    return types.WorkspaceEdit(changes={result.uri: edits})


def _verdict_cache(result: "Result") -> dict:
    """Verdicts of this document version under these settings (kept with the version)."""
    return result.doc.memo(("chunkseam.fix.edits", id(result.analysis)), dict)


def code_actions(result: "Result", params: types.CodeActionParams, encoding: str,
                 document_changes: bool = True, *, lazy: bool = False,
                 budget: float | None = BUDGET) -> list[types.CodeAction]:
    if result.analysis is None:
        return []
    only = params.context.only
    out: list[types.CodeAction] = []
    if wants(only, types.CodeActionKind.QuickFix.value):
        out += quick_fixes(result, params, encoding, document_changes, lazy=lazy, budget=budget)
    if _kinds(only) and wants(only, FIX_ALL) and any(
            k in (FIX_ALL, "source.fixAll", "source") for k in _kinds(only)):
        action = fix_all(result, encoding, document_changes)
        if action is not None:
            out.append(action)
    return out


def quick_fixes(result: "Result", params: types.CodeActionParams, encoding: str,
                document_changes: bool, *, lazy: bool, budget: float | None) -> list[types.CodeAction]:
    doc = result.doc
    rng = params.range
    s = doc.position_to_offset(rng.start.line, rng.start.character, encoding)
    e = doc.position_to_offset(rng.end.line, rng.end.character, encoding)
    ours = [d for d in (params.context.diagnostics or []) if d.source == SOURCE]
    chosen: list[tuple[Any, Any]] = []
    for issue in result.issues:
        diag = next((d for d in ours if _matches(d, issue, doc, encoding)), None)
        if diag is not None or _overlaps(s, e, issue.start, issue.end) or (
                issue.cut is not None and _overlaps(s, e, issue.cut, issue.cut)):
            chosen.append((issue, diag))
    if any(d is not None for _, d in chosen):
        chosen = [(i, d) for i, d in chosen if d is not None]  # the diagnostics the client names
    if not chosen:
        return []
    cache = _verdict_cache(result)
    targets = [i for i, _ in chosen]
    automatic = params.context.trigger_kind == types.CodeActionTriggerKind.Automatic
    verdicts, complete = fixes.verified(
        doc, result.settings, result.analysis, targets, cache=cache,
        budget=min(budget, AUTOMATIC_BUDGET) if automatic and budget is not None else budget,
        min_verified=1 if automatic else fixes.MIN_VERIFIED)
    if not complete:
        _finish_later(result, targets, cache)
    diags = {id(i): d for i, d in chosen}
    out: list[types.CodeAction] = []
    preferred_given = False
    for v in verdicts:
        issue = v.candidate.issue
        diag = diags.get(id(issue)) or to_diagnostic(issue, doc, result.uri, encoding)
        preferred = v.clean and v.candidate.kind == "fix" and not preferred_given
        preferred_given = preferred_given or preferred
        action = types.CodeAction(title=v.title, kind=types.CodeActionKind.QuickFix,
                                  diagnostics=[diag], is_preferred=True if preferred else None)
        if lazy:
            action.data = {"uri": result.uri, "version": result.version,
                           "edits": [[x.start, x.end, x.text] for x in v.candidate.edits]}
        else:
            action.edit = workspace_edit(result, text_edits(doc, v.candidate.edits, encoding),
                                         document_changes)
        out.append(action)
    return out


_BACKGROUND: list[Any] = []


def _finish_later(result: "Result", targets: list[Any], cache: dict) -> None:
    """Verify what did not fit in the budget, in the background, into the
    version's verdict cache: the editor asks again when the cursor moves."""
    if cache.get("pending"):
        return
    cache["pending"] = True
    if not _BACKGROUND:
        from concurrent.futures import ThreadPoolExecutor

        _BACKGROUND.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunkseam-fixes"))

    def run() -> None:
        try:
            fixes.verified(result.doc, result.settings, result.analysis, targets, budget=None,
                           cache=cache)
        finally:
            cache["pending"] = False

    _BACKGROUND[0].submit(run)


def resolve(result: "Result", action: types.CodeAction, encoding: str,
            document_changes: bool) -> types.CodeAction:
    """Fill in the edit of an action offered without one."""
    data = action.data if isinstance(action.data, dict) else {}
    raw = data.get("edits")
    if action.edit is not None or not isinstance(raw, list) or data.get("version") != result.version:
        return action  # already resolved, or for an older version: nothing safe to add
    try:
        edits = [fixes.Edit(int(a), int(b), str(t)) for a, b, t in raw]
    except (TypeError, ValueError):
        return action
    n = len(result.doc.text)
    if any(not 0 <= x.start <= x.end <= n for x in edits):
        return action
    action.edit = workspace_edit(result, text_edits(result.doc, edits, encoding), document_changes)
    return action


def fix_all(result: "Result", encoding: str, document_changes: bool,
            budget: float | None = FIX_ALL_BUDGET) -> types.CodeAction | None:
    """One action that applies every verified, non-conflicting fix, as one edit
    of the span between the first and the last change."""
    done = fixes.fix_all(result.doc, result.settings, result.analysis, budget=budget)
    if not done.changed:
        return None
    old, new = result.doc.text, done.doc.text
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    edit = text_edits(result.doc, [fixes.Edit(start, end_old, new[start:end_new])], encoding)
    n = len(done.applied)
    title = f"Fix all chunkseam issues that can be fixed ({n} fix{'es' if n != 1 else ''})"
    return types.CodeAction(title=title, kind=FIX_ALL,
                            edit=workspace_edit(result, edit, document_changes))
