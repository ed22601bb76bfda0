"""``recursive`` against the real LangChain ``RecursiveCharacterTextSplitter``
on every document of ../shared/corpus/markdown, at chars 1000/200 and
tokens 256/32 (cl100k_base through ``from_tiktoken_encoder``): identical chunk
texts, each chunk's ``start`` its true position, exact token counts.

``from_tiktoken_encoder`` calls ``tiktoken.get_encoding``, which would download
the encoding file; while the splitter is built, ``tiktoken.get_encoding`` is
replaced by chunkseam's offline resolution (the same, hash-checked BPE file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_text_splitters")
import tiktoken  # noqa: E402
from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: E402

from chunkseam.tokens import tiktoken as tokens  # noqa: E402
from chunkseam.chunkers import get  # noqa: E402
from chunkseam.document.text import Document  # noqa: E402

from conftest import CORPUS, IN_CI  # noqa: E402

MARKDOWN = CORPUS / "markdown"
FILES = sorted(MARKDOWN.rglob("*.md")) if MARKDOWN.is_dir() else []
SETTINGS = {"chars-1000-200": ("chars", 1000, 200), "tokens-256-32": ("tokens", 256, 32)}


def _ids(path: Path) -> str:
    return str(path.relative_to(MARKDOWN))


@pytest.fixture(scope="module")
def splitters():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tiktoken, "get_encoding", lambda name: tokens.get_encoding(name))
        by_tokens = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", chunk_size=256, chunk_overlap=32
        )
    return {
        "chars-1000-200": RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200),
        "tokens-256-32": by_tokens,
    }


def test_corpus_is_there():
    if not FILES:
        if IN_CI:
            pytest.fail(f"corpus not found at {MARKDOWN}")
        pytest.skip(f"corpus not found at {MARKDOWN}")
    assert len(FILES) >= 300


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("path", FILES, ids=_ids)
def test_recursive_equals_langchain(path: Path, setting: str, splitters):
    unit, size, overlap = SETTINGS[setting]
    text = path.read_text(encoding="utf-8")
    sizer = tokens.get_sizer(unit, "cl100k_base")
    chunks = get("recursive").chunk(Document(text), sizer, size=size, overlap=overlap)
    expected = splitters[setting].split_text(text)
    assert [c.text for c in chunks] == expected
    previous = -1
    for c in chunks:
        # the chunk text is the source at the chunk's own offsets ...
        assert text[c.start : c.end] == c.text
        # ... which move forward through the document
        assert c.start > previous
        previous = c.start
        assert c.tokens == sizer.count(c.text)
    # and together the chunks cover every non-space character
    covered = bytearray(len(text))
    for c in chunks:
        covered[c.start : c.end] = b"\x01" * len(c)
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(text))


def test_add_start_index_is_wrong_on_repeated_paragraphs_ours_is_right():
    """LangChain's ``add_start_index`` guesses where a chunk starts (previous
    start + previous length - chunk_overlap) and searches the chunk text from
    there with ``str.find``: with a repeated paragraph it finds an earlier copy.
    Here it puts the macOS section's "Restart the server." under Linux."""
    text = "\n\n".join(
        ["## Linux", "Restart the server.", "## macOS", "Restart the server.",
         "## Windows", "Restart the server."]
    )
    splitter = RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=29, add_start_index=True)
    docs = splitter.create_documents([text])
    sizer = tokens.get_sizer("chars")
    chunks = get("recursive").chunk(Document(text), sizer, size=30, overlap=29)
    assert [d.page_content for d in docs] == [c.text for c in chunks]

    lc_starts = [d.metadata["start_index"] for d in docs]
    assert [c.start for c in chunks] == [0, 31, 41, 62, 74]
    assert lc_starts == [0, 31, 10, 62, 74]
    # both positions hold the same text; only ours is where the chunk came from
    third = chunks[2]
    assert text[10 : 10 + len(third)] == third.text == text[third.start : third.end]
    # ours keeps the document order (the chunk follows "## macOS"); LangChain's
    # position would attribute it to the Linux section
    assert text.rfind("## ", 0, third.start) == text.index("## macOS")
    assert text.rfind("## ", 0, lc_starts[2]) == text.index("## Linux")
