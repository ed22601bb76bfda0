"""``python -m chunkseam.cli``: the same as ``chunkseam``."""

from chunkseam.cli.app import entry

entry()
