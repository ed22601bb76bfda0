"""Jupyter notebooks (``.ipynb``): the text a RAG loader sees, and the way back to the cells.

DESIGN. A notebook is JSON; what a RAG pipeline indexes is the text that
``jupyter nbconvert --to markdown`` (and the loaders built on it, e.g.
LlamaIndex's ``IPYNBReader``) makes of it. chunkseam builds that *view* and
analyses it as a Markdown document, so the ``markdown`` strategy and its rules
apply unchanged (fences atomic, headings → heading paths, suppression
comments in HTML comments):

* a markdown cell is its source, as Markdown;
* a code cell is its source in a fenced code block in the cell's language
  (the cell's own ``metadata.vscode.languageId``, else the notebook's kernel
  language, else ``python``); the fence is longer than any backtick run of the
  source, so a cell never closes its own fence. An empty (or blank) code cell
  is its source alone, without a fence: an empty block is nothing a reader
  or a retriever can use, and the one Jupyter leaves at the end of most
  notebooks would otherwise be a fragment chunk of its own;
* a raw cell is its source, as text;
* (nbformat 3) a heading cell is its source after ``#`` × its level;
* outputs are left out, as nbconvert's Markdown templates for RAG do; with the
  ``notebook-outputs = true`` setting, each code cell's text outputs (stream
  text, ``text/plain`` results, error tracebacks without their ANSI colours)
  follow it in a plain fenced block. Images, HTML and widgets (whose
  ``text/plain`` is a placeholder) are not text a loader embeds, and are
  always left out;
* blocks are separated by one blank line.

The view is one string; :class:`NotebookMap` keeps, for every cell, the span
of the view its source was copied into (the source verbatim, character for
character). A view offset inside a cell's span maps to ``(cell, offset in the
cell's source)`` exactly, and back; an offset in synthetic text (fence lines,
separators, outputs) maps to the nearest cell boundary. Issues and chunks are
computed on the view and reported through the map as ``cell N:line:column``
(cells numbered from 1 as editors show them, line and column 1-based in the
cell's source).

The notebook is read with :mod:`json` rather than ``nbformat``: nbformat
validates and raises on notebooks that Jupyter itself opens with a warning (a
cell without ``metadata``), pulls in ``jupyter_core`` and ``traitlets``, and
its reader is several times slower than the JSON parse; the view needs only
each cell's type, source and outputs, read here tolerantly from nbformat 4
(``cells``) and nbformat 3 (``worksheets[].cells``, ``input`` for code).
Anything that is not a JSON object with a list of cells is one
:class:`NotebookError` naming what is wrong.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

__all__ = ["Cell", "NotebookError", "NotebookMap", "build_view", "is_notebook", "read_document"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_BACKTICKS = re.compile(r"`{3,}")
_WIDGET = "application/vnd.jupyter.widget-view+json"
SEPARATOR = "\n\n"


class NotebookError(ValueError):
    """The text is not a Jupyter notebook (the message says what is wrong)."""


def is_notebook(path: str | None = None, uri: str | None = None) -> bool:
    """Whether a file name or URI names a notebook (``.ipynb``)."""
    return any(n and n.lower().split("?")[0].endswith(".ipynb") for n in (path, uri))


@dataclass(frozen=True)
class Cell:
    """One cell as the view uses it: ``kind`` is ``markdown``, ``code`` or ``raw``."""

    kind: str
    source: str
    language: str = "python"
    outputs: str = ""  # text outputs (only when they are included)
    #: the cell's id in the notebook (nbformat 4.5), or ""
    id: str = ""


@dataclass(frozen=True)
class NotebookMap:
    """Where each cell's source sits in the view: ``starts[i]`` … ``starts[i] + lengths[i]``."""

    starts: tuple[int, ...]
    lengths: tuple[int, ...]
    kinds: tuple[str, ...]
    languages: tuple[str, ...]
    #: the view's length
    size: int
    #: the part of the view each cell makes, its synthetic text included (fence
    #: lines, a heading's marks, outputs): ``(start, end)``
    blocks: tuple[tuple[int, int], ...] = ()

    def __len__(self) -> int:
        return len(self.starts)

    def span(self, cell: int) -> tuple[int, int]:
        s = self.starts[cell]
        return s, s + self.lengths[cell]

    def to_cell(self, offset: int) -> tuple[int, int]:
        """``(cell index from 0, offset in the cell's source)`` of a view offset.

        Inside a cell's span (its end included) the mapping is exact.
        Synthetic text a cell makes (a code cell's fence lines and outputs, a
        heading cell's marks) maps to that cell's start or end; the blank lines
        between cells to the nearest cell boundary (a tie: the end of the cell
        before). A notebook without cells maps everything to ``(-1, 0)``."""
        if not self.starts:
            return -1, 0
        offset = min(max(offset, 0), self.size)
        i = bisect_right(self.starts, offset) - 1
        if i >= 0:
            s, e = self.span(i)
            if offset <= e:
                return i, offset - s
            if self.blocks and offset <= self.blocks[i][1]:
                return i, self.lengths[i]  # the cell's closing fence or outputs
        if self.blocks and i + 1 < len(self.starts) and self.blocks[i + 1][0] <= offset:
            return i + 1, 0  # the cell's opening fence line or heading marks
        # between cell i's end (or the start of the view) and cell i+1's start
        if i < 0:
            return 0, 0
        if i + 1 >= len(self.starts):
            return i, self.lengths[i]
        if self.blocks:  # the blank lines between two cells' blocks
            before, after = offset - self.blocks[i][1], self.blocks[i + 1][0] - offset
        else:
            before, after = offset - (self.starts[i] + self.lengths[i]), self.starts[i + 1] - offset
        return (i, self.lengths[i]) if before <= after else (i + 1, 0)

    def to_view(self, cell: int, offset: int) -> int:
        """The view offset of ``offset`` in cell ``cell``'s source (clamped into the cell)."""
        s, e = self.span(cell)
        return min(max(s + offset, s), e)

    def locate(self, doc, offset: int) -> tuple[int, int, int]:
        """``(cell, line, column)`` of a view offset of ``doc`` (see :func:`cell_line_col`)."""
        return cell_line_col(doc, offset)


