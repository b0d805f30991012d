"""The differences between two successive raw task states, as short one-line entries.

Shown in a task's timeline and exported with it; values are compact JSON cut to a width, and the
walk is iterative, so deep or huge server payloads cannot blow the stack or the screen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from app.engine.safety import deep_json

DiffOp = Literal["added", "removed", "changed"]

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""One encoder for every compact value (`json.dumps` with options builds a new one per call)."""


@dataclass(frozen=True, slots=True)
class DiffEntry:
    """One difference between two JSON states; values are kept as short compact JSON text."""

    op: DiffOp
    path: str
    before: str | None = None
    after: str | None = None

    def describe(self) -> str:
        """A one-line, human-readable form such as `~ status: "working" → "completed"`."""
        if self.op == "added":
            return f"+ {self.path}: {self.after}"
        if self.op == "removed":
            return f"- {self.path}: {self.before}"
        return f"~ {self.path}: {self.before} → {self.after}"


@dataclass(frozen=True, slots=True)
class StateDiff:
    """The differences between two successive raw states, capped; `omitted` counts the rest."""

    entries: tuple[DiffEntry, ...] = ()
    omitted: int = 0

    def __bool__(self) -> bool:
        return bool(self.entries) or self.omitted > 0

    def lines(self) -> list[str]:
        """Each entry on its own line, plus a final "… N more" line when entries were capped."""
        described = [entry.describe() for entry in self.entries]
        if self.omitted:
            described.append(f"… {self.omitted} more")
        return described


def compact_json(value: Any, width: int = 80) -> str:
    """`value` as one line of JSON, cut to `width` characters with an ellipsis."""
    try:
        try:
            text = _COMPACT.encode(value)
        except RecursionError:
            text = deep_json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _child_path(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    simple = key.isidentifier()
    if not path:
        return key if simple else f"[{compact_json(key)}]"
    return f"{path}.{key}" if simple else f"{path}[{compact_json(key)}]"


def _same_scalar(left: Any, right: Any) -> bool:
    """Equal as JSON scalars: `true` is not `1`, and containers are never compared here."""
    if left is right:
        return True
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return type(left) is type(right) and bool(left == right)


def json_diff(
    before: Any, after: Any, *, max_entries: int = 40, value_width: int = 80
) -> StateDiff:
    """Added, removed and changed paths between two JSON values, walked without recursion.

    Values are stored as compact JSON cut to `value_width`, so a timeline of diffs stays small
    even when results are megabytes long.
    """
    entries: list[DiffEntry] = []
    omitted = 0

    def record(entry: DiffEntry) -> None:
        nonlocal omitted
        if len(entries) < max_entries:
            entries.append(entry)
        else:
            omitted += 1

    stack: list[tuple[str, Any, Any]] = [("", before, after)]
    while stack:
        path, left, right = stack.pop()
        if _same_scalar(left, right):
            continue
        if isinstance(left, dict) and isinstance(right, dict):
            children: list[tuple[str, Any, Any]] = []
            for key in right:
                child = _child_path(path, str(key))
                if key not in left:
                    record(DiffEntry("added", child, after=compact_json(right[key], value_width)))
                else:
                    children.append((child, left[key], right[key]))
            for key in left:
                if key not in right:
                    child = _child_path(path, str(key))
                    record(DiffEntry("removed", child, before=compact_json(left[key], value_width)))
            stack.extend(reversed(children))
        elif isinstance(left, list) and isinstance(right, list):
            shared = min(len(left), len(right))
            for index in range(len(right) - 1, shared - 1, -1):
                record(
                    DiffEntry(
                        "added",
                        _child_path(path, index),
                        after=compact_json(right[index], value_width),
                    )
                )
            for index in range(len(left) - 1, shared - 1, -1):
                record(
                    DiffEntry(
                        "removed",
                        _child_path(path, index),
                        before=compact_json(left[index], value_width),
                    )
                )
            stack.extend(
                (_child_path(path, index), left[index], right[index])
                for index in range(shared - 1, -1, -1)
            )
        else:
            record(
                DiffEntry(
                    "changed",
                    path or "(root)",
                    before=compact_json(left, value_width),
                    after=compact_json(right, value_width),
                )
            )
    return StateDiff(tuple(entries), omitted)
