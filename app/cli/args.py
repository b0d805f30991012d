"""The `taskscope` command line: verbs and flags named like the reference CLI (MCPJam `tasks`).

Parsing never exits on bad input: every mistake becomes a `CliError` usage error (exit 2), printed
the same way as every other error.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from app.cli.output import CliError, usage_error
from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

DEFAULT_DURATION_MS = 300_000
DEFAULT_MAX_CONSECUTIVE_ERRORS = 5

TARGET_FLAGS = "--url, --command, --config/--server or --demo"

EPILOG = """\
targets (one of):
  --url URL [--transport streamable|sse] [--header 'K: V']... [--bearer TOKEN]
  --command 'cmd args' [--env K=V]... [--cwd DIR]
  --config FILE --server NAME
  --demo legacy|extension      the built-in demo server over stdio

exit codes: 0 ok / completed, 1 failed, cancelled, expired, unreachable or error,
  2 usage, 6 input needed that this run could not answer, 7 timeout, 130 aborted.

--answers FILE scripts input for unattended runs: a JSON list of rules, first match wins,
  [{"match": {"key": "…", "message": "regex", "method": "…"}, "response": {…}}]
  (every match key given must hold; the response is sent as written, after a schema check).

--trace-frames FILE writes every JSON-RPC frame in and out as one JSON object per line
(secrets redacted), for debugging a server or counting polls.