def _text(value: Any) -> str:
    """A multiline string of nbformat: a string or a list of strings (joined as they are)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return ""


def _outputs(cell: dict) -> str:
    parts: list[str] = []
    outs = cell.get("outputs")
    if not isinstance(outs, list):
        return ""
    for out in outs:
        if not isinstance(out, dict):
            continue
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_text(out.get("text")))
        elif kind in ("execute_result", "display_data", "pyout"):
            data = out.get("data")
            if isinstance(data, dict):
                if _WIDGET in data:  # a widget's text/plain is a placeholder (a progress bar's first frame)
                    continue
                parts.append(_text(data.get("text/plain")))
            else:  # nbformat 3: the mime keys on the output itself
                parts.append(_text(out.get("text")))
        elif kind in ("error", "pyerr"):
            tb = out.get("traceback")
            if isinstance(tb, list):
                parts.append(_ANSI.sub("", "\n".join(t for t in tb if isinstance(t, str))))
    text = "\n".join(p.rstrip("\n") for p in parts if p.strip())
    return text


def _language(nb: dict) -> str:
    meta = nb.get("metadata")
    if isinstance(meta, dict):
        for key, sub in (("kernelspec", "language"), ("language_info", "name")):
            d = meta.get(key)
            if isinstance(d, dict) and isinstance(d.get(sub), str) and d[sub].strip():
                return d[sub].strip().lower()
    return "python"


def parse_cells(text: str, *, outputs: bool = False) -> list[Cell]:
    """The cells of a notebook's JSON text, or :class:`NotebookError`."""
    try:
        nb = json.loads(text)
    except (ValueError, RecursionError) as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            where = f" at line {exc.lineno} column {exc.colno}"
            exc_msg = exc.msg
        else:
            exc_msg = "nested too deeply"
        raise NotebookError(f"not a Jupyter notebook: invalid JSON{where} ({exc_msg})") from None
    if not isinstance(nb, dict):
        raise NotebookError("not a Jupyter notebook: the JSON is not an object")
    default_language = _language(nb)
    raw_cells: Any = nb.get("cells")
    if raw_cells is None and isinstance(nb.get("worksheets"), list):  # nbformat 3
        raw_cells = []
        for ws in nb["worksheets"]:
            if isinstance(ws, dict) and isinstance(ws.get("cells"), list):
                raw_cells.extend(ws["cells"])
    if not isinstance(raw_cells, list):
        what = "no \"cells\" list" if raw_cells is None else "\"cells\" is not a list"
        raise NotebookError(f"not a Jupyter notebook: {what}")
    cells: list[Cell] = []
    for raw in raw_cells:
        if not isinstance(raw, dict):
            cells.append(Cell("raw", ""))
            continue
        kind = raw.get("cell_type")
        meta = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
        cell_id = raw.get("id") if isinstance(raw.get("id"), str) else ""
        if kind == "code":
            source = _text(raw.get("source", raw.get("input")))
            lang = raw.get("language") if isinstance(raw.get("language"), str) else default_language
            vs = meta.get("vscode")
            if isinstance(vs, dict) and isinstance(vs.get("languageId"), str):
                lang = vs["languageId"]
            cells.append(Cell("code", source, lang.lower() or default_language,
                              _outputs(raw) if outputs else "", cell_id))
        elif kind == "markdown":
            cells.append(Cell("markdown", _text(raw.get("source")), id=cell_id))
        elif kind == "heading":  # nbformat 3
            level = raw.get("level")
            level = level if isinstance(level, int) and 1 <= level <= 6 else 1
            cells.append(Cell("heading" + str(level), _text(raw.get("source")), id=cell_id))
        else:
            cells.append(Cell("raw", _text(raw.get("source")), id=cell_id))
    for n, cell in enumerate(cells, 1):  # JSON's "\ud800" escape decodes to a lone surrogate: not text
        for part in (cell.source, cell.outputs, cell.language, cell.id):
            if _SURROGATE.search(part):
                raise NotebookError(f"not valid text: cell {n} holds a lone surrogate escape "
                                    f"(\\u{ord(_SURROGATE.search(part).group()):04x}), skipped")
    return cells


