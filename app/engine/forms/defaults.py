"""SEP-1034: an accepted form answer carries the schema's defaults for the fields left out.

Every answer passes here before it is sent, whichever way it was given (the TUI form, a headless
prompt, `--answers`, `tasks update`), so a server sees the same content from each.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from app.engine.tasks.kinds import InputKind

if TYPE_CHECKING:
    from app.engine.tasks.models import InputRequest


def with_defaults(request: InputRequest, response: dict[str, Any]) -> dict[str, Any]:
    """`response` with each omitted field of an accepted form filled from its `default`."""
    schema = request.requested_schema
    if request.kind is not InputKind.FORM or schema is None or response.get("action") != "accept":
        return response
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return response
    content = response.get("content")
    given = content if isinstance(content, dict) else {}
    missing = {
        name: copy.deepcopy(field["default"])
        for name, field in properties.items()
        if isinstance(field, dict) and "default" in field and name not in given
    }
    if not missing:
        return response
    return {**response, "content": {**given, **missing}}
