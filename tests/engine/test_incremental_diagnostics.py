"""Every strategy's diagnostics after a sequence of edits are those of a cold open.

The server analyses an edited document with what it kept from the previous
versions (structure segments, each strategy's chunk run, cut judgements,
bracket-span indexes, sentence spans) and turns the issues into diagnostics
with its own converter. Here the server's analysis code (``DocumentStore``)
is driven edit by edit as the server drives it (``didChange`` content changes
in UTF-16 positions, the previous result kept), and after every edit the
published diagnostics, as the client receives them (JSON), must equal those of
the same text opened in a fresh store with every cross-version cache empty.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import random
import threading
import weakref

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from lsprotocol import types
from pygls.protocol import default_converter

from chunkseam.document.text import Document
from chunkseam.lsp import diagnostics
from chunkseam.lsp.settings import EditorSettings
from chunkseam.lsp.state import DocumentStore

from conftest import corpus_files
from mdgen import markdown_texts

structure_mod = importlib.import_module("chunkseam.structure.markdown")
validate_mod = importlib.import_module("chunkseam.engine.validate")
markdown_mod = importlib.import_module("chunkseam.chunkers.markdown")
base_mod = importlib.import_module("chunkseam.checks.base")
sentences_mod = importlib.import_module("chunkseam.structure.sentences")

#: the server settings of each strategy (as bench_lsp.py measures them, and smaller)
STRATEGIES = {
    "markdown": [{}, {"size": 64, "overlap": 8}, {"size": 64, "overlap": 8, "select": ["ALL"]}],
    "recursive": [{"chunker": "recursive", "size": 48, "overlap": 8},
                  {"chunker": "recursive", "unit": "chars", "size": 120, "overlap": 30}],
    "langchain": [{"chunker": "langchain", "size": 48, "overlap": 8}],
    "fixed": [{"chunker": "fixed", "size": 32, "overlap": 6},
              {"chunker": "fixed", "unit": "chars", "size": 90, "overlap": 15}],
    "sentence": [{"chunker": "sentence", "size": 40, "overlap": 1},
                 {"chunker": "sentence", "unit": "chars", "size": 200, "overlap": 0}],
}
PIECES = ["a", "xy", " ", "\n", "\n\n", "# ", "#", "```", "\n```\n", "---", "\r\n", "- ", "> ",
          "| x |", "    ", "1. ", "(", ")", "[", "`", "<!--", "<div>", ". ", "Word", "é", "😀"]

WIRE = diagnostics.converter()
URI = "file:///virtual/incremental.md"


@contextlib.contextmanager
def fresh_caches():
    """Every cache an analysis may take from earlier versions or documents, empty."""
    saved = (structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE,
             base_mod._SPAN_CACHE, sentences_mod._CACHE)
    structure_mod._SEGMENTS = structure_mod._SegmentCache()
    markdown_mod._SECTION_CACHES = weakref.WeakKeyDictionary()
    validate_mod._CUT_CACHE = validate_mod._new_cut_cache()
    base_mod._SPAN_CACHE = base_mod.ByteLRU("bracket spans (test)", base_mod.SPAN_CACHE_BYTES)
    sentences_mod._CACHE = sentences_mod.ByteLRU("sentences (test)", 1 << 20)
    try:
        yield
    finally:
        (structure_mod._SEGMENTS, markdown_mod._SECTION_CACHES, validate_mod._CUT_CACHE,
         base_mod._SPAN_CACHE, sentences_mod._CACHE) = saved


def store_for(server_settings: dict) -> DocumentStore:
    store = DocumentStore(workers=1)
    store.build_diagnostics = diagnostics.build
    store.editor = EditorSettings.from_initialization_options(
        {"settings": {"debounceMs": 0, **server_settings}})
    return store


def compute(store: DocumentStore, uri: str) -> list:
    """The server's analysis of the current version (kept as its last result),
    its diagnostics as the client reads them."""
    od = store.get(uri)
    snapshot = (uri, od.version, store.generation, od.doc, od.language_id,
                dataclasses.replace(store.editor), store.encoding, od.serial)
    result = store._compute(snapshot)
    assert result.error is None, result.error
    store.results[uri] = result
    got = json.loads(json.dumps(WIRE.unstructure(result.diagnostics)))
    # what the server writes: each diagnostic's JSON from its template, kept
    # over from the previous version where the diagnostic is unchanged
    params = types.PublishDiagnosticsParams(uri=uri, diagnostics=result.diagnostics,
                                            version=od.version)
    body = diagnostics.params_json(params, result.diagnostics)
    assert body is not None
    assert json.loads(body) == json.loads(json.dumps(WIRE.unstructure(params)))
    return got


def cold(server_settings: dict, text: str, version: int) -> list:
    store = store_for(server_settings)
    try:
        with fresh_caches():
            store.open(URI, text, version, "markdown")
            return compute(store, URI)
    finally:
        store.shutdown()


def change(doc: Document, a: int, b: int, ins: str) -> types.TextDocumentContentChangePartial:
    s, e = doc.offset_to_position(a), doc.offset_to_position(b)
    return types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(s.line, s.character), types.Position(e.line, e.character)),
        text=ins)


def edits_equal_cold(server_settings: dict, text: str, edits: list[tuple[float, int, str]]) -> int:
    """Open ``text``, apply ``edits`` ((where as a fraction of the length,
    characters replaced, inserted text)) one by one; after each, the
    diagnostics equal a cold open's. Returns how many were compared."""
    store = store_for(server_settings)
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        for n, (frac, length, ins) in enumerate(edits):
            od = store.get(URI)
            doc = od.doc
            a = int(frac * len(doc.text))
            b = min(len(doc.text), a + length)
            if 0 < a < len(doc.text) and doc.text[a - 1] == "\r" and doc.text[a] == "\n":
                a -= 1  # UTF-16 positions cannot name the middle of a CRLF
            store.change(URI, n + 2, [change(doc, a, max(a, b), ins)])
            got = compute(store, URI)
            assert got == cold(server_settings, store.get(URI).text, n + 2), (server_settings, n)
        return len(edits)
    finally:
        store.shutdown()