_SURROGATE = re.compile("[\ud800-\udfff]")


def _fence(source: str) -> str:
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(source)), default=0)
    return "`" * max(3, longest + 1)


def build_view(cells: list[Cell]) -> tuple[str, NotebookMap]:
    """The view of ``cells`` (see the module's docstring) and its map."""
    parts: list[str] = []
    pos = 0
    starts: list[int] = []
    lengths: list[int] = []
    blocks: list[tuple[int, int]] = []

    def put(s: str) -> None:
        nonlocal pos
        parts.append(s)
        pos += len(s)

    for n, cell in enumerate(cells):
        if n:
            put(SEPARATOR)
        src = cell.source
        block_start = pos
        if cell.kind == "code" and (src.strip() or cell.outputs):
            fence = _fence(src)
            put(f"{fence}{cell.language}\n")
            starts.append(pos)
            put(src)
            lengths.append(len(src))
            put(("" if not src or src.endswith(("\n", "\r")) else "\n") + fence)
            if cell.outputs:
                out_fence = _fence(cell.outputs)
                put(f"\n\n{out_fence}\n{cell.outputs}\n{out_fence}")
        else:
            if cell.kind.startswith("heading"):
                put("#" * int(cell.kind[7:]) + " ")
            starts.append(pos)
            put(src)
            lengths.append(len(src))
        blocks.append((block_start, pos))
    view = "".join(parts)
    kinds = tuple("markdown" if c.kind.startswith("heading") else c.kind for c in cells)
    return view, NotebookMap(tuple(starts), tuple(lengths), kinds,
                             tuple(c.language for c in cells), len(view), tuple(blocks))


