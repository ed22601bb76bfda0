"""Running the CLI in-process for tests."""

from __future__ import annotations

from chunkseam.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    """``chunkseam ARGS`` in this process: (exit code, stdout, stderr)."""
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err
