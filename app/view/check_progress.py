"""A server check as the inspector shows it (`c`): what it will do, said before it starts; the
checks that will run in report order, each filled in as its verdict arrives; the outcome; and
which kept frames each finding's evidence points at, for the exchange view.

The engine (`app/engine/check`) decides everything; this is only its state on screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.engine.check.report import GLYPHS, NEEDS_CARE, evidence_words, summary_line
from app.engine.safety.sanitize import one_line

if TYPE_CHECKING:
    from app.engine.check.model import Check, Evidence, Finding, RunReport
    from app.view.exchanges import Exchange, FrameBuffer

WAITING = "· waiting"
"""The verdict cell of a check whose verdict has not arrived yet."""
NOT_RUN = "· not run"
"""The verdict cell of a check the run never reached (it could not connect)."""
QUESTIONS_DECLINED = "Questions the server asks during the check are declined."
STATUS_WIDTH = 300
NAME_WIDTH = 60


@dataclass(slots=True)
class CheckProgress:
    """The checks of one run in report order, the findings so far, and how the run ended."""

    checks: tuple[Check, ...] = ()
    findings: dict[str, Finding] = field(default_factory=dict)
    report: RunReport | None = None
    failure: str | None = None
    """Why the run could not go on (it could not connect, or it stopped)."""

    def start(self, checks: Iterable[Check]) -> None:
        """The checks that will run (known once the check's own session is open)."""
        self.checks = tuple(checks)

    def settle(self, finding: Finding) -> None:
        """A check's verdict arrived."""
        self.findings[finding.check.id] = finding

    def finish(self, report: RunReport) -> None:
        """The run ended: its report is the last word on every check."""
        self.report = report
        if not self.checks:
            self.checks = tuple(finding.check for finding in report.findings)
        for finding in report.findings:
            self.settle(finding)

    def fail(self, reason: str) -> None:
        self.failure = reason

    @property
    def ended(self) -> bool:
        return self.report is not None or self.failure is not None

    @property
    def settled(self) -> int:
        """How many of the checks have their verdict."""
        return sum(check.id in self.findings for check in self.checks)

    def first_needing_care(self) -> Check | None:
        """The first check that failed, else could not run, else warned (None: all is well)."""
        for verdict in NEEDS_CARE:
            for check in self.checks:
                finding = self.findings.get(check.id)
                if finding is not None and finding.verdict == verdict:
                    return check
        return None

    def verdict_cell(self, check: Check) -> str:
        """The glyph and the verdict word ("✓ pass"), or why there is none yet."""
        finding = self.findings.get(check.id)
        if finding is not None:
            return f"{GLYPHS[finding.verdict]} {finding.verdict}"
        return NOT_RUN if self.ended else WAITING

    def status(self) -> str:
        """Connecting, how far the run is, the outcome (with why it is incomplete on a second
        line), or why it stopped."""
        if self.failure is not None:
            return one_line(f"Could not check: {self.failure}", STATUS_WIDTH)
        report = self.report
        if report is not None:
            outcome = f"{report.outcome.upper()} · {summary_line(report)}"
            reason = report.incomplete_reason
            return outcome + (f"\n{one_line(reason, STATUS_WIDTH)}" if reason else "")
        if not self.checks:
            return "Connecting to the server…"
        return f"{self.settled} of {len(self.checks)} checks settled"


def check_plan(server: str, transport: str, tool: str | None, needing_tool: int | None) -> str:
    """What a check of `server` will do, said before it starts: its own connection, the tool it
    calls (or the checks that cannot run without one: `needing_tool` of them, None when the
    wire is not known yet), the tasks it creates and cancels, and that questions are declined."""
    own = "a second copy of the server" if transport == "stdio" else "a new session"
    server, tool = one_line(server, NAME_WIDTH), tool and one_line(tool, NAME_WIDTH)
    lines = [
        f"Checks the tasks implementation of {server} on a connection of its own ({own}), so "
        "the tasks you watch are not disturbed.",
        "",
    ]
    if tool is not None:
        lines.append(
            f"It calls {tool} with no arguments to create tasks, polls them no sooner than the "
            "server asks, and cancels every task it made at the end."
        )
    else:
        count = f"the {needing_tool}" if needing_tool is not None else "the"
        lines.append(
            f"No tool: {count} checks that need one will be could-not-run (unless the server "
            "lists the official suite's fixture tools), so the outcome will be incomplete, "
            "never passed."
        )
    lines += [
        "It also asks tasks/get, tasks/result and tasks/cancel about ids the server never issued.",
        QUESTIONS_DECLINED,
        "",
        "The same as taskscope check"
        + (f" --tool-name {tool}" if tool is not None else "")
        + " on this server.",
    ]
    return "\n".join(lines)


def evidence_exchanges(frames: FrameBuffer, finding: Finding) -> list[tuple[str, Exchange]]:
    """Each exchange the finding's evidence points at that `frames` still keeps, once, with the
    evidence in words; an item without an exchange number (the handshake, a notification) is
    the newest frame of its method and direction, the one with its params when quoted."""
    found: list[tuple[str, Exchange]] = []
    seen: set[tuple[int, ...]] = set()
    for item in finding.evidence:
        exchange = _exchange_of(frames, item)
        if exchange is None:
            continue
        identity = tuple(id(frame) for frame in exchange.frames)
        if identity not in seen:
            seen.add(identity)
            found.append((evidence_words(item), exchange))
    return found


def _exchange_of(frames: FrameBuffer, item: Evidence) -> Exchange | None:
    if item.exchange is not None:
        return frames.numbered(item.exchange)
    quoted = item.excerpt.get("params") if isinstance(item.excerpt, dict) else None
    candidates = [
        frame
        for frame in reversed(frames.frames)
        if frame.direction == item.direction
        and frame.method == item.method
        and (item.rpc_id is None or frame.rpc_id == item.rpc_id)
    ]
    if not candidates:
        return None
    quoting = (
        frame
        for frame in candidates
        if quoted is not None and (frame.message or {}).get("params") == quoted
    )
    return frames.exchange(next(quoting, candidates[0]))
