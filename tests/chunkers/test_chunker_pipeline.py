"""``langchain``: the real installed LangChain splitter, located by tracked search.

The same spans as our own ``recursive`` (which reproduces
RecursiveCharacterTextSplitter) on a fixture and a corpus sample; other
splitter classes give true source spans; repeated text is placed where it
was cut from; only TextSplitter classes of ``langchain_text_splitters`` are
accepted; a missing library is one clear RuntimeError; all offline.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain_text_splitters")
import langchain_text_splitters as lts  # noqa: E402
import tiktoken  # noqa: E402

import chunkseam  # noqa: E402
from chunkseam import Settings, chunkers  # noqa: E402
from chunkseam.chunkers.adapters import langchain as pipeline  # noqa: E402
from chunkseam.document.text import Document  # noqa: E402
from chunkseam.tokens.tiktoken import get_sizer  # noqa: E402
from chunkseam.engine.validate import statistics  # noqa: E402
from chunkseam.engine.validate import validate as run_validate  # noqa: E402

from conftest import FIXTURES, ROOT, corpus_files  # noqa: E402

TOK = get_sizer("tokens", "cl100k_base")
CHARS = get_sizer("chars")
DATABASE = FIXTURES / "database.md"
SETTINGS = {"tokens-256-32": (TOK, 256, 32), "chars-1000-200": (CHARS, 1000, 200)}
LC = chunkers.get("langchain")


def spans(chunks):
    return [(c.start, c.end) for c in chunks]


def check_exact(text, chunks, size, sizer, splitter="RecursiveCharacterTextSplitter"):
    previous = 0
    for i, c in enumerate(chunks):
        assert c.index == i
        assert c.text == text[c.start : c.end]
        assert c.start >= previous, "chunks move forward through the document"
        previous = c.start
        assert c.strategy == "langchain"
        assert c.meta == {"splitter": splitter}
        assert c.tokens == sizer.count(c.text)
        assert c.oversize == (c.tokens > size)


def _sample() -> list[Path]:
    files = sorted(corpus_files("markdown"))
    return [DATABASE] + random.Random(11).sample(files, min(20, len(files)))


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_recursive_splitter_gives_the_spans_of_our_recursive(setting):
    sizer, size, overlap = SETTINGS[setting]
    for path in _sample():
        doc = Document.from_path(path)
        ours = chunkers.get("recursive").chunk(doc, sizer, size=size, overlap=overlap)
        theirs = LC.chunk(doc, sizer, size=size, overlap=overlap)
        assert spans(theirs) == spans(ours), path
        assert [c.tokens for c in theirs] == [c.tokens for c in ours], path
        check_exact(doc.text, theirs, size, sizer)
        # the tracked search alone (used for other splitters) finds the same spans
        texts = [c.text for c in theirs]
        assert pipeline.locate(doc.text, texts, sizer, overlap=overlap) == spans(ours), path


def test_markdown_splitter_chunks_are_source_spans():
    for path in _sample()[:8]:
        text = path.read_text(encoding="utf-8")
        for sizer, size, overlap in ((CHARS, 400, 80), (TOK, 100, 20)):
            chunks = LC.chunk(Document(text, path=str(path)), sizer, size=size, overlap=overlap,
                              splitter="MarkdownTextSplitter")
            if sizer is CHARS:
                expected = lts.MarkdownTextSplitter(chunk_size=size, chunk_overlap=overlap)
                assert [c.text for c in chunks] == expected.split_text(text)
            assert chunks or not text.strip()
            check_exact(text, chunks, size, sizer, "MarkdownTextSplitter")


def test_public_api_and_other_splitters():
    chunks = chunkseam.chunk(DATABASE, "langchain", size=300, unit="chars", overlap=0,
                             splitter="LatexTextSplitter")
    text = DATABASE.read_text(encoding="utf-8")
    assert [c.text for c in chunks] == lts.LatexTextSplitter(
        chunk_size=300, chunk_overlap=0).split_text(text)
    check_exact(text, chunks, 300, CHARS, "LatexTextSplitter")
    # pass-through constructor options reach the class
    opts = {"separators": ["\n", " "], "keep_separator": "end"}
    theirs = LC.chunk(Document(text), CHARS, size=120, overlap=10, **opts)
    ours = chunkers.get("recursive").chunk(Document(text), CHARS, size=120, overlap=10, **opts)
    assert spans(theirs) == spans(ours)
    assert theirs[0].text.endswith("\n") is False  # stripped, as LangChain does
    # TokenTextSplitter: windows of tokens, decoded (ASCII text: exact spans)
    tt = LC.chunk(Document(text), TOK, size=40, overlap=8, splitter="TokenTextSplitter")
    assert len(tt) > 3
    check_exact(text, tt, 40, TOK, "TokenTextSplitter")
    assert all(c.tokens <= 40 for c in tt)


def test_python_splitter_on_code():
    path = sorted(corpus_files("python", "*.py"))[0]
    text = path.read_text(encoding="utf-8")
    chunks = LC.chunk(Document(text, path=str(path)), TOK, size=128, overlap=16,
                      splitter="PythonCodeTextSplitter")
    assert chunks
    check_exact(text, chunks, 128, TOK, "PythonCodeTextSplitter")


REPEATED = "\n\n".join([
    "# Restarting", "Intro.",
    "## Linux", "Stop the service first. Then restart the server and check the logs.",
    "## macOS", "Stop the service first. Then restart the server and check the logs.",
    "## Windows", "Stop the service first. Then restart the server and check the logs.",
])


@pytest.mark.parametrize("splitter", ["RecursiveCharacterTextSplitter", "CharacterTextSplitter"])
@pytest.mark.parametrize("sizer, size, overlap", [(CHARS, 70, 0), (CHARS, 80, 30), (TOK, 16, 0),
                                                  (TOK, 18, 6)])
def test_repeated_paragraphs_get_their_own_positions(sizer, size, overlap, splitter):
    doc = Document(REPEATED)
    chunks = LC.chunk(doc, sizer, size=size, overlap=overlap, splitter=splitter)
    check_exact(REPEATED, chunks, size, sizer, splitter)
    if splitter == "RecursiveCharacterTextSplitter":
        ours = chunkers.get("recursive").chunk(doc, sizer, size=size, overlap=overlap)
        assert spans(chunks) == spans(ours)
        # the tracked search alone agrees
        texts = [c.text for c in chunks]
        assert pipeline.locate(REPEATED, texts, sizer, overlap=overlap) == spans(ours)
    paragraph = "Stop the service first. Then restart the server and check the logs."
    copies = [c for c in chunks if paragraph in c.text]
    assert len(copies) == 3
    starts = [c.start + c.text.index(paragraph) for c in copies]
    expected = [i for i in range(len(REPEATED)) if REPEATED.startswith(paragraph, i)]
    assert starts == expected  # three distinct starts, each where that copy is
    for c, heading in zip(copies, ("## Linux", "## macOS", "## Windows")):
        at = c.start + c.text.index(paragraph)
        assert REPEATED.rfind("## ", 0, at) == REPEATED.index(heading)


def test_add_start_index_case_is_tracked():
    """LangChain's own ``add_start_index`` puts the second copy under Linux here
    (see test_langchain_differential); the tracked search does not."""
    text = "\n\n".join(["## Linux", "Restart the server.", "## macOS", "Restart the server.",
                        "## Windows", "Restart the server."])
    chunks = LC.chunk(Document(text), CHARS, size=30, overlap=29)
    assert [c.start for c in chunks] == [0, 31, 41, 62, 74]
    texts = [c.text for c in chunks]
    assert [a for a, _ in pipeline.locate(text, texts, CHARS, overlap=29)] == [0, 31, 41, 62, 74]


def test_runs_of_one_character_get_exact_spans():
    """A string search cannot tell where a chunk of 64 ">" starts inside a run of
    500: for RecursiveCharacterTextSplitter the spans come from our own
    ``recursive`` when it reproduces LangChain's texts."""
    text = ">" * 500 + " deep\n" + "".join(">" * i + " q\n" for i in range(500))
    doc = Document(text)
    for sizer, size, overlap in ((TOK, 64, 8), (CHARS, 50, 10)):
        chunks = LC.chunk(doc, sizer, size=size, overlap=overlap)
        ours = chunkers.get("recursive").chunk(doc, sizer, size=size, overlap=overlap)
        assert spans(chunks) == spans(ours)
        check_exact(text, chunks, size, sizer)


