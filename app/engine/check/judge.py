"""Gathers what the scenarios observed, check by check, into one finding each.

A check may be observed several times (every `tasks/get` is a chance to break a shape rule). The
worst observation decides: a violation of a MUST fails and of a SHOULD or MAY warns; without any
violation a pass passes; a check nothing could observe could not run, with the reason it gave.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from app.engine.check.model import Check, Evidence, Finding, Verdict

RANK: dict[Verdict, int] = {"fail": 4, "warn": 3, "pass": 2, "skip": 1, "could-not-run": 0}
MAX_OBSERVATIONS = 64
"""Observations kept per check; a long poll repeats the same pass."""


@dataclass(slots=True)
class _Observed:
    verdict: Verdict
    reason: str
    evidence: tuple[Evidence, ...]


@dataclass(slots=True)
class Judge:
    """The selected checks and what was observed of each; `on_finding` hears each final one."""

    checks: dict[str, Check]
    on_finding: Callable[[Finding], None] = lambda finding: None
    _observed: dict[str, list[_Observed]] = field(default_factory=dict)
    _final: dict[str, Finding] = field(default_factory=dict)

    def wants(self, *check_ids: str) -> bool:
        """Whether any of `check_ids` is selected and still open."""
        return any(cid in self.checks and cid not in self._final for cid in check_ids)

    def passed(self, check_id: str, reason: str, evidence: Iterable[Evidence] = ()) -> None:
        self._note(check_id, "pass", reason, evidence)

    def violated(self, check_id: str, reason: str, evidence: Iterable[Evidence] = ()) -> None:
        """The rule was broken: fail for a MUST, warn for a SHOULD or MAY."""
        check = self.checks.get(check_id)
        if check is not None:
            verdict: Verdict = "fail" if check.level == "MUST" else "warn"
            self._note(check_id, verdict, reason, evidence)

    def warned(self, check_id: str, reason: str, evidence: Iterable[Evidence] = ()) -> None:
        """Allowed, but worth telling (a variant, or a MUST-level rule the spec itself blurs)."""
        self._note(check_id, "warn", reason, evidence)

    def skipped(self, check_id: str, reason: str) -> None:
        """The rule does not apply to this server (it declared no such verb, say)."""
        self._note(check_id, "skip", reason, ())

    def unobservable(self, check_id: str, reason: str) -> None:
        """Nothing this run may call shows the behaviour the rule is about (no tool asked a
        question, none returned a tool error): skipped, `reason` naming what would show it."""
        self._note(check_id, "skip", reason, ())

    def unrun(self, check_id: str, reason: str) -> None:
        """Nothing could be observed; `reason` says why and what would fix it."""
        self._note(check_id, "could-not-run", reason, ())

    def unrun_all(self, check_ids: Iterable[str], reason: str) -> None:
        for check_id in check_ids:
            self.unrun(check_id, reason)

    def settle(self, check_ids: Iterable[str]) -> None:
        """Make the findings of `check_ids` final (their scenarios are over) and report them."""
        for check_id in check_ids:
            check = self.checks.get(check_id)
            if check is None or check_id in self._final:
                continue
            finding = self._finding(check, self._observed.get(check_id, []))
            self._final[check_id] = finding
            self.on_finding(finding)

    def findings(self) -> tuple[Finding, ...]:
        """Every selected check's finding, in catalogue order (unsettled ones settled now)."""
        self.settle(self.checks)
        return tuple(self._final[check_id] for check_id in self.checks)

    def _note(
        self, check_id: str, verdict: Verdict, reason: str, evidence: Iterable[Evidence]
    ) -> None:
        if check_id not in self.checks or check_id in self._final:
            return
        seen = self._observed.setdefault(check_id, [])
        if len(seen) < MAX_OBSERVATIONS or RANK[verdict] > max(RANK[o.verdict] for o in seen):
            seen.append(_Observed(verdict, reason, tuple(evidence)))

    @staticmethod
    def _finding(check: Check, observed: list[_Observed]) -> Finding:
        if not observed:
            return Finding(check, "could-not-run", "no scenario of this run could observe it")
        worst = max(observed, key=lambda o: RANK[o.verdict])
        if worst.verdict == "could-not-run":
            worst = observed[0]
        return Finding(check, worst.verdict, worst.reason, worst.evidence)
