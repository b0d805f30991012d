"""What a check is, what it concluded, and what a whole run concluded.

A check enforces one sentence of the spec at one level. Its finding is a verdict with the reason
and the frames behind it. A run's outcome is never green when it could not decide: a MUST check
that could not run makes it incomplete.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from app.engine.safety import deep_json

Level = Literal["MUST", "SHOULD", "MAY"]
Verdict = Literal["pass", "fail", "warn", "skip", "could-not-run"]
CheckWire = Literal["legacy", "extension", "both"]
Outcome = Literal["passed", "failed", "incomplete"]

VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "warn", "skip", "could-not-run")
MAX_EXCERPT_CHARS = 4000
"""The JSON an evidence item quotes; a longer part is cut (the whole frame is in the log)."""


@dataclass(frozen=True, slots=True)
class Check:
    """One rule: its id (kept equal to MCPJam's or the official suite's where they match), its
    wire, level and category, and the spec sentence it enforces (`spec`: section, then quote)."""

    id: str
    title: str
    wire: CheckWire
    level: Level
    category: str
    spec: str
    same_as: tuple[str, ...] = ()
    """The other checkers' ids for the very same rule (MCPJam's and the suite's differ)."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A frame behind a verdict: its method, direction, JSON-RPC id and exchange number (as the
    RPC log and the recording show them), and the JSON of the part that matters."""

    method: str | None
    direction: Literal["out", "in"]
    rpc_id: str | int | None
    exchange: int | None
    excerpt: Any = None
    http_status: int | None = None

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "method": self.method,
            "direction": self.direction,
            "id": self.rpc_id,
            "exchange": self.exchange,
        }
        if self.http_status is not None:
            document["httpStatus"] = self.http_status
        if self.excerpt is not None:
            document["json"] = self.excerpt
        return document


def excerpt_of(value: Any) -> Any:
    """`value` as evidence quotes it: itself when its JSON is short, else its JSON cut short
    (a server's part may be huge or nested past any recursion limit)."""
    text = deep_json.dumps(value)
    if len(text) <= MAX_EXCERPT_CHARS:
        return deep_json.loads(text)
    return {"truncated": text[:MAX_EXCERPT_CHARS] + "…", "chars": len(text)}


@dataclass(frozen=True, slots=True)
class Finding:
    """A check's verdict, why, and the frames that show it."""

    check: Check
    verdict: Verdict
    reason: str
    evidence: tuple[Evidence, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.check.id,
            "title": self.check.title,
            "wire": self.check.wire,
            "level": self.check.level,
            "category": self.check.category,
            "spec": self.check.spec,
            **({"sameAs": list(self.check.same_as)} if self.check.same_as else {}),
            "verdict": self.verdict,
            "reason": self.reason,
            "evidence": [item.as_json() for item in self.evidence],
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """A whole run: the server, the wire judged, every finding in check order, and the tasks the
    run created but could not clean up."""

    wire: str
    server: dict[str, Any]
    findings: tuple[Finding, ...]
    left_behind: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def outcome(self) -> Outcome:
        return outcome_of(self.findings)

    @property
    def incomplete_reason(self) -> str | None:
        """Which deciding checks could not run, and why (only when the outcome is incomplete)."""
        if self.outcome != "incomplete":
            return None
        blocked = [f for f in self.findings if deciding_but_unrun(f)]
        if not blocked:
            return "no check could decide anything on this server"
        first = blocked[0]
        more = f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""
        return f"{first.check.id} could not run: {first.reason}{more}"

    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {"total": len(self.findings), **dict.fromkeys(VERDICTS, 0)}
        for finding in self.findings:
            counts[finding.verdict] += 1
        return counts


def deciding_but_unrun(finding: Finding) -> bool:
    """A MUST check that could not run: it might have failed, so the run cannot pass."""
    return finding.verdict == "could-not-run" and finding.check.level == "MUST"


def outcome_of(findings: Iterable[Finding]) -> Outcome:
    """failed on any fail; else incomplete when a MUST check could not run, or when no check
    decided anything at all; else passed."""
    listed = list(findings)
    if any(finding.verdict == "fail" for finding in listed):
        return "failed"
    if any(deciding_but_unrun(finding) for finding in listed):
        return "incomplete"
    if not any(finding.verdict in ("pass", "warn") for finding in listed):
        return "incomplete"
    return "passed"