def _all_configs() -> list[tuple[str, dict]]:
    return [(name, cfg) for name, cfgs in STRATEGIES.items() for cfg in cfgs]


@pytest.mark.parametrize("name,server_settings", _all_configs(),
                         ids=[f"{n}-{i}" for n, cfgs in STRATEGIES.items() for i in range(len(cfgs))])
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=markdown_texts(max_lines=30), data=st.data())
def test_generated_edit_sequences_publish_what_a_cold_open_publishes(name, server_settings, text,
                                                                     data):
    edits = data.draw(st.lists(st.tuples(
        st.floats(0, 1), st.sampled_from([0, 0, 1, 2, 10]),
        st.lists(st.sampled_from(PIECES), max_size=3).map("".join)), min_size=1, max_size=4))
    edits_equal_cold(server_settings, text, edits)


@pytest.mark.parametrize("name,server_settings", _all_configs(),
                         ids=[f"{n}-{i}" for n, cfgs in STRATEGIES.items() for i in range(len(cfgs))])
def test_corpus_edit_sequences_publish_what_a_cold_open_publishes(name, server_settings):
    """A document of a few corpus pages (its paragraphs, fences, tables and
    links), edited at random places: one-character edits, as typing makes
    them, and a few larger ones."""
    files = corpus_files("markdown")
    rng = random.Random(len(name) * 7 + len(server_settings))
    text = "\n\n".join(rng.choice(files).read_text(encoding="utf-8") for _ in range(3))
    edits = [(rng.random(), 0, rng.choice("abcdefgh ")) for _ in range(4)]
    edits += [(rng.random(), rng.choice([0, 1, 5]), rng.choice(PIECES)) for _ in range(2)]
    assert edits_equal_cold(server_settings, text, edits) == 6


