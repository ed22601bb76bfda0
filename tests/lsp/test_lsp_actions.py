"""Code actions through a real client: each quick fix, applied to the text the
way an editor applies a WorkspaceEdit, gives the expected document — and the
server, told about the edit, no longer reports the issue."""

from __future__ import annotations

import re

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXTURES, apply_edits, change_doc, edits_of, initialize, open_doc,
    shutdown, wait_published,
)

TD = types.TextDocumentIdentifier

TIMEOUTS = """# Timeouts

The pool keeps idle sockets open for a while. To prevent this, set the timeout to thirty seconds and enable keepalive.

## Retries

Retries back off exponentially.
"""
RECURSIVE_80 = {"chunker": "recursive", "unit": "chars", "size": 80, "debounceMs": 0}

ORPHAN = ("Intro paragraph that is fairly long and fills most of the chunk budget here.\n\n"
          "## Heading\n\nThe body of the section follows the heading here.\n")
RECURSIVE_95 = {"chunker": "recursive", "unit": "chars", "size": 95, "debounceMs": 0}

UNCLOSED = """# Install

```bash
pip install chunkseam
chunkseam lint docs/

## Usage

Run it on your documents.
"""
FIXED_40 = {"chunker": "fixed", "unit": "chars", "size": 40, "debounceMs": 0}
RECURSIVE_40 = dict(RECURSIVE_80, size=40)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    yield
    await shutdown(lsp_client)


async def open_with(client: LanguageClient, uri: str, text: str, settings: dict, **caps):
    await initialize(client, init_options={"settings": settings}, **caps)
    open_doc(client, uri, text)
    return (await wait_published(client, uri, version=1)).diagnostics


async def actions_for(client: LanguageClient, uri: str, diag: types.Diagnostic, only=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=TD(uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag], only=only)))


def find(actions, prefix: str) -> types.CodeAction:
    matching = [a for a in actions if a.title.startswith(prefix)]
    assert matching, f"no action {prefix!r} in {[a.title for a in actions]}"
    return matching[0]


async def apply(client: LanguageClient, uri: str, text: str, action: types.CodeAction,
                version: int) -> tuple[str, list[types.Diagnostic]]:
    """Apply the action's edits locally and send them to the server as the editor would."""
    edits = edits_of(action, uri)
    if action.edit.document_changes:
        assert action.edit.document_changes[0].text_document.version == version - 1
    new_text = apply_edits(text, edits)
    # an editor sends the edits as incremental changes, last position first
    changes = [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
               for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                               reverse=True)]
    start = len(client.published)
    change_doc(client, uri, version, changes)
    published = await wait_published(client, uri, version=version, after=start)
    return new_text, published.diagnostics


