"""A hypothesis-driven LSP session fuzzer against the real server.

Each example is a random session: opens, incremental and full edits, requests
(hover, code actions, lenses, symbols, folding ranges, chunks), configuration
changes and closes over a few documents. After every step the server must
answer a request, and every position it sends (diagnostics, chunk ranges) must
lie inside the document in the negotiated position encoding; at the end, each
document's diagnostics must equal those of a cold open of its final text.

Bounded in examples and steps (one server per session kind, shared by the
examples); the waits are guards against hangs, never speed assertions.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_support import (
    SERVER_COMMAND, TIMEOUT, as_dict, change_doc, initialize, make_client, open_doc, replace_all,
    request, shutdown, wait_published,
)
from test_lsp_robust import assert_range_inside, units

TD = types.TextDocumentIdentifier
_EOL = re.compile(r"\r\n|\r|\n")

PIECES = st.sampled_from([
    "# Heading\n", "## Sub\n", "\n", "\r\n", "\r", "A sentence here. ", "Why? ", "```py\n", "```\n",
    "| a | b |\n|---|---|\n", "- item\n", "> quote\n", "---\n", "😀", "👩‍💻", "日本語。", "e\u0301",
    "\t", "    code\n", "[l](http://x.y)", "(open ", ") close", "\u2028", "\x00", "\ufeff", "word",
])
TEXTS = st.lists(PIECES, max_size=25).map("".join)
CONFIGS = [
    {"chunker": "fixed", "unit": "chars", "size": 37, "overlap": 5, "debounceMs": 0},
    {"size": 24, "debounceMs": 0},
    {"chunker": "recursive", "unit": "chars", "size": 45, "debounceMs": 0},
    {"chunker": "sentence", "size": 16, "debounceMs": 0},
]
DOCS = 3

OPS = st.one_of(
    st.tuples(st.just("open"), st.integers(0, DOCS - 1), TEXTS),
    st.tuples(st.just("edit"), st.integers(0, DOCS - 1),
              st.tuples(st.floats(0, 1), st.floats(0, 1), PIECES | st.just(""))),
    st.tuples(st.just("replace"), st.integers(0, DOCS - 1), TEXTS),
    st.tuples(st.just("request"), st.integers(0, DOCS - 1),
              st.sampled_from(["hover", "action", "lens", "symbols", "folding", "chunks"])),
    st.tuples(st.just("config"), st.integers(0, len(CONFIGS) - 1), st.none()),
    st.tuples(st.just("close"), st.integers(0, DOCS - 1), st.none()),
)


def position(text: str, frac: float, encoding: str) -> tuple[int, types.Position]:
    """A valid position (never inside a CRLF or a character) and its offset."""
    off = int(frac * len(text))
    while 0 < off < len(text) and text[off - 1] == "\r" and text[off] == "\n":
        off -= 1
    starts = [0] + [m.end() for m in _EOL.finditer(text)]
    line = max(i for i, s in enumerate(starts) if s <= off)
    return off, types.Position(line, units(text[starts[line]:off], encoding))


class Session:
    """One server for all the examples of a session kind."""

    def __init__(self, encoding: str, pull: bool) -> None:
        self.encoding = encoding
        self.pull = pull
        self.loop = asyncio.new_event_loop()
        self.client = make_client()
        self.n = 0
        self.steps: dict[str, int] = {}
        self.loop.run_until_complete(self._start())

    async def _start(self) -> None:
        await self.client.start_io(*SERVER_COMMAND)
        result = await initialize(self.client, settings=CONFIGS[0], encodings=[self.encoding],
                                  pull=self.pull)
        assert result.capabilities.position_encoding == self.encoding
        self.config = 0

    def close(self) -> None:
        async def stop():
            await shutdown(self.client)
            await self.client.stop()

        self.loop.run_until_complete(stop())
        self.loop.close()


@pytest.fixture(scope="module", params=[("utf-16", False), ("utf-8", True)], ids=["utf16-push", "utf8-pull"])
def session(request):
    s = Session(*request.param)
    yield s
    s.close()
    print(f"fuzzer steps ({s.encoding}, {'pull' if s.pull else 'push'}):", s.steps)


class Run:
    def __init__(self, session: Session) -> None:
        self.s = session
        self.client: LanguageClient = session.client
        session.n += 1
        self.prefix = f"untitled:/fuzz-{session.n}"
        self.texts: dict[int, str] = {}
        self.versions: dict[int, int] = {}
        #: how many publications the client had when document i's current version was sent: its
        #: own come after (a document closed and opened again starts at version 1 again)
        self.sent: dict[int, int] = {}

    def uri(self, i: int) -> str:
        return f"{self.prefix}-{i}.md"

    def check_range(self, text: str, rng) -> tuple[int, int]:
        return assert_range_inside(text, rng, self.s.encoding)

    async def diagnostics(self, i: int) -> list[types.Diagnostic]:
        """The current diagnostics of document ``i`` (pulled, or the publication of its version)."""
        uri = self.uri(i)
        if self.s.pull:
            report = await asyncio.wait_for(self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=TD(uri))), TIMEOUT)
            return list(report.items)
        published = await wait_published(self.client, uri, version=self.versions[i],
                                          after=self.sent.get(i, 0))
        return list(published.diagnostics)

    async def answers(self) -> None:
        """The server answers a request (for an open document if there is one)."""
        if self.texts:
            i = next(iter(self.texts))
            stats = as_dict(await request(self.client, "chunkseam/stats", self.uri(i)))
            assert isinstance(stats, dict)
        else:
            with pytest.raises(Exception):  # noqa: B017 - any error response is an answer
                await request(self.client, "chunkseam/stats", self.uri(0))

    async def check_doc(self, i: int) -> None:
        text = self.texts[i]
        for d in await self.diagnostics(i):
            assert d.code != "internal-error", d.message
            self.check_range(text, d.range)
        answer = as_dict(await request(self.client, "chunkseam/chunks", self.uri(i)))
        for c in answer["chunks"]:
            got = self.check_range(text, c["range"])
            for mapped, offset in zip(got, (c["startOffset"], c["endOffset"])):
                # an offset between a CR and its LF has no position of its own: the line's end
                assert mapped == offset or (mapped == offset - 1 and text[offset - 1:offset + 1] == "\r\n")

    async def step(self, op: tuple) -> None:
        kind, i, arg = op
        uri = self.uri(i)
        self.s.steps[kind] = self.s.steps.get(kind, 0) + 1
        if kind in ("open", "edit", "replace") and (kind == "open") != (i in self.texts):
            self.sent[i] = len(self.client.published)  # type: ignore[attr-defined]
        if kind == "open":
            if i in self.texts:
                return
            self.texts[i], self.versions[i] = arg, 1
            open_doc(self.client, uri, arg)
        elif kind in ("edit", "replace") and i in self.texts:
            text = self.texts[i]
            self.versions[i] += 1
            if kind == "replace":
                change_doc(self.client, uri, self.versions[i], [replace_all(arg)])
                self.texts[i] = arg
            else:
                a, b, new = arg
                (s, ps), (e, pe) = sorted([position(text, a, self.s.encoding),
                                           position(text, b, self.s.encoding)], key=lambda x: x[0])
                change_doc(self.client, uri, self.versions[i], [types.TextDocumentContentChangePartial(
                    range=types.Range(ps, pe), text=new)])
                self.texts[i] = text[:s] + new + text[e:]
        elif kind == "request" and i in self.texts:
            await self.request(i, arg)
        elif kind == "config":
            self.client.set_configuration(CONFIGS[i], section="chunkseam")
            self.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=None))
            self.s.config = i
        elif kind == "close" and i in self.texts:
            del self.texts[i]
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=TD(uri)))
        await self.answers()
        if kind in ("open", "edit", "replace") and i in self.texts:
            await self.check_doc(i)

    async def request(self, i: int, what: str) -> None:
        text, uri = self.texts[i], self.uri(i)
        pos = position(text, 0.5, self.s.encoding)[1]
        td = TD(uri)
        if what == "hover":
            hover = await self.client.text_document_hover_async(types.HoverParams(td, pos))
            if hover is not None and hover.range is not None:
                self.check_range(text, hover.range)
        elif what == "action":
            actions = await self.client.text_document_code_action_async(types.CodeActionParams(
                td, types.Range(types.Position(0, 0), pos), types.CodeActionContext(diagnostics=[])))
            for action in actions or []:
                for edits in ((action.edit.changes or {}).values() if action.edit else []):
                    for e in edits:
                        self.check_range(text, e.range)
        elif what == "lens":
            for lens in await self.client.text_document_code_lens_async(types.CodeLensParams(td)) or []:
                self.check_range(text, lens.range)
        elif what == "symbols":
            symbols = await self.client.text_document_document_symbol_async(
                types.DocumentSymbolParams(td))
            stack = list(symbols or [])
            while stack:
                sym = stack.pop()
                self.check_range(text, getattr(sym, "range", None) or sym.location.range)
                stack.extend(getattr(sym, "children", None) or [])
        elif what == "folding":
            lines = len(_EOL.split(text))
            for fold in await self.client.text_document_folding_range_async(
                    types.FoldingRangeParams(td)) or []:
                assert 0 <= fold.start_line <= fold.end_line < lines
        else:
            await self.check_doc(i)

    async def finish(self) -> None:
        """Each open document's diagnostics equal a cold open of its final text; then close all."""
        for i, text in list(self.texts.items()):
            cold = f"{self.prefix}-cold-{i}.md"
            open_doc(self.client, cold, text)
            if self.s.pull:
                final = await self.diagnostics(i)
                report = await asyncio.wait_for(self.client.text_document_diagnostic_async(
                    types.DocumentDiagnosticParams(text_document=TD(cold))), TIMEOUT)
                assert comparable(final) == comparable(report.items)
            else:
                expected = comparable((await wait_published(self.client, cold, version=1)).diagnostics)
                await self.eventually_published(self.uri(i), expected)
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=TD(cold)))
        for i in list(self.texts):
            self.client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=TD(self.uri(i))))

    async def eventually_published(self, uri: str, expected: list) -> None:
        """The last publication for ``uri`` settles on ``expected`` (a configuration
        change re-publishes every document once the client has answered)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while True:
            last = [p for p in self.client.published if p.uri == uri]  # type: ignore[attr-defined]
            got = comparable(last[-1].diagnostics) if last else None
            if got == expected:
                return
            if loop.time() > deadline:
                assert got == expected
            await asyncio.sleep(0.05)


def comparable(diags) -> list:
    out = []
    for d in diags:
        data = dict(d.data) if isinstance(d.data, dict) else d.data
        if isinstance(data, dict):
            data.pop("version", None)
            data.pop("uri", None)
        out.append((d.code, d.range.start.line, d.range.start.character, d.range.end.line,
                    d.range.end.character, d.message, repr(data)))
    return sorted(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=TEXTS, ops=st.lists(OPS, min_size=1, max_size=16))
# (closed and opened again: version 1 once more, whose diagnostics are the new text's)
@example(first="# Heading\n# Heading\n# Heading\n# Heading\n", ops=[("close", 0, None), ("open", 0, "")])
def test_random_sessions_keep_the_server_answering_and_consistent(session, first, ops):
    run = Run(session)

    async def scenario():
        for op in [("open", 0, first), *ops]:
            await run.step(op)
        await run.finish()

    session.loop.run_until_complete(asyncio.wait_for(scenario(), 4 * TIMEOUT))
