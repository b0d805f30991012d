"""`c` (and the palette's "Check this server"): `taskscope check` on the watched server.

The user picks the tool to check with (or none) in the tool picker and is told what the check
will do; the check then runs on a connection of its own (`CheckRun`), in a worker that only posts
to the check screen. With several servers, the selected row's server is checked (the server
picker asks when no row is selected). Enter on a check opens its evidence in the exchange view,
from the run's own frames; `e` writes the report as JSON, JUnit XML or Markdown. The run is
closed when it ends, when its screen is dismissed, and when the App quits.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text

from app.engine.safety.sanitize import one_line
from app.tui.problems import describe
from app.view.source import SourceUnavailable
from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.check.model import Finding, RunReport
    from app.tui.check_run import CheckRun
    from app.tui.host import Checking
    from app.tui.live import LiveSource
    from app.tui.server_choice import ChosenServer
    from app.view.exchanges import Exchange
    from widgets.check_screen import CheckScreen

CHECK_GROUP = "check"
"""The worker group of the running check (one at a time)."""
NAME_WIDTH = 40
EXPORTS: dict[str, tuple[str, str]] = {
    "json": ("json", "JSON: as taskscope check --format json prints it"),
    "junit": ("xml", "JUnit XML: one testcase per check, for CI"),
    "markdown": ("md", "Markdown: every check, then what needs care, for a bug report"),
}
"""Each export format: its file suffix and its line in the format picker."""


def check_server(app: Checking) -> None:
    """Choose the server and the tool, say what the check will do, then start it."""
    if app.check_run is not None:
        toast(app, "A check is already running; close its screen first.", severity="warning")
        return
    app.run_worker(_choose_and_check(app), group="actions", exit_on_error=False, name="check")


async def _choose_and_check(app: Checking) -> None:
    from app.engine.check.catalog import select
    from app.engine.check.runner import needs_tool
    from app.view.check_progress import check_plan
    from widgets.confirm import ConfirmModal
    from widgets.tool_picker import NO_TOOL, ToolPicker

    chosen = await _server_to_check(app)
    if chosen is None:
        return
    live = _live_source(chosen)
    if live is None:
        toast(app, "Only a live server can be checked.", severity="warning")
        return
    try:
        tools = await chosen.source.list_tools()
    except Exception as exc:
        toast(app, describe(exc), title="tools/list failed", severity="warning")
        tools = []
    wire = chosen.info.capabilities.wire
    needing = (
        sum(needs_tool(check) for check in select(wire).values())
        if wire in ("legacy", "extension")
        else None
    )
    no_tool = Text("— no tool", style="bold")
    no_tool.append("  the checks that need one will be could-not-run", style="dim")
    picker = ToolPicker(
        tools,
        title=f"Check {_server_label(chosen)} with which tool?",
        verb="choose",
        no_tool=no_tool,
    )
    picked = await app.push_screen_wait(picker)
    if picked is None:
        return
    tool = None if picked is NO_TOOL else picked.name
    plan = check_plan(_server_label(chosen), chosen.info.transport, tool, needing)
    confirm = ConfirmModal("Check this server?", Text(plan), yes="Check", no="Cancel")
    if await app.push_screen_wait(confirm):
        start_check(app, live, check_title(chosen, tool), tool)


async def _server_to_check(app: Checking) -> ChosenServer | None:
    """The selected row's server when several are watched (the picker asks if no row is
    selected); else the one server."""
    from app.tui.server_choice import ChosenServer, choose_server

    selected = app.table.selected_task_id
    watched = app.tasks.get(selected) if selected is not None else None
    if app.source.servers() and watched is not None and watched.server is not None:
        try:
            source, info = app.source.server(watched.server)
        except SourceUnavailable as exc:
            toast(app, str(exc), title=watched.server, severity="warning")
            return None
        return ChosenServer(source, info, watched.server)
    return await choose_server(app, "Check which server?")


def _live_source(chosen: ChosenServer) -> LiveSource | None:
    from app.tui.live import LiveSource

    return chosen.source if isinstance(chosen.source, LiveSource) else None


def _server_label(chosen: ChosenServer) -> str:
    info = chosen.info
    named = f"{chosen.name} ({info.server_name})" if chosen.name else info.server_name
    return one_line(named, NAME_WIDTH * 2)


def check_title(chosen: ChosenServer, tool: str | None) -> Text:
    """The check screen's heading: the server, how it is reached, the tool."""
    info = chosen.info
    title = Text("Check ", style="bold")
    title.append(_server_label(chosen), "bold")
    title.append(f" {one_line(info.server_version, 20)} over {info.transport}")
    title.append(f" · tool {one_line(tool, NAME_WIDTH)}" if tool else " · no tool")
    return title


