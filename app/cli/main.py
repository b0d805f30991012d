"""The `taskscope` entry point: parses the command line, runs one verb, returns its exit code.

The start-up path stays light: the engine is imported only when a verb needs it, and neither `mcp`
nor `textual` is imported by any headless command. Ctrl-C and SIGTERM abort a command cleanly
(exit 130; a watch still prints its envelope).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence
from typing import Literal

from app.cli.args import flag, option, options, parse, reconnect_attempts
from app.cli.output import ABORTED, EXIT_ABORTED, CliError, Output

SHORT_HELP = """\
taskscope — inspect and drive MCP Tasks on both tasks wires.

Pick a server with one of:
  --url URL                  Streamable HTTP (add --transport sse for the old HTTP+SSE)
  --command 'cmd args'       a stdio server
  --config FILE --server N   an entry of an MCP client config file
  --demo legacy|extension    the built-in demo server

  taskscope demo                                  the built-in demo (full-screen UI)
  taskscope tasks capabilities --demo legacy      which tasks wire a server speaks
  taskscope tools call --demo extension --tool-name build_report --task --task-watch

Run `taskscope --help` for every command and flag.
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in `argv` (default: the process arguments) and return its exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["demo-server"]:
        from app.demo.__main__ import main as demo_server

        demo_server(arguments[1:])
        return 0
    out = Output()
    try:
        namespace = parse(arguments)
        _check_limits()
    except CliError as error:
        out.error(error)
        return error.exit_code
    if namespace.group == "demo" or (namespace.group is None and _names_target(namespace)):
        return _open_tui(namespace, out)
    if namespace.group == "replay":
        return _open_replay(namespace, out)
    if namespace.group is None:
        sys.stdout.write(SHORT_HELP)
        return _offer_demo(out)
    return asyncio.run(_run_aborting_on_signals(namespace, out))


def _check_limits() -> None:
    """A bound set in the environment (`TASKSCOPE_MAX_*`) that is not a size is a usage error."""
    from app.cli.output import usage_error
    from app.engine.safety.limits import LimitsError, configured

    try:
        configured()
    except LimitsError as exc:
        raise usage_error(str(exc)) from exc


def _names_target(namespace: argparse.Namespace) -> bool:
    """Whether any target flag was given (then plain `taskscope` opens the full-screen UI)."""
    return any(option(namespace, name) for name in ("url", "command", "config", "demo"))


def _open_tui(namespace: argparse.Namespace, out: Output) -> int:
    """Open the full-screen UI on the flags' target, or on the demo for `taskscope demo`.

    Only `--record` loads the engine's recorder before the UI; otherwise the App imports the
    engine after its first frame.
    """
    from app.cli.target import target_from_args
    from app.engine.rpc.targets import Target, demo_target
    from app.tui.run import TuiOptions, run_tui

    wire = option(namespace, "wire")
    expected: Literal["legacy", "extension"] | None = (
        "extension" if wire == "extension" else "legacy" if wire == "legacy" else None
    )
    target: Target
    try:
        if namespace.group == "demo":
            target = demo_target(expected or "legacy")
        else:
            target = target_from_args(namespace)
        recorder = None
        if option(namespace, "record"):
            from app.cli.record import open_recorder

            recorder = open_recorder(namespace, target, "tui")
    except CliError as error:
        out.error(error)
        return error.exit_code
    era = option(namespace, "era")
    return run_tui(
        TuiOptions(
            target,
            era="legacy" if era == "legacy" else "modern" if era == "modern" else "auto",
            expected_wire=expected,
            redact=options(namespace, "redact"),
            roots=options(namespace, "root"),
            readonly=flag(namespace, "readonly"),
            recorder=recorder,
            reconnect_attempts=reconnect_attempts(namespace),
            remember_tasks=namespace.group != "demo",
        )
    )


def _open_replay(namespace: argparse.Namespace, out: Output) -> int:
    """`taskscope replay FILE`: the full-screen UI on a recording, with no server."""
    from app.cli.output import usage_error
    from app.engine.record.replay import RecordingError, read_recording
    from app.tui.run import run_replay

    path: str = namespace.file
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        error = usage_error(f"replay: {exc}")
        out.error(error)
        return error.exit_code
    return run_replay(path, recording, speed=None if namespace.instant else namespace.speed)


def _offer_demo(out: Output) -> int:
    """On a terminal, offer to open the demo right away; elsewhere just the help (exit 0)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return 0
    try:
        answer = input("\nOpen the built-in demo now? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        return 0
    if answer.strip().lower() not in ("y", "yes"):
        return 0
    return _open_tui(parse(["demo"]), out)


async def _run_aborting_on_signals(namespace: argparse.Namespace, out: Output) -> int:
    """Run the command; SIGINT/SIGTERM cancel it, which every command turns into exit 130."""
    loop = asyncio.get_running_loop()
    command = asyncio.current_task()
    assert command is not None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, command.cancel)
    from app.cli.run import run_command

    try:
        return await run_command(namespace, out)
    except asyncio.CancelledError:
        out.error(CliError(ABORTED, "aborted", None, EXIT_ABORTED))
        return EXIT_ABORTED
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


if __name__ == "__main__":
    sys.exit(main())
