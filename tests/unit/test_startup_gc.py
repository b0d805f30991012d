"""The garbage collector at start-up: held while the App imports and draws its first frame,
resumed and settled once the engine is built, whether or not the build succeeds."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

import app.tui.run as tui_run
from app.engine.rpc.targets import StdioTarget
from app.tui.collector import SWEEP_INTERVAL_S, settle_gc
from app.tui.run import LiveLoader, TuiOptions
from tests.support.manual_clock import ManualClock


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """Give the test process its collector back as it was, whatever the test did to it."""
    callbacks = list(gc.callbacks)
    yield
    gc.callbacks[:] = callbacks
    gc.enable()
    gc.unfreeze()


def options() -> TuiOptions:
    return TuiOptions(target=StdioTarget(command=["server"]), remember_tasks=False)


def test_the_app_runs_its_first_frame_with_the_collector_paused(
    restored_gc: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`run_tui` pauses the collector before Textual is imported; the App starts with it off."""
    monkeypatch.setenv("TASKSCOPE_CONFIG", str(tmp_path / "none.json"))
    seen: list[bool] = []

    async def fake_run_then_close(app: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(tui_run, "run_then_close", fake_run_then_close)
    assert gc.isenabled()
    assert tui_run.run_tui(options()) == 0
    assert seen == [False]


def test_building_the_engine_resumes_the_collector_and_freezes_survivors(
    restored_gc: None,
) -> None:
    """Once settled, what a full collection leaves alive is frozen, so the next one skips it."""
    gc.disable()
    LiveLoader(options()).load()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    survivors = [[index] for index in range(1000)]
    gc.collect()
    assert gc.get_freeze_count() >= frozen + len(survivors)


def test_a_failed_build_resumes_the_collector(
    restored_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source that cannot be built must not leave the process without a collector."""

    def broken(self: LiveLoader) -> object:
        raise RuntimeError("no engine")

    monkeypatch.setattr(LiveLoader, "_build", broken)
    gc.disable()
    with pytest.raises(RuntimeError, match="no engine"):
        LiveLoader(options()).load()
    assert gc.isenabled()


class Node:
    """An object that can hold itself, as a Textual strip cropped to its own size does."""

    me: object = None


def test_a_cycle_frozen_alive_is_freed_by_the_next_sweep(restored_gc: None) -> None:
    clock = ManualClock()
    settle_gc(clock)
    node = Node()
    node.me = node
    alive = weakref.ref(node)
    gc.collect()  # survives, so it is frozen
    del node
    gc.collect()
    assert alive() is not None  # garbage now, but frozen: not walked
    clock.now += SWEEP_INTERVAL_S
    gc.collect()  # the sweep is due: everything is given back to the collector
    gc.collect()
    assert alive() is None