#: what ``lint --fix`` / ``--diff`` say for a notebook
NOTEBOOK_FIX_REFUSED = ("not fixed: --fix does not edit notebooks (it would rewrite the cells' JSON); "
                        "its issues are reported below, fix them in the notebook's cells")


def open_document(text: str, path: str | None, settings=None):
    """The document to analyse for a file's text: a notebook's view for an
    ``.ipynb`` (:class:`NotebookError` when it is not a notebook; the
    ``notebook_outputs`` setting says whether outputs are in it), else the text."""
    from chunkseam.document.text import Document

    if is_notebook(path):
        return read_document(text, path, outputs=bool(getattr(settings, "notebook_outputs", False)))
    return Document(text, path=path)


def read_document(text: str, path: str | None = None, *, outputs: bool = False, uri: str | None = None,
                  version: int | None = None):
    """A :class:`~chunkseam.document.text.Document` whose text is the notebook's view
    (kind ``markdown``) and whose ``notebook`` is its :class:`NotebookMap`;
    :class:`NotebookError` when ``text`` is not a notebook."""
    from chunkseam.document.text import Document

    view, nbmap = build_view(parse_cells(text, outputs=outputs))
    doc = Document(view, path=path, uri=uri, version=version, kind="markdown")
    doc.notebook = nbmap
    return doc


def cell_line_col(doc, offset: int) -> tuple[int, int, int]:
    """``(cell number from 1, line, column)`` of a view offset, line and column
    1-based in the cell's source (columns in characters).

    Read from the document's line index (a binary search), not by counting
    the cell's text: a notebook's every issue is placed this way, and a long
    cell with many issues would otherwise cost its length for each."""
    nbmap: NotebookMap = doc.notebook
    cell, off = nbmap.to_cell(offset)
    if cell < 0:
        return 0, 1, 1
    s, e = nbmap.span(cell)
    text = doc.text
    off = min(off, e - s)
    x = s + off
    starts = doc.line_starts
    first = bisect_right(starts, s)
    upto = bisect_right(starts, x)
    # the line breaks wholly inside the cell's text before the offset (the
    # character before a cell's source is never a \r, so none straddles s)
    line = upto - first
    last = starts[upto - 1] - 1 - s if line else -1
    if x > s and text[x - 1] == "\r" and text.startswith("\n", x):
        line, last = line + 1, off - 1  # the offset splits a CRLF: its \r ends a line
    return cell + 1, line + 1, off - last


def cells_label(doc, start: int, end: int) -> str:
    """Where a span of the view is, in the cells' terms: ``cell 3, lines 2–5``
    (``cell 3, line 2``) when it lies in one cell, ``cells 2–4`` across cells
    (cells numbered from 1, lines in the cell's source)."""
    first_cell, first_line, _ = cell_line_col(doc, start)
    last_cell, last_line, _ = cell_line_col(doc, max(start, end - 1))
    if first_cell != last_cell:
        return f"cells {first_cell}–{last_cell}"
    if last_line > first_line:
        return f"cell {first_cell}, lines {first_line}–{last_line}"
    return f"cell {first_cell}, line {first_line}"


