"""The `taskscope` entry point: parses the command line, runs one verb, returns its exit code.

The start-up path stays light: the engine is imported only when a verb needs it, and neither `mcp`
nor `textual` is imported by any headless command. Ctrl-C and SIGTERM abort a command cleanly
(exit 130; a watch still prints its envelope).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from app.cli.args import parse
from app.cli.options import Options
from app.cli.output import ABORTED, EXIT_ABORTED, CliError, Output

if TYPE_CHECKING:
    from app.cli.verb_options import ReplayOptions
    from app.engine.rpc.targets import Target

SHORT_HELP = """\
taskscope — inspect and drive MCP Tasks on both tasks wires.

Pick a server with one of:
  --url URL                  Streamable HTTP (add --transport sse for the old HTTP+SSE)
  --command 'cmd args'       a stdio server
  --config FILE --server N   an entry of an MCP client config file (the full-screen UI
                             opens every server of FILE at once without --server, and
                             takes --url and --command more than once)
  --demo legacy|extension    the built-in demo server

  taskscope demo                                  the built-in demo (full-screen UI)
  taskscope tasks capabilities --demo legacy      which tasks wire a server speaks
  taskscope tools call --demo extension --tool-name build_report --task --task-watch
  taskscope servers --config FILE                 every server of a config file, side by side

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
        options = parse(arguments)
        _check_limits()
    except CliError as error:
        out.error(error)
        return error.exit_code
    if options.group == "demo" or (options.group is None and options.target.names_target):
        return _open_tui(options, out)
    if options.group == "replay":
        return _open_replay(cast("ReplayOptions", options.verb_options), out)
    if options.group is None:
        sys.stdout.write(SHORT_HELP)
        return _offer_demo(out)
    return asyncio.run(_run_aborting_on_signals(options, out))


def _check_limits() -> None:
    """A bound set in the environment (`TASKSCOPE_MAX_*`) that is not a size is a usage error."""
    from app.cli.output import usage_error
    from app.engine.safety.limits import LimitsError, configured

    try:
        configured()
    except LimitsError as exc:
        raise usage_error(str(exc)) from exc


def _open_tui(options: Options, out: Output) -> int:
    """Open the full-screen UI on the flags' target (or every server of `--config`), or on the
    demo for `taskscope demo`.

    Only `--record` loads the engine's recorder before the UI; otherwise the App imports the
    engine after its first frame.
    """
    from app.cli.target import target_from_args, tui_servers
    from app.engine.rpc.advertised import ClientCapabilities
    from app.engine.rpc.targets import demo_target
    from app.tui.run import TuiOptions, run_tui

    flags = options.session
    target: Target
    recorder = None
    servers: list[tuple[str, Target | str]] = []
    try:
        if options.group == "demo":
            target = demo_target(flags.wire or "legacy")
        elif servers := tui_servers(options.target):
            target = next(target for _, target in servers if not isinstance(target, str))
        else:
            target = target_from_args(options.target)
        if flags.record:
            from app.cli.record import open_recorder

            names = [name for name, _ in servers]
            recorder = open_recorder(
                flags, None if names else target, "tui", options.command, names
            )
    except CliError as error:
        out.error(error)
        return error.exit_code
    return run_tui(
        TuiOptions(
            target,
            era=flags.era,
            expected_wire=flags.wire,
            redact=flags.redact,
            roots=flags.roots,
            advertised=ClientCapabilities(flags.client_capabilities, frozenset(flags.withhold)),
            readonly=flags.readonly,
            recorder=recorder,
            reconnect_attempts=flags.reconnect_attempts,
            remember_tasks=options.group != "demo",
            servers=servers,
            servers_label=options.target.config or ", ".join(name for name, _ in servers),
        )
    )


def _open_replay(replay: ReplayOptions, out: Output) -> int:
    """`taskscope replay FILE`: the full-screen UI on a recording, with no server."""
    from app.cli.output import usage_error
    from app.engine.record.replay import RecordingError, read_recording
    from app.tui.run import run_replay

    try:
        recording = read_recording(replay.file)
    except RecordingError as exc:
        error = usage_error(f"replay: {exc}")
        out.error(error)
        return error.exit_code
    for line in recording.skipped_lines():
        out.note(f"replay: {line}")
    return run_replay(replay.file, recording, speed=replay.speed)


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


async def _run_aborting_on_signals(options: Options, out: Output) -> int:
    """Run the command; SIGINT/SIGTERM cancel it, which every command turns into exit 130."""
    loop = asyncio.get_running_loop()
    command = asyncio.current_task()
    assert command is not None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, command.cancel)
    from app.cli.run import run_command

    try:
        return await run_command(options, out)
    except asyncio.CancelledError:
        out.error(CliError(ABORTED, "aborted", None, EXIT_ABORTED))
        return EXIT_ABORTED
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


if __name__ == "__main__":
    sys.exit(main())