def test_diagnostics_before_an_edit_are_carried_over():
    """After an edit, the diagnostics on the lines before it are the previous
    version's (their ranges shared, their data naming the new version); the
    rest are made anew, and all equal a cold open's."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:5])
    cfg = {"chunker": "fixed", "size": 48, "overlap": 8}
    store = store_for(cfg)
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        before = store.results[URI].diagnostics
        at = len(text) * 2 // 3
        store.change(URI, 2, [change(store.get(URI).doc, at, at, "x")])
        got = compute(store, URI)
        after = store.results[URI].diagnostics
    finally:
        store.shutdown()
    assert got == cold(cfg, store.get(URI).text, 2)
    shared = [d for d in after if any(d.range is o.range for o in before)]
    line = store.get(URI).doc.offset_to_position(at).line
    assert len(shared) > len(after) // 3
    assert all(d.range.end.line < line and d.data["version"] == 2 for d in shared)
    assert any(d.range.start.line > line for d in after)
    # their JSON is the previous version's, the version spliced in
    old_templates = {id(t) for t in before.templates.values() if t is not None}
    assert all(id(after.templates[id(d)]) in old_templates for d in shared)
    fresh = [d for d in after if d not in shared]
    assert fresh and all(id(after.templates[id(d)]) not in old_templates for d in fresh)
    body = json.loads(diagnostics.diagnostic_json(shared[0], after.templates[id(shared[0])]))
    assert body["data"]["version"] == 2


def test_carried_over_diagnostics_leave_their_issues_messages_unwritten():
    """A diagnostic carried over from the previous version is chosen by
    comparing its issue with the new one; a cut issue reused from that
    version is that version's issue itself (the server's analyses hand out
    the issues they keep: see validate's ``share``), or shares what its
    message is written from; its message is not written again for the
    comparison. The comparison is ``==`` field by field."""
    from chunkseam.core.issue import Issue

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:5])
    cfg = {"chunker": "fixed", "size": 48, "overlap": 8}
    store = store_for(cfg)
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        before = store.results[URI].diagnostics
        first = {id(i) for i in store.results[URI].issues}
        at = len(text) * 2 // 3
        store.change(URI, 2, [change(store.get(URI).doc, at, at, "x")])
        got = compute(store, URI)
        result = store.results[URI]
    finally:
        store.shutdown()
    assert got == cold(cfg, store.get(URI).text, 2)
    shared = {id(d) for d in result.diagnostics if any(d.range is o.range for o in before)}
    assert len(shared) > 20
    carried = [i for i in result.issues if i.cut is not None and i.end < at - 200
               and i.severity == "error"]
    assert len(carried) > 20
    assert sum(id(i) in first or (type(i._message) is not str and i._written is None)
               for i in carried) > len(carried) // 2
    # the field-by-field comparison is dataclass equality
    a = Issue("CS001", "mid-word", "error", "m", 1, 2, 0, 1, 1, (1, 2), "r", "f", {"w": [1, 2]}, (1, 2))
    assert diagnostics._same_issue(a, dataclasses.replace(a))
    for f in dataclasses.fields(Issue):
        value = getattr(a, f.name)
        other = dataclasses.replace(a, **{f.name: {"w": [1, 3]} if f.name == "data" else
                                          (value[0], 9) if isinstance(value, tuple) else
                                          value + 7 if isinstance(value, int) else value + "x"})
        assert not diagnostics._same_issue(a, other) and a != other, f.name


def test_diagnostics_after_an_edit_within_a_line_keep_their_positions():
    """After an edit that adds no line, the diagnostics of issues on the lines
    after it (moved by the edit) share the previous version's ranges and
    related information; their data is this version's; all equal a cold open's."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:5])
    cfg = {"chunker": "sentence", "size": 40, "overlap": 1}
    store = store_for(cfg)
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        before = store.results[URI].diagnostics
        at = len(text) // 3
        store.change(URI, 2, [change(store.get(URI).doc, at, at, "xy")])
        got = compute(store, URI)
        after = store.results[URI].diagnostics
    finally:
        store.shutdown()
    assert got == cold(cfg, store.get(URI).text, 2)
    line = store.get(URI).doc.offset_to_position(at).line
    moved = [d for d in after if d.range.start.line > line and any(d.range is o.range for o in before)]
    assert len(moved) > len([d for d in after if d.range.start.line > line]) // 2
    olds = {(o.data["start"], o.data["code"]): o for o in before}
    for d in moved:
        assert d.data["version"] == 2
        old = olds[(d.data["start"] - 2, d.data["code"])]
        assert d.related_information is old.related_information and d.data["end"] == old.data["end"] + 2


def test_an_edit_judges_cuts_and_chunks_from_its_neighbourhood_on(monkeypatch):
    """The cuts and chunks before an edit's neighbourhood keep the last run's
    judgements without a lookup; those from it on are judged (through the
    content-keyed cache): fewer than half after an edit three quarters in."""
    from chunkseam.engine.analysis import analyze
    from chunkseam.checks import chunks as chunks_mod
    from chunkseam.core.settings import Settings

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:6])
    config = Settings(chunker="recursive", size=64, overlap=8)
    doc = Document(text, path="/virtual/prefix.md", version=1)
    first = analyze(doc, config)
    judged: list[int] = []
    checked: list[int] = []
    real_judge, real_chunks = validate_mod._CutJudge._judge_own, chunks_mod.chunk_issues
    monkeypatch.setattr(validate_mod._CutJudge, "_judge_own",
                        lambda self, cut: judged.append(cut.offset) or real_judge(self, cut))

    def spy(ctx, first_content, views=None):
        checked.append(len(ctx.chunks if views is None else views))
        return real_chunks(ctx, first_content, views)

    monkeypatch.setattr(validate_mod, "chunk_issues", spy)
    at = text.index(" ", len(text) * 3 // 4)
    new = doc.with_edit(at, at, "x", version=2)
    second = analyze(new, config)
    monkeypatch.undo()
    assert judged and min(judged) > len(text) // 2
    assert 0 < checked[0] < len(second.chunks) // 2
    with fresh_caches():
        fresh = analyze(Document(new.text, path="/virtual/prefix.md", version=2), config)
    assert [dataclasses.asdict(i) for i in second.issues] == [dataclasses.asdict(i) for i in fresh.issues]
    assert len(first.issues) > 20


def test_issues_kept_for_the_next_version_are_not_the_ones_handed_out():
    """Changing the issues one validation returned does not change what the
    next version's validation reuses from it (cuts and chunks before an edit)."""
    from chunkseam.engine.analysis import analyze
    from chunkseam.core.settings import Settings

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4])
    config = Settings(chunker="sentence", size=40, overlap=1)
    doc = Document(text, path="/virtual/copies.md", version=1)
    for version in (2, 3):
        for issue in analyze(doc, config).issues:
            issue.message = "tampered"
            for v in issue.data.values():
                if isinstance(v, list):
                    v.append(-1)
        at = len(doc.text) - 40
        # (the tampered version kept alive: the next one reuses its runs only then)
        old, doc = doc, doc.with_edit(at, at, "x", version=version)
    assert doc.lineage() and doc.lineage()[0][0] is old
    got = analyze(doc, config).issues
    with fresh_caches():
        want = analyze(Document(doc.text, path="/virtual/copies.md"), config).issues
    assert len(want) > 20
    assert [dataclasses.asdict(i) for i in got] == [dataclasses.asdict(i) for i in want]