def cells_text(doc, start: int, end: int) -> tuple[str, str | None]:
    """The cells' own text in a span of the view, without the synthetic text
    the view adds (fence lines, a heading's marks, the blank lines between
    cells): the parts of each cell's source in the span, a blank line between
    two cells. Also the language of the one code cell it lies in (``None``
    otherwise). A span of synthetic text alone (outputs) is given as it is."""
    nbmap: NotebookMap = doc.notebook
    parts: list[str] = []
    cells: list[int] = []
    first = max(0, bisect_right(nbmap.starts, start) - 1)
    for i in range(first, len(nbmap)):
        s, e = nbmap.span(i)
        if s >= end:
            break
        lo, hi = max(s, start), min(e, end)
        if lo < hi:
            parts.append(doc.text[lo:hi].strip("\r\n"))
            cells.append(i)
    if not parts:
        return doc.text[start:end], None
    only = cells[0] if len(cells) == 1 and nbmap.kinds[cells[0]] == "code" else None
    return "\n\n".join(parts), (nbmap.languages[only] if only is not None else None)


#: what source_lines stops at: a string's opening quote, a bracket
_JSON_STRUCT = re.compile(r'["{}\[\]]')
#: the colon after a key
_COLON = re.compile(r"\s*:")


def _string_end(raw: str, at: int) -> int:
    """The offset after the closing quote of the JSON string opening at ``at``.

    Found with ``str.find`` and a count of the backslashes before each quote, not
    with a regular expression: ``re``'s ``"(?:[^"\\]|\\.)*"`` keeps some 115
    bytes of backtracking state for each character of the string, and one long
    string (a base64 image output, a cell of one long line) made a 20 MB notebook
    take gigabytes. Each character is read once or twice."""
    j = at + 1
    while True:
        q = raw.find('"', j)
        if q < 0:
            return len(raw)
        k = q
        while k > j and raw[k - 1] == "\\":
            k -= 1
        if not (q - k) % 2:
            return q + 1
        j = q + 1


def source_lines(raw: str) -> list[tuple[int, bool]]:
    """For each cell of the notebook's JSON text ``raw``: ``(line of the .ipynb
    file where its source value starts (1-based), whether the source is a list
    written one element a line)`` — as Jupyter saves notebooks, element ``k``
    (the cell's line ``k + 1``) is then on file line ``line + 1 + k``. Used to
    point SARIF and GitHub annotations at the file's own lines; a cell whose
    source is not found gets the line of its opening brace. One pass over the
    text, in memory of its nesting (not of its length)."""
    out: list[tuple[int, bool]] = []
    # each open container: (bracket, the key that opened it, or "cell")
    stack: list[tuple[str, str]] = []
    key = ""
    # the line of an offset, counted on from the previous one (offsets only grow)
    seen, line_at = 0, 1

    def line_of(offset: int) -> int:
        nonlocal seen, line_at
        line_at += raw.count("\n", seen, offset)
        seen = offset
        return line_at

    pos = 0
    while True:
        m = _JSON_STRUCT.search(raw, pos)
        if m is None:
            break
        c = m.group()
        if c == '"':
            end = _string_end(raw, m.start())
            colon = _COLON.match(raw, end)
            key = raw[m.start() + 1: end - 1] if colon and end - m.start() <= 66 else ""
            pos = colon.end() if colon else end
            if key in ("source", "input") and stack and stack[-1] == ("{", "cell"):
                line = line_of(pos)
                rest = raw[pos: pos + 64].lstrip(" \t")
                per_line = rest.startswith("[") and rest[1:].lstrip(" \t").startswith(("\n", "\r"))
                out[-1] = (line, per_line)
            continue
        pos = m.end()
        if c in "{[":
            if c == "{" and stack and stack[-1] == ("[", "cells"):
                out.append((line_of(m.start()), False))
                stack.append(("{", "cell"))
            else:
                stack.append((c, key))
        elif stack:
            stack.pop()
        key = ""
    return out


def file_line(lines: list[tuple[int, bool]], cell: int, line: int) -> int:
    """The .ipynb file's line (1-based) holding line ``line`` (1-based) of cell ``cell`` (1-based)."""
    if not 1 <= cell <= len(lines):
        return 1
    start, per_line = lines[cell - 1]
    return start + line if per_line else start
