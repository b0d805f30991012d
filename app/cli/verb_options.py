"""The flags of single verbs as typed, frozen values (`Options.verb_options`).

Apart from `app.cli.options` because only the verbs that take them need them: `app.cli.args`
imports this module for the headless commands, so the full-screen UI starts without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.cli.options import DEFAULT_MAX_CONSECUTIVE_ERRORS

if TYPE_CHECKING:
    from app.engine.record.export import ExportFormat


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """`taskscope check`: the tool, the checks chosen, and where the report goes."""

    tool_name: str | None
    tool_args: str | None
    check_ids: tuple[str, ...]
    categories: tuple[str, ...]
    format: str | None
    junit: str | None
    timeout_ms: int


@dataclass(frozen=True, slots=True)
class WatchBounds:
    """How long and how patiently to watch (`--poll-interval-ms`, `--duration-ms`, …)."""

    user_min_ms: int | None = None
    duration_s: float | None = None
    max_input_rounds: int | None = None
    max_consecutive_errors: int = DEFAULT_MAX_CONSECUTIVE_ERRORS


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """`tasks get|result|cancel`: the one task the verb is about."""

    task_id: str


@dataclass(frozen=True, slots=True)
class UpdateOptions:
    """`tasks update`: the task and the raw `--input-responses` (JSON, @FILE or -)."""

    task_id: str
    input_responses: str


@dataclass(frozen=True, slots=True)
class WatchOptions:
    """`tasks watch`: the task to adopt and how to watch it."""

    task_id: str
    bounds: WatchBounds


@dataclass(frozen=True, slots=True)
class CallOptions:
    """`tools call`: the tool, its raw arguments, and whether to ask for (and watch) a task."""

    tool_name: str
    tool_args: str | None
    task: bool
    task_ttl: int | None
    task_watch: bool
    bounds: WatchBounds


@dataclass(frozen=True, slots=True)
class ResourceOptions:
    """`resources read`: which resource."""

    uri: str


@dataclass(frozen=True, slots=True)
class PromptOptions:
    """`prompts get`: which prompt, and its raw arguments."""

    name: str
    prompt_args: str | None


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """`tasks export`: which tasks (each once, in order given), from which recording, as what."""

    task_ids: tuple[str, ...]
    from_recording: str
    format: ExportFormat


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """`taskscope replay FILE`: the recording, and its speed (None: show the final state)."""

    file: str
    speed: float | None


@dataclass(frozen=True, slots=True)
class ServersOptions:
    """`taskscope servers`: the config file, the servers chosen (all when none), the wait."""

    config: str
    names: tuple[str, ...]
    timeout_s: float


VerbOptions = (
    TaskOptions
    | UpdateOptions
    | WatchOptions
    | CallOptions
    | ResourceOptions
    | PromptOptions
    | ExportOptions
    | ReplayOptions
    | ServersOptions
    | CheckOptions
)
"""The flags of the verbs that take their own (the list verbs and `capabilities` take none)."""