--record FILE appends every frame, task event and user action to FILE as NDJSON (secrets
redacted), for `taskscope replay FILE` and `taskscope tasks export --from-recording FILE`.
--readonly never sends a create, call, cancel or answer: such a command exits 1 (READONLY).
"""


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are raised as usage errors instead of exiting.

    `deferred` adds flags the moment this parser first parses: a verb's parser gets its ~20 target
    flags only when the command line selects that verb, so start-up never builds them for the
    other nine (a few milliseconds of every run).
    """

    deferred: Callable[[argparse.ArgumentParser], None] | None = None

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        if self.deferred is not None:
            add_flags, self.deferred = self.deferred, None
            add_flags(self)
        return super().parse_known_args(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise usage_error(message, {"usage": self.format_usage().strip()})


def add_target_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every command accepts: where the server is, how to speak to it, input helpers.

    Defaults are suppressed so the flags may come before or after the verb; `option()` reads them.
    """
    group = parser.add_argument_group("target")
    suppress = argparse.SUPPRESS
    group.add_argument("--url", default=suppress, help="Streamable HTTP (or SSE) server URL")
    group.add_argument("--transport", choices=["streamable", "sse"], default=suppress)
    group.add_argument("--header", action="append", default=suppress, metavar="'K: V'")
    group.add_argument(
        "--bearer", default=suppress, metavar="TOKEN", help="bearer token (or TASKSCOPE_BEARER)"
    )
    group.add_argument(
        "--command", default=suppress, metavar="'cmd args'", help="stdio server command line"
    )
    group.add_argument("--env", action="append", default=suppress, metavar="K=V")
    group.add_argument(
        "--cwd", default=suppress, metavar="DIR", help="working directory of --command"
    )
    group.add_argument("--config", default=suppress, metavar="FILE", help="MCP client config file")
    group.add_argument("--server", default=suppress, metavar="NAME", help="server name in --config")
    group.add_argument("--demo", choices=["legacy", "extension"], default=suppress)
    group.add_argument("--era", choices=["auto", "legacy", "modern"], default=suppress)
    group.add_argument(
        "--wire", choices=["legacy", "extension"], default=suppress, help="assert the tasks wire"
    )
    group.add_argument("--redact", action="append", default=suppress, metavar="HEADER")
    add_root_flag(group)
    group.add_argument("--answers", default=suppress, metavar="FILE", help="scripted answers")
    group.add_argument(
        "--trace-frames", default=suppress, metavar="FILE", help="write JSON-RPC frames as NDJSON"
    )
    group.add_argument(
        "--reconnect-attempts",
        type=non_negative_int,
        default=suppress,
        metavar="N",
        help=f"reconnect up to N times after losing the server (0: never; {DEFAULT_ATTEMPTS})",
    )
    add_recording_flags(group)


def add_root_flag(group: argparse._ActionsContainer) -> None:
    """`--root PATH` (repeatable): the roots `roots/list` is answered with."""
    group.add_argument(
        "--root",
        action="append",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="answer roots/list",
    )


def add_recording_flags(group: argparse._ActionsContainer) -> None:
    """`--record FILE` and `--readonly`, for the headless commands and the full-screen UI."""
    suppress = argparse.SUPPRESS
    group.add_argument(
        "--record", default=suppress, metavar="FILE", help="append frames and events as NDJSON"
    )
    group.add_argument(
        "--readonly",
        action="store_true",
        default=suppress,
        help="never send a create, call, cancel or answer",
    )


def add_input_flags(parser: argparse.ArgumentParser) -> None:
    """Flags that decide how input requests are answered in this run."""
    parser.add_argument("--interactive", action="store_true", help="prompt for input on a terminal")
    parser.add_argument("--yes", action="store_true", help="never prompt: unanswered input exits 6")


def add_watch_flags(parser: argparse.ArgumentParser) -> None:
    """The bounds and pacing of a watch."""
    parser.add_argument(
        "--poll-interval-ms",
        type=positive_int,
        default=None,
        metavar="MS",
        help="minimum time between polls (never faster than the server asks)",
    )
    parser.add_argument(
        "--duration-ms",
        type=positive_int,
        default=DEFAULT_DURATION_MS,
        metavar="MS",
        help="give up after this long: exit 7 (default: 5 minutes)",
    )
    parser.add_argument(
        "--max-input-rounds",
        type=positive_int,
        default=None,
        metavar="N",
        help="stop (exit 6) when the task asks for input more often than this",
    )
    parser.add_argument(
        "--max-consecutive-errors",
        type=positive_int,
        default=DEFAULT_MAX_CONSECUTIVE_ERRORS,
        metavar="N",
        help="stop (exit 1, unreachable) after this many failed polls in a row",
    )


def positive_float(text: str) -> float:
    """An argparse type: a number above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be above zero: {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number above zero."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above zero: {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number, zero or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def reconnect_attempts(namespace: argparse.Namespace) -> int:
    """`--reconnect-attempts`, or the engine's default when it was not given."""
    value = getattr(namespace, "reconnect_attempts", None)
    return value if isinstance(value, int) else DEFAULT_ATTEMPTS


FlagAdder = Callable[[argparse.ArgumentParser], None]


def build_parser() -> ArgumentParser:
    """The full `taskscope` parser (each verb's flags are added when that verb is parsed)."""
    parser = ArgumentParser(
        prog="taskscope",
        description="Inspect and drive MCP Tasks on both tasks wires (legacy and extension).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_flags(parser)
    groups = parser.add_subparsers(
        dest="group", metavar="{tasks,tools,resources,prompts,demo,replay,demo-server}"
    )

    def leaf(
        sub: argparse._SubParsersAction[ArgumentParser],
        name: str,
        text: str,
        *verb_flags: FlagAdder,
    ) -> None:
        command = sub.add_parser(
            name,
            help=text,
            description=text,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

        def add_flags(selected: argparse.ArgumentParser) -> None:
            add_target_flags(selected)
            for add in verb_flags:
                add(selected)

        command.deferred = add_flags

    tasks = groups.add_parser("tasks", help="task verbs").add_subparsers(dest="verb", required=True)
    leaf(tasks, "capabilities", "Print the tasks wire and the verbs the server declared.")
    for verb, text in (
        ("get", "Print one task (on the extension wire, with its inline result)."),
        ("result", "Fetch a task's result (legacy wire; extension results are inline on get)."),
        ("cancel", "Cancel a task (cooperative on the extension wire)."),
    ):
        leaf(tasks, verb, text, add_task_id_flag)
    leaf(tasks, "list", "List the server's tasks (legacy wire only).")
    leaf(
        tasks,
        "export",
        "Export tasks' lives from a recording as Markdown or JSON.",
        add_export_flags,
    )
    leaf(
        tasks,
        "update",
        "Answer a task's input requests (extension wire only).",
        add_task_id_flag,
        add_update_flags,
    )
    leaf(
        tasks,
        "watch",
        "Poll a task until it ends; answer its input.",
        add_task_id_flag,
        add_watch_flags,
        add_input_flags,
    )

    tools = groups.add_parser("tools", help="tool verbs").add_subparsers(dest="verb", required=True)
    leaf(tools, "list", "List the server's tools.")
    leaf(
        tools,
        "call",
        "Call a tool, plainly or as a task.",
        add_call_flags,
        add_watch_flags,
        add_input_flags,
    )

    resources = groups.add_parser("resources", help="resource verbs").add_subparsers(
        dest="verb", required=True
    )
    leaf(resources, "list", "List the server's resources.")
    leaf(resources, "read", "Read one resource.", add_uri_flag)
    prompts = groups.add_parser("prompts", help="prompt verbs").add_subparsers(
        dest="verb", required=True
    )
    leaf(prompts, "list", "List the server's prompts.")
    leaf(prompts, "get", "Get one prompt, filled with its arguments.", add_prompt_flags)

    demo = groups.add_parser("demo", help="open the TUI on the built-in demo server")
    demo.add_argument("--wire", choices=["legacy", "extension"], default=argparse.SUPPRESS)
    demo.add_argument("--era", choices=["auto", "legacy", "modern"], default=argparse.SUPPRESS)
    add_root_flag(demo)
    add_recording_flags(demo)
    replay = groups.add_parser("replay", help="open the TUI on a recording (no server, read-only)")
    replay.add_argument("file", metavar="FILE")
    pace = replay.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=positive_float, default=1.0, metavar="N")
    pace.add_argument("--instant", action="store_true", help="show the final state at once")
    groups.add_parser("demo-server", help="run a built-in demo server", add_help=False)
    return parser


def add_task_id_flag(parser: argparse.ArgumentParser) -> None:
    """`--task-id`, for the verbs about one task."""
    parser.add_argument("--task-id", required=True)


def add_uri_flag(parser: argparse.ArgumentParser) -> None:
    """`resources read`: which resource."""
    parser.add_argument("--uri", required=True)


def add_prompt_flags(parser: argparse.ArgumentParser) -> None:
    """`prompts get`: which prompt, and its arguments."""
    parser.add_argument("--name", required=True)
    parser.add_argument("--prompt-args", default=None, metavar="JSON|@FILE|-")


def add_export_flags(parser: argparse.ArgumentParser) -> None:
    """`tasks export`: which tasks, from which recording, in which format."""
    parser.add_argument("--task-id", action="append", required=True, help="repeat for several")
    parser.add_argument("--from-recording", required=True, metavar="FILE")
    parser.add_argument("--format", choices=["md", "json"], default="md")


def add_update_flags(parser: argparse.ArgumentParser) -> None:
    """`tasks update`: the answers to send."""
    parser.add_argument(
        "--input-responses",
        required=True,
        metavar="JSON|@FILE|-",
        help='{"<key>": <ElicitResult | CreateMessageResult | ListRootsResult>}',
    )


def add_call_flags(parser: argparse.ArgumentParser) -> None:
    """`tools call`: the tool, its arguments, and whether to ask for (and watch) a task."""
    parser.add_argument("--tool-name", required=True)
    parser.add_argument("--tool-args", default=None, metavar="JSON|@FILE|-")
    parser.add_argument("--task", action="store_true", help="ask for a task")
    parser.add_argument("--task-ttl", type=positive_int, default=None, metavar="MS")
    parser.add_argument("--task-watch", action="store_true", help="watch the created task")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse `argv` and check the combinations argparse cannot express."""
    namespace = build_parser().parse_args(list(argv))
    if getattr(namespace, "group", None) == "tools" and namespace.verb == "call":
        if namespace.task_ttl is not None and not namespace.task:
            raise usage_error("--task-ttl needs --task")
        if namespace.task_watch and not namespace.task:
            raise usage_error("--task-watch needs --task")
        if namespace.task_ttl is not None and option(namespace, "wire") == "extension":
            raise usage_error(
                "--task-ttl is a legacy-wire flag: on the extension wire the server owns the TTL"
            )
    return namespace


def option(namespace: argparse.Namespace, name: str) -> str | None:
    """A suppressed-default string flag: its value, or None when it was not given."""
    value = getattr(namespace, name, None)
    return value if isinstance(value, str) else None


def flag(namespace: argparse.Namespace, name: str) -> bool:
    """A suppressed-default boolean flag: True only when it was given."""
    return getattr(namespace, name, False) is True


def options(namespace: argparse.Namespace, name: str) -> list[str]:
    """A suppressed-default repeatable flag: its values, or [] when it was not given."""
    value = getattr(namespace, name, None)
    return list(value) if isinstance(value, list) else []


def no_target_error() -> CliError:
    """The usage error for a command that was given nowhere to connect to."""
    return usage_error(
        f"no server to connect to: give one of {TARGET_FLAGS}",
        {"hint": "try the built-in demo: taskscope tasks capabilities --demo legacy"},
    )
