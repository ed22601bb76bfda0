"""One document: its text, version, line index and every offset conversion.

Offsets are Python string indices (code points). Everything else in chunkseam
speaks offsets; this module is the single place that turns them into LSP
positions (UTF-16, UTF-8 or UTF-32 code units), 1-based CLI line:column pairs,
and back.

Line breaks are ``\\r\\n``, ``\\r`` and ``\\n`` — the three the LSP
specification recognises (and the three markdown-it normalises), and not the
extra ones of :meth:`str.splitlines`.
"""

from __future__ import annotations

import os

import re
import weakref
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]

_EOL = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"

#: document kind by file suffix; the router picks a chunker from the kind
_SUFFIX_KIND = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".qmd": "markdown",  # Quarto: Pandoc Markdown with executable code chunks
    ".rmd": "markdown",  # R Markdown (.Rmd): the same family
    ".rst": "markdown",  # reStructuredText: its own structure (chunkseam.structure.rst), the markdown rules
    ".rest": "markdown",
    ".py": "python",
    ".pyi": "python",
    ".txt": "text",
    ".text": "text",
    ".ipynb": "markdown",  # a notebook's view (chunkseam.document.notebook): Markdown with fenced code cells
}
_LANGUAGE_KIND = {
    "markdown": "markdown",
    "mdx": "markdown",
    "python": "python",
    "plaintext": "text",
    "text": "text",
    "restructuredtext": "markdown",
}
#: LSP language ids of programming languages (kind "code")
_CODE_LANGUAGES = {
    "javascript", "javascriptreact", "typescript", "typescriptreact", "go", "rust", "java",
    "c", "cpp", "csharp", "ruby", "php", "swift", "kotlin", "scala", "lua", "shellscript",
}


def kind_for(path: str | None = None, language_id: str | None = None) -> str:
    """The document kind (``markdown``, ``python``, ``text`` or ``code``)."""
    if language_id:
        kind = _LANGUAGE_KIND.get(language_id.lower())
        if kind == "text" and language_id.lower() == "plaintext" and path:
            # an editor's fallback for a suffix it has no language for (VS Code
            # without an MDX extension opens page.mdx as plaintext): the suffix knows better
            by_suffix = _SUFFIX_KIND.get(Path(path).suffix.lower())
            if by_suffix is not None:
                return by_suffix
        if kind:
            return kind
        if language_id.lower() in _CODE_LANGUAGES:
            return "code"
    if path:
        suffix = Path(path).suffix.lower()
        if suffix in _SUFFIX_KIND:
            return _SUFFIX_KIND[suffix]
        if suffix:
            return "code" if suffix in _CODE_SUFFIXES else "text"
    return "markdown" if language_id is None and path is None else "text"


_CODE_SUFFIXES = {
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go", ".rs", ".java", ".c", ".h",
    ".cpp", ".hpp", ".cc", ".cs", ".rb", ".php", ".swift", ".kt", ".scala", ".lua", ".sh",
}


def _uri_path(uri: str | None) -> str | None:
    """The path part of a URI when it has a suffix, e.g. ``file:///a/b.py`` ->
    ``/a/b.py`` (so a document known only by URI still gets its kind)."""
    if not uri:
        return None
    from urllib.parse import unquote, urlsplit

    path = unquote(urlsplit(uri).path)
    return path if Path(path).suffix else None


def _units(ch: str, encoding: PositionEncoding) -> int:
    cp = ord(ch)
    if encoding == "utf-16":
        return 2 if cp > 0xFFFF else 1
    if encoding == "utf-8":
        if cp < 0x80:
            return 1
        if cp < 0x800:
            return 2
        if cp < 0x10000:
            return 3
        return 4
    return 1


@dataclass(frozen=True)
class Position:
    """A zero-based LSP position (line, character in the negotiated encoding)."""

    line: int
    character: int


#: the readers of the file kinds whose document is a view of the file, not its
#: text, by suffix: ``read(text, path) -> Document`` (``.ipynb``: a notebook's
#: cells, registered by :mod:`chunkseam.document`, which sits above both)
READERS: dict[str, Callable[[str, str], "Document"]] = {}