# -- what goes over the wire ---------------------------------------------------------------------


def test_diagnostics_are_written_as_pygls_converter_writes_them():
    """The hand-written conversion of a diagnostic to JSON gives what cattrs'
    generated one gives: on a real analysis (related information, data with
    nested lists) and on diagnostics with the fields the server leaves out."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:4])
    store = store_for({"chunker": "fixed", "size": 48, "overlap": 8})
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        diags = store.results[URI].diagnostics
    finally:
        store.shutdown()
    assert len(diags) > 50 and any(d.related_information for d in diags)
    r = types.Range(types.Position(0, 1), types.Position(2, 3))
    diags = diags + [
        types.Diagnostic(range=r, message="bare"),
        types.Diagnostic(range=r, message="all", severity=types.DiagnosticSeverity.Hint, code=7,
                         code_description=types.CodeDescription(href="https://x"), source="s",
                         tags=[types.DiagnosticTag.Unnecessary, types.DiagnosticTag.Deprecated],
                         related_information=[], data={"nested": {"a": [1, None, "x"]}}),
        diagnostics.internal_error("boom"),
    ]
    plain = default_converter()
    assert WIRE.get_unstructure_hook(types.Diagnostic) is diagnostics._wire_diagnostic
    for d in diags:
        assert WIRE.unstructure(d) == plain.unstructure(d)
    params = types.PublishDiagnosticsParams(uri=URI, diagnostics=diags, version=4)
    assert json.dumps(WIRE.unstructure(params)) == json.dumps(plain.unstructure(params))


def test_json_templates_written_piece_by_piece_equal_json_dumps():
    """A diagnostic's JSON template (its text around the version in its data)
    is written piece by piece; with the version put back it is, byte for
    byte, ``json.dumps`` of what the converter makes: on a real analysis and
    on diagnostics with every field, non-ASCII text, the version's marker in
    the message, numbers that are not ints and data that is not JSON."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[4:8])
    store = store_for({"chunker": "fixed", "size": 48, "overlap": 8})
    try:
        store.open(URI, text, 3, "markdown")
        compute(store, URI)
        diags = list(store.results[URI].diagnostics)
    finally:
        store.shutdown()
    assert len(diags) > 50
    written = [diagnostics._written_template(d) for d in diags]
    assert all(t is not None for t in written)  # the server's own: never the general way
    r = types.Range(types.Position(0, 1), types.Position(2, 3))
    data = {"code": "CS001", "version": 9, "data": {"word": [1, 2], "x": 1.5, "s": "é\u2028\"\\"}}
    diags += [
        types.Diagnostic(range=r, message="all 😀 \x00chunkseam-version\x00 ⏎", data=data,
                         severity=types.DiagnosticSeverity.Hint, code=7,
                         code_description=types.CodeDescription(href="https://x/é"), source="s",
                         tags=[types.DiagnosticTag.Unnecessary], related_information=[]),
        types.Diagnostic(range=r, message="bool", code="CS002", data={"version": None, "b": True}),
        types.Diagnostic(range=r, message="no version", data={"code": "CS001"}),
        types.Diagnostic(range=r, message="not JSON", data={"version": 1, "x": object()}),
    ]
    for d in diags:
        template = diagnostics._template(d)
        if template is None:
            assert d.message in ("no version", "not JSON")
            continue
        version = json.dumps(d.data["version"])
        assert template[0] + version + template[1] == json.dumps(diagnostics._wire_diagnostic(d))
        assert diagnostics.diagnostic_json(d, template) == json.dumps(WIRE.unstructure(d))


def test_positions_equal_the_documents_conversion():
    """Offsets to LSP positions, shared by the diagnostics of one build, equal
    Document.offset_to_position at every offset, in every encoding, with
    every kind of line break and characters outside the BMP."""
    text = "ab\r\ncd\ré😀f\n\n\u2028x\r\n\r\nlast 😀"
    doc = Document(text)
    for encoding in ("utf-16", "utf-8", "utf-32"):
        pos = diagnostics.Positions(doc, encoding)
        for o in range(-2, len(text) + 3):
            p = doc.offset_to_position(doc.clamp(o), encoding)
            assert pos.at(o) == (p.line, p.character), (encoding, o)
            for e in (o - 1, o, o + 3):
                assert pos.range(o, e) == diagnostics.lsp_range(doc, o, e, encoding)


# -- shared caches under concurrency -----------------------------------------------------------


