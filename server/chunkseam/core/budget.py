"""The budget of one analysis: document size, chunk count and time.

A document and its settings may come from anyone (a cloned repository's
``chunkseam.toml``, an index dump): ``size = 1`` on a large file, a regular
expression separator that backtracks for hours. Every analysis therefore runs
within limits, and over them it stops with :class:`BudgetExceeded` — one clear
message ("too large / too slow to analyse with these settings") — instead of
exhausting memory or hanging a language server's worker:

* :data:`MAX_DOCUMENT_CHARS` characters per document;
* :data:`MAX_CHUNKS` chunks per document;
* :data:`DEFAULT_SECONDS` of wall time per analysis, checked cooperatively
  inside the loops of the chunkers (fixed, sentence, markdown, recursive) and
  of the checks (:func:`check`, every :data:`STRIDE` cheap iterations), and
  enforced inside regular expression separators by the ``regex`` engine's own
  timeout (:func:`remaining`), since Python's ``re`` cannot be interrupted.

The deadline is per thread (each worker thread analyses its own document).
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator

#: the largest document analysed (characters); the command line is tested on
#: a 50 MB file, and the language server's frames are at most 64 MiB anyway
MAX_DOCUMENT_CHARS = 64_000_000
#: the largest file read (bytes): four bytes a character, the most UTF-8 takes, so
#: that no file within :data:`MAX_DOCUMENT_CHARS` is refused (a notebook's JSON,
#: whose outputs are left out of its text, has the same room). Larger files are
#: refused from their size, before a byte is read, and a stream (stdin) is read
#: up to it: never a whole multi-gigabyte file in memory.
MAX_SOURCE_BYTES = 4 * 64_000_000
#: the most chunks one document may be cut into
MAX_CHUNKS = 200_000
#: wall time of one analysis: DEFAULT_SECONDS plus SECONDS_PER_MILLION_CHARS
#: for each million characters of the document (a 50 MB file is linted in well
#: under a minute; a backtracking regex takes hours on a few kilobytes); the
#: environment variable ``CHUNKSEAM_TIME_BUDGET`` (seconds) replaces the total
DEFAULT_SECONDS = 60.0
SECONDS_PER_MILLION_CHARS = 20.0
ENV_SECONDS = "CHUNKSEAM_TIME_BUDGET"
#: where the limits are described
SEE = "see 'Limits' in docs/cli.md"
#: loops of cheap iterations test the deadline once every STRIDE iterations
#: (``if not k % STRIDE: check(...)``); a loop whose every iteration is costly
#: (a pysbd window, a whole section) tests it each time
STRIDE = 256

_state = threading.local()


class BudgetExceeded(Exception):
    """The analysis was abandoned: too large or too slow with these settings."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"too large or too slow to analyse with these settings: {reason}; {SEE}")
        self.reason = reason


def default_seconds(length: int = 0) -> float:
    """The time budget of a document of ``length`` characters, or
    ``$CHUNKSEAM_TIME_BUDGET`` when that is a positive number."""
    value = os.environ.get(ENV_SECONDS)
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = 0.0
        if 0 < seconds < float("inf"):
            return seconds
    return DEFAULT_SECONDS + SECONDS_PER_MILLION_CHARS * length / 1_000_000


@contextmanager
def limits(seconds: float | None = DEFAULT_SECONDS) -> Iterator[None]:
    """Run the body with a deadline ``seconds`` from now (None: no deadline).

    Nested calls keep the earlier of the two deadlines."""
    previous = getattr(_state, "limit", None)  # (deadline, seconds) or None
    limit = None if seconds is None else (time.monotonic() + seconds, seconds)
    if previous is not None and (limit is None or previous[0] < limit[0]):
        limit = previous
    _state.limit = limit
    try:
        yield
    finally:
        _state.limit = previous


def remaining() -> float | None:
    """Seconds left before the deadline (at least a little), or None without one."""
    limit = getattr(_state, "limit", None)
    if limit is None:
        return None
    return max(0.001, limit[0] - time.monotonic())


def timed_out(what: str = "the analysis") -> BudgetExceeded:
    limit = getattr(_state, "limit", None)
    return BudgetExceeded(f"{what} took longer than {limit[1] if limit else 0:g} s")


def check(what: str = "the analysis") -> None:
    """Raise :class:`BudgetExceeded` when the deadline has passed."""
    limit = getattr(_state, "limit", None)
    if limit is not None and time.monotonic() > limit[0]:
        raise timed_out(what)


def check_document(length: int) -> None:
    if length > MAX_DOCUMENT_CHARS:
        raise BudgetExceeded(f"the document has {length:,} characters (at most {MAX_DOCUMENT_CHARS:,})")


def check_chunks(count: int) -> None:
    if count > MAX_CHUNKS:
        raise BudgetExceeded(f"more than {MAX_CHUNKS:,} chunks (raise the chunk size)")
