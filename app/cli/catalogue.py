"""The server's other offerings: `resources list|read` and `prompts list|get`.

Each prints one JSON document with the server's answer as it came (all pages of a list), like
`tools list`; none loads the wire adapters or pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.jsonarg import read_json_object
from app.cli.output import EXIT_OK, Output

if TYPE_CHECKING:
    from app.cli.session import Session


async def resources_list(session: Session, out: Output) -> int:
    """`resources list`: every page of `resources/list`."""
    out.result({"resources": await session.list_all("resources/list", "resources")})
    return EXIT_OK


async def resource_read(session: Session, uri: str, out: Output) -> int:
    """`resources read --uri U`: the contents of one resource."""
    out.result(await session.request("resources/read", {"uri": uri}))
    return EXIT_OK


async def prompts_list(session: Session, out: Output) -> int:
    """`prompts list`: every page of `prompts/list`."""
    out.result({"prompts": await session.list_all("prompts/list", "prompts")})
    return EXIT_OK


async def prompt_get(session: Session, name: str, raw_arguments: str | None, out: Output) -> int:
    """`prompts get --name N [--prompt-args JSON]`: one prompt, filled with its arguments."""
    params: dict[str, object] = {"name": name}
    if raw_arguments:
        params["arguments"] = read_json_object(raw_arguments, "--prompt-args")
    out.result(await session.request("prompts/get", params))
    return EXIT_OK
