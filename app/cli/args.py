"""The `taskscope` command line: verbs and flags named like the reference CLI (MCPJam `tasks`).

Parsing never exits on bad input: every mistake becomes a `CliError` usage error (exit 2), printed
the same way as every other error. `parse` is the one reader of argparse's namespace: it returns
the typed `Options` every command runs on.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from app import __version__
from app.cli.flags import (
    FlagAdder,
    add_call_flags,
    add_check_flags,
    add_demo_flags,
    add_export_flags,
    add_input_flags,
    add_prompt_flags,
    add_replay_flags,
    add_servers_flags,
    add_target_flags,
    add_task_id_flag,
    add_update_flags,
    add_uri_flag,
    add_watch_flags,
)
from app.cli.jsonarg import read_json_object
from app.cli.options import (
    AuthFlags,
    InputOptions,
    Options,
    SessionOptions,
    TargetOptions,
)
from app.cli.output import CliError, usage_error
from app.engine.rpc.reconnect import DEFAULT_ATTEMPTS

if TYPE_CHECKING:
    from app.cli.verb_options import VerbOptions
    from app.engine.rpc.era import EraPreference
    from app.engine.rpc.targets import HttpTransportKind
    from app.engine.tasks.models import Wire

GROUPS = (
    "tasks",
    "tools",
    "resources",
    "prompts",
    "check",
    "oauth",
    "servers",
    "demo",
    "replay",
    "demo-server",
)
"""The command groups, in the order `--help` lists them."""

TARGET_FLAGS = "--url, --command, --config/--server or --demo"

SERVER_NAMED_FLAGS = ("--task-id", "--tool-name", "--name", "--uri")
"""Flags whose value is a name the server chose: it may begin with a dash (a task id like
`-uElDA5Ep…`), which argparse would otherwise read as an unknown flag."""

TARGETS = """\
targets (one of):
  --url URL [--transport streamable|sse] [--header 'K: V']... [--bearer TOKEN]
      [--auth-mode interactive|client_credentials|none] [--client-id ID]
      [--client-secret SECRET] [--client-metadata-url URL] [--client-private-key FILE]
      [--client-signing-alg ALG] [--no-browser]
  --command 'cmd args' [--env K=V]... [--cwd DIR]
  --config FILE --server NAME
  --demo legacy|extension      the built-in demo server over stdio
"""

EXITS = """\
exit codes: 0 ok / completed, 1 failed, cancelled, expired, unreachable or error,
  2 usage, 6 input needed that this run could not answer, 7 timeout, 130 aborted.
"""

CHECK_EXITS = """\
exit codes: 0 passed, 1 failed (a MUST rule broken), 2 usage,
  3 incomplete (a deciding check could not run, or the server could not be connected:
  the report says why), 130 aborted.

The handshake is bounded by --timeout-ms; each scenario of checks, and the cancelling of
  the tasks the run made, by 4 times it.
"""

ANSWERS = """\
--answers FILE scripts input for unattended runs: a JSON list of rules, first match wins,
  [{"match": {"key": "…", "message": "regex", "method": "…"}, "response": {…}}]
  (every match key given must hold; the response is sent as written, after a schema check).
"""

MORE = """\
An HTTP server that answers 401 gets the MCP authorization flow (OAuth 2.1 with PKCE): the
  browser opens to sign in, and the credentials are kept (mode 0600) in the data folder for the
  next run; `taskscope oauth login|status|logout --url URL` does it explicitly.

--trace-frames FILE writes every JSON-RPC frame in and out as one JSON object per line
(secrets redacted), for debugging a server or counting polls.

