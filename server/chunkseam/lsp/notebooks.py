"""LSP notebook documents: a Jupyter notebook analysed as one view, diagnostics per cell.

The server advertises ``notebookDocumentSync`` for notebooks of type
``jupyter-notebook`` (cells of every language). pygls' workspace keeps each
open notebook and the text documents of its cells (``notebookDocument/didOpen``,
``didChange`` — structure, cell text, metadata — and ``didClose``). On each of
them the view of :mod:`chunkseam.document.notebook` is rebuilt from the cells (markup
cells as Markdown, code cells fenced in the cell's language) and analysed as
one document of the :class:`~chunkseam.lsp.state.DocumentStore`, under the
notebook's URI. Its diagnostics are then split by cell: each one is placed in
the cell holding its start (the end clamped into that cell), with ranges in
the cell's own lines, and published to the cell's URI — every cell of the
notebook gets a list, empty when it has none, and a cell removed or a notebook
closed gets an empty one. A ``textDocument/diagnostic`` pull for a cell URI is
answered from the same analysis; hovers on a cell map the position through
the view, and a cell's code lenses are those of the chunks that start in it
(their ``chunkseam.showChunk`` names the notebook). ``chunkseam/chunks`` for a
cell answers the notebook's chunks that hold some of the cell, with ranges in
the cell; ``chunkseam/stats`` and ``chunkseam/compare`` answer for the whole
notebook. Quick fixes, symbols and folding ranges are not offered in cells
(they would edit or outline the view).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from chunkseam.document.text import Document
from chunkseam.document.notebook import Cell, build_view

NOTEBOOK_TYPE = "jupyter-notebook"


def sync_options() -> types.NotebookDocumentSyncOptions:
    """``notebookDocumentSync``: Jupyter notebooks, all their cells."""
    return types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithNotebook(
        notebook=types.NotebookDocumentFilterNotebookType(notebook_type=NOTEBOOK_TYPE))])


@dataclass
class OpenNotebook:
    uri: str
    #: the cells' URIs in notebook order (as of the last view built)
    cells: list[str] = field(default_factory=list)
    #: each cell's text as a document (positions in the cell)
    cell_docs: list[Document] = field(default_factory=list)
    #: the cell URIs diagnostics were last published to
    published: set[str] = field(default_factory=set)
    #: the last split of diagnostics by cell: (the result it was made from, by cell URI)
    last_split: tuple[Any, dict[str, list[types.Diagnostic]]] | None = None


class Notebooks:
    """The open notebooks, by notebook URI, and which notebook each cell is in."""

    def __init__(self) -> None:
        self.open: dict[str, OpenNotebook] = {}
        self.cell_owner: dict[str, str] = {}

    def view(self, workspace: Any, uri: str) -> Document | None:
        """The view of notebook ``uri`` as pygls' workspace holds it now (None if not open)."""
        nb = workspace.get_notebook_document(notebook_uri=uri)
        if nb is None:
            return None
        entry = self.open.setdefault(uri, OpenNotebook(uri))
        for cell_uri in entry.cells:
            self.cell_owner.pop(cell_uri, None)
        cells: list[Cell] = []
        uris: list[str] = []
        for cell in nb.cells:
            td = workspace.text_documents.get(unquote(cell.document))
            text = td.source if td is not None else ""
            language = (getattr(td, "language_id", None) or "python") if td is not None else "python"
            kind = "markdown" if cell.kind == types.NotebookCellKind.Markup else "code"
            if kind == "code" and language.lower() in ("markdown", "raw"):
                kind = "markdown" if language.lower() == "markdown" else "raw"
            cells.append(Cell(kind, text, language))
            uris.append(cell.document)
        text, nbmap = build_view(cells)
        from chunkseam.lsp.state import uri_to_path

        doc = Document(text, uri=uri, path=uri_to_path(uri), version=nb.version, kind="markdown")
        doc.notebook = nbmap
        entry.cells = uris
        entry.last_split = None
        entry.cell_docs = [Document(c.source, uri=u, kind="text") for c, u in zip(cells, uris)]
        for u in uris:
            self.cell_owner[u] = uri
        return doc

    def close(self, uri: str) -> OpenNotebook | None:
        entry = self.open.pop(uri, None)
        if entry is not None:
            for cell_uri in entry.cells:
                self.cell_owner.pop(cell_uri, None)
        return entry

    def owner(self, cell_uri: str) -> str | None:
        return self.cell_owner.get(cell_uri)


