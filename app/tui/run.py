"""Start the full-screen App for the command line: `taskscope [target flags]`, `taskscope demo`,
`taskscope replay FILE`.

The CLI builds `TuiOptions` from its own target flags and calls `run_tui`; Textual is imported
only here, so headless commands never pay for it. The live engine is imported and built after
the App's first frame (`LiveLoader`), so the UI is on screen at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

if TYPE_CHECKING:
    from app.engine.record.recorder import Recorder
    from app.engine.record.replay import Recording
    from app.engine.rpc.advertised import ClientCapabilities
    from app.engine.rpc.era import EraPreference
    from app.engine.rpc.targets import Target
    from app.tui.app import TaskscopeApp
    from app.tui.config import TuiConfig
    from app.tui.live import LiveSource
    from app.tui.startup import LoadedSource
    from app.view.source import TaskSource

TEARDOWN_BOUND_SECONDS = 6.0
"""The longest quitting waits for the connection to close after the terminal is given back: a
stdio server gets its grace periods (stdin close, SIGTERM, SIGKILL), never more."""


@dataclass(frozen=True)
class TuiOptions:
    """Where to connect and how: the same meaning as the headless commands' target flags."""

    target: Target
    era: EraPreference = "auto"
    expected_wire: Literal["legacy", "extension"] | None = None
    redact: Sequence[str] = ()
    roots: Sequence[str] = field(default_factory=tuple)
    advertised: ClientCapabilities | None = None
    """What the client advertises (`--withhold`, `--client-capabilities`); None: everything."""
    readonly: bool = False
    recorder: Recorder | None = None
    """The `--record FILE` recorder; without one the session is journaled in memory only."""
    reconnect_attempts: int = DEFAULT_ATTEMPTS
    """How often to reconnect after the connection is lost (`--reconnect-attempts`)."""
    remember_tasks: bool = True
    """Keep watched task ids across runs; off for `taskscope demo`, whose server process (and
    so every task) is new each run."""
    servers: Sequence[tuple[str, Target | str]] = ()
    """Several servers watched at once (`--config FILE` without one `--server`): each name with
    its target, or why its config entry cannot be used; `target` is then the first usable one."""
    servers_label: str = ""
    """What the header calls the set (the config file)."""


class LiveLoader:
    """Builds the live source (and its in-memory recorder) for `options`, once, in the App's
    loader thread; remembers the recorder so `run_tui` can close it."""

    def __init__(self, options: TuiOptions) -> None:
        self.options = options
        self.recorder: Recorder | None = None

    def load(self) -> LoadedSource:
        """Import the engine and build the source; called once, off the event loop. The heap is
        then as big as it gets before the watch begins, so the garbage collector is settled
        (and resumed, if `run_tui` paused it), whether or not the build succeeds."""
        from app.tui.collector import settle_gc

        try:
            return self._build()
        finally:
            settle_gc()

    def _build(self) -> LoadedSource:
        """The source and its history. Several servers get a source each behind a
        `MultiSource`, each recording through its own `Recorder.for_server` (one file or
        journal, every line naming its server)."""
        from app.engine.record.recorder import Recorder, redactor_for
        from app.tui.startup import LoadedSource

        options = self.options
        names = [name for name, _ in options.servers]
        session_redactor = redactor_for(None if names else options.target, options.redact)
        recorder = options.recorder or Recorder(session_redactor, None, face="tui", servers=names)
        self.recorder = recorder
        source: TaskSource
        if options.servers:
            from app.tui.multi import MultiSource

            entries = [
                (
                    name,
                    target
                    if isinstance(target, str)
                    else self._live(
                        target,
                        recorder.for_server(name, redactor_for(target, options.redact)),
                        retry_start=True,
                    ),
                )
                for name, target in options.servers
            ]
            source = MultiSource(
                entries,
                label=options.servers_label,
                readonly=options.readonly,
            )
        else:
            source = self._live(options.target, recorder)
        return LoadedSource(source, recorder.history)

    def _live(
        self, target: Target, recorder: Recorder | None, *, retry_start: bool = False
    ) -> LiveSource:
        """The live source of one server, as the options say (`retry_start`: one of several,
        tried again while it cannot be reached at the start)."""
        from app.engine.forms.input_text import root_entries
        from app.engine.rpc.reconnect import ReconnectPolicy
        from app.tui.live import LiveSource

        options = self.options
        return LiveSource(
            target,
            era=options.era,
            expected_wire=options.expected_wire,
            redact=options.redact,
            readonly=options.readonly,
            recorder=recorder,
            policy=ReconnectPolicy(attempts=options.reconnect_attempts),
            roots=root_entries(options.roots),
            advertised=options.advertised,
            retry_start=retry_start,
        )

    def close(self) -> None:
        """Close the recorder: the one `load` made, else the `--record` one it was given."""
        recorder = self.recorder or self.options.recorder
        if recorder is not None:
            recorder.close()


def run_tui(options: TuiOptions) -> int:
    """Run the App until the user quits; the exit code (0, or 1 when it could not start)."""
    from app.tui.collector import pause_gc

    pause_gc()  # resumed by `LiveLoader.load`, once the engine is built
    from app.tui.app import TaskscopeApp
    from app.tui.config import load_config
    from app.tui.startup import DeferredSource

    loader = LiveLoader(options)
    app = TaskscopeApp(
        DeferredSource(loader.load),
        config=load_config(),
        remember_tasks=options.remember_tasks,
    )
    try:
        code = asyncio.run(run_then_close(app))
    finally:
        loader.close()
    return code if isinstance(code, int) else 0


def run_replay(path: str, recording: Recording, *, speed: float | None) -> int:
    """Run the App on a recording (no server, read-only) until the user quits."""
    from app.tui.config import load_config

    app = replay_app(path, recording, speed=speed, config=load_config())
    code = asyncio.run(run_then_close(app))
    return code if isinstance(code, int) else 0


def replay_app(
    path: str, recording: Recording, *, speed: float | None, config: TuiConfig | None = None
) -> TaskscopeApp:
    """The App on a recording, on the recording's clock, exporting from its entries."""
    from app.tui.app import TaskscopeApp
    from app.tui.replay import ReplaySource

    source = ReplaySource(recording, path, speed=speed)
    return TaskscopeApp(
        source,
        clock=source.clock,
        config=config,
        remember_tasks=False,
        history=lambda: recording.entries,
    )


async def run_then_close(
    app: TaskscopeApp, bound: float = TEARDOWN_BOUND_SECONDS, *, headless: bool = False
) -> int | None:
    """Run `app` until it exits, then close its source within `bound` seconds: the screen is
    gone the moment the user quits, and a server slow to stop only delays the prompt."""
    app.close_on_unmount = False
    try:
        return await app.run_async(headless=headless)
    finally:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.close_source(), bound)