class Document:
    """The text of one file at one version, with a line index."""

    __slots__ = ("text", "version", "path", "uri", "language_id", "kind", "_line_starts", "_cache",
                 "_origins", "notebook", "__weakref__")

    def __init__(
        self,
        text: str,
        *,
        path: str | None = None,
        uri: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
        kind: str | None = None,
    ) -> None:
        self.text = text
        self.version = version
        self.path = path
        self.uri = uri
        self.language_id = language_id
        self.kind = kind or kind_for(path or _uri_path(uri), language_id)
        self._line_starts: list[int] | None = None
        #: per-version memo for derived data (structure, chunks …) keyed by name
        self._cache: dict[object, object] = {}
        #: documents this one was edited from (see :meth:`lineage`)
        self._origins: tuple[tuple[weakref.ref, int, int, int], ...] = ()
        #: a notebook's view: where each cell's source sits in ``text``
        #: (:class:`chunkseam.document.notebook.NotebookMap`), else None
        self.notebook = None

    # -- construction ---------------------------------------------------
    @classmethod
    def from_path(cls, path: str | Path, *, kind: str | None = None) -> "Document":
        """Read a UTF-8 file (a leading BOM is kept: offsets are the file's, as a pipeline
        reading it as UTF-8 sees them).

        Raises :class:`OSError` when unreadable and :class:`UnicodeDecodeError`
        when the file is not UTF-8; callers report and skip. A Jupyter notebook
        (``.ipynb``) is read as the view of its cells (:mod:`chunkseam.document.notebook`),
        :class:`~chunkseam.document.notebook.NotebookError` when it is not one.
        """
        import errno

        from chunkseam.core.budget import MAX_SOURCE_BYTES

        p = Path(path)
        with open(p, "rb") as f:
            # (from the size first: a multi-gigabyte file is never read whole)
            size = os.fstat(f.fileno()).st_size
            if size > MAX_SOURCE_BYTES or len(data := f.read(size + 1)) > size:
                raise OSError(errno.EFBIG, f"too large (files of at most {MAX_SOURCE_BYTES:,} bytes are read)",
                              str(p))
        text = data.decode("utf-8")  # a leading BOM is kept, as a pipeline reading UTF-8 does
        reader = READERS.get(p.suffix.lower()) if kind is None else None
        if reader is not None:
            # a notebook: the Markdown view of its cells (chunkseam.document.notebook);
            # NotebookError (a ValueError) when it is not one
            return reader(text, str(p))
        return cls(text, path=str(p), kind=kind)

    def __getstate__(self) -> tuple:
        # pickled without what is derived (the memo) or process-local (the
        # weak references of the lineage)
        return (None, {name: getattr(self, name) for name in self.__slots__
                       if name not in ("__weakref__", "_cache", "_origins")})

    def __setstate__(self, state: tuple) -> None:
        for name, value in state[1].items():
            object.__setattr__(self, name, value)
        self._cache = {}
        self._origins = ()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Document(path={self.path!r}, kind={self.kind!r}, chars={len(self.text)})"

    def __len__(self) -> int:
        return len(self.text)

    @property
    def name(self) -> str:
        return self.path or self.uri or "<text>"

    def memo(self, key: object, factory):
        """Compute ``factory()`` once per document version and keep it."""
        try:
            return self._cache[key]
        except KeyError:
            value = factory()
            self._cache[key] = value
            return value

    def memoised(self, key: object, default: object = None) -> object:
        """What :meth:`memo` keeps under ``key``, without computing it."""
        return self._cache.get(key, default)

    # -- edits ------------------------------------------------------------
    def with_edit(self, start: int, end: int, text: str, *,
                  version: int | None = None) -> "Document":
        """A new document: this one with ``[start, end)`` replaced by ``text``
        (offsets clamped into the text and put in order), with the same path,
        URI, language and kind, and ``version`` (this one's when None).

        When this document's line index has been built, the new one's is
        carried over (unchanged before the edit, shifted after it, rescanned
        only around it) instead of scanning the whole new text."""
        start, end = self.clamp(start), self.clamp(end)
        if end < start:
            start, end = end, start
        old = self.text
        new = Document(old[:start] + text + old[end:], path=self.path, uri=self.uri,
                       version=self.version if version is None else version,
                       language_id=self.language_id, kind=self.kind)
        new.carry_line_index(self, start, end, len(text))
        new._origins = _compose_origins(self, start, end, len(text))
        return new

    def with_edits(self, edits, *, version: int | None = None) -> "Document":
        """This document with ``edits`` applied in order: ``(start, end, text)``
        triples, each in offsets of the text the previous ones produced."""
        doc = self
        for start, end, text in edits:
            doc = doc.with_edit(start, end, text, version=version)
        if doc is self:  # no edits: a new version of the same text
            doc = self.with_edit(0, 0, "", version=version)
        return doc

    def follows(self, other: "Document") -> None:
        """Count this document, whose text is ``other``'s, as made from it by
        an empty edit at the end of the text (see :meth:`lineage`): what is
        derived from ``other`` (its line index, an editor's diagnostics) is
        carried over as after an edit, instead of made again. A document that
        already has a lineage, or whose text differs, is left as it is."""
        if self._origins or other is self or (self.text is not other.text and self.text != other.text):
            return
        end = len(self.text)
        self.carry_line_index(other, end, end, 0)
        self._origins = _compose_origins(other, end, end, 0)

    def lineage(self) -> list[tuple["Document", int, int, int]]:
        """The documents this one was made from by :meth:`with_edit` that are
        still alive, nearest first (at most :data:`LINEAGE_DEPTH`): ``(doc,
        start, end, inserted)`` where this text is ``doc.text`` with
        ``[start, end)`` replaced by ``inserted`` characters. Derived data of
        an ancestor (its structure …) can be updated instead of rebuilt."""
        out = []
        for ref, start, end, inserted in self._origins:
            doc = ref()
            if doc is not None:
                out.append((doc, start, end, inserted))
        return out

    def carry_line_index(self, old: "Document", start: int, end: int, inserted: int) -> None:
        """Take this document's line index from ``old``'s, this text being
        ``old``'s with ``[start, end)`` replaced by ``inserted`` characters
        (nothing happens when ``old`` has no line index yet)."""
        starts = old._line_starts
        if starts is None:
            return
        self._line_starts = _carried_line_starts(starts, self.text, start, end, inserted)

    # -- line index -------------------------------------------------------
    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            starts.extend(m.end() for m in _EOL.finditer(self.text))
            self._line_starts = starts
        return self._line_starts

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_of(self, offset: int) -> int:
        """Zero-based line containing ``offset`` (clamped into the text)."""
        offset = self.clamp(offset)
        line = bisect_right(self.line_starts, offset) - 1
        # an offset between \r and \n of a CRLF belongs to the first line
        return max(line, 0)

    def line_start(self, line: int) -> int:
        starts = self.line_starts
        if line < 0:
            return 0
        if line >= len(starts):
            return len(self.text)
        return starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``'s content, before its line break."""
        starts = self.line_starts
        if line < 0:
            return 0
        if line >= len(starts):
            return len(self.text)
        end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
        text = self.text
        if end > starts[line] and text[end - 1] == "\n":
            end -= 1
            if end > starts[line] and text[end - 1] == "\r":
                end -= 1
        elif end > starts[line] and text[end - 1] == "\r":
            end -= 1
        return end

    def line_text(self, line: int) -> str:
        return self.text[self.line_start(line) : self.line_end(line)]

    def clamp(self, offset: int) -> int:
        return 0 if offset < 0 else min(offset, len(self.text))

    # -- conversions ----------------------------------------------------------
    def offset_to_position(self, offset: int, encoding: PositionEncoding = "utf-16") -> Position:
        """LSP position of a string offset, in code units of ``encoding``.

        An offset inside a line break (between ``\\r`` and ``\\n``) maps to the
        end of that line's content.
        """
        offset = self.clamp(offset)
        line = self.line_of(offset)
        start = self.line_starts[line]
        end = self.line_end(line)
        offset = min(offset, end) if offset > end else offset
        segment = self.text[start:offset]
        if encoding == "utf-32" or segment.isascii():
            return Position(line, len(segment))
        if encoding == "utf-16":
            return Position(line, len(segment.encode("utf-16-le", "surrogatepass")) // 2)
        return Position(line, len(segment.encode("utf-8", "surrogatepass")))

    def position_to_offset(
        self, line: int, character: int, encoding: PositionEncoding = "utf-16"
    ) -> int:
        """String offset of an LSP position; out-of-range values are clamped
        (past the last line -> end of text, past a line's end -> its end), and a
        position inside a surrogate pair or UTF-8 sequence -> that character."""
        if line < 0:
            return 0
        if line >= self.line_count:
            return len(self.text)
        start = self.line_starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if encoding == "utf-32" or self.text[start:end].isascii():
            return min(start + character, end)
        units = 0
        text = self.text
        i = start
        while i < end:
            u = _units(text[i], encoding)
            if units + u > character:
                return i
            units += u
            i += 1
        return end

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) for command-line output (of
        the view for a notebook; :meth:`location` gives the cell)."""
        offset = self.clamp(offset)
        line = self.line_of(offset)
        first = self.line_starts[line]
        if line == 0 and self.text.startswith(_BOM):
            # a file's BOM is no column in an editor (LSP positions, on the text the
            # client sent, count every character: see offset_to_position)
            first = min(1, offset)
        col = min(offset, self.line_end(line)) - first
        return line + 1, col + 1

    def location(self, offset: int) -> tuple[int | None, int, int]:
        """``(cell, line, column)`` for output: the 1-based cell number and the
        line and column in that cell's source for a notebook, ``(None, line,
        column)`` of the text for any other document."""
        if self.notebook is None:
            return (None, *self.line_col(offset))
        return self.notebook.locate(self, offset)

    def range_to_lsp(
        self, start: int, end: int, encoding: PositionEncoding = "utf-16"
    ) -> tuple[Position, Position]:
        return self.offset_to_position(start, encoding), self.offset_to_position(end, encoding)


#: how many ancestors :meth:`Document.lineage` remembers
LINEAGE_DEPTH = 8


def _compose_origins(old: Document, start: int, end: int,
                     inserted: int) -> tuple[tuple[weakref.ref, int, int, int], ...]:
    """The origins of ``old.text`` with ``[start, end)`` replaced by
    ``inserted`` characters: ``old`` itself, then each of ``old``'s origins
    with the two edits merged into one replacement (weak references only)."""
    out = [(weakref.ref(old), start, end, inserted)]
    for ref, a0, b0, n0 in old._origins[: LINEAGE_DEPTH - 1]:
        # old.text = X[:a0] + (n0 characters) + X[b0:]; the union of the two
        # replaced regions, in old's offsets, then mapped back to X's
        lo = min(start, a0)
        hi = max(end, a0 + n0)
        shift = n0 - (b0 - a0)
        lo_x = lo  # lo <= a0: unchanged before the first edit
        hi_x = hi - shift  # hi >= a0 + n0: after the first edit
        new_len = (hi - lo) + inserted - (end - start)
        out.append((ref, lo_x, hi_x, new_len))
    return tuple(out)


def _carried_line_starts(starts: list[int], text: str, start: int, end: int,
                         inserted: int) -> list[int]:
    """The line starts of ``text``, which is the text of ``starts`` with
    ``[start, end)`` replaced by ``inserted`` characters: kept before the edit,
    shifted after it, recomputed only around it."""
    delta = inserted - (end - start)
    # recompute from the start of the line before the edit (a CR there may
    # join an LF the edit inserts) ...
    first = max(0, bisect_right(starts, start) - 2)
    win_start = starts[first]
    # ... to the first old line start safely after the edit (its line break is untouched)
    k = bisect_right(starts, end + 1)
    tail = starts[k:]
    win_end = (tail[0] + delta) if tail else len(text)
    middle = [m.end() for m in _EOL.finditer(text, win_start, win_end)]
    if middle and tail and middle[-1] == win_end:
        middle.pop()  # the window's end is the kept line start itself
    out = starts[: first + 1]
    out.extend(m for m in middle if m > win_start)
    if delta:
        out.extend([s + delta for s in tail])
    else:
        out.extend(tail)
    return out


def load(source: str | Path | Document, *, kind: str | None = None) -> Document:
    """A :class:`Document` from a path, a text or a document.

    A :class:`~pathlib.Path`, or a string naming an existing file, is read from
    disk; any other string is taken as the document's text (Markdown unless
    ``kind`` says otherwise). A one-line string that looks like a file name
    (no spaces, a known suffix) but names no file raises
    :class:`FileNotFoundError` rather than becoming a one-line document.
    """
    if isinstance(source, Document):
        return source
    if isinstance(source, Path):
        return Document.from_path(source, kind=kind)
    if isinstance(source, str) and "\n" not in source and len(source) < 4096:
        try:
            p = Path(source)
            if p.is_file():
                return Document.from_path(p, kind=kind)
        except (OSError, ValueError):
            pass
        else:
            stripped = source.strip()
            if (
                stripped
                and " " not in stripped
                and p.suffix.lower() in _SUFFIX_KIND
                and not stripped.startswith("#")
            ):
                raise FileNotFoundError(f"{source}: no such file")
    return Document(source, kind=kind or "markdown")
