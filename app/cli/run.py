"""Runs one parsed command: builds its responder, opens its session and calls the verb.

Imported lazily by `app.cli.main`, so `taskscope --help` and usage errors never load the engine.
Each verb's modules are imported when it runs: `tasks capabilities` and `tools list` load neither
the wire adapters nor pydantic, the prompts or the poller.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from app.cli.args import DEFAULT_DURATION_MS, option, options
from app.cli.errors import cli_error
from app.cli.output import CliError, Output
from app.cli.session import Session, open_session

if TYPE_CHECKING:
    from app.cli.responder import Responder
    from app.cli.watch import WatchBounds

ANSWERING_VERBS = frozenset({("tools", "call"), ("tasks", "watch")})
"""The verbs that may meet input requests, and so need a responder."""


async def run_command(namespace: argparse.Namespace, out: Output) -> int:
    """Open the session and run the verb; errors become their error document and exit code."""
    if namespace.group == "tasks" and namespace.verb == "export":
        from app.cli.export import tasks_export

        try:
            return tasks_export(namespace, out)
        except CliError as refused:
            out.error(refused)
            return refused.exit_code
    wire = "none"
    task_id: str | None = getattr(namespace, "task_id", None)
    try:
        responder = build_responder(namespace, out) if needs_responder(namespace) else None
        async with open_session(namespace, out) as session:
            wire = session.wire
            return await dispatch(namespace, session, responder, out)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        error = cli_error(exc, wire=wire, task_id=task_id)
        out.error(error)
        return error.exit_code


def needs_responder(namespace: argparse.Namespace) -> bool:
    """Whether to build a responder before connecting: the verb may meet input, or `--answers`
    was given (its file is checked, and a bad one refused, whatever the verb)."""
    return (namespace.group, namespace.verb) in ANSWERING_VERBS or bool(
        option(namespace, "answers")
    )


async def dispatch(
    namespace: argparse.Namespace, session: Session, responder: Responder | None, out: Output
) -> int:
    """Call the function of the verb the command line names, importing only its modules."""
    group, verb = namespace.group, namespace.verb
    if verb == "capabilities":
        from app.cli.discovery import capabilities

        return await capabilities(session, out)
    if group == "tools" and verb == "list":
        from app.cli.discovery import tools_list

        return await tools_list(session, out)
    if group in ("resources", "prompts"):
        return await _catalogue_verb(namespace, session, out)
    if (group, verb) in ANSWERING_VERBS:
        return await _answering_verb(namespace, session, responder, out)
    from app.cli import commands

    if verb == "list":
        return await commands.task_list(session, out)
    if verb == "get":
        return await commands.task_get(session, namespace.task_id, out)
    if verb == "result":
        return await commands.task_result(session, namespace.task_id, out)
    if verb == "cancel":
        return await commands.task_cancel(session, namespace.task_id, out)
    return await commands.task_update(session, namespace.task_id, namespace.input_responses, out)


async def _catalogue_verb(namespace: argparse.Namespace, session: Session, out: Output) -> int:
    """`resources list|read`, `prompts list|get`."""
    from app.cli import catalogue

    if namespace.group == "resources":
        if namespace.verb == "list":
            return await catalogue.resources_list(session, out)
        return await catalogue.resource_read(session, namespace.uri, out)
    if namespace.verb == "list":
        return await catalogue.prompts_list(session, out)
    return await catalogue.prompt_get(session, namespace.name, namespace.prompt_args, out)


async def _answering_verb(
    namespace: argparse.Namespace, session: Session, responder: Responder | None, out: Output
) -> int:
    """`tools call` or `tasks watch`, with the responder `run_command` built for them."""
    from app.cli.calls import task_watch, tools_call

    if responder is None:
        raise RuntimeError(f"{namespace.group} {namespace.verb} needs a responder")
    if namespace.group == "tools":
        return await tools_call(session, namespace, responder, out, watch_bounds(namespace))
    return await task_watch(session, namespace.task_id, responder, out, watch_bounds(namespace))


def watch_bounds(namespace: argparse.Namespace) -> WatchBounds:
    """The bounds and pacing of a watching command's flags."""
    from app.cli.watch import WatchBounds

    return WatchBounds(
        user_min_ms=namespace.poll_interval_ms,
        duration_s=(namespace.duration_ms or DEFAULT_DURATION_MS) / 1000,
        max_input_rounds=namespace.max_input_rounds,
        max_consecutive_errors=namespace.max_consecutive_errors,
    )


def build_responder(namespace: argparse.Namespace, out: Output) -> Responder:
    """How this run answers input: `--answers`, `--root`, and a prompter when interactive
    (whose prompts pass through the output's redactor: a server may echo a secret in them)."""
    from app.cli.answers import AnswerBook, load_answers
    from app.cli.prompts import Prompter, TerminalLines
    from app.cli.responder import Responder, interactive_allowed
    from app.engine.forms.input_text import root_entries

    answers_path = option(namespace, "answers")
    book = load_answers(answers_path) if answers_path else AnswerBook()
    prompter = None
    wants_prompts = bool(getattr(namespace, "interactive", False))
    if interactive_allowed(wants_prompts, bool(getattr(namespace, "yes", False)), _stdin_is_tty()):
        prompter = Prompter(TerminalLines(sys.stdin.fileno()), sys.stderr, out.redact)
    return Responder(book, root_entries(options(namespace, "root")), prompter)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False
