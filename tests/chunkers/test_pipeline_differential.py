"""Every pipeline adapter against its library run directly, as pipeline code runs
it (tests/pipeline_runs.py): LlamaIndex through ``SimpleDirectoryReader`` +
``IngestionPipeline`` and ``get_nodes_from_documents``, LangChain's
``split_text``, chonkie's ``chunk``, semchunk's chunker, semantic-text-splitter's
``chunks``, Haystack's ``DocumentSplitter.run``, chunkipy's ``chunk`` — at two or more settings each,
over 20 corpus files and the synthetic hard cases (CJK, emoji/ZWJ, CRLF, tabs,
long runs of one and two characters, repeated text, empty, whitespace-only,
combining marks, special-token strings, odd spaces, a BOM, runs of newlines).

For every file: the same chunk texts (the library's own text where it rewrote
one, kept in ``meta["library_text"]``), spans in order that leave no text
outside every chunk, each span the source the chunk came from. Where the
library itself refuses a file (LangChain's tiktoken splitters on
``<|endoftext|>``), chunkseam says so too, with a message.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

for _lib in ("llama_index.core", "langchain_text_splitters", "chonkie", "semchunk",
             "semantic_text_splitter", "haystack", "chunkipy"):
    pytest.importorskip(_lib)

import pipeline_runs  # noqa: E402
from chunkseam import chunkers  # noqa: E402
from chunkseam.chunkers.adapters.common import gaps  # noqa: E402
from chunkseam.document.text import Document  # noqa: E402
from chunkseam.tokens.tiktoken import get_sizer  # noqa: E402

from conftest import CORPUS, IN_CI  # noqa: E402

MARKDOWN = CORPUS / "markdown"
_ALL = sorted(MARKDOWN.rglob("*.md")) if MARKDOWN.is_dir() else []
#: 20 files spread over the corpus (every n-th, sorted: the same on every machine)
SAMPLE = _ALL[:: max(1, len(_ALL) // 20)][:20]
CASES = {c.id: c for c in pipeline_runs.all_cases()}
_SPACE_OR_FFFD = re.compile(r"[\s\ufffd]+")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    if not SAMPLE and IN_CI:
        pytest.fail(f"corpus not found at {MARKDOWN}")
    return SAMPLE + pipeline_runs.write_hard(tmp_path_factory.mktemp("hard"))


def test_the_settings_cover_every_adapter_twice():
    per = {}
    for case in CASES.values():
        per[case.adapter] = per.get(case.adapter, 0) + 1
    assert set(per) == {"llamaindex", "langchain", "chonkie", "semchunk", "text-splitter",
                        "haystack", "chunkipy"}
    assert min(per.values()) >= 2
    assert len(pipeline_runs.HARD) >= 12


def _came_from(span_text: str, library_text: str) -> bool:
    """The library's text is the span rewritten: the same text but for runs of
    whitespace (re-joined separators, a rebuilt heading) and, at its ends, the
    bytes of a character cut in two (U+FFFD)."""
    if span_text == library_text:
        return True
    ours = _SPACE_OR_FFFD.sub("", span_text)
    theirs = _SPACE_OR_FFFD.sub("", library_text)
    return theirs in ours and len(ours) - len(theirs) <= 2


@pytest.mark.parametrize("case_id", list(CASES))
def test_adapter_equals_the_library(case_id, files):
    case = CASES[case_id]
    sizer = get_sizer(case.unit, case.encoding) if case.unit == "tokens" else get_sizer("chars")
    chunker = chunkers.get(case.adapter)
    wrong = []
    for path in files:
        text = pipeline_runs.read(path)
        doc = Document(text, path=str(path))
        try:
            theirs = case.run(path)
        except ValueError as exc:  # the library refuses the file: so does chunkseam
            with pytest.raises(ValueError) as ours_exc:
                chunker.chunk(doc, sizer, size=case.size, overlap=case.overlap, **case.options)
            assert str(ours_exc.value), (path.name, exc)
            continue
        ours = chunker.chunk(doc, sizer, size=case.size, overlap=case.overlap, **case.options)
        texts = [c.meta.get("library_text", c.text) for c in ours]
        if texts != theirs:
            wrong.append((path.name, f"{len(theirs)} chunks vs {len(ours)}"))
            continue
        spans = [(c.start, c.end) for c in ours]
        assert all(text[s:e] == c.text for (s, e), c in zip(spans, ours))
        assert [s for s, _ in spans] == sorted(s for s, _ in spans), path.name
        assert not gaps(text, spans), (path.name, "text outside every chunk")
        for c in ours:
            assert _came_from(c.text, c.meta.get("library_text", c.text)), (path.name, c.index)
    assert not wrong, wrong


def test_a_bom_is_a_character_of_the_document(files):
    """A pipeline that reads the file as UTF-8 keeps U+FEFF in its first chunk:
    so does chunkseam, and every offset is the file's."""
    bom = next(p for p in files if p.name == "bom.md")
    text = pipeline_runs.read(bom)
    assert text[0] == "\ufeff"
    case = CASES["llamaindex-sentence-64-8"]
    ours = chunkers.get("llamaindex").chunk(Document(text, path=str(bom)), get_sizer(
        "tokens", "cl100k_base"), size=case.size, overlap=case.overlap)
    assert ours[0].start == 0 and ours[0].text.startswith("\ufeff# Title")
    assert ours[0].text == case.run(bom)[0]


def test_the_cli_reports_the_offsets_of_the_file_as_read(tmp_path):
    """`chunks --format json` and `lint` on a file with a BOM: offsets count it (as
    the pipeline's do), columns do not (as no editor shows it)."""
    import json
    import subprocess
    import sys

    path = tmp_path / "b.md"
    path.write_bytes("\ufeffThe timeout is set to thirty seconds by default and it can be "
                     "changed later on.\n".encode("utf-8"))
    out = subprocess.run([sys.executable, "-m", "chunkseam", "chunks", "--chunker", "llamaindex",
                          "--size", "16", "--overlap", "0", "--format", "json", str(path)],
                         capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout)
    assert rows[0]["start"] == 0 and rows[0]["text"].startswith("\ufeffThe")
    assert (rows[0]["start_line"], rows[0]["start_column"]) == (1, 1)
    assert rows[1]["start"] == rows[0]["end"] + 1 and rows[1]["start_column"] == rows[1]["start"]
    lint = subprocess.run([sys.executable, "-m", "chunkseam", "lint", "--chunker", "fixed",
                           "--unit", "chars", "--size", "20", str(path)],
                          capture_output=True, text=True, check=False)
    assert f"{path}:1:20: CS002" in lint.stdout  # the cut after "set " (offset 20 with the BOM)
