"""The flags of each verb, and the argparse types that check their values.

Most are added to a verb's parser only when the command line selects that verb (see
`app.cli.args.ArgumentParser.deferred`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from app.cli.options import DEFAULT_DURATION_MS, DEFAULT_MAX_CONSECUTIVE_ERRORS
from app.engine.rpc.advertised import WITHHOLDABLE
from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

FlagAdder = Callable[[argparse.ArgumentParser], None]


def add_target_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every command accepts: where the server is, how to speak to it, input helpers.

    Defaults are suppressed so the flags may come before or after the verb; `parse` reads them.
    """
    group = parser.add_argument_group("target")
    suppress = argparse.SUPPRESS
    group.add_argument(
        "--url",
        action="append",
        default=suppress,
        help="Streamable HTTP (or SSE) server URL (the inspector takes several)",
    )
    group.add_argument("--transport", choices=["streamable", "sse"], default=suppress)
    group.add_argument("--header", action="append", default=suppress, metavar="'K: V'")
    group.add_argument(
        "--bearer", default=suppress, metavar="TOKEN", help="bearer token (or TASKSCOPE_BEARER)"
    )
    add_oauth_flags(group)
    group.add_argument(
        "--command",
        action="append",
        default=suppress,
        metavar="'cmd args'",
        help="stdio server command line (the inspector takes several)",
    )
    group.add_argument("--env", action="append", default=suppress, metavar="K=V")
    group.add_argument(
        "--cwd", default=suppress, metavar="DIR", help="working directory of --command"
    )
    group.add_argument("--config", default=suppress, metavar="FILE", help="MCP client config file")
    group.add_argument(
        "--server",
        action="append",
        default=suppress,
        metavar="NAME",
        help="server name in --config (the inspector takes several, or none for all)",
    )
    group.add_argument("--demo", choices=["legacy", "extension"], default=suppress)
    group.add_argument("--era", choices=["auto", "legacy", "modern"], default=suppress)
    group.add_argument(
        "--wire", choices=["legacy", "extension"], default=suppress, help="assert the tasks wire"
    )
    group.add_argument("--redact", action="append", default=suppress, metavar="HEADER")
    add_root_flag(group)
    add_capability_flags(group)
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


def add_oauth_flags(group: argparse._ActionsContainer) -> None:
    """How to sign in when an HTTP server answers 401 (MCP authorization, OAuth 2.1)."""
    suppress = argparse.SUPPRESS
    group.add_argument(
        "--auth-mode",
        choices=["interactive", "client_credentials", "none"],
        default=suppress,
        help="on HTTP 401: sign in in the browser (default), use client credentials, or stop",
    )
    group.add_argument("--client-id", default=suppress, metavar="ID", help="pre-registered client")
    group.add_argument(
        "--client-secret",
        default=suppress,
        metavar="SECRET",
        help="its secret (or TASKSCOPE_CLIENT_SECRET)",
    )
    group.add_argument(
        "--client-metadata-url",
        default=suppress,
        metavar="URL",
        help="a Client ID Metadata Document (used where the server supports it)",
    )
    group.add_argument(
        "--client-private-key",
        default=suppress,
        metavar="FILE",
        help="PEM key for a private_key_jwt assertion (client_credentials)",
    )
    group.add_argument(
        "--client-signing-alg", default=suppress, metavar="ALG", help="its algorithm (RS256)"
    )
    group.add_argument(
        "--no-browser",
        action="store_true",
        default=suppress,
        help="print the sign-in URL instead of opening the browser",
    )


def add_root_flag(group: argparse._ActionsContainer) -> None:
    """`--root PATH` (repeatable): the roots `roots/list` is answered with."""
    group.add_argument(
        "--root",
        action="append",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="answer roots/list",
    )


def add_capability_flags(group: argparse._ActionsContainer) -> None:
    """`--withhold NAME` (repeatable) and `--client-capabilities`: what the client advertises."""
    suppress = argparse.SUPPRESS
    group.add_argument(
        "--withhold",
        action="append",
        choices=WITHHOLDABLE,
        default=suppress,
        help="do not advertise this client capability (tasks: ask for no task; repeatable)",
    )
    group.add_argument(
        "--client-capabilities",
        default=suppress,
        metavar="JSON|@FILE|-",
        help="the whole client capabilities object to advertise instead of taskscope's own",
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
    parser.add_argument(
        "--task-id",
        action="append",
        required=True,
        help="repeat for several; with several servers recorded, a row key 'name · id' or an id "
        "(that task of every server)",
    )
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


def add_check_flags(parser: argparse.ArgumentParser) -> None:
    """`check`: the tool to create tasks with, which checks, and the report's forms."""
    parser.add_argument("--tool-name", default=None, help="the tool to create tasks with")
    parser.add_argument("--tool-args", default=None, metavar="JSON|@FILE|-")
    parser.add_argument("--check-id", action="append", default=[], metavar="ID")
    parser.add_argument("--category", action="append", default=[], metavar="C")
    parser.add_argument("--format", choices=["text", "json"], default=None)
    parser.add_argument("--junit", default=None, metavar="FILE", help="write JUnit XML here")
    parser.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=30_000,
        metavar="MS",
        help="the longest any one wait may take (a request, or a task reaching its end)",
    )


def add_demo_flags(parser: argparse.ArgumentParser) -> None:
    """`taskscope demo`: which demo wire, which era, roots and recording."""
    parser.add_argument("--wire", choices=["legacy", "extension"], default=argparse.SUPPRESS)
    parser.add_argument("--era", choices=["auto", "legacy", "modern"], default=argparse.SUPPRESS)
    add_root_flag(parser)
    add_capability_flags(parser)
    add_recording_flags(parser)


def add_servers_flags(parser: argparse.ArgumentParser) -> None:
    """`taskscope servers`: the config file, which of its servers, and how long each may take."""
    parser.add_argument("--config", dest="servers_config", required=True, metavar="FILE")
    parser.add_argument(
        "--server",
        dest="servers_names",
        action="append",
        default=[],
        metavar="NAME",
        help="only this server of the file (repeat for more; default: every server)",
    )
    parser.add_argument(
        "--timeout",
        dest="servers_timeout",
        type=positive_float,
        default=30.0,
        metavar="S",
        help="how long each server may take to connect (default 30)",
    )


def add_replay_flags(parser: argparse.ArgumentParser) -> None:
    """`taskscope replay FILE`: the recording and how fast to play it."""
    parser.add_argument("file", metavar="FILE")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=positive_float, default=1.0, metavar="N")
    pace.add_argument("--instant", action="store_true", help="show the final state at once")
