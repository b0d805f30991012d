"""`roots/list` is answered at once from the configured roots (`--root`), never put to the user.

Roots are configuration, not a question. With roots configured taskscope declares the `roots`
capability and answers with them. Without, it declares none; a server that asks anyway gets the
spec's answer for a client without roots, `-32601` "Roots not supported", where the wire has error
replies (a legacy server request), else an empty list (an extension `inputRequests` entry or an
MRTR round, whose answers can only be results). Both faces send it through `send_roots`, so the
CLI and the TUI answer alike and say the same about what they sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine.rpc.envelopes import METHOD_NOT_FOUND
from app.engine.safety.sanitize import one_line

if TYPE_CHECKING:
    from app.engine.tasks.contract import TasksAdapter
    from app.engine.tasks.models import InputRequest

ROOTS_NOT_SUPPORTED = "Roots not supported: no --root was given"
"""The error message of a legacy `roots/list` asked of a run without roots."""


@dataclass(frozen=True, slots=True)
class RootsAnswer:
    """What a `roots/list` gets: a result to send, or (None) the `-32601` error; and a line saying
    which it was, for the task's timeline and the CLI's stderr."""

    response: dict[str, Any] | None
    summary: str


def roots_answer(request: InputRequest, roots: Sequence[dict[str, str]]) -> RootsAnswer:
    """The answer to `request` (a `roots/list`) for the configured root entries."""
    if roots:
        uris = ", ".join(one_line(str(root.get("uri", "")), 120) for root in roots)
        count = f"{len(roots)} root{'s' if len(roots) != 1 else ''}"
        return RootsAnswer({"roots": list(roots)}, f"roots/list answered with {count}: {uris}")
    if request.wire == "legacy":
        return RootsAnswer(
            None, f"roots/list declined: no --root was given (error {METHOD_NOT_FOUND})"
        )
    return RootsAnswer({"roots": []}, "roots/list answered with no roots: no --root was given")


async def send_roots(
    adapter: TasksAdapter, request: InputRequest, roots: Sequence[dict[str, str]]
) -> RootsAnswer:
    """Send the answer `roots_answer` chose (raises what the adapter raises)."""
    answer = roots_answer(request, roots)
    if answer.response is not None:
        await adapter.answer(request, answer.response)
    else:  # a legacy server request: it can always get an error reply
        await adapter.reject(request, code=METHOD_NOT_FOUND, message=ROOTS_NOT_SUPPORTED)
    return answer
