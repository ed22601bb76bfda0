"""The chunkseam language server (pygls 2.x).

One module per feature, all thin over the engine (:func:`chunkseam.engine.analysis.analyze`):

- :mod:`.server`      the server object, capabilities, document sync, ``main(argv)``
- :mod:`.state`       open documents, the per-version analysis cache, debounce and cancellation
- :mod:`.settings`    editor settings (initialization options, ``workspace/configuration``)
                      merged over the project config exactly as the CLI does
- :mod:`.log`         ``window/logMessage`` logging with a trace level
- :mod:`.diagnostics` issues -> LSP diagnostics (push and pull)
- :mod:`.codelens`    one lens per chunk and the ``chunkseam.showChunk`` command
- :mod:`.hover`       chunk previews and rule docs
- :mod:`.actions`     quick fixes and suppression comments
- :mod:`.symbols`     chunks as document symbols and folding ranges
- :mod:`.custom`      ``chunkseam/chunks`` and ``chunkseam/stats``
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    from chunkseam.lsp.server import main as _main

    return _main(argv)
