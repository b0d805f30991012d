"""A run's report in the forms the faces write: the JSON document, a plain-text table (a glyph and
a word per verdict, readable without colour), JUnit XML for CI and Markdown for a bug report."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from app.engine.check.model import Evidence, Finding, RunReport, Verdict
from app.engine.safety import deep_json
from app.engine.safety.markdown import cell, code, inline, plain
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
    head = (
        f"taskscope check: {server.get('name')} {server.get('version')} over "
        f"{server.get('transport')}, {report.wire} wire ({server.get('era')} era)"
        if server.get("era") is not None
        else f"taskscope check: no connection over {server.get('transport')}"
    )
    lines = [clean_text(head), ""]
    lines.extend(finding_line(finding) for finding in report.findings)
    lines.append("")
    lines.append(summary_line(report))
    for task_id in report.left_behind:
        lines.append(clean_text(f"left behind: task {task_id} could not be cancelled"))
    for note in report.notes:
        lines.append(clean_text(f"note: {note}"))
    outcome = report.outcome.upper()
    reason = report.incomplete_reason
    lines.append(f"outcome: {outcome}" + (clean_text(f" ({reason})") if reason else ""))
    return "\n".join(lines) + "\n"


def summary_line(report: RunReport) -> str:
    """How many checks ended in each verdict: "15 pass, 0 fail, … of 15 checks"."""
    counts = report.summary()
    each = ", ".join(f"{counts[verdict]} {verdict}" for verdict in GLYPHS)
    return f"{each} of {counts['total']} checks"


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


NEEDS_CARE: tuple[Verdict, ...] = ("fail", "could-not-run", "warn")
"""The verdicts the Markdown report explains one by one, with the spec and the evidence."""


def report_markdown(report: RunReport) -> str:
    """The report as Markdown for a bug report or a CI summary: the outcome, a table of every
    check, then each failure, could-not-run and warning with its spec sentence and evidence.
    Every server string is escaped, so a viewer shows it as written."""
    server = report.server
    name = f"{server.get('name')} {server.get('version')}"
    lines = [f"# taskscope check: {cell(name)}", "", "| | |", "|---|---|"]
    outcome = report.outcome.upper()
    reason = report.incomplete_reason
    facts = [
        (
            "Server",
            f"{name} over {server.get('transport')}, protocol {server.get('protocolVersion')}",
        ),
        ("Wire", f"{report.wire} ({server.get('era')} era)"),
        ("Outcome", f"{outcome}: {reason}" if reason else outcome),
        ("Checks", summary_line(report)),
    ]
    lines += [f"| {label} | {cell(value)} |" for label, value in facts]
    lines += [
        "",
        "## Checks",
        "",
        "| | Verdict | Level | Check | Reason |",
        "|---|---|---|---|---|",
    ]
    for finding in report.findings:
        check = finding.check
        lines.append(
            f"| {GLYPHS[finding.verdict]} | {finding.verdict} | {check.level} "
            f"| `{inline(check.id)}` {cell(check.title)} | {cell(finding.reason)} |"
        )
    care = [finding for finding in report.findings if finding.verdict in NEEDS_CARE]
    if care:
        lines += ["", "## What needs care"]
        for finding in care:
            lines += _finding_markdown(finding)
    remarks = [
        f"Task `{inline(task)}` was left behind: it could not be cancelled."
        for task in report.left_behind
    ]
    remarks += [plain(clean_text(note, max_len=MAX_REASON_CHARS)) for note in report.notes]
    if remarks:
        lines += ["", "## Notes", ""]
        lines += [f"- {remark}" for remark in remarks]
    return "\n".join(lines) + "\n"


def _finding_markdown(finding: Finding) -> list[str]:
    """One finding that needs care: its heading, level, spec sentence, reason and evidence."""
    check = finding.check
    glyph = GLYPHS[finding.verdict]
    lines = [
        "",
        f"### {glyph} {finding.verdict}: `{inline(check.id)}` {cell(check.title)}",
        "",
        f"{check.level}, {check.category}, {check.wire} wire. Spec: {plain(check.spec)}",
        "",
        plain(clean_text(finding.reason, max_len=MAX_REASON_CHARS)),
    ]
    for number, item in enumerate(finding.evidence, start=1):
        lines += ["", f"{number}. {cell(evidence_words(item))}"]
        if item.excerpt is not None:
            lines += ["", *code(item.excerpt, indent="   ")]
    return lines


def evidence_words(item: Evidence) -> str:
    """Which frame, in words: method, direction, JSON-RPC id, exchange number, HTTP status."""
    parts = [item.method or "a frame", "sent" if item.direction == "out" else "received"]
    if item.rpc_id is not None:
        parts.append(f"id {item.rpc_id}")
    if item.exchange is not None:
        parts.append(f"exchange {item.exchange}")
    if item.http_status is not None:
        parts.append(f"HTTP {item.http_status}")
    return clean_text(", ".join(parts), max_len=200)
