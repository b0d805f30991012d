"""Start the full-screen App for the command line: `taskscope [target flags]`, `taskscope demo`,
`taskscope replay FILE`.

The CLI builds `TuiOptions` from its own target flags and calls `run_tui`; Textual is imported
only here, so headless commands never pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.engine.negotiate import EraPreference
from app.engine.reconnect import DEFAULT_ATTEMPTS, ReconnectPolicy
from app.engine.recorder import Recorder, redactor_for
from app.engine.replay import Recording
from app.engine.targets import Target


@dataclass(frozen=True)
class TuiOptions:
    """Where to connect and how: the same meaning as the headless commands' target flags."""

    target: Target
    era: EraPreference = "auto"
    expected_wire: Literal["legacy", "extension"] | None = None
    redact: Sequence[str] = ()
    roots: Sequence[str] = field(default_factory=tuple)
    readonly: bool = False
    recorder: Recorder | None = None
    """The `--record FILE` recorder; without one the session is journaled in memory only."""
    reconnect_attempts: int = DEFAULT_ATTEMPTS
    """How often to reconnect after the connection is lost (`--reconnect-attempts`)."""


def run_tui(options: TuiOptions) -> int:
    """Run the App until the user quits; the exit code (0, or 1 when it could not start)."""
    from app.tui.app import TaskscopeApp
    from app.tui.config import load_config
    from app.tui.live import LiveSource

    recorder = options.recorder or Recorder(
        redactor_for(options.target, options.redact), None, face="tui"
    )
    source = LiveSource(
        options.target,
        era=options.era,
        expected_wire=options.expected_wire,
        redact=options.redact,
        readonly=options.readonly,
        recorder=recorder,
        policy=ReconnectPolicy(attempts=options.reconnect_attempts),
    )
    app = TaskscopeApp(source, config=load_config(), roots=options.roots, history=recorder.history)
    try:
        code = app.run()
    finally:
        recorder.close()
    return code if isinstance(code, int) else 0


def run_replay(path: str, recording: Recording, *, speed: float | None) -> int:
    """Run the App on a recording (no server, read-only) until the user quits."""
    from app.tui.app import TaskscopeApp
    from app.tui.config import load_config
    from app.tui.replay import ReplaySource

    source = ReplaySource(recording, path, speed=speed)
    app = TaskscopeApp(
        source,
        config=load_config(),
        remember_tasks=False,
        history=lambda: recording.entries,
    )
    code = app.run()
    return code if isinstance(code, int) else 0
