"""One server check run from the inspector: `taskscope check`'s engine on a session of its own.

The session is a second connection to the server the user chose (`LiveSource.check_session`), so
the watched tasks, the poller and the RPC log never see its requests. Its frames are kept in the
run's own `FrameBuffer` (as many as the checker keeps for evidence), which the exchange view
reads when a finding's evidence is opened. Questions the server asks are declined (a `roots/list`
is answered with the `--root` entries); findings and the report reach the App with the server's
secrets replaced, as everything else the live source hands it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.engine.check.catalog import select
from app.engine.check.probe import MAX_FRAMES
from app.engine.check.runner import CheckSettings, judged_wire, run_checks
from app.engine.tasks.models import InputKind
from app.view.exchanges import FrameBuffer

if TYPE_CHECKING:
    from app.engine.check.model import Check, Finding, RunReport
    from app.engine.rpc.session import EngineSession
    from app.engine.tasks.models import InputRequest
    from app.tui.live import Shown


class CheckRun:
    """A check of one server on `session` (not open yet) with `settings`; closed once, however
    it ends (finished, dismissed, or the App quitting)."""

    def __init__(self, session: EngineSession, settings: CheckSettings, shown: Shown) -> None:
        self.session = session
        self.settings = settings
        self.shown = shown
        self.frames = FrameBuffer(MAX_FRAMES)
        """The check's own frames, for the evidence; the App's RPC log never holds them."""
        session.add_frame_listener(lambda frame: self.frames.add((frame,)))
        self._closing: asyncio.Future[None] | None = None

    async def open(self) -> tuple[Check, ...]:
        """Connect; the checks that will run on the wire the server speaks, in report order."""
        with self.shown.errors():
            await self.session.open()
        return tuple(select(judged_wire(self.session)).values())

    async def run(self, on_finding: Callable[[Finding], None]) -> RunReport:
        """Run every check (the session open); each verdict goes to `on_finding` as it is final."""
        with self.shown.errors():
            report = await run_checks(
                self.session,
                self.settings,
                self._answer,
                lambda finding: on_finding(self.shown.value(finding)),
            )
        recorder = self.session.recorder
        if recorder is not None:
            recorder.action(
                "check", tool=self.settings.tool, outcome=report.outcome, summary=report.summary()
            )
        return self.shown.value(report)

    def _answer(self, request: InputRequest) -> dict[str, Any] | None:
        """Decline every question, except `roots/list`, answered with the `--root` entries."""
        if request.kind is InputKind.ROOTS:
            return {"roots": list(self.session.roots)}
        return None

    async def close(self) -> None:
        """Close the session (once: later calls wait for the same close, which a cancelled
        caller does not cut short)."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self.session.close())
        await asyncio.shield(self._closing)
