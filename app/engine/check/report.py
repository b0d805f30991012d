"""A run's report in the three forms the faces write: the JSON document, a plain-text table
(a glyph and a word per verdict, readable without colour) and JUnit XML for CI."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from app.engine.check.model import Finding, RunReport, Verdict
from app.engine.safety import deep_json
from app.engine.safety.sanitize import clean_text

MAX_REASON_CHARS = 600
GLYPHS: dict[Verdict, str] = {
    "pass": "✓",
    "fail": "✗",
    "warn": "!",
    "skip": "-",
    "could-not-run": "?",
}


def report_json(report: RunReport) -> dict[str, Any]:
    """The `--format json` document."""
    document: dict[str, Any] = {
        "outcome": report.outcome,
        "wire": report.wire,
        "server": report.server,
        "checks": [finding.as_json() for finding in report.findings],
        "summary": report.summary(),
    }
    if report.incomplete_reason is not None:
        document["incompleteReason"] = report.incomplete_reason
    if report.left_behind:
        document["tasksLeftBehind"] = list(report.left_behind)
    if report.notes:
        document["notes"] = list(report.notes)
    return document


def finding_line(finding: Finding) -> str:
    """One table row: glyph, verdict, level, id, and the reason (server text made safe)."""
    check = finding.check
    head = f"{GLYPHS[finding.verdict]} {finding.verdict:<13} {check.level:<6} {check.id}"
    reason = clean_text(finding.reason, max_len=MAX_REASON_CHARS)
    return f"{head}\n    {reason}"


def report_text(report: RunReport) -> str:
    """The `--format text` table, the summary and the outcome."""
    server = report.server
    lines = [
        clean_text(
            f"taskscope check: {server.get('name')} {server.get('version')} over "
            f"{server.get('transport')}, {report.wire} wire ({server.get('era')} era)"
        ),
        "",
    ]
    lines.extend(finding_line(finding) for finding in report.findings)
    counts = report.summary()
    lines.append("")
    lines.append(
        ", ".join(f"{counts[verdict]} {verdict}" for verdict in GLYPHS)
        + f" of {counts['total']} checks"
    )
    for task_id in report.left_behind:
        lines.append(clean_text(f"left behind: task {task_id} could not be cancelled"))
    for note in report.notes:
        lines.append(clean_text(f"note: {note}"))
    outcome = report.outcome.upper()
    reason = report.incomplete_reason
    lines.append(f"outcome: {outcome}" + (clean_text(f" ({reason})") if reason else ""))
    return "\n".join(lines) + "\n"


def report_junit(report: RunReport) -> str:
    """JUnit XML: one testsuite, one testcase per check (fail → failure, could-not-run →
    error, skip → skipped, warn → a passing case with the warning as system-out)."""
    counts = report.summary()
    cases = []
    for finding in report.findings:
        check = finding.check
        name = quoteattr(f"{check.id}: {check.title}")
        body = ""
        message = quoteattr(_xml_text(finding.reason))
        detail = escape(_xml_text(deep_json.dumps(finding.as_json(), indent=2)))
        if finding.verdict == "fail":
            body = f'<failure message={message} type="{check.level}">{detail}</failure>'
        elif finding.verdict == "could-not-run":
            body = f'<error message={message} type="could-not-run">{detail}</error>'
        elif finding.verdict == "skip":
            body = f"<skipped message={message}/>"
        elif finding.verdict == "warn":
            body = f"<system-out>{escape(_xml_text('warning: ' + finding.reason))}</system-out>"
        cases.append(
            f'    <testcase classname="taskscope.check.{check.wire}" name={name}>{body}</testcase>'
        )
    suite = quoteattr(f"taskscope check ({report.wire} wire)")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites><testsuite name={suite} tests="{counts["total"]}" '
        f'failures="{counts["fail"]}" errors="{counts["could-not-run"]}" '
        f'skipped="{counts["skip"]}">\n' + "\n".join(cases) + "\n</testsuite></testsuites>\n"
    )


def _xml_text(text: str) -> str:
    """Text XML 1.0 can carry: characters it forbids (C0 controls, lone surrogates, U+FFFE/F)
    become U+FFFD."""
    return "".join(
        ch
        if ch in "\t\n\r"
        or (" " <= ch <= "\ud7ff")
        or ("\ue000" <= ch <= "\ufffd")
        or ch > "\uffff"
        else "\ufffd"
        for ch in text
    )
