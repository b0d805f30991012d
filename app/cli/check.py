"""`taskscope check`: the checker's command-line face. Progress goes to stderr as each verdict
arrives; the report goes to stdout as JSON (piped) or a table (on a terminal); `--junit FILE`
writes JUnit XML too. Exit 0 passed, 1 failed, 3 incomplete (2 is a usage error)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.jsonarg import read_json_object
from app.cli.options import CheckOptions
from app.cli.output import Output, usage_error
from app.engine.check.catalog import BY_ID, CATEGORIES
from app.engine.check.model import Finding
from app.engine.check.report import GLYPHS, report_json, report_junit, report_text
from app.engine.check.runner import CheckSettings, run_checks
from app.engine.forms.defaults import with_defaults
from app.engine.paths import write_private
from app.engine.tasks.models import InputKind, InputRequest

if TYPE_CHECKING:
    from app.cli.responder import Responder
    from app.cli.session import Session

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
    session: Session, given: CheckOptions, responder: Responder | None, out: Output
) -> int:
    """Run the checks on `session` and print the report; returns the exit code."""
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

    report = await run_checks(session, settings, answer, progress)
    as_text = given.format == "text" or (given.format is None and out.stdout_is_terminal)
    if as_text:
        out.stdout.write(out.redact(report_text(report)))
        out.stdout.flush()
    else:
        out.result(report_json(report))
    if given.junit:
        write_junit(Path(given.junit), out.redact(report_junit(report)))
    return EXITS[report.outcome]


def write_junit(path: Path, text: str) -> None:
    """Write the JUnit file (0600, never through a symlink); a failure is a usage error."""
    try:
        write_private(path, text)
    except OSError as exc:
        raise usage_error(f"--junit: cannot write {path}: {exc.strerror or exc}") from exc
