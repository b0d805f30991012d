"""The Result tab's text: the tool result's content blocks, structured content and other fields,
and the task's error; server text cleaned, binary data shown as its type and size."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from app.engine.safety.sanitize import one_line, safe_text
from app.engine.tasks.models import Task
from app.view.formatting import RESULT_SOURCE_WORDS, format_size
from widgets.detail_styles import ERROR, HEADING, MUTED
from widgets.json_text import json_text


def _base64_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    return format_size(len(data) * 3 // 4)


def _block_text(block: Any) -> Text:
    """One content block of a tool result: text in full, binary data as type and size."""
    if not isinstance(block, dict):
        return Text.assemble(("unrecognised block\n", MUTED), json_text(block))
    kind = block.get("type")
    if kind == "text":
        body = block.get("text", "")
        length = len(body) if isinstance(body, str) else 0
        return Text.assemble(
            (f"text · {length:,} chars\n", HEADING), safe_text(body, allow_newlines=True)
        )
    if kind in ("image", "audio"):
        mime = one_line(block.get("mimeType", "?"), 60)
        return Text(f"{kind} · {mime} · {_base64_size(block.get('data'))}", style=HEADING)
    if kind == "resource_link":
        parts = [block.get(field) for field in ("uri", "name", "mimeType", "description")]
        shown = " · ".join(one_line(part, 200) for part in parts if part)
        return Text.assemble(("resource link · ", HEADING), shown)
    if kind == "resource":
        resource = block.get("resource") if isinstance(block.get("resource"), dict) else {}
        assert isinstance(resource, dict)
        uri = one_line(resource.get("uri", "?"), 200)
        if isinstance(resource.get("text"), str):
            return Text.assemble(
                (f"resource · {uri}\n", HEADING),
                safe_text(resource["text"], allow_newlines=True),
            )
        size = _base64_size(resource.get("blob"))
        return Text(f"resource · {uri} · {size}", style=HEADING)
    return Text.assemble((f"{one_line(kind, 40)} block\n", HEADING), json_text(block))


def result_text(task: Task | None) -> Text:
    """The Result tab: the tool result's blocks, structured content, and the task's error."""
    if task is None:
        return Text("No state from the server yet.", style=MUTED)
    parts: list[Text] = []
    if task.error is not None:
        error = task.error
        parts.append(Text.assemble(("error", ERROR), f" code {error.code}: "))
        parts[-1].append_text(safe_text(error.message, allow_newlines=True))
        if error.data is not None:
            parts.append(json_text(error.data))
    result = task.result
    if result is None:
        if not parts:
            note = "The task has not finished." if not task.is_terminal else "No result."
            parts.append(Text(note, style=MUTED))
        return Text("\n\n").join(parts)
    how = RESULT_SOURCE_WORDS.get(task.result_source or "")
    source = f" · {how}" if how else ""
    if result.get("isError") is True:
        parts.append(Text(f"The tool reported an error (isError: true){source}", style=ERROR))
    else:
        parts.append(Text(f"Result{source}", style=MUTED))
    content = result.get("content")
    if isinstance(content, list):
        parts.extend(_block_text(block) for block in content)
    if "structuredContent" in result:
        parts.append(Text.assemble(("structured content\n", HEADING)))
        parts[-1].append_text(json_text(result["structuredContent"]))
    others = {k: v for k, v in result.items() if k not in ("content", "structuredContent")}
    others.pop("isError", None)
    if others:
        parts.append(Text.assemble(("other fields\n", HEADING), json_text(others)))
    return Text("\n\n").join(parts)