def test_locate_prefers_the_copy_that_follows_the_previous_chunk():
    text = "x a b\n\nlong text here\n\na b"
    assert pipeline.locate(text, ["x a b", "long text here", "a b"], CHARS) == [
        (0, 5), (7, 21), (23, 26)]
    # a text that occurs only before the previous chunk is not placed there
    with pytest.raises(ValueError, match="chunk 1 of Foo"):
        pipeline.locate("b then a", ["a", "b"], CHARS, splitter="Foo")


def test_rejoined_text_is_placed_at_the_pieces_it_joined():
    text = "alpha beta\n\n\n\ngamma delta\n\nepsilon"
    # CharacterTextSplitter drops separators (keep_separator=False) and re-joins
    # "alpha beta" and "gamma delta" with one "\n\n": not a span of the source, but
    # it comes from one, from its first piece to its last
    theirs = lts.CharacterTextSplitter(chunk_size=25, chunk_overlap=0).split_text(text)
    assert theirs[0] == "alpha beta\n\ngamma delta"
    ours = LC.chunk(Document(text), CHARS, size=25, splitter="CharacterTextSplitter")
    assert [(c.start, c.end) for c in ours] == [(0, 25), (27, 34)]
    assert ours[0].text == "alpha beta\n\n\n\ngamma delta"
    assert ours[0].meta["library_text"] == theirs[0]
    assert "library_text" not in ours[1].meta and ours[1].text == theirs[1] == "epsilon"
    # a chunk that is no rewriting of the source is still an error, never invented
    with pytest.raises(ValueError, match=r"chunk 1 of Foo is not a span"):
        pipeline.locate("b then a", ["a", "c"], CHARS, splitter="Foo")


