"""Runs one parsed command: builds its responder, opens its session and calls the verb.

Imported lazily by `app.cli.main`, so `taskscope --help` and usage errors never load the engine.
Each verb's modules are imported when it runs: `tasks capabilities` and `tools list` load neither
the wire adapters nor pydantic, the prompts or the poller.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from app.cli.errors import cli_error
from app.cli.options import Options
from app.cli.output import CliError, Output
from app.cli.session import Session, open_session
from app.cli.verb_options import (
    CallOptions,
    CheckOptions,
    ExportOptions,
    PromptOptions,
    ResourceOptions,
    ServersOptions,
    TaskOptions,
    UpdateOptions,
    WatchOptions,
)

if TYPE_CHECKING:
    from app.cli.responder import Responder


async def run_command(options: Options, out: Output) -> int:
    """Open the session and run the verb; errors become their error document and exit code."""
    if isinstance(options.verb_options, ExportOptions):
        from app.cli.export import tasks_export

        try:
            return tasks_export(options.verb_options, out)
        except CliError as refused:
            out.error(refused)
            return refused.exit_code
    if isinstance(options.verb_options, ServersOptions):
        from app.cli.servers import servers_command

        given = options.verb_options
        try:
            return await servers_command(given.config, given.names, given.timeout_s, out)
        except CliError as refused:
            out.error(refused)
            return refused.exit_code
    wire = "none"
    advertised = None
    try:
        if options.group == "oauth":
            from app.cli.oauth import oauth_command

            return await oauth_command(options, out)
        responder = build_responder(options, out) if needs_responder(options) else None
        if isinstance(options.verb_options, CheckOptions):
            from app.cli.check import check_command

            return await check_command(options, options.verb_options, responder, out)
        async with open_session(options, out) as session:
            wire, advertised = session.wire, session.advertised
            return await dispatch(options, session, responder, out)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        error = cli_error(exc, wire=wire, task_id=options.task_id, advertised=advertised)
        out.error(error)
        return error.exit_code


def needs_responder(options: Options) -> bool:
    """Whether to build a responder before connecting: the verb may meet input, or `--answers`
    was given (its file is checked, and a bad one refused, whatever the verb)."""
    return (
        options.answers_input
        or options.input.answers is not None
        or isinstance(options.verb_options, CheckOptions)
    )


async def dispatch(
    options: Options, session: Session, responder: Responder | None, out: Output
) -> int:
    """Call the function of the verb the command line names, importing only its modules."""
    group, verb, given = options.group, options.verb, options.verb_options
    if verb == "capabilities":
        from app.cli.discovery import capabilities

        return await capabilities(session, out)
    if group == "tools" and verb == "list":
        from app.cli.discovery import tools_list

        return await tools_list(session, out)
    if group in ("resources", "prompts"):
        return await _catalogue_verb(options, session, out)
    if isinstance(given, CallOptions | WatchOptions):
        if responder is None:
            raise RuntimeError(f"{options.command} needs a responder")
        return await _answering_verb(given, session, responder, out)
    from app.cli import commands

    if isinstance(given, TaskOptions):
        if verb == "get":
            return await commands.task_get(session, given.task_id, out)
        if verb == "result":
            return await commands.task_result(session, given.task_id, out)
        return await commands.task_cancel(session, given.task_id, out)
    if isinstance(given, UpdateOptions):
        return await commands.task_update(session, given.task_id, given.input_responses, out)
    return await commands.task_list(session, out)


async def _catalogue_verb(options: Options, session: Session, out: Output) -> int:
    """`resources list|read`, `prompts list|get`."""
    from app.cli import catalogue

    given = options.verb_options
    if isinstance(given, ResourceOptions):
        return await catalogue.resource_read(session, given.uri, out)
    if isinstance(given, PromptOptions):
        return await catalogue.prompt_get(session, given.name, given.prompt_args, out)
    if options.group == "resources":
        return await catalogue.resources_list(session, out)
    return await catalogue.prompts_list(session, out)


async def _answering_verb(
    given: CallOptions | WatchOptions, session: Session, responder: Responder, out: Output
) -> int:
    """`tools call` or `tasks watch`, with the responder `run_command` built for them."""
    from app.cli.calls import task_watch, tools_call

    if isinstance(given, CallOptions):
        return await tools_call(session, given, responder, out)
    return await task_watch(session, given.task_id, responder, out, given.bounds)


def build_responder(options: Options, out: Output) -> Responder:
    """How this run answers input: `--answers`, `--root`, and a prompter when interactive
    (whose prompts pass through the output's redactor: a server may echo a secret in them)."""
    from app.cli.answers import AnswerBook, load_answers
    from app.cli.prompts import Prompter, TerminalLines
    from app.cli.responder import Responder, interactive_allowed
    from app.engine.forms.input_text import root_entries

    wanted = options.input
    book = load_answers(wanted.answers) if wanted.answers else AnswerBook()
    prompter = None
    if interactive_allowed(wanted.interactive, wanted.yes, _stdin_is_tty()):
        prompter = Prompter(TerminalLines(sys.stdin.fileno()), sys.stderr, out.redact)
    return Responder(book, root_entries(options.session.roots), prompter)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False
