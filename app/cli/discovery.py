"""What a server offers: `tasks capabilities` and `tools list`, and the check every tasks verb
makes against what the server declared.

Kept apart from the task verbs so that these two commands never load the wire adapters, the
models (pydantic) or the poller: `tasks capabilities` starts about as fast as a bare HTTP script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.cli.output import EXIT_OK, TASKS_UNSUPPORTED, CliError, Output

if TYPE_CHECKING:
    from app.cli.session import Session

MAX_TOOL_PAGES = 100


def require(declared: bool, verb: str, session: Session) -> None:
    """Refuse (without sending) a verb the server never declared on its tasks wire."""
    if declared:
        return
    raise CliError(
        TASKS_UNSUPPORTED,
        f"the server did not declare {verb} (tasks wire: {session.wire})",
        {
            "verb": verb,
            "wire": session.wire,
            "declared": session.capabilities.as_json(),
            "sent": False,
        },
    )


async def capabilities(session: Session, out: Output) -> int:
    """`tasks capabilities`: the resolved wire and declared verbs (exit 0 whatever they are)."""
    out.result(session.capabilities.as_json())
    return EXIT_OK


async def tools_list(session: Session, out: Output) -> int:
    """`tools list`: every page of `tools/list`."""
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await session.connection.request("tools/list", {"cursor": cursor} if cursor else {})
        found = page.get("tools")
        tools.extend(found if isinstance(found, list) else [])
        next_cursor = page.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor or next_cursor == cursor:
            break
        cursor = next_cursor
    out.result({"tools": tools})
    return EXIT_OK