@pytest.mark.parametrize("name", ["NoSuchSplitter", "os.system", "this.x",
                                  "langchain_text_splitters.MarkdownTextSplitter",
                                  "MarkdownHeaderTextSplitter", "TextSplitter", "Language",
                                  "__class__", "", 42])
def test_only_textsplitter_classes_of_the_package_are_accepted(name):
    before = set(sys.modules)
    with pytest.raises(ValueError, match="splitter"):
        LC.chunk(Document("Some text."), CHARS, size=50, splitter=name)
    assert "this" not in set(sys.modules) - before  # nothing named by config is imported


@pytest.mark.parametrize("options, message", [
    ({"foo": 1}, "does not accept option 'foo'"),
    ({"chunk_size": 3}, "set by chunkseam: use the size setting"),
    ({"length_function": "len"}, "use the unit setting"),
    ({"add_start_index": True}, "locates chunks itself"),
    ({"splitter": "MarkdownTextSplitter", "separators": ["x"]},
     "cannot build MarkdownTextSplitter"),
    ({"splitter": "TokenTextSplitter"}, "measures tokens"),
    ({"allowed_special": "all"}, "only with unit = tokens"),
])
def test_bad_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        LC.chunk(Document("Some text."), CHARS, size=50, **options)


def test_tokens_resolve_offline_and_tiktoken_is_restored(monkeypatch):
    def no_download(name):
        raise AssertionError(f"tiktoken.get_encoding({name!r}) would download")

    monkeypatch.setattr(tiktoken, "get_encoding", no_download)
    monkeypatch.setattr(pipeline, "_splitters", {})  # build afresh
    chunks = LC.chunk(Document.from_path(DATABASE), TOK, size=60, overlap=10)
    assert chunks and tiktoken.get_encoding is no_download


def test_missing_library_is_one_clear_runtime_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)  # import fails
    with pytest.raises(RuntimeError) as info:
        LC.chunk(Document("Some text."), CHARS, size=50)
    assert str(info.value) == (
        'the "langchain" chunker needs langchain-text-splitters: '
        'pip install "chunkseam[langchain]"')


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "server"), env.get("PYTHONPATH", "")])
    return env


