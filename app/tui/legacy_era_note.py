"""The inspector's face of `engine/rpc/back_channel`: a plain call that a 2026-07-28 connection's
server refused for want of a back-channel for its questions gets a toast naming the `taskscope
--era legacy` command, the CLI's hint in the CLI's words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from widgets.plain import toast

if TYPE_CHECKING:
    from app.engine.record.recording import SessionInfo
    from widgets.plain import Notifier

NOTE_TITLE = "Needs the legacy era"
NOTE_TIMEOUT_S = 20.0
"""Long enough to read the command and copy it by hand."""


def note_if_no_back_channel(
    app: Notifier, info: SessionInfo | None, failure: BaseException | dict[str, Any]
) -> None:
    """Toast the legacy-era hint when `failure` (a call's exception or result, on the server
    `info` describes) is the refusal of a server that could not ask its questions."""
    from app.engine.rpc.back_channel import INSPECTOR_ON_LEGACY, back_channel_hint
    from app.engine.rpc.rpc_types import RpcError

    if info is None or (isinstance(failure, BaseException) and not isinstance(failure, RpcError)):
        return
    hint = back_channel_hint(failure, info.protocol_version, INSPECTOR_ON_LEGACY)
    if hint is not None:
        toast(app, hint, title=NOTE_TITLE, severity="warning", timeout=NOTE_TIMEOUT_S)