def _cell_position(view: Document, cell_doc: Document, nbmap: Any, cell: int, pos: types.Position,
                   encoding: str, *, end_of: int | None = None) -> types.Position:
    offset = view.position_to_offset(pos.line, pos.character, encoding)
    c, off = nbmap.to_cell(offset)
    if c != cell:  # the end of a range that runs on into a later cell: the end of this one
        off = len(cell_doc.text) if c > cell else 0
    p = cell_doc.offset_to_position(off, encoding)
    return types.Position(p.line, p.character)


def _cell_range(view: Document, cell_docs: list[Document], nbmap: Any, rng: types.Range,
                encoding: str) -> tuple[int, types.Range]:
    start = view.position_to_offset(rng.start.line, rng.start.character, encoding)
    cell, _ = nbmap.to_cell(start)
    cell = max(cell, 0)
    doc = cell_docs[cell]
    return cell, types.Range(_cell_position(view, doc, nbmap, cell, rng.start, encoding),
                             _cell_position(view, doc, nbmap, cell, rng.end, encoding))


def split(result: Any, entry: OpenNotebook, encoding: str,
          diagnostics: list[types.Diagnostic]) -> dict[str, list[types.Diagnostic]]:
    """The notebook's diagnostics by cell URI (every cell present, maybe empty),
    ranges and related locations in the cells' own positions. Each message
    names its cell (``cell 3: …``) and each related location's message the
    cell it is in: a Problems panel lists a notebook's rows under the notebook
    with a line and column only, which say nothing of the cell."""
    if entry.last_split is not None and entry.last_split[0] is result and diagnostics is result.diagnostics:
        return entry.last_split[1]  # each cell's pull asks again for the same analysis
    out: dict[str, list[types.Diagnostic]] = {u: [] for u in entry.cells}
    view = result.doc
    nbmap = view.notebook
    if not entry.cells or nbmap is None or len(nbmap) != len(entry.cells):
        return out
    everything = getattr(diagnostics, "everything", None)  # a capped Built: all of them
    for d in (everything() if everything is not None else diagnostics):
        cell, rng = _cell_range(view, entry.cell_docs, nbmap, d.range, encoding)
        related = None
        if d.related_information:
            related = []
            for info in d.related_information:
                rc, rr = _cell_range(view, entry.cell_docs, nbmap, info.location.range, encoding)
                related.append(types.DiagnosticRelatedInformation(
                    location=types.Location(uri=entry.cells[rc], range=rr),
                    message=f"{info.message} (cell {rc + 1})"))
        data = dict(d.data) if isinstance(d.data, dict) else d.data
        if isinstance(data, dict):
            data["notebook"] = entry.uri
            data["cell"] = cell + 1
        out[entry.cells[cell]].append(types.Diagnostic(
            range=rng, message=f"cell {cell + 1}: {d.message}", severity=d.severity, code=d.code,
            code_description=d.code_description, source=d.source, related_information=related,
            data=data, tags=d.tags))
    if diagnostics is result.diagnostics:
        entry.last_split = (result, out)
    return out