def test_registry_imports_without_the_library():
    code = (
        "import sys; sys.modules['langchain_text_splitters'] = None\n"
        "from chunkseam import chunkers\n"
        "assert 'langchain' in chunkers.names(), chunkers.names()\n"
        "print(chunkers.get('langchain').description)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    lazy = subprocess.run(
        [sys.executable, "-c", "import sys; from chunkseam import chunkers; chunkers.names(); "
         "print('langchain_text_splitters' in sys.modules)"],
        capture_output=True, text=True, env=_env(), timeout=60)
    assert lazy.stdout.strip() == "False", lazy.stderr


def test_cli_chunks_json_and_validate():
    out = subprocess.run(
        [sys.executable, "-m", "chunkseam", "chunks", str(DATABASE), "--chunker", "langchain",
         "--size", "60", "--format", "json"],
        capture_output=True, text=True, env=_env(), timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    text = DATABASE.read_text(encoding="utf-8")
    assert len(rows) >= 3
    assert all(r["strategy"] == "langchain" and text[r["start"] : r["end"]] == r["text"]
               for r in rows)
    ours = chunkseam.chunk(DATABASE, "recursive", size=60)
    assert [(r["start"], r["end"]) for r in rows] == spans(ours)
    # the validator runs on the langchain chunks, given or made from the settings
    # (the function itself: the attribute ``chunkseam.validate`` is shadowed by the
    # submodule once that is imported — reported to the lead)
    settings = Settings(chunker="langchain", size=60)
    doc = Document.from_path(DATABASE)
    given = run_validate(doc, LC.chunk(doc, TOK, size=60), settings)
    made = run_validate(doc, chunkseam.chunk(doc, "langchain", size=60), settings)
    assert [i.to_dict() for i in given] == [i.to_dict() for i in made]
    assert all(0 <= i.start <= i.end <= len(text) for i in given)
    stats = statistics(chunkseam.chunk(doc, "langchain", size=60), made)
    assert stats.chunks == len(rows)


def test_escape_is_regex_escape_over_every_code_point():
    # CharacterTextSplitter's re-joined chunks are found by a pattern of their escaped
    # pieces: the one-translate escape must give regex.escape's string exactly
    import regex

    every = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i < 0xE000)
    assert pipeline._escape(every) == regex.escape(every)
    assert pipeline._escape("a b.c\n(x)") == "a\\ b\\.c\\\n\\(x\\)"


@pytest.mark.parametrize("text", [
    "x" * 3000,
    "日本語のテキストと絵文字 🙂👨‍👩‍👧 " * 120,
    "Replacement \ufffd in the source, é and ü. " * 90,
    "Stop at <|endoftext|> here. " * 60,
    "short",
])
def test_token_windows_from_the_library_decodes_are_the_token_by_token_ones(text):
    # the windows' byte offsets taken from TokenTextSplitter's own decodes equal the
    # ones measured token by token (and the spans, whichever way, are the same)
    from chunkseam.chunkers.windows import (
        recording_copy,
        tiktoken_bytes,
        token_lengths,
        token_window_spans,
    )

    splitter = pipeline.get_splitter(TOK, size=64, overlap=16, splitter="TokenTextSplitter",
                                     allowed_special="all")
    running, recording = recording_copy(splitter, "_tokenizer")
    pieces = running.split_text(text)
    enc = splitter._tokenizer
    ids = recording.ids_of(text)
    assert ids is not None and len(recording.decodes) >= len(pieces) >= 1
    common = (text, ids, tiktoken_bytes(enc), 64, 16, pieces)
    lengths = token_lengths(enc)
    fast = token_window_spans(*common, lengths=lengths, decoded=recording.decodes)
    slow = token_window_spans(*common, lengths=lengths)
    assert fast is not None and fast == slow
    assert token_window_spans(*common, lengths=lengths, decoded=recording.decodes[:-1]) == slow
    if len(pieces) > 2 and "\ufffd" not in "".join(pieces):  # decodes used: overlaps measured only
        looked: list[int] = []

        class Table:
            def __getitem__(self, i):
                looked.append(i)
                return lengths[i]

        assert token_window_spans(*common, lengths=Table(), decoded=recording.decodes) == slow
        assert 0 < len(looked) < len(ids) // 2
