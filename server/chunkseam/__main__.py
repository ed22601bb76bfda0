"""``python -m chunkseam …`` — the same as the ``chunkseam`` command."""

from __future__ import annotations

import sys


def _main() -> int:
    try:
        from chunkseam.cli.app import main
    except ModuleNotFoundError as exc:
        if exc.name != "chunkseam.cli.app":
            raise
        # the command line is not there (yet): the language server still starts
        if len(sys.argv) > 1 and sys.argv[1] == "server":
            from chunkseam.lsp.server import main as server_main

            return server_main(sys.argv[2:])
        print("chunkseam: the command line is not available", file=sys.stderr)
        return 2
    return int(main() or 0)


if __name__ == "__main__":
    sys.exit(_main())
