"""Errors every layer may raise and every face reports the same way."""

from __future__ import annotations


class LibraryError(RuntimeError):
    """A pipeline library failed on a document in its native code (a Rust
    panic, which Python sees as pyo3's ``PanicException``, not an
    ``Exception``): what it said, named as the library's failure."""
