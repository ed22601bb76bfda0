"""Pipeline-library adapters: the real libraries, run with chunkseam's own tokenizer.

Per library, on a bounded corpus sample (markdown, readmes, rag-docs, code):
chunk texts identical to the library's own output, true spans (the source
text at each chunk's offsets, in order), and repeated-text cases where the
library's own offsets are wrong and chunkseam's are right. Also: the class
allow-list, refused options (code, import strings, hub names), strategies
needing models or network, the explicit approximate mode and the entry-point
group. All offline.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import random

import pytest
from chunkseam import chunkers
from chunkseam.chunkers.adapters import common as adapter
from chunkseam.document.text import Document
from chunkseam.tokens.tiktoken import get_encoding, get_sizer
from conftest import CORPUS, FIXTURES, IN_CI

TOK = get_sizer("tokens", "cl100k_base")
CHARS = get_sizer("chars")
ENC = get_encoding("cl100k_base")
SIZE, OVERLAP = 128, 16


def need(module: str):
    """The library, or skip locally (a failure in CI: it is in the test extra)."""
    try:
        return pytest.importorskip(module)
    except pytest.skip.Exception:
        if IN_CI:
            pytest.fail(f"{module} is in the test extra but not installed")
        raise


def sample() -> list:
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"corpus not found at {CORPUS}")
        pytest.skip("corpus not found")
    picked = []
    rng = random.Random(11)
    for sub, pattern, n in (("markdown/readmes", "*.md", 3), ("markdown/rag-docs", "*.md", 3),
                            ("markdown/fastapi", "*.md", 2), ("code", "*.*", 3)):
        files = sorted(p for p in (CORPUS / sub).rglob(pattern)
                       if p.is_file() and 500 < p.stat().st_size < 25_000)
        picked += rng.sample(files, min(n, len(files)))
    return picked


def texts_of(path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def check_spans(text, chunks, name):
    previous = 0
    for i, c in enumerate(chunks):
        assert c.index == i and c.strategy == name
        assert text[c.start:c.end] == c.text and c.text
        assert c.start >= previous, "chunks move forward through the document"
        previous = c.start
        assert c.tokens == TOK.count(c.text) or c.tokens == len(c.text)
        assert not c.approximate


def run(name, text, sizer=TOK, size=SIZE, overlap=OVERLAP, **options):
    chunks = chunkers.get(name).chunk(Document(text), sizer, size=size, overlap=overlap, **options)
    check_spans(text, chunks, name)
    return chunks


def tiles(text, spans):
    """Non-overlapping spans that leave only whitespace between them (overlap 0)."""
    return all(a_end <= b_start and not text[a_end:b_start].strip()
               for (_, a_end), (b_start, _) in itertools.pairwise(spans))


REPEATED = "Restart the server. " * 40 + "\n\nDone."
PARAGRAPH = "Stop the service first. Then restart the server and check the logs."
SECTIONS = "\n\n".join(["# Restarting", "Intro."] + [
    part for os in ("Linux", "macOS", "Windows", "BSD") for part in (f"## {os}", PARAGRAPH)])


# --- semchunk -------------------------------------------------------------------

def test_semchunk_differential():
    semchunk = need("semchunk")
    for path in sample():
        text = texts_of(path)
        theirs, offsets = semchunk.chunkerify(ENC, SIZE)(text, offsets=True, overlap=OVERLAP)
        ours = run("semchunk", text)
        assert [c.text for c in ours] == theirs, path
        assert [(c.start, c.end) for c in ours] == [tuple(o) for o in offsets], path
        assert all(c.meta["offsets"] == "native" for c in ours)
    chars = run("semchunk", REPEATED, CHARS, size=60, overlap=0)
    assert tiles(REPEATED, [(c.start, c.end) for c in chars])


# --- semantic-text-splitter -----------------------------------------------------

def test_text_splitter_differential():
    sts = need("semantic_text_splitter")
    for path in sample():
        text = texts_of(path)
        for cls in ("MarkdownSplitter", "TextSplitter"):
            theirs = getattr(sts, cls).from_tiktoken_model("gpt-4", SIZE, OVERLAP).chunk_indices(text)
            ours = run("text-splitter", text, splitter=cls)
            assert [(c.start, c.text) for c in ours] == list(theirs), (path, cls)
    # trim = false keeps the whitespace, chunks then tile the document
    untrimmed = run("text-splitter", REPEATED, CHARS, size=50, overlap=0, trim=False)
    assert "".join(c.text for c in untrimmed) == REPEATED
    with pytest.raises(ValueError, match="CodeSplitter is not supported: it needs a tree-sitter"):
        run("text-splitter", "x", splitter="CodeSplitter")


# --- chonkie --------------------------------------------------------------------

@pytest.mark.parametrize("cls", ["RecursiveChunker", "SentenceChunker", "TokenChunker"])
def test_chonkie_differential(cls):
    chonkie = need("chonkie")
    overlap = 0 if cls == "RecursiveChunker" else OVERLAP
    for path in sample():
        text = texts_of(path)
        kwargs = {} if cls == "RecursiveChunker" else {"chunk_overlap": overlap}
        theirs = getattr(chonkie, cls)(tokenizer=ENC, chunk_size=SIZE, **kwargs).chunk(text)
        if any("\ufffd" in c.text and "\ufffd" not in text for c in theirs):
            # token windows cut inside multibyte characters (a corpus file in Chinese):
            # each chunk is the span its tokens' bytes cover, chonkie's text alongside
            assert cls == "TokenChunker"
            ours = run("chonkie", text, overlap=overlap, splitter=cls)
            assert [c.meta.get("library_text", c.text) for c in ours] == [c.text for c in theirs]
            assert all(c.meta["offsets"] == "token-windows" for c in ours)
            continue
        ours = run("chonkie", text, overlap=overlap, splitter=cls)
        assert [c.text for c in ours] == [c.text for c in theirs], (path, cls)
        assert [(c.start, c.end) for c in ours] == [(c.start_index, c.end_index) for c in theirs]


MULTIBYTE = "Übersicht — 日本語のテキスト、絵文字 🎉🚀 und Umlaute äöü. " * 40


def test_chonkie_token_chunker_on_multibyte_text_is_placed_at_its_token_windows():
    chonkie = need("chonkie")
    theirs = chonkie.TokenChunker(tokenizer=ENC, chunk_size=32, chunk_overlap=4).chunk(MULTIBYTE)
    broken = [c for c in theirs if "\ufffd" in c.text]
    assert broken, "chonkie's token windows split multibyte characters"
    assert any(MULTIBYTE[c.start_index:c.end_index] != c.text for c in theirs)
    name = chunkers.get("chonkie")
    ours = name.chunk(Document(MULTIBYTE), TOK, size=32, overlap=4, splitter="TokenChunker")
    assert [c.meta.get("library_text", c.text) for c in ours] == [c.text for c in theirs]
    ids = ENC.encode(MULTIBYTE)
    for i, c in enumerate(ours):  # the bytes of tokens 28*i .. 28*i+32, whole characters
        window = ENC.decode_bytes(ids[28 * i: 28 * i + 32])
        assert window.decode("utf-8", "ignore") in c.text.encode("utf-8").decode("utf-8")
        assert len(c.text.encode("utf-8")) - len(window) < 8  # at most a character each side
        assert ("library_text" in c.meta) == ("\ufffd" in theirs[i].text)
    assert all(not c.approximate for c in ours)
    approx = name.chunk(Document(MULTIBYTE), TOK, size=32, overlap=4, splitter="TokenChunker",
                        approximate=True)  # nothing left to approximate
    assert [(c.start, c.end) for c in approx] == [(c.start, c.end) for c in ours]
    assert [c.start for c in approx] == sorted(c.start for c in approx)


# --- LlamaIndex -----------------------------------------------------------------

def _llama_nodes(splitter, text):
    from llama_index.core import Document as LlamaDocument

    doc = text if not isinstance(text, str) else LlamaDocument(text=text)
    with contextlib.redirect_stdout(io.StringIO()):  # LlamaIndex prints size warnings
        return splitter.get_nodes_from_documents([doc])


@pytest.mark.parametrize("cls", ["SentenceSplitter", "TokenTextSplitter"])
def test_llamaindex_differential(cls):
    parsers = need("llama_index.core.node_parser")
    for path in sample():
        text = texts_of(path)
        nodes = _llama_nodes(getattr(parsers, cls)(chunk_size=SIZE, chunk_overlap=OVERLAP,
                                                   tokenizer=ENC.encode), text)
        ours = run("llamaindex", text, splitter=cls)
        assert [c.text for c in ours] == [n.text for n in nodes], (path, cls)
        assert all(c.meta["offsets"] == "native" for c in ours)  # placed by the merge


@pytest.mark.parametrize("cls", ["SentenceSplitter", "TokenTextSplitter"])
def test_llamaindex_own_offsets_are_wrong_on_repeated_text_and_ours_are_right(cls):
    parsers = need("llama_index.core.node_parser")
    nodes = _llama_nodes(getattr(parsers, cls)(chunk_size=16, chunk_overlap=0,
                                               tokenizer=ENC.encode), REPEATED)
    theirs = [(n.start_char_idx, n.end_char_idx) for n in nodes]
    ours = run("llamaindex", REPEATED, size=16, overlap=0, splitter=cls)
    assert [c.text for c in ours] == [n.text for n in nodes]
    assert not tiles(REPEATED, theirs), "LlamaIndex places chunks on earlier copies"
    spans = [(c.start, c.end) for c in ours]
    assert tiles(REPEATED, spans) and spans[-1][1] == len(REPEATED)
    # with overlap, on repeated sections: every chunk starts inside the previous one's
    # tail (within the overlap), never on an earlier copy, and no text is left out
    with_overlap = run("llamaindex", SECTIONS, size=24, overlap=8, splitter=cls)
    for a, b in itertools.pairwise(with_overlap):
        assert a.start < b.start <= a.end + 2
        assert TOK.count(SECTIONS[b.start:a.end]) <= 8 + 4
    assert with_overlap[0].start == 0 and with_overlap[-1].end == len(SECTIONS)
    # periodic text: the overlap stays within the budget and no text is left out
    periodic = run("llamaindex", REPEATED, size=20, overlap=5, splitter=cls)
    assert not adapter.gaps(REPEATED, [(c.start, c.end) for c in periodic])
    for a, b in itertools.pairwise(periodic):
        assert a.start < b.start <= a.end + 2
        assert TOK.count(REPEATED[b.start:a.end]) <= 5


def test_llamaindex_markdown_node_parser_and_refusals():
    parsers = need("llama_index.core.node_parser")
    for path in sample()[:8]:
        text = texts_of(path)
        nodes = _llama_nodes(parsers.MarkdownNodeParser(), text)
        ours = run("llamaindex", text, overlap=0, splitter="MarkdownNodeParser")
        assert [c.text for c in ours] == [n.text for n in nodes if n.text]
        assert all(c.meta["offsets"] == "native" for c in ours)
    li = chunkers.get("llamaindex")
    for option, match in (({"tokenizer": "gpt2"}, "'tokenizer' is not accepted"),
                          ({"id_func": "os.system"}, "'id_func' is not accepted"),
                          ({"splitter": "CodeSplitter"}, "downloads its grammars"),
                          ({"splitter": "SemanticSplitterNodeParser"}, "embedding model"),
                          ({"splitter": "os.path"}, "not an import path"),
                          ({"chunk_size": 10}, "set by chunkseam"),
                          ({"nonsense": 1}, "does not accept option 'nonsense'")):
        with pytest.raises(ValueError, match=match):
            li.chunk(Document("some text"), TOK, size=64, overlap=0, **option)


# --- Haystack -------------------------------------------------------------------

def _haystack(splitter, text):
    from haystack import Document as HaystackDocument

    if hasattr(splitter, "warm_up") and getattr(splitter, "split_by", "") != "token":
        splitter.warm_up()
    return splitter.run([HaystackDocument(content=text)])["documents"]


@pytest.mark.parametrize("split_by", ["word", "passage", "token"])
def test_haystack_document_splitter_differential(split_by):
    pre = need("haystack.components.preprocessors")
    size, overlap = (SIZE, OVERLAP) if split_by != "passage" else (2, 1)
    for path in sample():
        text = texts_of(path)
        splitter = pre.DocumentSplitter(split_by=split_by, split_length=size, split_overlap=overlap,
                                        tokenizer_encoding="cl100k_base")
        if split_by == "token":
            splitter._tiktoken_tokenizer = ENC  # the offline encoding, as chunkseam passes it
        docs = _haystack(splitter, text)
        ours = run("haystack", text, size=size, overlap=overlap, split_by=split_by)
        assert [c.text for c in ours] == [d.content for d in docs if d.content], (path, split_by)
        assert [c.start for c in ours] == [d.meta["split_idx_start"] for d in docs if d.content]


def test_haystack_recursive_and_refusals():
    pre = need("haystack.components.preprocessors")
    text = texts_of(sample()[0])
    seps = ["\n\n", "\n", " "]
    splitter = pre.RecursiveDocumentSplitter(split_length=300, split_overlap=0, split_unit="char",
                                             separators=seps)
    ours = run("haystack", text, CHARS, size=300, overlap=0, splitter="RecursiveDocumentSplitter",
               split_unit="char", separators=seps)
    assert [c.text for c in ours] == [d.content for d in _haystack(splitter, text) if d.content]
    hs = chunkers.get("haystack")
    for option, match in (({"splitting_function": "os.system"}, "it is code"),
                          ({"split_by": "function"}, "runs code"),
                          ({"split_by": "sentence"}, "NLTK"),
                          ({"respect_sentence_boundary": True}, "NLTK"),
                          ({"splitter": "RecursiveDocumentSplitter"}, "default separators")):
        with pytest.raises(ValueError, match=match):
            hs.chunk(Document("some text"), TOK, size=64, overlap=0, **option)


# --- the helper -----------------------------------------------------------------

def test_verified_native_rejects_wrong_copies_and_disorder():
    text = "abc abc abc"
    P = adapter.Piece
    assert adapter.verified_native(text, [P("abc", 0, 3), P("abc", 4, 7)], TOK) == [(0, 3), (4, 7)]
    assert adapter.verified_native(text, [P("abc", 4, 7), P("abc", 0, 3)], TOK) is None
    assert adapter.verified_native(text, [P("abd", 0, 3)], TOK) is None
    assert adapter.verified_native(text, [P("abc", None, None)], TOK) is None
    # under overlap 0 a chunk may not start inside the previous one
    assert adapter.verified_native(text, [P("abc abc", 0, 7), P("abc", 4, 7)], TOK,
                                   lambda s, e, start: False) is None
    # with an overlap, a start inside the previous chunk is measured only when the
    # chunk's text occurs again later (the wrong-copy case)
    unique = "alpha beta gamma delta"
    assert adapter.verified_native(unique, [P("alpha beta gamma", 0, 16), P("gamma delta", 11, 22)],
                                   TOK, lambda s, e, start: False, 3) == [(0, 16), (11, 22)]
    four = "abc abc abc abc"  # "abc abc" at 4 or at 8: the overlap decides
    assert adapter.verified_native(four, [P("abc abc", 0, 7), P("abc abc", 4, 11)], TOK,
                                   lambda s, e, start: False, 3) is None
    # within an allowed overlap it is taken
    assert adapter.verified_native(text, [P("abc abc", 0, 7), P("abc abc", 4, 11)], TOK,
                                   lambda s, e, start: e - start <= 3) == [(0, 7), (4, 11)]


def test_missing_library_is_one_clear_error(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_semchunk(name, *args, **kwargs):
        if name == "semchunk":
            raise ImportError("No module named 'semchunk'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_semchunk)
    monkeypatch.delitem(__import__("sys").modules, "semchunk", raising=False)
    a = chunkers.get("semchunk")
    a._cache.clear()
    with pytest.raises(RuntimeError, match=r'pip install "chunkseam\[semchunk\]"'):
        a.chunk(Document("text"), TOK, size=10, overlap=0)


def test_entry_points_load_only_when_trusted(monkeypatch):
    from importlib import metadata

    loaded = []

    class EP:
        name = "thirdparty"

        def load(self):
            loaded.append(1)

            class Third:
                name = "thirdparty"
                description = "a third-party chunker"

                def chunk(self, doc, sizer, *, size, overlap=0, **options):
                    return []

            return Third

    monkeypatch.setattr(metadata, "entry_points", lambda group=None: [EP()] if group ==
                        adapter.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(adapter, "_entry_points_loaded", False)
    assert adapter.load_entry_points(False) == [] and not loaded
    try:
        assert adapter.load_entry_points(True) == ["thirdparty"]
        assert "thirdparty" in chunkers.names()
    finally:
        chunkers._REGISTRY.pop("thirdparty", None)


def test_haystack_sizes_in_words_are_not_judged_as_tokens():
    need("haystack.components.preprocessors")
    from chunkseam import Settings
    from chunkseam.engine.analysis import analyze

    text = texts_of(sample()[0])
    a = analyze(Document(text, path="doc.md"), Settings(chunker="haystack", size=60))
    assert a.chunks and any(c.tokens > 62 for c in a.chunks)  # 60 words are more tokens
    assert all(c.meta["size_unit"] == "word" for c in a.chunks)
    assert not [i for i in a.issues if i.code == "CS101"]
    tokens = analyze(Document(text, path="doc.md"),
                     Settings(chunker="haystack", size=60, chunker_options={"split_by": "token"}))
    assert "size_unit" not in tokens.chunks[0].meta


# --- chunkipy -------------------------------------------------------------------

def _chunkipy_tokens():
    """chunkipy's own OpenAISizeEstimator (encode to count, one decoded token a
    unit), given the offline encoding instead of the name it would resolve."""
    from chunkipy.size_estimators.openai_size_estimator import OpenAISizeEstimator

    est = OpenAISizeEstimator.__new__(OpenAISizeEstimator)
    est.tokenizer = ENC
    return est


def test_chunkipy_fixed_size_differential():
    chunkipy = need("chunkipy")
    from chunkipy.size_estimators.char_size_estimator import CharSizeEstimator

    checked = 0
    for path in sample():
        text = texts_of(path)
        theirs = chunkipy.FixedSizeTextChunker(chunk_size=SIZE, size_estimator=_chunkipy_tokens(),
                                               overlap_ratio=OVERLAP / SIZE).chunk(text)
        theirs = [c.text for c in theirs if c.text]
        ours = run("chunkipy", text)
        assert all(c.meta["offsets"] == "tracked" and c.meta["splitter"] == "FixedSizeTextChunker"
                   for c in ours)
        if any("\ufffd" in t for t in theirs) and "\ufffd" not in text:
            # chunkipy decodes each token alone: a character cut into byte tokens becomes
            # U+FFFD in its text; ours are the source's characters, as many windows
            assert len(ours) == len(theirs), path
            continue
        assert [c.text for c in ours] == theirs, path
        checked += 1
        chars = chunkipy.FixedSizeTextChunker(chunk_size=300, size_estimator=CharSizeEstimator(),
                                              overlap_ratio=0.1).chunk(text)
        ours = run("chunkipy", text, CHARS, size=300, overlap=30)
        assert [c.text for c in ours] == [c.text for c in chars if c.text], path
    assert checked >= 5


def test_chunkipy_recursive_rewrites_text_and_says_so():
    chunkipy = need("chunkipy")
    from chunkipy.size_estimators.char_size_estimator import CharSizeEstimator

    text = texts_of(CORPUS / "markdown" / "readmes" / "psf-requests-README.md")
    theirs = [c.text for c in chunkipy.RecursiveTextChunker(
        chunk_size=200, size_estimator=CharSizeEstimator()).chunk(text) if c.text]
    # the library drops the space a separator leaves ("simple, yet" -> "simple,yet")
    assert any(t not in text for t in theirs)
    with pytest.raises(ValueError, match=r"chunkipy: chunk \d+ of RecursiveTextChunker is not a span "
                                         r".*approximate = true"):
        chunkers.get("chunkipy").chunk(Document(text), CHARS, size=200, overlap=0,
                                       splitter="RecursiveTextChunker")
    ours = chunkers.get("chunkipy").chunk(Document(text), CHARS, size=200, overlap=0,
                                          splitter="RecursiveTextChunker", approximate=True)
    assert [c.meta.get("library_text", c.text) for c in ours] == theirs
    assert all(c.approximate and c.meta["offsets"] == "approximate" for c in ours)
    # on text its separators leave whole, its chunks are spans of the source
    plain = "Stop the service first, then restart the server; check the logs, and wait. " * 12
    theirs = [c.text for c in chunkipy.RecursiveTextChunker(
        chunk_size=120, size_estimator=CharSizeEstimator()).chunk(plain) if c.text]
    ours = run("chunkipy", plain, CHARS, size=120, overlap=0, splitter="RecursiveTextChunker")
    assert [c.text for c in ours] == theirs and len(ours) > 5


def test_chunkipy_options_are_checked():
    need("chunkipy")
    chunker = chunkers.get("chunkipy")
    doc = Document(PARAGRAPH)
    for options, message in (({"text_splitters": []}, "splitter objects"),
                             ({"chunk_size": 10}, "use the size setting"),
                             ({"overlap_ratio": 0.5}, "use the overlap setting"),
                             ({"splitter": "SemanticChunker"}, "unknown splitter"),
                             ({"splitter": "chunkipy.FixedSizeTextChunker"}, "not an import path")):
        with pytest.raises(ValueError, match=message):
            chunker.chunk(doc, TOK, size=16, overlap=0, **options)
    assert chunker.chunk(Document("   \n"), TOK, size=16) == []


# --- inputs the libraries cannot take as they are ---------------------------------

ADAPTERS = ["llamaindex", "chonkie", "semchunk", "text-splitter", "haystack", "chunkipy"]
MODULES = {"llamaindex": "llama_index.core.node_parser", "chonkie": "chonkie", "chunkipy": "chunkipy",
           "semchunk": "semchunk", "text-splitter": "semantic_text_splitter",
           "haystack": "haystack.components.preprocessors"}


@pytest.mark.parametrize("name", ADAPTERS)
def test_lone_surrogates_reach_the_library_as_replacement_characters(name):
    need(MODULES[name])
    text = "Intro \ud800 text.\n\n# Head \udfff\n\nMore words here \ud83d end.\n" * 3
    options = {"split_by": "token"} if name == "haystack" else {}
    chunks = chunkers.get(name).chunk(Document(text), TOK, size=16, overlap=0, **options)
    assert chunks and "".join(c.text for c in chunks).count("\ud800") == 3
    for c in chunks:
        assert c.text == text[c.start:c.end]  # spans of the source, surrogates and all
        assert c.tokens == TOK.count(c.text)
        assert c.oversize == (c.tokens > 16)


def test_semchunk_character_larger_than_its_working_size_is_an_oversize_chunk():
    need("semchunk")
    text = "a \U0008285b\U0008285b b"  # 4 tokens each: more than size 3
    chunks = run("semchunk", text, size=3, overlap=0)
    assert [c.text for c in chunks] == ["a", "\U0008285b", "\U0008285b", "b"]
    assert [c.oversize for c in chunks] == [False, True, True, False]
    # overlap 1 makes semchunk work at size 1: no endless recursion, sizes still honest
    for c in run("semchunk", text, size=8, overlap=1):
        assert c.tokens == TOK.count(c.text) and c.oversize == (c.tokens > 8)


def test_chonkie_recursive_chunker_cutting_a_character_is_realigned_on_the_source():
    chonkie = need("chonkie")
    text = "ab" + "\U0008285b" * 50 + " x"
    theirs = chonkie.RecursiveChunker(tokenizer=ENC, chunk_size=8).chunk(text)
    assert any("\ufffd" in c.text for c in theirs), "chonkie's token windows cut a character"
    ours = chunkers.get("chonkie").chunk(Document(text), TOK, size=8)
    assert all(c.meta["offsets"] == "realigned" for c in ours)
    assert "".join(c.text for c in ours) == text  # contiguous, nothing lost or rewritten
    assert all(c.tokens == TOK.count(c.text) and c.oversize == (c.tokens > 8) for c in ours)


def test_haystack_oversize_only_when_its_unit_is_the_sizers():
    need("haystack.components.preprocessors")
    haystack = chunkers.get("haystack")
    char = {"split_unit": "char"}
    assert haystack.oversize(25, 20, "RecursiveDocumentSplitter", char, sizer=CHARS)
    assert not haystack.oversize(20, 20, "RecursiveDocumentSplitter", char, sizer=CHARS)
    assert not haystack.oversize(25, 20, "RecursiveDocumentSplitter", char, sizer=TOK)
    assert haystack.oversize(25, 20, "DocumentSplitter", {"split_by": "token"}, sizer=TOK)
    assert not haystack.oversize(25, 20, "DocumentSplitter", {}, sizer=TOK)  # words


def test_tracked_chunks_on_a_run_of_one_character_leave_nothing_out():
    need("llama_index.core.node_parser")
    text = "q\n" + ">" * 495 + " q\n"
    chunks = run("llamaindex", text, size=64, overlap=8)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_semchunk_memo_lives_for_one_call_only():
    """semchunk's own memo is an unbounded lru_cache kept for every counter it was
    ever given (a module-level dict): the adapter memoizes per chunking call instead,
    so a long-running server does not grow with every document and setting."""
    semchunk = pytest.importorskip("semchunk")
    from chunkseam.tokens.tiktoken import get_sizer

    memos = getattr(semchunk.semchunk, "_memoized_token_counters", None)
    before = len(memos) if memos is not None else 0
    text = (FIXTURES / "database.md").read_text(encoding="utf-8")
    chunker = chunkers.get("semchunk")
    first = None
    for size in range(40, 52):  # a new splitter per size
        for _ in range(2):
            got = [(c.start, c.end, c.tokens) for c in chunker.chunk(
                Document(text, path="a.md"), get_sizer("tokens"), size=size)]
            assert got and all(n == get_sizer("tokens").count(text[a:b]) for a, b, n in got)
        first = first or got
    assert memos is None or len(memos) == before
    again = [(c.start, c.end, c.tokens) for c in chunker.chunk(
        Document(text, path="a.md"), get_sizer("tokens"), size=40, memoize=False)]
    assert again == first


def test_haystack_by_words_counts_tokens_only_when_asked():
    """split_by word/line/passage: no size in tokens to hold a chunk to, so the
    adapter counts no chunk while chunking; a count read later is exact, and the
    chunk pickles and compares as a plain Chunk."""
    import pickle

    need("haystack")
    from chunkseam.core.chunk import Chunk

    calls = []

    class Counting:
        unit, name, approximate = "tokens", "cl100k_base", False
        encoding = TOK.encoding

        def count(self, text):
            calls.append(text)
            return TOK.count(text)

    text = "One two three four five. " * 40
    sizer = Counting()
    ours = chunkers.get("haystack").chunk(Document(text), sizer, size=30, overlap=5,
                                          split_by="word")
    assert len(ours) > 3 and calls == []
    assert [c.tokens for c in ours] == [TOK.count(c.text) for c in ours]
    assert len(calls) == len(ours)
    again = pickle.loads(pickle.dumps(ours[0]))
    assert type(again) is Chunk and again == ours[0] and again.tokens == ours[0].tokens


def test_llamaindex_reader_table_and_excluded_keys_as_llamaindex_splits():
    """option reader = a table: the metadata's length comes out of the chunk size as
    in get_nodes_from_documents; excluded keys (kebab- or snake_case) are left out."""
    import functools

    parsers = need("llama_index.core.node_parser")
    from llama_index.core.schema import Document as LlamaDocument

    text = "# T\n\n" + "Some sentence here. " * 80 + "\n"
    meta = {"source": "https://example.com/a/long/path/to/the/document/that/is/indexed.md",
            "author": "someone"}
    tokenizer = functools.partial(ENC.encode, allowed_special="all")
    for excluded in ([], ["author", "source"]):
        doc = LlamaDocument(text=text, metadata=meta, excluded_llm_metadata_keys=excluded,
                            excluded_embed_metadata_keys=excluded)
        theirs = _llama_nodes(parsers.SentenceSplitter(chunk_size=64, chunk_overlap=8,
                                                       tokenizer=tokenizer), doc)
        for spelling in ("excluded-llm-metadata-keys", "excluded_llm_metadata_keys"):
            embed = spelling.replace("llm", "embed")
            ours = run("llamaindex", text, size=64, overlap=8, reader=meta,
                       **{spelling: excluded, embed: excluded})
            assert [c.text for c in ours] == [n.text for n in theirs]
    assert len(run("llamaindex", text, size=64, overlap=8, reader=meta)) > \
        len(run("llamaindex", text, size=64, overlap=8))
    with pytest.raises(ValueError, match="option 'reader' must be"):
        run("llamaindex", text, size=64, overlap=8, reader="Bogus")


def test_oversize_is_judged_from_the_count_when_first_read():
    """chonkie's RecursiveChunker sizes in tokens: a chunk is oversize when the
    sizer's count is over the size, and the adapter counts it only when tokens or
    oversize is first read; the lazy chunk equals, pickles and is replaced as the
    eager one. (The sizer here counts each token twice, so that some chunks chonkie
    made within the size are over it.)"""
    import dataclasses
    import pickle

    need("chonkie")
    from chunkseam.core.chunk import Chunk

    calls = []

    class Counting:
        unit, name, approximate = "tokens", "cl100k_base", False
        encoding = TOK.encoding

        def count(self, text):
            calls.append(text)
            return 2 * TOK.count(text)

    text = ("Short opening line.\n\n" + "Words of a long paragraph. " * 6 + "\n\n"
            + "Closing words here and more. " * 20)
    ours = chunkers.get("chonkie").chunk(Document(text), Counting(), size=40, overlap=0)
    assert len(ours) > 2 and calls == []
    flags = [c.oversize for c in ours]
    assert len(calls) == len(ours)  # each chunk counted once, for its oversize
    assert flags == [2 * TOK.count(c.text) > 40 for c in ours] and any(flags) and not all(flags)
    assert [c.tokens for c in ours] == [2 * TOK.count(c.text) for c in ours]
    assert len(calls) == len(ours)  # (the count is kept)
    for c in ours:
        eager = Chunk(c.start, c.end, c.index, source=text, tokens=c.tokens,
                      strategy=c.strategy, oversize=c.oversize, meta=c.meta)
        again = pickle.loads(pickle.dumps(c))
        assert c == eager and type(again) is Chunk and again == eager
        moved = dataclasses.replace(c, index=c.index + 1)
        assert (moved.index, moved.tokens, moved.oversize) == (c.index + 1, c.tokens, c.oversize)


@pytest.mark.parametrize("name,options", [
    ("chonkie", {"splitter": "TokenChunker"}),
    ("llamaindex", {"splitter": "TokenTextSplitter"}),
    ("langchain", {"splitter": "TokenTextSplitter"}),
    ("langchain", {}),
])
def test_shared_splitters_give_each_thread_its_own_chunks(name, options):
    """One cached splitter serves every worker thread: the per-call state (the
    library's encoding of the document, its counts) never crosses documents."""
    from concurrent.futures import ThreadPoolExecutor

    need({"chonkie": "chonkie", "llamaindex": "llama_index.core.node_parser",
          "langchain": "langchain_text_splitters"}[name])
    chunker = chunkers.get(name)
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "é", "日本", "🙂", "\n\n", "x" * 30, "."]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(50, 400)))
             for _ in range(24)]

    def run(text):
        return [(c.start, c.end, c.tokens, c.oversize, c.meta.get("library_text"))
                for c in chunker.chunk(Document(text), TOK, size=48, overlap=8, **options)]

    alone = [run(t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(run, texts * 3))
    assert together == alone * 3


def test_surrogate_check_finds_what_the_pattern_finds():
    samples = ["", "plain ascii", "é and 日本", "🙂 emoji", "\ufffd", "\ue000\uffff"]
    samples += [f"a{chr(c)}b" for c in range(0xD800, 0xE000, 0x3F)] + ["\ud83d\ude42", "x\udfff"]
    for s in samples:
        assert adapter._has_surrogates(s) == bool(adapter._SURROGATE.search(s)), repr(s)


def test_every_chunker_is_offered_in_the_editor_and_the_readme():
    """The VS Code setting's enum and the README's chunker table name every
    registered strategy (a new adapter is listed where users choose one)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    manifest = json.loads((root / "client-vscode" / "package.json").read_text(encoding="utf-8"))
    sections = manifest["contributes"]["configuration"]
    sections = sections if isinstance(sections, list) else [sections]
    setting = next(s["properties"]["chunkseam.chunker"] for s in sections
                   if "chunkseam.chunker" in s["properties"])
    assert set(setting["enum"]) - {"auto", None} == set(chunkers.names())
    assert len(setting["enumDescriptions"]) == len(setting["enum"])
    readme = (root / "README.md").read_text(encoding="utf-8")
    for name in chunkers.names():
        assert f"\n| `{name}` |" in readme, f"{name} has no row in the README's chunker table"