def test_edited_versions_analysed_on_many_threads_equal_a_sequential_run():
    """Worker threads share the cross-version caches (cut judgements, bracket
    spans, sentences): versions of one document analysed concurrently on
    eight threads publish what each publishes analysed alone."""
    files = corpus_files("markdown")
    rng = random.Random(5)
    text = "\n\n".join(rng.choice(files).read_text(encoding="utf-8") for _ in range(3))
    versions = [text]
    for _ in range(7):
        t = versions[-1]
        a = rng.randrange(len(t))
        versions.append(t[:a] + rng.choice(["x", " ", "(", "\n\n", "`"]) + t[a:])
    configs = [cfg for _name, cfg in _all_configs()][:6]
    expected = {(i, k): cold(cfg, t, 1) for k, cfg in enumerate(configs)
                for i, t in enumerate(versions)}
    got: dict = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work(worker: int) -> None:
        try:
            barrier.wait()
            for k, cfg in enumerate(configs):
                store = store_for(cfg)
                try:
                    for step in range(len(versions)):
                        i = (step + worker) % len(versions)
                        store.open(URI, versions[i], 1, "markdown")
                        got[(worker, i, k)] = compute(store, URI)
                finally:
                    store.shutdown()
        except Exception as exc:  # noqa: BLE001  reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(got) == 8 * len(versions) * len(configs)
    for (_worker, i, k), diags in got.items():
        assert diags == expected[(i, k)]


@settings(max_examples=60, deadline=None)
@given(text=markdown_texts(max_lines=40), data=st.data())
def test_heading_and_leaf_lookups_without_blocks_equal_the_block_walk(text, data):
    """``Structure.has_heading_between`` (CS104 asks it for every chunk) and
    ``first_leaf_between`` (CS103, for a chunk starting in list or quote
    markup) answer what a walk over ``blocks_between`` answers, blocks in list
    items and quotes included."""
    from chunkseam.structure.markdown import structure

    st_ = structure(Document(text, path="/virtual/h.md"))
    for _ in range(12):
        a = data.draw(st.integers(-1, len(text) + 1))
        b = data.draw(st.integers(a, len(text) + 2))
        between = st_.blocks_between(a, b)
        want = any(x.kind == "heading" for x in between)
        assert st_.has_heading_between(a, b) == want, (a, b)
        assert st_.first_leaf_between(a, b) is next((x for x in between if x.is_leaf), None)


@settings(max_examples=80, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab \n.éß€😀日")), max_size=60),
       edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6),
                                st.text(alphabet=st.sampled_from(list("x é😀\n€")), max_size=4)),
                      min_size=1, max_size=4))
def test_fixed_token_text_splices_its_multibyte_index(text, edits):
    """The ``fixed`` chunker's index of multi-byte characters (byte <-> character
    offsets) is spliced around an edit, never rebuilt: equal to a fresh one."""
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.chunkers.fixed import _TokenText
    from chunkseam.chunkers.fixed import token_text
    from chunkseam.core.settings import Settings

    sizer = sizer_for(Settings(chunker="fixed"))
    doc = Document(text, path="/virtual/mb.md", version=1)
    token_text(doc, sizer, sizer.encoding)
    for frac, length, ins in edits:
        a = int(frac * len(doc.text))
        # (the previous version kept alive, as the server keeps it: a document
        # knows its ancestors only while they live)
        old, doc = doc, doc.with_edit(a, a + length, ins, version=(doc.version or 0) + 1)
        got = token_text(doc, sizer, sizer.encoding)
        assert got.prior is not None or old.memoised(("fixed-tokens", sizer, sizer.encoding)) is None \
            or got.surrogates or old.text == ""
        want = _TokenText(doc.text, sizer, sizer.encoding)
        assert (got._multibyte, got._mb_bytes, got._extra) == (
            want._multibyte, want._mb_bytes, want._extra)
        assert [got.char_of(x) for x in range(len(doc.text.encode("utf-8")) + 1)] == [
            want.char_of(x) for x in range(len(doc.text.encode("utf-8")) + 1)]


@settings(max_examples=120, deadline=None)
@given(words=st.lists(st.sampled_from(["the", "cat", " ", "\n", "naïve", "😀", "日本", "€", ".",
                                       "tokenization", "  "]), min_size=0, max_size=120),
       size=st.integers(1, 12), overlap=st.integers(0, 11),
       edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 5),
                                st.text(alphabet=st.sampled_from(list("xy é😀\n€.")), max_size=6)),
                      min_size=1, max_size=5))
def test_fixed_token_windows_after_an_edit_equal_fresh_ones(words, size, overlap, edits):
    """The token windows of an edited text, read partly off the previous
    version's (before the edit: the same; past it: the same token numbers,
    the tokens shifted), equal the windows of the text encoded afresh, edit
    after edit, whatever the edit does to the number of tokens; so do the
    byte offsets of every 256th token, found the same way."""
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.chunkers.fixed import _TokenText
    from chunkseam.chunkers.fixed import token_text
    from chunkseam.core.settings import Settings

    overlap = min(overlap, size - 1)
    sizer = sizer_for(Settings(chunker="fixed"))
    doc = Document("".join(words), path="/virtual/windows.md", version=1)
    token_text(doc, sizer, sizer.encoding).window_spans(size, size - overlap)
    for frac, length, ins in edits:
        a = int(frac * len(doc.text))
        old, doc = doc, doc.with_edit(a, a + length, ins, version=(doc.version or 0) + 1)
        encoded = token_text(doc, sizer, sizer.encoding)
        assert encoded.prior is not None  # (read off the previous version's)
        got = encoded.window_spans(size, size - overlap)
        fresh = _TokenText(doc.text, sizer, sizer.encoding)
        assert got == fresh.window_spans(size, size - overlap), (doc.text, a, length, ins)
        assert encoded.blocks == fresh.blocks and encoded.lens == fresh.lens


