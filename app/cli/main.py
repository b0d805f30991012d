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

from app.cli.args import parse
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
    except CliError as error:
        out.error(error)
        return error.exit_code
    if namespace.group in (None, "demo"):
        sys.stdout.write(SHORT_HELP)
        return 0
    return asyncio.run(_run_aborting_on_signals(namespace, out))


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
