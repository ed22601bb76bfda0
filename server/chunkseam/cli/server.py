"""``chunkseam server``: the language server over stdio."""

from __future__ import annotations

from chunkseam.cli.common import EXIT_ERROR
from chunkseam.report.formats import (
    eprint,
)


def cmd_server(argv: list[str]) -> int:
    try:
        from chunkseam.lsp.server import (
            main as server_main,  # imported lazily: pygls is slow to import
        )
    except ImportError as exc:
        eprint(f"error: the language server is not available: {exc}")
        return EXIT_ERROR
    rc = server_main(argv)
    return int(rc or 0)