def test_fixed_token_windows_past_an_edit_on_the_corpus():
    """Past an edit that changes the number of tokens, the windows of a long
    document are placed from the previous version's and equal fresh ones
    (edits that add, remove and keep tokens, near the start and the end)."""
    from chunkseam.engine.analysis import sizer_for
    from chunkseam.chunkers.fixed import _TokenText
    from chunkseam.chunkers.fixed import token_text
    from chunkseam.core.settings import Settings

    text = "\n\n".join(f.read_text(encoding="utf-8") for f in corpus_files("markdown")[:4])
    sizer = sizer_for(Settings(chunker="fixed"))
    doc = Document(text, path="/virtual/windows-corpus.md", version=1)
    rng = random.Random(7)
    for size, step in ((256, 224), (64, 64), (40, 3)):
        token_text(doc, sizer, sizer.encoding).window_spans(size, step)
    shifts = set()
    for v in range(2, 20):
        a = rng.randrange(len(doc.text))
        cut = rng.choice([0, 0, 1, 7, 40])
        old, doc = doc, doc.with_edit(a, a + cut, rng.choice(["x", " tokens here", "", "é", "\n\n"]),
                                      version=v)
        prior = token_text(doc, sizer, sizer.encoding).prior
        assert prior is not None
        shifts.add((prior[3] > 0) - (prior[3] < 0))
        fresh = _TokenText(doc.text, sizer, sizer.encoding)
        assert token_text(doc, sizer, sizer.encoding).blocks == fresh.blocks
        for size, step in ((256, 224), (64, 64), (40, 3)):
            got = token_text(doc, sizer, sizer.encoding).window_spans(size, step)
            assert got == fresh.window_spans(size, step), (v, size)
    assert shifts == {-1, 0, 1}  # (edits that removed tokens, kept their number, added some)


@pytest.mark.parametrize("kind,pattern", [("markdown", "*.md"), ("rst", "*.rst")])
def test_cached_bracket_spans_equal_the_blocks_own(kind, pattern):
    """The innermost bracket span at an offset, from the index kept across
    documents by the paragraph's text, is the one the block's own spans give
    (reStructuredText's inline literals and roles included); the same
    paragraph text in a Markdown and a reStructuredText document is indexed
    apart."""
    from chunkseam.checks.base import Context
    from chunkseam.core.settings import Settings

    files = corpus_files(kind, pattern)[:6]
    for f in files:
        text = f.read_text(encoding="utf-8")
        for path in (f"/virtual/{f.stem}.rst", f"/virtual/{f.stem}.md"):
            doc = Document(text, path=path)
            ctx = Context(doc, Settings(), {}, [])
            for b in ctx.structure.leaves[:300]:
                if b.kind not in ("paragraph", "heading"):
                    continue
                spans = ctx.spans(b)
                for o in range(b.start, b.end, 7):
                    inside = [s for s in spans if s.start < o < s.end]
                    assert ctx.innermost_span(b, o) == (inside[-1] if inside else None), (path, o)


def test_sentences_and_spans_kept_with_segments_equal_fresh_ones_after_edits():
    """A paragraph's sentences and bracket spans, kept with its structure
    segment by their place in it, are after random edits (before, inside and
    after paragraphs, joining and splitting them) and in another sentence
    language the ones its text gives afresh."""
    from chunkseam.checks.base import Context, paired_spans, sentence_spans
    from chunkseam.structure.sentences import language
    from chunkseam.core.settings import Settings

    text = "\n\n".join(f.read_text(encoding="utf-8") for f in corpus_files("markdown")[:5])
    # (a paragraph whose sentences differ between English and German rules)
    text += "\n\nDas ist z. B. ein Test. Er kam am 3. Mai nach Hause. Dr. Müller sagte etwas.\n"
    doc = Document(text, path="/virtual/kept.md", version=1)
    rng = random.Random(11)
    kept = []  # (versions alive: their segments are the next ones')
    checked = 0
    for v in range(2, 10):
        a = rng.randrange(len(doc.text))
        kept.append(doc)
        doc = doc.with_edit(a, a + rng.choice([0, 1, 3]), rng.choice(["x", "\n\n", ". New (", "é) "]),
                            version=v)
        for lang in (None, "de"):
            with language(lang):
                ctx = Context(doc, Settings(), {}, [])
                for b in ctx.structure.leaves:
                    if b.kind != "paragraph":
                        continue
                    assert ctx.sentences(b) == sentence_spans(doc.text, b.start, b.end), (v, b.start)
                    spans = paired_spans(doc.text[b.start:b.end], b.start, None)
                    for o in range(b.start + 1, b.end, 13):
                        inside = [s for s in spans if s.start < o < s.end]
                        assert ctx.innermost_span(b, o) == (inside[-1] if inside else None), (v, o)
                    checked += 1
    assert checked > 500


