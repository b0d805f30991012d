"""Turns the target flags of a command into one `Target`, refusing contradictory combinations."""

from __future__ import annotations

from app.cli.args import no_target_error
from app.cli.options import TargetOptions
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


def target_from_args(flags: TargetOptions) -> Target:
    """The one server the flags name; a usage error when there is none, or more than one."""
    given = [
        name
        for name, value in (
            ("--url", flags.url),
            ("--command", flags.command),
            ("--config", flags.config),
            ("--demo", flags.demo),
        )
        if value is not None
    ]
    if not given:
        raise no_target_error()
    if len(given) > 1:
        raise usage_error(f"give only one target, not {' and '.join(given)}")
    if flags.url is None:
        _refuse_stray(
            "--url",
            (
                ("transport", flags.transport is not None),
                ("header", bool(flags.headers)),
                ("bearer", flags.bearer is not None),
            ),
        )
    if flags.command is None:
        _refuse_stray("--command", (("env", bool(flags.env)), ("cwd", flags.cwd is not None)))
    if (flags.server is None) != (flags.config is None):
        raise usage_error("--config and --server go together")
    try:
        if flags.url is not None:
            return url_target(
                flags.url, flags.headers, flags.bearer, flags.transport or "streamable"
            )
        if flags.command is not None:
            env = dict(parse_env(item) for item in flags.env)
            return command_target(flags.command, env, flags.cwd)
        if flags.config is not None:
            return load_config_target(flags.config, flags.server or "")
        return demo_target(flags.demo or "legacy")
    except TargetError as exc:
        raise usage_error(str(exc)) from exc


def _refuse_stray(owner: str, flags: tuple[tuple[str, bool], ...]) -> None:
    """A usage error when a flag that only makes sense with `owner` was given without it."""
    for name, given in flags:
        if given:
            raise usage_error(f"--{name} only applies to {owner}")
