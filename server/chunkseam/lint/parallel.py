"""Ordered parallel map for ``lint`` and ``audit`` over many files or documents.

One process pool lives for the whole run (:class:`Runner`, used as a context
manager): it is not rebuilt per call, so ``lint --fix`` and the lint that
follows share it. Work goes out in *batches* sized by bytes (a batch of tiny
files costs one round trip instead of one per file, a huge file travels
alone), at most a few batches per worker are in flight (the input is never
read whole), and results come back in the order of the input — the output of
``--jobs 1`` and ``--jobs N`` is the same, byte for byte.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["Runner", "cpu_count", "ordered_map"]

#: a batch closes once its items weigh this many bytes (or hold MAX_ITEMS)
BATCH_BYTES = 256 * 1024
MAX_ITEMS = 64
#: batches in flight per worker
IN_FLIGHT = 3


def cpu_count() -> int:
    """CPUs this process may run on (the affinity mask where there is one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _run_batch(func: Callable, batch: list) -> list:
    return [func(item) for item in batch]


def _batches(items: Iterable, weigh: Callable[[Any], int] | None, limit: int) -> Iterator[list]:
    batch: list = []
    size = 0
    for item in items:
        batch.append(item)
        size += weigh(item) if weigh is not None else 0
        if size >= limit or len(batch) >= MAX_ITEMS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


class Runner:
    """``map`` on ``jobs`` processes, in order; the pool starts on first use
    and is closed when the ``with`` block ends. ``jobs <= 1`` runs inline."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self._pool = None

    def __enter__(self) -> Runner:  # noqa: PYI034 (Python 3.10 has no typing.Self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def _get_pool(self):
        if self._pool is None:
            import multiprocessing as mp

            method = "fork" if "fork" in mp.get_all_start_methods() else None
            self._pool = mp.get_context(method).Pool(self.jobs)
        return self._pool

    def map(self, func: Callable, items: Iterable, *, weigh: Callable[[Any], int] | None = None,
            total_bytes: int | None = None) -> Iterator:
        """``func(item)`` for each item, in order. ``weigh(item)`` is its size
        in bytes (batches close by bytes); ``total_bytes``, when known, makes
        batches small enough that every worker gets several."""
        if hasattr(items, "__len__") and len(items) <= 1 or self.jobs <= 1:  # type: ignore[arg-type]
            for item in items:
                yield func(item)
            return
        limit = BATCH_BYTES
        if total_bytes:
            limit = max(4096, min(BATCH_BYTES, total_bytes // (self.jobs * 8) or 1))
        pool = self._get_pool()
        pending: deque = deque()
        window = self.jobs * IN_FLIGHT
        for batch in _batches(items, weigh, limit):
            pending.append(pool.apply_async(_run_batch, (func, batch)))
            if len(pending) >= window:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


def ordered_map(func: Callable, items: Iterable, jobs: int, **kw: Any) -> Iterator:
    """One-shot :meth:`Runner.map` (the pool lives as long as the iteration)."""
    with Runner(jobs) as runner:
        yield from runner.map(func, items, **kw)
