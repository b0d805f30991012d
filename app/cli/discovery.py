"""What a server offers: `tasks capabilities` and `tools list`, and the check every tasks verb
makes against what the server declared.

Kept apart from the task verbs so that these two commands never load the wire adapters, the
models (pydantic) or the poller: `tasks capabilities` starts about as fast as a bare HTTP script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.cli.output import EXIT_OK, TASKS_UNSUPPORTED, CliError, Output
from app.engine.rpc.tools_list import list_tools

if TYPE_CHECKING:
    from app.cli.session import Session


def require(
    declared: bool,
    verb: str,
    session: Session,
    *,
    refusal: tuple[str, str] | None = None,
) -> None:
    """Refuse (without sending) a verb the server never declared on its tasks wire; `refusal`
    (a message and a hint) says more where the server declared part of what the verb needs."""
    if declared:
        return
    message = f"the server did not declare {verb} (tasks wire: {session.wire})"
    details: dict[str, Any] = {
        "verb": verb,
        "wire": session.wire,
        "declared": session.capabilities.as_json(),
        "sent": False,
    }
    if refusal is not None:
        message, details["hint"] = refusal
    raise CliError(TASKS_UNSUPPORTED, message, details)


async def capabilities(session: Session, out: Output) -> int:
    """`tasks capabilities`: the resolved wire and declared verbs (exit 0 whatever they are),
    how the era was decided, and what taskscope advertised as a client."""
    decision = session.info.era_decision
    era = decision.as_json() if decision is not None else None
    advertised = session.advertised.as_json(legacy=session.info.era == "legacy")
    out.result({**session.capabilities.as_json(), "era": era, "advertised": advertised})
    return EXIT_OK


async def tools_list(session: Session, out: Output) -> int:
    """`tools list`: every page of `tools/list`, each tool as the server sent it; tools that
    cannot be called (SEP-2243 annotations) are named with the reason under `unusable`."""
    listed = await list_tools(session)
    document: dict[str, Any] = {"tools": [entry.tool for entry in listed]}
    unusable = {entry.tool["name"]: entry.problem for entry in listed if entry.problem}
    if unusable:
        document["unusable"] = unusable
    out.result(document)
    return EXIT_OK