def test_published_json_under_a_cap_equals_the_converters():
    """With ``maxDiagnostics`` the server makes JSON templates only for the
    diagnostics a publication holds; whatever is published, capped or not,
    after edits too, is what pygls' converter writes."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    store = store_for({"chunker": "fixed", "size": 32, "overlap": 6})
    store.build_diagnostics = lambda result, encoding: diagnostics.build(result, encoding, published=7)
    try:
        store.open(URI, text, 1, "markdown")
        for version in (1, 2, 3):
            if version > 1:
                doc = store.get(URI).doc
                at = len(doc.text) * version // 5
                store.change(URI, version, [change(doc, at, at, "ab")])
            compute(store, URI)
            built = store.results[URI].diagnostics
            assert built.capped == 7 and len(built) == 7 and len(built.everything()) > 7
            assert sum(t is not None for t in built.templates.values()) >= 6
            for limit in (7, 0, 3):
                params = types.PublishDiagnosticsParams(
                    uri=URI, diagnostics=list(diagnostics.cap(built, limit)), version=version)
                got = json.loads(diagnostics.params_json(params, built))
                assert got == json.loads(json.dumps(WIRE.unstructure(params)))
                assert len(got["diagnostics"]) == (limit or len(built.everything()))
    finally:
        store.shutdown()


def test_deferred_diagnostics_publish_what_the_made_ones_are(monkeypatch):
    """A publication's diagnostics made after it (``deferred``: templates
    written from the issues, renewed ones carried, the objects made by
    ``Built.made``) are published as the objects made then are written by
    pygls' converter, edit after edit (at the start, the middle, the end), and
    are the diagnostics of a build that made them at once; a thread writing
    the publication while another makes them writes the same text."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    settings = {"chunker": "fixed", "size": 32, "overlap": 6}
    store = store_for(settings)
    before: list[str] = []
    pending_counts: list[int] = []

    def body(built: diagnostics.Built, version: int) -> str:
        params = types.PublishDiagnosticsParams(
            uri=URI, diagnostics=list(diagnostics.cap(built, 40)), version=version)
        return diagnostics.params_json(params, built)

    def build(result, encoding):
        built = diagnostics.build(result, encoding, published=40, deferred=True)
        pending_counts.append(sum(type(d) is diagnostics._Pending for d in built))
        before.append(body(built, result.version))  # (what the publication writes: nothing made yet)
        return built

    store.build_diagnostics = build
    plain = store_for(settings)
    plain.build_diagnostics = lambda result, encoding: diagnostics.build(result, encoding, published=40)
    try:
        store.open(URI, text, 1, "markdown")
        plain.open(URI, text, 1, "markdown")
        for version in (1, 2, 3, 4):
            if version > 1:
                doc = store.get(URI).doc
                at = {2: 10, 3: len(doc.text) // 2, 4: len(doc.text) - 5}[version]
                for s in (store, plain):
                    s.change(URI, version, [change(doc, at, at, "ab")])
            compute(store, URI)
            compute(plain, URI)
            built = store.results[URI].diagnostics
            assert not any(type(d) is diagnostics._Pending for d in built)
            # (every one made keeps its template: the next publication writes it from there)
            assert all(built.templates.get(id(d)) is not None for d in built[1:])
            assert before[-1] == body(built, version)
            params = types.PublishDiagnosticsParams(uri=URI, diagnostics=list(built), version=version)
            assert json.loads(before[-1]) == json.loads(json.dumps(WIRE.unstructure(params)))
            assert list(built) == list(plain.results[URI].diagnostics)
        assert pending_counts[0] == 39 and all(n > 0 for n in pending_counts)

        # a publication written while another thread makes the objects
        doc = store.get(URI).doc
        store.change(URI, 5, [change(doc, 50, 50, "cd")])
        od = store.get(URI)
        from chunkseam.lsp import state as state_mod

        monkeypatch.setattr(state_mod, "_made", lambda result: result)  # (made below, by hand)
        result = store._compute((URI, 5, store.generation, od.doc, od.language_id,
                                 dataclasses.replace(store.editor), store.encoding, od.serial))
        monkeypatch.undo()
        built = result.diagnostics
        assert any(type(d) is diagnostics._Pending for d in built)
        written, go = [], threading.Event()

        def publish() -> None:
            go.wait()
            for _ in range(200):
                written.append(body(built, 5))

        threads = [threading.Thread(target=publish) for _ in range(3)]
        for t in threads:
            t.start()
        go.set()
        built.made()
        for t in threads:
            t.join()
        assert len(set(written)) == 1 and written[0] == body(built, 5) == before[-1]
    finally:
        store.shutdown()
        plain.shutdown()


def test_pulled_diagnostics_are_built_without_json_templates():
    """A client that pulls never gets a publication: the server makes no JSON
    templates then (work before the first answer), and what it answers, capped
    or not, after edits too, is what it would have answered with them."""
    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    server_settings = {"chunker": "fixed", "size": 32, "overlap": 6}
    stores = {lean: store_for(server_settings) for lean in (False, True)}
    for lean, store in stores.items():
        store.build_diagnostics = (lambda result, encoding, lean=lean: diagnostics.build(
            result, encoding, published=7, json_templates=not lean))
    try:
        for store in stores.values():
            store.open(URI, text, 1, "markdown")
        for version in (1, 2, 3):
            answers = {}
            for lean, store in stores.items():
                if version > 1:
                    doc = store.get(URI).doc
                    at = len(doc.text) * version // 5
                    store.change(URI, version, [change(doc, at, at, "ab")])
                compute(store, URI)
                built = store.results[URI].diagnostics
                made = sum(t is not None for t in built.templates.values())
                assert made == 0 if lean else made >= 6
                answers[lean] = [_wire(diagnostics.cap(built, limit)) for limit in (7, 0, 3)]
            assert answers[True] == answers[False]
            assert len(answers[True][1]) > 7
    finally:
        for store in stores.values():
            store.shutdown()


def _wire(diags: list) -> list:
    return json.loads(json.dumps(WIRE.unstructure(list(diags))))


@pytest.mark.parametrize("server_settings", [{"chunker": "fixed", "size": 32, "overlap": 6},
                                             {"chunker": "recursive", "size": 48, "overlap": 8}],
                         ids=["fixed", "recursive"])
def test_capped_builds_publish_what_a_cold_open_publishes(server_settings):
    """With ``maxDiagnostics`` below the number of issues only the diagnostics
    a publication holds are made. After every edit what is published under
    that cap, under another cap and with none (the rest made on demand, by
    pull answers and notebooks) equals a cold open's full list capped so."""
    files = corpus_files("markdown")
    rng = random.Random(5)
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    published = 25
    store = store_for(server_settings)
    store.build_diagnostics = lambda result, encoding: diagnostics.build(
        result, encoding, published=published)
    try:
        store.open(URI, text, 1, "markdown")
        edits = [(rng.random(), 0, rng.choice("abc ")) for _ in range(4)] + [(0.5, 3, "\n\n# T\n")]
        for version in range(1, len(edits) + 2):
            if version > 1:
                frac, length, ins = edits[version - 2]
                doc = store.get(URI).doc
                a = int(frac * len(doc.text))
                store.change(URI, version, [change(doc, a, min(len(doc.text), a + length), ins)])
            compute(store, URI)
            built = store.results[URI].diagnostics
            assert built.capped == published and len(built) == published
            full = cold(server_settings, store.get(URI).text, version)
            assert len(full) > published
            for limit in (published, 0, 7):
                expected = diagnostics.cap(WIRE.structure(full, list[types.Diagnostic]), limit)
                assert _wire(diagnostics.cap(built, limit)) == _wire(expected), (version, limit)
    finally:
        store.shutdown()


@pytest.mark.parametrize("server_settings", [{"chunker": "fixed", "size": 32, "overlap": 6},
                                             {"chunker": "recursive", "size": 48, "overlap": 8}],
                         ids=["fixed", "recursive"])
def test_overlap_sizes_after_edits_equal_a_cold_opens(server_settings):
    """Each chunk's overlap with the one before (the lenses' figure) after an
    edit equals a cold open's, although the overlaps the previous version
    counted keep their sizes (looked up, not counted again)."""

    class Known(dict):
        hits = 0

        def get(self, key, default=None):
            self.hits += key in self
            return super().get(key, default)

    files = corpus_files("markdown")
    text = "\n\n".join(f.read_text(encoding="utf-8") for f in files[:3])
    store = store_for(server_settings)
    try:
        store.open(URI, text, 1, "markdown")
        compute(store, URI)
        for version, frac in ((2, 0.7), (3, 0.2)):
            previous = store.results[URI]
            sizer, counts = previous.overlap_counts
            known = previous.overlap_counts = (sizer, Known(counts))
            doc = store.get(URI).doc
            at = int(frac * len(doc.text))
            store.change(URI, version, [change(doc, at, at, "x")])
            compute(store, URI)
            got = store.results[URI].overlap_prev
            fresh = DocumentStore(workers=1)
            fresh.build_diagnostics = diagnostics.build
            fresh.editor = store.editor
            try:
                with fresh_caches():
                    fresh.open(URI, store.get(URI).text, version, "markdown")
                    compute(fresh, URI)
                expected = fresh.results[URI].overlap_prev
            finally:
                fresh.shutdown()
            assert got == expected and sum(1 for n in got if n) > 20
            assert known[1].hits > 10, version  # the overlaps before the edit, at least
    finally:
        store.shutdown()
