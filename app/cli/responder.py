"""Decides how this run answers each input request: a scripted rule, `--root` paths, or a person.

Order: the first matching `--answers` rule; for `roots/list` the `--root` paths (an empty list, i.e.
declined, when none were given); then a terminal prompt when the run is interactive (a sampling
request may be declined there: the reply then asks for a JSON-RPC error instead of a result).
Anything else stays unanswered, which ends a watch with exit 6. Scripted answers are checked
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
from app.engine.models import InputKind, InputRequest

AnswerSource = Literal["answers", "roots", "prompt"]
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
    _prompt_lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    async def reply(self, request: InputRequest) -> Reply | None:
        """An answer for `request`, or None when this run cannot answer it.

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
        if self.prompter is None:
            return None
        async with self._prompt_lock:
            try:
                response = await run_in_daemon_thread(self.prompter.answer, request)
            except PromptClosed:
                self.prompter = None
                return None
        if isinstance(response, Rejection):
            return Reply({}, "prompt", reject=True)
        return None if response is None else Reply(response, "prompt")


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
