"""`taskscope check`: the checker's command-line face. Progress goes to stderr as each verdict
arrives; the report goes to stdout as JSON (piped) or a table (on a terminal); `--junit FILE`
writes JUnit XML too. Exit 0 passed, 1 failed, 3 incomplete (2 is a usage error)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.jsonarg import read_json_object
from app.cli.options import Options
from app.cli.output import CONNECTION_FAILED, CliError, Output, usage_error
from app.cli.session import open_session
from app.cli.verb_options import CheckOptions
from app.engine.check.catalog import BY_ID, CATEGORIES
from app.engine.check.model import Finding
from app.engine.check.report import GLYPHS, report_json, report_junit, report_text
from app.engine.check.runner import (
    CheckSettings,
    handshake_timeouts,
    run_checks,
    unconnected_report,
)
from app.engine.forms.defaults import with_defaults
from app.engine.paths import write_private
from app.engine.tasks.models import InputKind, InputRequest

if TYPE_CHECKING:
    from app.cli.responder import Responder

EXIT_INCOMPLETE = 3
EXITS = {"passed": 0, "failed": 1, "incomplete": EXIT_INCOMPLETE}


def check_settings(given: CheckOptions) -> CheckSettings:
    """The run's settings; an unknown check id or category is a usage error."""
    unknown = [cid for cid in given.check_ids if cid not in BY_ID]
    if unknown:
        raise usage_error(
            f"--check-id: no check is called {', '.join(unknown)}",
            {"known": sorted(BY_ID)},
        )
    bad = [c for c in given.categories if c not in CATEGORIES]
    if bad:
        raise usage_error(
            f"--category: no category is called {', '.join(bad)}", {"known": list(CATEGORIES)}
        )
    args = read_json_object(given.tool_args, "--tool-args") if given.tool_args else {}
    if given.tool_args and given.tool_name is None:
        raise usage_error("--tool-args needs --tool-name")
    return CheckSettings(
        tool=given.tool_name,
        tool_args=args,
        check_ids=given.check_ids,
        categories=given.categories,
        timeout_s=given.timeout_ms / 1000,
    )


async def check_command(
    options: Options, given: CheckOptions, responder: Responder | None, out: Output
) -> int:
    """Connect, run the checks and print the report; returns the exit code. A server that
    cannot be connected (unreachable, silent or garbled at the handshake, which is bounded by
    --timeout-ms) gets a report too: its checks could not run, with the reason (exit 3)."""
    settings = check_settings(given)

    def answer(request: InputRequest) -> dict[str, Any] | None:
        if responder is None:
            return None
        scripted = responder.answers.find(request)
        if scripted is not None:
            return with_defaults(request, scripted)
        if request.kind is InputKind.ROOTS:
            return {"roots": list(responder.roots)}
        return None

    def progress(finding: Finding) -> None:
        out.note(f"check: {GLYPHS[finding.verdict]} {finding.verdict} {finding.check.id}")

    try:
        async with open_session(
            options,
            out,
            request_timeout=settings.timeout_s,
            handshake=handshake_timeouts(settings.timeout_s),
        ) as session:
            report = await run_checks(session, settings, answer, progress)
    except CliError as refused:
        if refused.code != CONNECTION_FAILED:
            raise
        report = unconnected_report(
            settings,
            options.session.wire,
            _transport_of(options),
            _connect_reason(refused, settings.timeout_s),
        )
        for finding in report.findings:
            progress(finding)
    as_text = given.format == "text" or (given.format is None and out.stdout_is_terminal)
    if as_text:
        out.stdout.write(out.redact(report_text(report)))
        out.stdout.flush()
    else:
        out.result(report_json(report))
    if given.junit:
        write_junit(Path(given.junit), out.redact(report_junit(report)))
    return EXITS[report.outcome]


def _connect_reason(refused: CliError, timeout_s: float) -> str:
    """Why the connection failed, in one line: what the transport or the handshake said, or
    that the handshake went unanswered within --timeout-ms."""
    details = refused.details or {}
    reason = str(details.get("reason") or "").strip()
    tried = (details.get("era") or {}).get("tried") or []
    unanswered = not reason or any(
        isinstance(step, dict) and "no answer" in str(step.get("answer")) for step in tried
    )
    if unanswered and not reason:
        reason = f"no answer to the handshake within {timeout_s:g} s (--timeout-ms)"
    elif unanswered and "no answer" in reason:
        reason = f"{reason} (the handshake is bounded by --timeout-ms {timeout_s * 1000:g})"
    return f"{refused.message}: {reason}" if reason else refused.message


def _transport_of(options: Options) -> str:
    """The transport the target flags name (what the report says the server was reached by)."""
    target = options.target
    if target.urls:
        return target.transport or "http"
    return "stdio"


def write_junit(path: Path, text: str) -> None:
    """Write the JUnit file (0600, never through a symlink); a failure is a usage error."""
    try:
        write_private(path, text)
    except OSError as exc:
        raise usage_error(f"--junit: cannot write {path}: {exc.strerror or exc}") from exc