def start_check(app: Checking, live: LiveSource, title: Text, tool: str | None) -> None:
    """Open the check screen and run the check of `live`'s server with `tool` (None: none)."""
    from app.engine.check.runner import CheckSettings
    from app.tui.check_run import CheckRun
    from widgets.check_screen import CheckScreen

    real_tool = live.shown.real_name(tool) if tool is not None else None  # a name shown redacted
    run = CheckRun(live.check_session(), CheckSettings(tool=real_tool), live.shown)
    screen = CheckScreen(title)
    app.check_run = run

    def dismissed(_: None) -> None:
        worker.cancel()  # it closes the session
        if app.check_run is run:
            app.check_run = None

    app.push_screen(screen, dismissed)
    worker = app.run_worker(
        _run(run, screen), group=CHECK_GROUP, exclusive=True, exit_on_error=False, name="check"
    )


async def _run(run: CheckRun, screen: CheckScreen) -> None:
    """The check's worker: it only posts to the screen, and closes the session however it
    ends (a dismissed screen cancels it)."""

    def settled(finding: Finding) -> None:
        screen.post_message(screen.Settled(finding))

    try:
        checks = await run.open()
        screen.post_message(screen.Started(checks))
        report = await run.run(settled)
    except Exception as exc:
        screen.post_message(screen.Ended(None, describe(exc)))
    else:
        screen.post_message(screen.Ended(report))
    finally:
        await run.close()


def open_evidence(app: Checking, finding: Finding) -> None:
    """Open the frames behind `finding` in the exchange view (a picker first when it cites
    several exchanges)."""
    from app.tui.panes import show_exchange
    from app.view.check_progress import evidence_exchanges
    from widgets.choice_picker import ChoicePicker

    run = app.check_run
    found = evidence_exchanges(run.frames, finding) if run is not None else []
    if not found:
        reason = "cites no frame" if not finding.evidence else "cites frames no longer kept"
        toast(app, f"{finding.check.id} {reason}.", severity="warning")
        return
    if len(found) == 1:
        show_exchange(app, found[0][1])
        return
    exchanges: dict[str, Exchange] = {
        str(index): exchange for index, (_, exchange) in enumerate(found)
    }
    choices = [(str(index), Text(one_line(words, 100))) for index, (words, _) in enumerate(found)]

    def chosen(choice: str | None) -> None:
        if choice is not None:
            show_exchange(app, exchanges[choice])

    app.push_screen(ChoicePicker(f"Frames behind {finding.check.id}", choices), chosen)


def export_report(app: Checking, report: RunReport) -> None:
    """Ask the format (JSON, JUnit XML, Markdown), then the file, and write the report there
    (0600)."""
    from widgets.choice_picker import ChoicePicker

    choices = [(name, Text(label)) for name, (_, label) in EXPORTS.items()]

    def chosen(name: str | None) -> None:
        if name is not None:
            _ask_path(app, report, name)

    app.push_screen(ChoicePicker("Export the check report as", choices), chosen)


def _ask_path(app: Checking, report: RunReport, name: str) -> None:
    from app.tui.verbs.saving import write_file
    from app.view.export import default_path
    from widgets.confirm import TextPrompt

    suffix, _ = EXPORTS[name]
    text = report_text_of(report, name)

    def write(path: str | None) -> None:
        if path is not None:
            write_file(app, path, text, private=True)

    suggested = default_path("taskscope-check", time.time(), suffix)
    app.push_screen(TextPrompt("Save the check report to a file", value=suggested), write)


def report_text_of(report: RunReport, name: str) -> str:
    """The report in the format `name` ("json", "junit" or "markdown")."""
    from app.engine.check.report import report_json, report_junit, report_markdown
    from app.engine.safety import deep_json

    if name == "json":
        return deep_json.dumps_utf8(report_json(report), indent=2) + "\n"
    if name == "junit":
        return report_junit(report)
    return report_markdown(report)