--record FILE appends every frame, task event and user action to FILE as NDJSON (secrets
redacted), for `taskscope replay FILE` and `taskscope tasks export --from-recording FILE`.
--readonly never sends a create, call, cancel or answer: such a command exits 1 (READONLY).
"""

EPILOG = "\n".join((TARGETS, EXITS, ANSWERS, MORE))
CHECK_EPILOG = "\n".join((TARGETS, CHECK_EXITS, ANSWERS, MORE))
"""`check` has exit codes of its own (3 incomplete; no 6 or 7: it answers or declines every
question and turns every timeout into a verdict)."""


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


def build_parser() -> ArgumentParser:
    """The full `taskscope` parser (each verb's flags are added when that verb is parsed)."""
    parser = ArgumentParser(
        prog="taskscope",
        description="Inspect and drive MCP Tasks on both tasks wires (legacy and extension).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"taskscope {__version__}", help="print the version"
    )
    add_target_flags(parser)
    groups = parser.add_subparsers(
        dest="group",
        metavar="{" + ",".join(GROUPS) + "}",
    )

    def leaf(
        sub: argparse._SubParsersAction[ArgumentParser],
        name: str,
        text: str,
        *verb_flags: FlagAdder,
        epilog: str = EPILOG,
    ) -> None:
        command = sub.add_parser(
            name,
            help=text,
            description=text,
            epilog=epilog,
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

    leaf(
        groups,
        "check",
        "Judge the server's tasks implementation: a verdict per spec rule, with the frames "
        "behind it (exit 0 passed, 1 failed, 2 usage, 3 incomplete).",
        add_check_flags,
        epilog=CHECK_EPILOG,
    )
    oauth = groups.add_parser("oauth", help="sign in to an OAuth-protected server").add_subparsers(
        dest="verb", required=True
    )
    leaf(
        oauth, "login", "Sign in to the --url server (in the browser, or with client credentials)."
    )
    leaf(oauth, "status", "Show the stored sign-in: issuer, client id, scopes, expiry.")
    leaf(oauth, "logout", "Delete the stored tokens and client registration of the server.")

    add_servers_flags(
        groups.add_parser(
            "servers",
            help="list the servers of an MCP client config file with their state and wire",
            description=(
                "Connect to every server of --config (or the --server ones) side by side and "
                "print each one's state, identity, era and tasks wire as JSON (exit 0 even when "
                "some fail, each failure named)."
            ),
        )
    )
    add_demo_flags(groups.add_parser("demo", help="open the TUI on the built-in demo server"))
    add_replay_flags(
        groups.add_parser("replay", help="open the TUI on a recording (no server, read-only)")
    )
    groups.add_parser("demo-server", help="run a built-in demo server", add_help=False)
    return parser


class _NotForTheInspector(Exception):
    """The inspector's parser met something it does not know: the full parser reads the line."""


class _InspectorParser(argparse.ArgumentParser):
    """A parser that gives up (`_NotForTheInspector`) instead of reporting an error."""

    def error(self, message: str) -> NoReturn:
        raise _NotForTheInspector(message)


def _inspector_namespace(arguments: Sequence[str]) -> argparse.Namespace | None:
    """The namespace of a command line that opens the full-screen UI (target flags, or `demo`
    and its flags), read by a parser of only those: building every verb's parser is 3 ms of the
    UI's start. None for anything else (a verb, help, an abbreviated flag, a value that begins
    with a dash, a mistake): the full parser reads that line and says what is wrong with it."""
    if any(token in GROUPS and token != "demo" for token in arguments):
        return None  # a headless command, most likely: no short parser built for nothing
    parser = _InspectorParser(add_help=False, allow_abbrev=False)
    add_target_flags(parser)
    groups = parser.add_subparsers(dest="group")
    demo = groups.add_parser("demo", add_help=False, allow_abbrev=False)
    add_demo_flags(demo)
    flags = parser._option_string_actions.keys() | demo._option_string_actions.keys()
    if any(token.startswith("-") and token.split("=", 1)[0] not in flags for token in arguments):
        return None  # the full parser may read it as help, an abbreviation or a flag
    try:
        namespace, rest = parser.parse_known_args(arguments)
    except _NotForTheInspector:
        return None
    return None if rest else namespace


def parse(argv: Sequence[str]) -> Options:
    """Parse `argv`, check the combinations argparse cannot express, and read the result."""
    arguments = glue_dashed_values(argv)
    namespace = _inspector_namespace(arguments)
    if namespace is None:
        namespace = build_parser().parse_args(arguments)
    options = read_options(namespace)
    advertising = options.session.withhold or options.session.client_capabilities is not None
    if options.group == "check" and advertising:
        raise usage_error(
            "check chooses per request what it declares (some rules need the tasks extension, "
            "some its absence): --withhold and --client-capabilities do not apply to it"
        )
    if options.group == "check" and options.session.readonly:
        raise usage_error(
            "check creates, answers and cancels tasks to judge them: --readonly forbids that"
        )
    if options.group == "tools" and options.verb == "call":
        from app.cli.verb_args import check_call_flags

        check_call_flags(options)
    return options


def glue_dashed_values(argv: Sequence[str]) -> list[str]:
    """`--task-id -abc` becomes `--task-id=-abc` for the server-named flags; a following `--flag`
    is left alone, so a forgotten value still gets argparse's "expected one argument"."""
    glued: list[str] = []
    tokens = iter(argv)
    for token in tokens:
        if token in SERVER_NAMED_FLAGS:
            value = next(tokens, None)
            if value is None:
                glued.append(token)
            elif value.startswith("-") and not value.startswith("--") and value != "-h":
                glued.append(f"{token}={value}")
            else:
                glued.extend((token, value))
        else:
            glued.append(token)
    return glued


def read_options(namespace: argparse.Namespace) -> Options:
    """The typed options of a parsed command line (absent suppressed flags become defaults; the
    parser's `choices` already checked the values cast to their literals)."""
    group = _text(namespace, "group")
    verb = _text(namespace, "verb")
    return Options(
        group=group,
        verb=verb,
        target=TargetOptions(
            urls=_texts(namespace, "url"),
            transport=cast("HttpTransportKind | None", _text(namespace, "transport")),
            headers=_texts(namespace, "header"),
            bearer=_text(namespace, "bearer"),
            commands=_texts(namespace, "command"),
            env=_texts(namespace, "env"),
            cwd=_text(namespace, "cwd"),
            config=_text(namespace, "config"),
            servers=tuple(dict.fromkeys(_texts(namespace, "server"))),
            demo=cast("Wire | None", _text(namespace, "demo")),
            auth=AuthFlags(
                mode=_text(namespace, "auth_mode"),
                client_id=_text(namespace, "client_id"),
                client_secret=_text(namespace, "client_secret"),
                client_metadata_url=_text(namespace, "client_metadata_url"),
                private_key_file=_text(namespace, "client_private_key"),
                signing_algorithm=_text(namespace, "client_signing_alg"),
                no_browser=_given(namespace, "no_browser"),
            ),
        ),
        session=SessionOptions(
            era=cast("EraPreference", _text(namespace, "era") or "auto"),
            wire=cast("Wire | None", _text(namespace, "wire")),
            redact=_texts(namespace, "redact"),
            roots=_texts(namespace, "root"),
            withhold=tuple(dict.fromkeys(_texts(namespace, "withhold"))),
            client_capabilities=_json_object(namespace, "client_capabilities"),
            readonly=_given(namespace, "readonly"),
            record=_text(namespace, "record") or None,
            trace_frames=_text(namespace, "trace_frames") or None,
            reconnect_attempts=_whole(namespace, "reconnect_attempts", DEFAULT_ATTEMPTS),
        ),
        input=InputOptions(
            answers=_text(namespace, "answers") or None,
            interactive=_given(namespace, "interactive"),
            yes=_given(namespace, "yes"),
        ),
        verb_options=_verb_options(namespace, group, verb),
    )


def _verb_options(
    namespace: argparse.Namespace, group: str | None, verb: str | None
) -> VerbOptions | None:
    """The flags of a verb that takes its own, or None (`app.cli.verb_args` reads them, loaded
    for any command but the full-screen UI, whose flags are all target and session flags)."""
    if group in (None, "demo"):
        return None
    from app.cli.verb_args import read_verb_options

    return read_verb_options(namespace, group, verb)


def _text(namespace: argparse.Namespace, name: str) -> str | None:
    """A suppressed-default string flag: its value, or None when it was not given."""
    value = getattr(namespace, name, None)
    return value if isinstance(value, str) else None


def _texts(namespace: argparse.Namespace, name: str) -> tuple[str, ...]:
    """A suppressed-default repeatable flag: its values, or () when it was not given."""
    value = getattr(namespace, name, None)
    return tuple(value) if isinstance(value, list) else ()


def _json_object(namespace: argparse.Namespace, name: str) -> dict[str, Any] | None:
    """A suppressed-default `JSON|@FILE|-` flag: the object it denotes (a usage error when it is
    not one), or None when it was not given."""
    text = _text(namespace, name)
    if text is None:
        return None
    return read_json_object(text, "--" + name.replace("_", "-"))


def _given(namespace: argparse.Namespace, name: str) -> bool:
    """A boolean flag: True only when it was given."""
    return getattr(namespace, name, False) is True


def _whole(namespace: argparse.Namespace, name: str, default: int) -> int:
    """A suppressed-default whole-number flag: its value, or `default` when it was not given."""
    value = getattr(namespace, name, None)
    return value if isinstance(value, int) else default


def no_target_error() -> CliError:
    """The usage error for a command that was given nowhere to connect to."""
    return usage_error(
        f"no server to connect to: give one of {TARGET_FLAGS}",
        {"hint": "try the built-in demo: taskscope tasks capabilities --demo legacy"},
    )