async def test_insert_paragraph_break_before_the_cut_sentence(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    diags = await open_with(client, uri, TIMEOUTS, RECURSIVE_80)
    diag = next(d for d in diags if d.code == "CS002")
    actions = await actions_for(client, uri, diag)
    action = find(actions, "Insert paragraph break before “To prevent this")
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    assert action.diagnostics and action.diagnostics[0].code == "CS002"
    new_text, after = await apply(client, uri, TIMEOUTS, action, 2)
    assert new_text == TIMEOUTS.replace(" To prevent", "\n\nTo prevent")
    assert "CS002" not in {d.code for d in after}, [(d.code, d.message) for d in after]


async def test_move_heading_down_to_its_body(client: LanguageClient):
    uri = "untitled:/orphan.md"
    diags = await open_with(client, uri, ORPHAN, RECURSIVE_95)
    diag = next(d for d in diags if d.code == "CS007")
    action = find(await actions_for(client, uri, diag), "Move heading down to its body")
    new_text, after = await apply(client, uri, ORPHAN, action, 2)
    assert new_text == ORPHAN.replace("## Heading\n\nThe body", "## Heading\nThe body")
    assert "CS007" not in {d.code for d in after}


async def test_close_an_unterminated_fence(client: LanguageClient):
    uri = "untitled:/unclosed.md"
    diags = await open_with(client, uri, UNCLOSED, RECURSIVE_40)
    # two cuts in the unterminated fence: closing it fixes only the one before "## Usage"
    offered = [await actions_for(client, uri, d) for d in diags if d.code == "CS003"]
    closing = [[a for a in acts if a.title.startswith("Close the code fence")] for acts in offered]
    assert sorted(len(c) for c in closing) == [0, 1], [[a.title for a in acts] for acts in offered]
    action = next(c[0] for c in closing if c)
    assert action.title == "Close the code fence before line 6 (fixes this cut)"
    new_text, after = await apply(client, uri, UNCLOSED, action, 2)
    assert new_text == UNCLOSED.replace("docs/\n\n## Usage", "docs/\n```\n\n## Usage")


async def test_disable_for_this_line_and_file_in_markdown(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    diags = await open_with(client, uri, TIMEOUTS, RECURSIVE_80)
    diag = next(d for d in diags if d.code == "CS002")
    actions = await actions_for(client, uri, diag)
    line_action = find(actions, "Disable CS002 for this line")
    file_action = find(actions, "Disable CS002 for this file")
    # suppressions come after the fix, which is preferred
    titles = [a.title for a in actions]
    assert titles[0].startswith("Insert paragraph break") and actions[0].is_preferred
    assert titles.index(line_action.title) > 0 and not line_action.is_preferred
    assert apply_edits(TIMEOUTS, edits_of(file_action, uri)) == \
        "<!-- chunkseam-disable-file CS002 -->\n" + TIMEOUTS
    new_text, after = await apply(client, uri, TIMEOUTS, line_action, 2)
    assert new_text == TIMEOUTS.replace("The pool", "<!-- chunkseam-disable-next-line CS002 -->\nThe pool")
    # verified: the issue is silenced and the comment is used (no CS900)
    assert not {"CS002", "CS900"} & {d.code for d in after}, [(d.code, d.message) for d in after]


async def test_disable_for_this_line_and_file_in_python(client: LanguageClient):
    source = "def handler(event):\n    total = compute(event)\n    return total\n"
    uri = "untitled:/handler.py"
    await initialize(client, init_options={"settings": {"chunker": "recursive", "unit": "chars",
                                                        "size": 30, "debounceMs": 0}})
    open_doc(client, uri, source, language_id="python")
    diags = (await wait_published(client, uri, version=1)).diagnostics
    diag = next(d for d in diags if d.code == "CS201")
    actions = await actions_for(client, uri, diag)
    file_action = find(actions, "Disable CS201 for this file")
    assert apply_edits(source, edits_of(file_action, uri)) == "# chunkseam: ignore-file[CS201]\n" + source
    line_action = find(actions, "Disable CS201 for this line")
    lines = source.split("\n")
    lines[0] += "  # chunkseam: ignore[CS201]"
    new_text, after = await apply(client, uri, source, line_action, 2)
    assert new_text == "\n".join(lines)
    assert "CS201" not in {d.code for d in after}, [(d.code, d.message) for d in after]


async def test_remove_an_unused_suppression(client: LanguageClient):
    text = "<!-- chunkseam-disable-next-line CS004 -->\n# Title\n\nA short paragraph.\n"
    uri = "untitled:/unused.md"
    diags = await open_with(client, uri, text, {"debounceMs": 0})
    diag = next(d for d in diags if d.code == "CS900")
    action = find(await actions_for(client, uri, diag), "Remove the unused suppression comment")
    new_text, after = await apply(client, uri, text, action, 2)
    assert new_text == "# Title\n\nA short paragraph.\n"
    assert not after


CODE = "# Code\n\n```python\na = 1\nb = 2\nc = 3\n```\n\nAfter.\n"
TABLE = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n\nAfter.\n"


async def test_split_a_fence_at_the_cut_line(client: LanguageClient):
    uri = "untitled:/code.md"
    diags = await open_with(client, uri, CODE, dict(RECURSIVE_80, size=30))
    diag = next(d for d in diags if d.code == "CS003")
    actions = await actions_for(client, uri, diag)
    splits = [a for a in actions if a.title.startswith("Split the code block")]
    # one split, at the line that holds the cut (the line after it would leave the cut inside)
    assert [a.title for a in splits] == ["Split the code block before line 6 (fixes this cut and 2 more)"]
    new_text, after = await apply(client, uri, CODE, splits[0], 2)
    assert new_text == CODE.replace("b = 2\nc = 3", "b = 2\n```\n\n```python\nc = 3")
    assert "CS003" not in {d.code for d in after}


async def test_one_action_per_edit_for_a_block_with_several_cuts(client: LanguageClient):
    uri = "untitled:/code.md"
    text = CODE.replace("c = 3\n", "c = 3\nd = 4\ne = 5\nf = 6\n")
    diags = await open_with(client, uri, text, dict(RECURSIVE_80, size=20))
    assert sum(d.code == "CS003" for d in diags) >= 2
    # the whole block selected, no diagnostics named: every fix once, titles tell them apart
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=TD(uri), range=types.Range(types.Position(2, 0), types.Position(10, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    titles = [a.title for a in actions]
    assert titles and len(titles) == len(set(titles)), titles
    keys = [tuple((e.range.start.line, e.new_text) for e in edits_of(a, uri)) for a in actions]
    assert len(keys) == len(set(keys))


async def test_repeat_the_table_header_after_the_cut(client: LanguageClient):
    uri = "untitled:/table.md"
    diags = await open_with(client, uri, TABLE, dict(FIXED_40, size=TABLE.index("| 5 |")))
    diag = next(d for d in diags if d.code == "CS004")
    action = find(await actions_for(client, uri, diag), "Repeat the table header after the cut")
    assert apply_edits(TABLE, edits_of(action, uri)) == TABLE.replace(
        "| 3 | 4 |\n", "| 3 | 4 |\n\n| a | b |\n|---|---|\n")


async def test_actions_are_correct_in_utf16_after_emoji(client: LanguageClient):
    text = TIMEOUTS.replace("The pool", "😀🎉 The pool")
    uri = "untitled:/emoji.md"
    diags = await open_with(client, uri, text, dict(RECURSIVE_80, size=84))
    diag = next(d for d in diags if d.code == "CS002")
    action = find(await actions_for(client, uri, diag), "Insert paragraph break")
    edits = edits_of(action, uri)
    assert apply_edits(text, edits, "utf-16") == text.replace(" To prevent", "\n\nTo prevent")
    # the same edit read as code points would land elsewhere: the emoji count twice in UTF-16
    assert edits[0].range.start.character == len("😀🎉 The pool keeps idle sockets open for a while.") + 2


async def test_only_filter_and_clean_ranges(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    diags = await open_with(client, uri, TIMEOUTS, RECURSIVE_80)
    diag = next(d for d in diags if d.code == "CS002")
    assert not await actions_for(client, uri, diag, only=[types.CodeActionKind.Refactor])
    # a range with no issue gets no action
    none = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=TD(uri), range=types.Range(types.Position(6, 0), types.Position(6, 3)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not none


async def test_plain_changes_for_clients_without_document_changes(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    diags = await open_with(client, uri, TIMEOUTS, RECURSIVE_80, document_changes=False)
    diag = next(d for d in diags if d.code == "CS002")
    action = find(await actions_for(client, uri, diag), "Insert paragraph break")
    assert action.edit.document_changes is None and list(action.edit.changes) == [uri]
    assert apply_edits(TIMEOUTS, edits_of(action, uri)) == TIMEOUTS.replace(" To prevent", "\n\nTo prevent")


STREAMING = (FIXTURES / "streaming.md").read_text()


def fixed_at_channel() -> dict:
    """A fixed window whose first cut falls in "chan|nel"."""
    return {"chunker": "fixed", "unit": "chars", "size": STREAMING.index("channel") + 4, "debounceMs": 0}


def counts(diags: list[types.Diagnostic]) -> dict[int, int]:
    out: dict[int, int] = {}
    for d in diags:
        out[d.severity] = out.get(d.severity, 0) + 1
    return out


async def test_fixed_window_fixes_are_proven_or_not_offered(client: LanguageClient):
    uri = "untitled:/streaming.md"
    diags = await open_with(client, uri, STREAMING, fixed_at_channel())
    diag = next(d for d in diags if d.code == "CS001")
    actions = await actions_for(client, uri, diag)
    titles = [a.title for a in actions]
    # a paragraph break only moves the window's cut into the next word: not offered
    assert not any(t.startswith("Insert paragraph break") for t in titles), titles
    # the suppressions say that they shift every later cut, and what that costs
    line_action = find(actions, "Disable CS001 for this line")
    assert "shifts all 4 later cuts" in line_action.title, titles
    assert "1 new warning" in line_action.title and not line_action.is_preferred
    before = counts(diags)
    new_text, after = await apply(client, uri, STREAMING, line_action, 2)
    # the title told the truth: one more warning, and the comment is used (no CS900)
    assert counts(after).get(types.DiagnosticSeverity.Warning, 0) == \
        before.get(types.DiagnosticSeverity.Warning, 0) + 1
    assert "CS900" not in {d.code for d in after}
    cut_line = diag.range.start.line + 1  # the comment pushed it down one line
    assert not [d for d in after if d.code == "CS001" and d.range.start.line == cut_line]


async def test_fixed_window_suppressions_say_they_shift_the_cuts(client: LanguageClient):
    uri = "untitled:/streaming.md"
    diags = await open_with(client, uri, STREAMING, fixed_at_channel())
    later = [d for d in diags if d.code == "CS001"][1:]
    assert later
    for diag in later:
        titles = [a.title for a in await actions_for(client, uri, diag)]
        # whatever is offered was verified, and says that it moves the window's cuts
        assert all("shifts all" in t for t in titles), titles


IT_PARAGRAPH = ("# Pool\n\nThe pool keeps idle sockets open for a while. It closes them after the "
                "timeout expires, which is thirty seconds by default.\n")


async def test_title_states_the_new_issue_a_fix_brings(client: LanguageClient):
    uri = "untitled:/pool.md"
    diags = await open_with(client, uri, IT_PARAGRAPH, dict(RECURSIVE_80, extendSelect=["CS103"]))
    diag = next(d for d in diags if d.code == "CS002")
    action = find(await actions_for(client, uri, diag), "Insert paragraph break")
    # the new paragraph opens with "It…": CS103 (info) — the title says so
    assert action.title.endswith("(fixes this cut and 2 more; 1 new info)"), action.title
    new_text, after = await apply(client, uri, IT_PARAGRAPH, action, 2)
    assert "CS002" not in {d.code for d in after}
    assert [d.code for d in after if d.severity == types.DiagnosticSeverity.Information] == ["CS103"]


async def test_lazy_edit_through_code_action_resolve(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    await initialize(client, init_options={"settings": RECURSIVE_80}, resolve=True)
    open_doc(client, uri, TIMEOUTS)
    diags = (await wait_published(client, uri, version=1)).diagnostics
    diag = next(d for d in diags if d.code == "CS002")
    action = find(await actions_for(client, uri, diag), "Insert paragraph break")
    assert action.edit is None and action.data
    resolved = await client.code_action_resolve_async(action)
    assert apply_edits(TIMEOUTS, edits_of(resolved, uri)) == TIMEOUTS.replace(" To prevent", "\n\nTo prevent")


async def test_source_fix_all(client: LanguageClient):
    uri = "untitled:/streaming.md"
    settings = {"chunker": "recursive", "unit": "chars", "size": 275, "debounceMs": 0}
    diags = await open_with(client, uri, STREAMING, settings)
    assert sum(d.code == "CS002" for d in diags) == 3
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=TD(uri), range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.chunkseam"])))
    assert [a.kind for a in actions] == ["source.fixAll.chunkseam"]
    new_text, after = await apply(client, uri, STREAMING, actions[0], 2)
    assert new_text.count("\n\n") > STREAMING.count("\n\n")
    # every fix was verified: fewer problems, none of them new
    bad = {types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning}
    assert sum(d.severity in bad for d in after) < sum(d.severity in bad for d in diags)
    assert "CS002" not in {d.code for d in after}
    # a quick-fix request does not compute the fix-all
    quick = await actions_for(client, uri, after[0]) if after else []
    assert all(a.kind == types.CodeActionKind.QuickFix for a in quick)


async def test_light_bulb_requests_are_bounded_and_the_rest_follows(client: LanguageClient):
    uri = "untitled:/timeouts.md"
    diags = await open_with(client, uri, TIMEOUTS, RECURSIVE_80)
    diag = next(d for d in diags if d.code == "CS002")
    # what the editor asks by itself on a cursor move: at least the first fix, verified
    auto = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=TD(uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag],
                                        trigger_kind=types.CodeActionTriggerKind.Automatic)))
    assert auto and auto[0].title.startswith("Insert paragraph break") and auto[0].is_preferred
    # what the writer asks (Ctrl+.): everything, the same verdicts
    invoked = await actions_for(client, uri, diag)
    titles = [a.title for a in invoked]
    assert {a.title for a in auto} <= set(titles)
    assert any(t.startswith("Disable CS002 for this file") for t in titles), titles


FEWER = re.compile(r"\((?:.*; )?(\d+) fewer issues?(?:;.*)?\)$")


async def test_a_suppression_title_counts_every_issue_it_removes(client: LanguageClient):
    """"Disable CS003 for this file (1 fewer issue)" removed 2: the count is the
    re-simulation's, the targeted issue included."""
    uri = "untitled:/unclosed.md"
    diags = await open_with(client, uri, UNCLOSED, RECURSIVE_40)
    cs003 = [d for d in diags if d.code == "CS003"]
    assert len(cs003) == 2, [(d.code, d.message) for d in diags]
    action = find(await actions_for(client, uri, cs003[0]), "Disable CS003 for this file")
    m = FEWER.search(action.title)
    assert m, action.title
    _, after = await apply(client, uri, UNCLOSED, action, 2)
    assert int(m.group(1)) == len(diags) - len(after) == 2, (action.title, [(d.code, d.message) for d in after])
