"""Documents: the text as read, positions in it, and the views of files whose
text is not what is chunked (a notebook's cells).

:mod:`chunkseam.document.text` has :class:`Document` and :func:`load` (offsets,
lines, LSP positions); :mod:`chunkseam.document.notebook` the notebook's view.
This package joins them: reading an ``.ipynb`` file gives its view.
"""

from chunkseam.document import notebook
from chunkseam.document.text import READERS, Document, load

READERS[".ipynb"] = notebook.read_document

__all__ = ["Document", "load"]
