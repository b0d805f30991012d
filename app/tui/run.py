"""Start the full-screen App for the command line: `taskscope [target flags]`, `taskscope demo`.

The CLI builds `TuiOptions` from its own target flags and calls `run_tui`; Textual is imported
only here, so headless commands never pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.engine.negotiate import EraPreference
from app.engine.targets import Target


@dataclass(frozen=True)
class TuiOptions:
    """Where to connect and how: the same meaning as the headless commands' target flags."""

    target: Target
    era: EraPreference = "auto"
    expected_wire: Literal["legacy", "extension"] | None = None
    redact: Sequence[str] = ()
    roots: Sequence[str] = field(default_factory=tuple)


def run_tui(options: TuiOptions) -> int:
    """Run the App until the user quits; the exit code (0, or 1 when it could not start)."""
    from app.tui.app import TaskscopeApp
    from app.tui.config import load_config
    from app.tui.live import LiveSource

    source = LiveSource(
        options.target,
        era=options.era,
        expected_wire=options.expected_wire,
        redact=options.redact,
    )
    app = TaskscopeApp(source, config=load_config(), roots=options.roots)
    code = app.run()
    return code if isinstance(code, int) else 0
