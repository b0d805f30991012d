"""The Raw tab: the task as the client normalized it beside the frame it came from (or the frame
that broke the protocol), each as JSON."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel
from rich.text import Text

from app.engine.rpc.rpc_types import Frame
from app.engine.safety.sanitize import safe_text
from app.engine.tasks.models import Task
from app.view.state import WatchedTask
from widgets.detail_styles import HEADING
from widgets.json_text import json_text


def frame_payload(frame: object) -> Any:
    """A frame's JSON-ish content: a connection `Frame`'s message (or raw text), or the value."""
    if isinstance(frame, Frame):
        return frame.message if frame.message is not None else frame.raw
    return frame


def _model_json(model: BaseModel, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A model's fields as JSON-ready values, leaving server dicts as they are.

    Pydantic's own dump recurses into results and gives up on deeply nested ones; here only the
    (shallow) model nesting is walked and `json_text` caps the server data itself.
    """
    out: dict[str, Any] = {}
    for name in type(model).model_fields:
        if name in exclude:
            continue
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            value = _model_json(value)
        elif isinstance(value, tuple):
            value = [_model_json(v) if isinstance(v, BaseModel) else v for v in value]
        elif isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, Enum):
            value = value.value
        out[name] = value
    return out


def _normalized(task: Task | None) -> Any:
    return None if task is None else _model_json(task, frozenset({"raw"}))


def _raw_side(watched: WatchedTask) -> tuple[str, Any]:
    if watched.violation is not None:
        return "Offending frame", frame_payload(watched.violation.frame)
    if watched.last_frame is not None:
        return "Last frame", frame_payload(watched.last_frame)
    return "Last raw state", watched.task.raw if watched.task else None


def raw_texts(watched: WatchedTask) -> tuple[Text, Text]:
    """The two sides of the Raw tab: the normalized task, and the frame or raw state."""
    normalized = Text("Normalized\n", style=HEADING)
    normalized.append_text(json_text(_normalized(watched.task)))
    title, payload = _raw_side(watched)
    raw = Text(f"{title}\n", style=HEADING)
    raw.append_text(
        safe_text(payload, allow_newlines=True) if isinstance(payload, str) else json_text(payload)
    )
    return normalized, raw
