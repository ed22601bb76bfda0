"""Code actions through a real client: each quick fix, applied to the text the
way an editor applies a WorkspaceEdit, gives the expected document — and the
server, told about the edit, no longer reports the issue."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    CONFIG, FIXED_200, FIXTURES, apply_edits, change_doc, edits_of, initialize, open_doc,
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
    diags = await open_with(client, uri, UNCLOSED, FIXED_40)
    diag = next(d for d in diags if d.code == "CS003")
    action = find(await actions_for(client, uri, diag), "Close the code fence")
    assert action.title == "Close the code fence (before line 6)"
    new_text, after = await apply(client, uri, UNCLOSED, action, 2)
    assert new_text == UNCLOSED.replace("docs/\n\n## Usage", "docs/\n```\n\n## Usage")


async def test_disable_for_this_line_and_file_in_markdown(client: LanguageClient):
    uri = (FIXTURES / "database.md").as_uri()
    text = (FIXTURES / "database.md").read_text()
    diags = await open_with(client, uri, text, FIXED_200)
    diag = next(d for d in diags if d.code == "CS002")
    actions = await actions_for(client, uri, diag)
    line_action = find(actions, "Disable CS002 for this line")
    file_action = find(actions, "Disable CS002 for this file")
    lines = text.split("\n")
    line = diag.range.start.line
    expected_line = "\n".join(lines[:line] + ["<!-- chunkseam-disable-next-line CS002 -->"] + lines[line:])
    assert apply_edits(text, edits_of(line_action, uri)) == expected_line
    new_text, after = await apply(client, uri, text, file_action, 2)
    assert new_text == "<!-- chunkseam-disable-file CS002 -->\n" + text
    assert "CS002" not in {d.code for d in after}


async def test_disable_for_this_line_and_file_in_python(client: LanguageClient):
    source = "def handler(event):\n    total = compute(event)\n    return total\n"
    uri = "untitled:/handler.py"
    await initialize(client, init_options={"settings": {"chunker": "fixed", "unit": "chars",
                                                        "size": 30, "debounceMs": 0}})
    open_doc(client, uri, source, language_id="python")
    diags = (await wait_published(client, uri, version=1)).diagnostics
    diag = next(d for d in diags if d.code == "CS201")
    actions = await actions_for(client, uri, diag)
    file_action = find(actions, "Disable CS201 for this file")
    assert apply_edits(source, edits_of(file_action, uri)) == "# chunkseam: ignore-file[CS201]\n" + source
    line_action = find(actions, "Disable CS201 for this line")
    line = diag.range.start.line
    lines = source.split("\n")
    lines[line] += "  # chunkseam: ignore[CS201]"
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


async def test_split_a_fence_at_the_cut(client: LanguageClient):
    uri = "untitled:/code.md"
    size = CODE.index("b = 2") + 2  # the cut falls inside "b = 2"
    diags = await open_with(client, uri, CODE, dict(FIXED_40, size=size))
    diag = next(d for d in diags if d.code == "CS003")
    action = find(await actions_for(client, uri, diag), "Split the code block at the cut")
    # the validator splits after the line that holds the cut
    assert apply_edits(CODE, edits_of(action, uri)) == CODE.replace(
        "b = 2\nc = 3", "b = 2\n```\n\n```python\nc = 3")


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
