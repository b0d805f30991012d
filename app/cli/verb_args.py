"""Reads the flags of a single verb from argparse's namespace into `app.cli.verb_options`, and
checks the combinations of `tools call`'s flags argparse cannot express.

`app.cli.args` imports it for the headless commands only, so the full-screen UI starts without it
or the options it builds.
"""

from __future__ import annotations

import argparse

from app.cli.options import DEFAULT_DURATION_MS, Options
from app.cli.output import usage_error
from app.cli.verb_options import (
    CallOptions,
    CheckOptions,
    ExportOptions,
    PromptOptions,
    ReplayOptions,
    ResourceOptions,
    ServersOptions,
    TaskOptions,
    UpdateOptions,
    VerbOptions,
    WatchBounds,
    WatchOptions,
)


def read_verb_options(
    namespace: argparse.Namespace, group: str | None, verb: str | None
) -> VerbOptions | None:
    """The flags of a verb that takes its own (`group` names one), or None."""
    if group == "replay":
        return ReplayOptions(namespace.file, None if namespace.instant else namespace.speed)
    if group == "check":
        return CheckOptions(
            tool_name=namespace.tool_name,
            tool_args=namespace.tool_args,
            check_ids=tuple(dict.fromkeys(namespace.check_id)),
            categories=tuple(dict.fromkeys(namespace.category)),
            format=namespace.format,
            junit=namespace.junit,
            timeout_ms=namespace.timeout_ms,
        )
    if group == "servers":
        names = tuple(dict.fromkeys(namespace.servers_names))
        return ServersOptions(namespace.servers_config, names, namespace.servers_timeout)
    if group == "tools" and verb == "call":
        return CallOptions(
            tool_name=namespace.tool_name,
            tool_args=namespace.tool_args,
            task=namespace.task,
            task_ttl=namespace.task_ttl,
            task_watch=namespace.task_watch,
            bounds=_watch_bounds(namespace),
        )
    if group == "resources" and verb == "read":
        return ResourceOptions(namespace.uri)
    if group == "prompts" and verb == "get":
        return PromptOptions(namespace.name, namespace.prompt_args)
    if group != "tasks":
        return None
    if verb in ("get", "result", "cancel"):
        return TaskOptions(namespace.task_id)
    if verb == "update":
        return UpdateOptions(namespace.task_id, namespace.input_responses)
    if verb == "watch":
        return WatchOptions(namespace.task_id, _watch_bounds(namespace))
    if verb == "export":
        task_ids = tuple(dict.fromkeys(namespace.task_id))
        return ExportOptions(task_ids, namespace.from_recording, namespace.format)
    return None


def _watch_bounds(namespace: argparse.Namespace) -> WatchBounds:
    """The bounds and pacing of a watching verb's flags."""
    return WatchBounds(
        user_min_ms=namespace.poll_interval_ms,
        duration_s=(namespace.duration_ms or DEFAULT_DURATION_MS) / 1000,
        max_input_rounds=namespace.max_input_rounds,
        max_consecutive_errors=namespace.max_consecutive_errors,
    )


def check_call_flags(options: Options) -> None:
    """Refuse (for `tools call`) the flags that need others (`--task-ttl`, `--task-watch` need
    `--task`) or the other wire (`--task-ttl` on the extension wire)."""
    call = options.verb_options
    assert isinstance(call, CallOptions)
    if call.task_ttl is not None and not call.task:
        raise usage_error("--task-ttl needs --task")
    if call.task_watch and not call.task:
        raise usage_error("--task-watch needs --task")
    if call.task_ttl is not None and options.session.wire == "extension":
        raise usage_error(
            "--task-ttl is a legacy-wire flag: on the extension wire the server owns the TTL"
        )
