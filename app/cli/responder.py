"""Decides how this run answers each input request: a scripted rule, `--root` paths, or a person.

Order: the first matching `--answers` rule; for `roots/list` the `--root` paths (sent at once
by `app.engine.rpc.roots`: declined with `-32601` when none were given); then a terminal prompt
when the run is interactive (a sampling request may be declined there: the reply then asks for a
JSON-RPC error instead of a result). A run that cannot ask (no terminal, `--yes`, `CI`) declines
the rest, so the server is not left waiting: an elicitation gets `{"action": "decline"}`, a
legacy request an error reply; the run still ends with exit 6. Scripted answers are checked
against the request's schema before they are sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from app.cli.answers import AnswerBook, response_problems
from app.cli.prompts import PromptClosed, Prompter, Rejection
from app.engine.tasks.models import InputKind, InputRequest

AnswerSource = Literal["answers", "roots", "prompt", "declined"]
"""Where a reply came from; "declined": this run could not answer, so it declines."""
T = TypeVar("T")


@dataclass(frozen=True)
class Reply:
    """An answer ready to send, and where it came from. `reject`: decline the request with a
    JSON-RPC error instead (`response` is then empty)."""

    response: dict[str, Any]
    source: AnswerSource
    reject: bool = False


class InvalidAnswer(Exception):
    """A scripted answer that does not fit the request's schema; nothing was sent."""

    def __init__(self, request: InputRequest, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.request = request
        self.problems = problems


def interactive_allowed(
    requested: bool, yes: bool, stdin_is_terminal: bool, env: Mapping[str, str] | None = None
) -> bool:
    """Whether this run may prompt: asked for, on a terminal, and not vetoed by --yes, CI or env."""
    env = os.environ if env is None else env
    vetoed = any(
        env.get(name, "").strip().lower() not in ("", "0", "false", "no")
        for name in ("CI", "TASKSCOPE_NON_INTERACTIVE")
    )
    return requested and stdin_is_terminal and not yes and not vetoed


@dataclass
class Responder:
    """Answers input requests for one command run (prompts are asked one at a time)."""

    answers: AnswerBook = field(default_factory=AnswerBook)
    roots: list[dict[str, str]] = field(default_factory=list)
    prompter: Prompter | None = None
    declined: list[InputRequest] = field(default_factory=list)
    """Requests this run could not answer and declined (recorded once the decline was sent)."""
    _prompt_lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    async def reply(self, request: InputRequest) -> Reply:
        """An answer for `request`: scripted, the roots, typed at a prompt, or a decline when this
        run cannot answer it (source "declined").

        Raises `InvalidAnswer` when the matching scripted answer does not fit the request.
        """
        scripted = self.answers.find(request)
        if scripted is not None:
            problems = response_problems(request, scripted)
            if problems:
                raise InvalidAnswer(request, problems)
            return Reply(scripted, "answers")
        if request.kind is InputKind.ROOTS:
            return Reply({"roots": list(self.roots)}, "roots")
        async with self._prompt_lock:
            if self.prompter is None:
                return decline(request)
            try:
                response = await run_in_daemon_thread(self.prompter.answer, request)
            except PromptClosed:
                self.prompter = None
                return decline(request)
        if isinstance(response, Rejection):
            return Reply({}, "prompt", reject=True)
        return decline(request) if response is None else Reply(response, "prompt")


def decline(request: InputRequest) -> Reply:
    """The decline this run sends for a request it cannot answer: an elicitation's "decline"
    result, else a JSON-RPC error reply (which only the legacy wire can carry)."""
    if request.method == "elicitation/create":
        return Reply({"action": "decline"}, "declined")
    return Reply({}, "declined", reject=True)


async def run_in_daemon_thread(function: Callable[[InputRequest], T], argument: InputRequest) -> T:
    """Run a blocking call (a terminal prompt) without tying the event loop's exit to it.

    A daemon thread, unlike the default executor, never keeps the process alive after Ctrl-C.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def deliver(outcome: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, outcome)

    def work() -> None:
        try:
            result = function(argument)
        except BaseException as exc:  # handed to the awaiting coroutine
            error = exc
            deliver(lambda: future.set_exception(error))
        else:
            deliver(lambda: future.set_result(result))

    threading.Thread(target=work, name="taskscope-prompt", daemon=True).start()
    return await future
