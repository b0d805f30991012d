"""The TUI's garbage-collector policy: no collection on the way to the first frame, and short
pauses for a long watch.

A full collection walks every tracked object with the event loop stopped: with a thousand
watched tasks that was a 100-200 ms stall. So once the engine is built, the heap so far (modules,
the App and its widgets) is frozen, and after every full collection what survived it is frozen too:
the next full collection walks only what was promoted since, and the young and middle generations
keep CPython's thresholds, so their passes stay short (10 ms of CPU at most with 1,000 tasks on ten
servers, against 38 ms when the middle generation was collected ten times less often).

Objects still die as soon as their last reference goes, but a reference cycle among frozen objects
would never be collected, and Textual makes many: a `Strip` cropped to its own size caches itself.
So once every `SWEEP_INTERVAL_S` the frozen objects are given back to the collector, and the next
full collection walks the whole heap and frees those cycles (without it, the memory benchmark grew
6.6 MiB in ten minutes).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

SWEEP_INTERVAL_S = 60.0
"""How often a full collection walks the whole heap (the frozen part too) to free the cycles
frozen since the last sweep."""


def pause_gc() -> None:
    """Hold the collector while the App's modules import and its first frame is drawn
    (process-wide; `settle_gc` resumes it once the engine is built).

    Importing Textual and building the App allocate tens of thousands of objects that all live
    as long as the process, so every collection on the way to the first frame walks them for
    nothing: about a tenth of the time to the first frame.
    """
    gc.disable()


def settle_gc(clock: Callable[[], float] = time.monotonic) -> None:
    """Set the policy for a long watch (process-wide: call it once, when the TUI's engine is
    built) and resume the collector if `pause_gc` held it."""
    gc.freeze()
    for callback in list(gc.callbacks):
        if isinstance(callback, _FreezeSurvivors):
            gc.callbacks.remove(callback)
    gc.callbacks.append(_FreezeSurvivors(clock))
    gc.enable()


class _FreezeSurvivors:
    """After a full collection, move what survived it out of the next one's way; once a sweep
    interval has passed, give everything back instead, so the next one frees frozen cycles."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._last_sweep = clock()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        now = self._clock()
        if now - self._last_sweep >= SWEEP_INTERVAL_S:
            self._last_sweep = now
            gc.unfreeze()
        else:
            gc.freeze()
