"""Running the CLI in-process for tests."""

from __future__ import annotations

from chunkseam.cli.app import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    """``chunkseam ARGS`` in this process: (exit code, stdout, stderr)."""
    try:
        rc = main(list(args))
    except SystemExit as exc:  # argparse errors and --help / --version
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    out, err = capsys.readouterr()
    return rc, out, err
