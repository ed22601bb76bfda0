"""The command line: ``chunkseam COMMAND`` (one module per command; the
parser and the dispatch are in :mod:`chunkseam.cli.app`)."""

from chunkseam.cli.app import main

__all__ = ["main"]
