"""When the language server's cycle collector runs.

Python's reference counting frees what an analysis no longer needs (the
engine keeps no reference cycles: tests/chunkers/test_incremental.py checks that an
old version goes as soon as the last reference to it does). The cycle
collector only has cycles to find, yet on a large document it walks what
each analysis keeps: an edit of a 1 MB document leaves ~80k new objects
behind, each walked by a young and by a middle collection (a fifth of the
edit's CPU time), and every few edits a full collection walks all of them
(~200 ms on its own, the slowest edits).

So, in the server process (see ``main``), while analyses run the collector
is paused, and when the last one ends what it left is moved out of the
collector's view (``gc.freeze``): it is freed by reference counting as
before, only never walked. What could be missed that way — garbage cycles
made by other code (the protocol's tasks and futures, an exception's
traceback) and frozen before they became garbage — is found by a full
collection of everything once the server has been idle for
:attr:`Collector.idle_seconds` (no analysis running or ended since), or
right after the analysis (on the event loop, after its result is handed
over) when the frozen objects have grown well past what the last full
collection left (:attr:`Collector.growth`; before the first full
collection, past the first count), so nothing can pile up while
somebody types without a pause. Collections happen on the event loop's
thread, never inside an analysis.

Analyses that make cycles themselves (reStructuredText: docutils' document
trees link children and parents) run with the collector as usual; one that
overlaps a paused analysis leaves its cycles to the idle collection.

``CHUNKSEAM_GC_IDLE`` (seconds, for tests and debugging) sets the idle time.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from chunkseam.lsp.log import logger

#: seconds without an analysis before the full collection (see the module doc)
IDLE_SECONDS = 3.0
ENV_IDLE = "CHUNKSEAM_GC_IDLE"
#: frozen objects beyond ``growth[0]`` times what the last full collection
#: left, plus ``growth[1]``: collect soon instead of when idle
GROWTH = (1.5, 200_000)
#: seconds after such an analysis (its result is published first)
SOON = 0.05
#: the growth is looked at after every CHECK_EVERY-th analysis
CHECK_EVERY = 16


def idle_seconds_from_env(default: float = IDLE_SECONDS) -> float:
    value = os.environ.get(ENV_IDLE, "")
    try:
        seconds = float(value)
    except ValueError:
        return default
    return seconds if seconds >= 0 else default


class Collector:
    """Pauses the cycle collector while analyses run (see the module doc).
    Safe to use from any thread; the idle timer runs on the event loop given
    to :meth:`bind`."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS,
                 growth: tuple[float, int] = GROWTH, check_every: int = CHECK_EVERY,
                 on_collect: Callable[[int, float], None] | None = None) -> None:
        self.idle_seconds = idle_seconds
        self.growth = growth
        self.check_every = max(1, check_every)
        #: called (on the collecting thread) with (unreachable objects found, ms)
        self.on_collect = on_collect
        self._lock = threading.RLock()
        self._active = 0
        #: whether the collector was on when the first running analysis paused it
        self._resume = False
        #: analyses ended since the last full collection
        self._dirty = False
        #: the frozen objects have grown: collect soon (see GROWTH)
        self._urgent = False
        self._last_end = 0.0
        self._ends = 0
        #: the frozen objects when last counted after a full collection (None:
        #: not yet; the first count of the growth check sets it)
        self._baseline: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        #: full collections made (for the log and tests)
        self.collections = 0

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @property
    def active(self) -> int:
        return self._active

    @contextmanager
    def analysis(self, *, cycle_free: bool = True) -> Iterator[None]:
        """Around one analysis (any thread); ``cycle_free`` False: one that
        makes reference cycles, run with the collector as usual."""
        if not cycle_free:
            yield
            return
        with self._lock:
            if self._active == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    gc.freeze()
                    if self._resume:
                        gc.enable()
                        self._resume = False
                    self._dirty = True
                    self._last_end = time.monotonic()
                    self._ends += 1
                    # (counting the frozen objects walks them all: ~10 ms for a
                    # 1 MB document's, so only every CHECK_EVERY-th time)
                    if self._ends % self.check_every == 0:
                        factor, extra = self.growth
                        frozen = gc.get_freeze_count()
                        if self._baseline is None:
                            # (what the documents opened meanwhile keep: no reason to collect)
                            self._baseline = frozen
                        elif frozen > self._baseline * factor + extra:
                            self._urgent = True
            self._arm()

    def collect(self, reason: str = "idle") -> bool:
        """A full collection of everything, frozen or not, then all that is
        left frozen again; not while an analysis runs (False then)."""
        with self._lock:
            if self._active:
                return False
            t0 = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            ms = (time.perf_counter() - t0) * 1000
            self._baseline = gc.get_freeze_count()
            self._dirty = self._urgent = False
            self.collections += 1
        logger.debug("chunkseam: full collection (%s): %d unreachable objects, %d kept, in %.1f ms",
                     reason, found, self._baseline, ms)
        if self.on_collect is not None:
            self.on_collect(found, ms)
        return True

    # -- the idle timer (event loop thread) -----------------------------------------
    def _arm(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._rearm)
        except RuntimeError:  # the loop is closing
            pass

    def _rearm(self, delay: float | None = None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        loop = self._loop
        if loop is None:
            return
        if delay is None:
            delay = SOON if self._urgent else self.idle_seconds
        self._timer = loop.call_later(delay, self._check)

    def _check(self) -> None:
        self._timer = None
        with self._lock:
            if not self._dirty or self._active:
                return  # (an analysis that ends re-arms the timer)
            urgent = self._urgent
            wait = 0.0 if urgent else self._last_end + self.idle_seconds - time.monotonic()
        if wait > 0.001:
            self._rearm(wait)
            return
        self.collect("grown" if urgent else "idle")

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