def view_position(result: Any, entry: OpenNotebook, cell_uri: str, pos: types.Position,
                  encoding: str) -> int | None:
    """The view offset of a position in a cell (None if the cell is not in the notebook)."""
    try:
        cell = entry.cells.index(cell_uri)
    except ValueError:
        return None
    nbmap = result.doc.notebook
    if nbmap is None or cell >= len(nbmap):
        return None
    off = entry.cell_docs[cell].position_to_offset(pos.line, pos.character, encoding)
    return nbmap.to_view(cell, off)


def cell_hover(result: Any, entry: OpenNotebook, cell_uri: str, hover: types.Hover | None,
               encoding: str) -> types.Hover | None:
    """A hover computed on the view, with its range moved into the cell."""
    if hover is None or hover.range is None:
        return hover
    view = result.doc
    _cell, rng = _cell_range(view, entry.cell_docs, view.notebook, hover.range, encoding)
    return types.Hover(contents=hover.contents, range=rng)


def cell_lenses(result: Any, entry: OpenNotebook, cell_uri: str, encoding: str) -> list[types.CodeLens]:
    """The code lenses of the chunks that start in a cell, at their start in the
    cell; their ``chunkseam.showChunk`` commands name the notebook (its view)."""
    from chunkseam.lsp.codelens import lenses

    try:
        cell = entry.cells.index(cell_uri)
    except ValueError:
        return []
    nbmap = result.doc.notebook
    if nbmap is None or len(nbmap) != len(entry.cells):
        return []
    out = []
    for lens, chunk in zip(lenses(result, encoding), result.chunks):
        c, off = nbmap.to_cell(chunk.start)
        if c != cell:
            continue
        p = entry.cell_docs[cell].offset_to_position(off, encoding)
        pos = types.Position(p.line, p.character)
        out.append(types.CodeLens(range=types.Range(pos, pos), command=lens.command))
    return out


def _cell_range_json(entry: OpenNotebook, nbmap: Any, cell: int, start: int, end: int,
                     encoding: str) -> dict[str, Any] | None:
    """The part ``[start, end)`` of the view that lies in cell ``cell``, as an LSP range in the cell."""
    s, e = nbmap.span(cell)
    lo, hi = max(start, s), min(end, e)
    if lo > hi or (lo == hi and not s <= start <= e):
        return None
    doc = entry.cell_docs[cell]
    a = doc.offset_to_position(lo - s, encoding)
    b = doc.offset_to_position(hi - s, encoding)
    return {"start": {"line": a.line, "character": a.character}, "end": {"line": b.line, "character": b.character}}


def cell_chunks(result: Any, entry: OpenNotebook, cell_uri: str, answer: dict[str, Any],
                encoding: str) -> dict[str, Any]:
    """``chunkseam/chunks`` for a cell: the notebook's answer (``uri`` the
    notebook's) with the chunks that hold some of the cell, their ``range``,
    ``startLine``, ``endLine`` and ``overlapRange`` in the cell's own positions
    (clipped to it), ``cell`` (from 1) and ``notebook``; ``startOffset`` and
    ``endOffset`` stay offsets of the notebook's view."""
    out = dict(answer)
    out.update(notebook=entry.uri, cellUri=cell_uri, chunks=[])
    try:
        cell = entry.cells.index(cell_uri)
    except ValueError:
        return out
    nbmap = result.doc.notebook
    if nbmap is None or len(nbmap) != len(entry.cells):
        return out
    out["cell"] = cell + 1
    for info, chunk in zip(answer.get("chunks", []), result.chunks):
        rng = _cell_range_json(entry, nbmap, cell, chunk.start, chunk.end, encoding)
        if rng is None:
            continue
        info = dict(info, range=rng, startLine=rng["start"]["line"], endLine=rng["end"]["line"])
        if info.get("overlapRange") is not None and chunk.index > 0:
            prev = result.chunks[chunk.index - 1]
            info["overlapRange"] = _cell_range_json(entry, nbmap, cell, chunk.start, min(prev.end, chunk.end),
                                                    encoding)
        out["chunks"].append(info)
    return out
