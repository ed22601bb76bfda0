"""The block-structure backends are chosen through the registry
(:mod:`chunkseam.structure.registry`): a backend registered for a new file kind
is the one :class:`Structure` uses, and removing it brings the fallback back."""

from __future__ import annotations

from chunkseam.document.text import Document
from chunkseam.structure import registry
from chunkseam.structure.markdown import Structure
from chunkseam.structure.rst import records as rst_records


class _ZzqMarkdown:
    """A made-up kind whose files are Markdown: the segmented parse."""

    name = "zzq"
    segmented = "markdown"

    def accepts(self, doc):
        return (doc.path or "").endswith(".zzq")

    def records(self, doc):
        raise NotImplementedError


class _ZzqRst:
    """A made-up kind parsed whole (here by the reStructuredText reader)."""

    name = "zzr"
    segmented = None

    def __init__(self):
        self.calls = 0

    def accepts(self, doc):
        return (doc.path or "").endswith(".zzr")

    def records(self, doc):
        self.calls += 1
        return rst_records(doc.text), doc.text


MD = "# Title\n\nSome text.\n\n## Part\n\nMore.\n"
RST = "Title\n=====\n\nSome text.\n"


def _kinds(doc: Document) -> list[str]:
    return [b.kind for b in Structure(doc).blocks]


def test_builtin_backends_in_order():
    names = [b.name for b in registry.backends()]
    assert names[:3] == ["rst", "mdx", "markdown"] and names[-1] == "plain"
    assert all(isinstance(b, registry.Backend) for b in registry.backends())
    assert registry.backend_for(Document(MD, path="a.md")).name == "markdown"
    assert registry.backend_for(Document(MD, path="a.mdx")).name == "mdx"
    assert registry.backend_for(Document(RST, path="a.rst")).name == "rst"
    assert registry.backend_for(Document(MD, path="a.txt")).name == "plain"


def test_registered_segmented_backend_is_used():
    assert _kinds(Document(MD, path="notes.zzq")) == ["paragraph"] * 4  # plain text
    backend = _ZzqMarkdown()
    registry.register(backend)
    try:
        doc = Document(MD, path="notes.zzq")
        assert doc.kind == "text"
        assert registry.backend_for(doc) is backend
        assert _kinds(doc) == ["heading", "paragraph", "heading", "paragraph"]
        assert _spans(doc) == _spans(Document(MD, path="notes.md"))
    finally:
        registry.unregister(backend)
    assert backend not in registry.backends()
    assert _kinds(Document(MD, path="notes.zzq")) == ["paragraph"] * 4


def test_registered_whole_text_backend_is_used():
    backend = _ZzqRst()
    registry.register(backend, first=True)
    try:
        assert registry.backends()[0] is backend
        assert _kinds(Document(RST, path="doc.zzr")) == ["heading", "paragraph"]
        assert backend.calls == 1
    finally:
        registry.unregister(backend)
    assert _kinds(Document(RST, path="doc.zzr")) != ["heading", "paragraph"]


def _spans(doc: Document) -> list:
    return [(b.kind, b.start, b.end) for b in Structure(doc).blocks]
