"""The legacy demo server's way back to its client: server-to-client requests and notifications.

A `ClientLink` wraps the SDK's per-request `ServerSession` and picks the channel once: the
request's own response stream (`tools/call` or `tasks/result`) when built with a request id, or
the connection's standalone channel (stdio pipe, HTTP GET stream) otherwise.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel, TypeAdapter

from app.demo.legacy_tasks import TaskRecord
from app.demo.tool_contract import missing_capability

logger = logging.getLogger(__name__)

_SERVER_REQUEST: TypeAdapter[types.ServerRequest] = TypeAdapter(types.ServerRequest)
_RESULT_TYPES: dict[str, type[BaseModel]] = {
    "elicitation/create": types.ElicitResult,
    "sampling/createMessage": types.CreateMessageResult,
    "roots/list": types.ListRootsResult,
    "ping": types.EmptyResult,
}


def legacy_request(raw: dict[str, Any]) -> dict[str, Any]:
    """The catalogue's request as the 2025-11-25 wire wants it (URL elicitations need an id)."""
    params = dict(raw.get("params") or {})
    if raw.get("method") == "elicitation/create" and params.get("mode") == "url":
        params.setdefault("elicitationId", str(uuid.uuid4()))
    return {"method": raw.get("method"), "params": params}


def with_meta(raw: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """A copy of the request with `meta` merged into `params._meta`."""
    params = dict(raw.get("params") or {})
    params["_meta"] = {**(params.get("_meta") or {}), **meta}
    return {**raw, "params": params}


def describe_request(raw: dict[str, Any]) -> str:
    """A short human description of what a request waits for (for `statusMessage`)."""
    method = raw.get("method")
    params = raw.get("params") or {}
    if method == "elicitation/create":
        return str(params.get("message") or "an answer from the user")
    if method == "sampling/createMessage":
        return "a reply from the client's model"
    if method == "roots/list":
        return "the client's roots"
    return str(method)


class ClientLink:
    """Sends requests and notifications to one client over one chosen channel."""

    def __init__(
        self, session: ServerSession, related_request_id: types.RequestId | None = None
    ) -> None:
        self._session = session
        self._related_request_id = related_request_id

    def answerable(self, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The requests the client declared it can answer; the others are logged and left out
        (a server must not send elicitation, sampling or roots requests, nor URL-mode elicitation,
        to a client that did not declare the capability)."""
        declared = self._session.client_capabilities
        capabilities = (
            {} if declared is None else declared.model_dump(by_alias=True, exclude_none=True)
        )
        kept: dict[str, dict[str, Any]] = {}
        for key, raw in requests.items():
            missing = missing_capability({key: raw}, capabilities)
            if missing is None:
                kept[key] = raw
            else:
                logger.info(
                    "request %r (%s) not sent: the client did not declare %s",
                    key,
                    raw.get("method"),
                    missing,
                )
        return kept

    async def request(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Send a server-to-client request (`{"method", "params"}`) and return the raw result.

        Raises `MCPError` when the client answers with an error and `ValidationError` when the
        request or its answer is malformed.
        """
        request = _SERVER_REQUEST.validate_python(legacy_request(raw))
        metadata = (
            ServerMessageMetadata(related_request_id=self._related_request_id)
            if self._related_request_id is not None
            else None
        )
        result = await self._session.send_request(
            request, _RESULT_TYPES[request.method], metadata=metadata
        )
        answer = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        answer.pop("resultType", None)
        return answer

    async def notify_status(self, record: TaskRecord) -> None:
        """Send `notifications/tasks/status` with the full task; never raises."""
        params = types.TaskStatusNotificationParams.model_validate(record.wire())
        notification = types.TaskStatusNotification(params=params)
        await self._notify(cast(types.ServerNotification, notification))

    async def progress(
        self, token: str | int, done: float, total: float | None, message: str | None
    ) -> None:
        """Send `notifications/progress` for `token`; never raises."""
        notification = types.ProgressNotification(
            params=types.ProgressNotificationParams(
                progress_token=token, progress=done, total=total, message=message
            )
        )
        await self._notify(notification)

    async def _notify(self, notification: types.ServerNotification) -> None:
        try:
            await self._session.send_notification(notification, self._related_request_id)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as error:
            logger.info(
                "dropped %s: the client's channel is closed (%r)", notification.method, error
            )
