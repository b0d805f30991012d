"""Turns the target flags of a command into one `Target`, refusing contradictory combinations."""

from __future__ import annotations

import argparse

from app.cli.args import no_target_error, option, options
from app.cli.output import usage_error
from app.engine.rpc.targets import (
    Target,
    TargetError,
    command_target,
    demo_target,
    load_config_target,
    parse_env,
    url_target,
)


def target_from_args(namespace: argparse.Namespace) -> Target:
    """The one server the flags name; a usage error when there is none, or more than one."""
    url, command, config, demo = (
        option(namespace, name) for name in ("url", "command", "config", "demo")
    )
    given = [
        flag
        for flag, value in (
            ("--url", url),
            ("--command", command),
            ("--config", config),
            ("--demo", demo),
        )
        if value is not None
    ]
    if not given:
        raise no_target_error()
    if len(given) > 1:
        raise usage_error(f"give only one target, not {' and '.join(given)}")
    _refuse_stray("--url", url, namespace, ("transport", "header", "bearer"))
    _refuse_stray("--command", command, namespace, ("env", "cwd"))
    if (option(namespace, "server") is None) != (config is None):
        raise usage_error("--config and --server go together")
    try:
        if url is not None:
            transport = option(namespace, "transport") or "streamable"
            return url_target(
                url,
                options(namespace, "header"),
                option(namespace, "bearer"),
                "sse" if transport == "sse" else "streamable",
            )
        if command is not None:
            env = dict(parse_env(item) for item in options(namespace, "env"))
            return command_target(command, env, option(namespace, "cwd"))
        if config is not None:
            return load_config_target(config, option(namespace, "server") or "")
        return demo_target("extension" if demo == "extension" else "legacy")
    except TargetError as exc:
        raise usage_error(str(exc)) from exc


def _refuse_stray(
    owner: str, owner_value: str | None, namespace: argparse.Namespace, names: tuple[str, ...]
) -> None:
    """A usage error when a flag that only makes sense with `owner` is given without it."""
    if owner_value is not None:
        return
    for name in names:
        if getattr(namespace, name, None) is not None:
            raise usage_error(f"--{name} only applies to {owner}")
