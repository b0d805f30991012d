"""Turns the target flags of a command into one `Target`, refusing contradictory combinations."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

from app.cli.args import no_target_error
from app.cli.options import AuthFlags, TargetOptions
from app.cli.output import usage_error
from app.engine.oauth.settings import CLIENT_SECRET_ENV, AuthMode, OAuthSettings
from app.engine.rpc.targets import (
    BEARER_ENV,
    Target,
    TargetError,
    command_target,
    demo_target,
    load_config_target,
    load_config_targets,
    parse_env,
    url_target,
)
from app.engine.tasks.server_keys import server_name

SEVERAL_ONLY_IN_THE_INSPECTOR = (
    "{flag} is given once here: several servers open together only in the inspector "
    "(taskscope --config FILE, or --url / --command more than once)"
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
    _check_flags(flags)
    for flag, values in (("--url", flags.urls), ("--command", flags.commands)):
        if len(values) > 1:
            raise usage_error(SEVERAL_ONLY_IN_THE_INSPECTOR.format(flag=flag))
    if len(flags.servers) > 1:
        raise usage_error(SEVERAL_ONLY_IN_THE_INSPECTOR.format(flag="--server"))
    try:
        if flags.url is not None:
            return _url_target(flags, flags.url)
        if flags.command is not None:
            return _command_target(flags, flags.command)
        if flags.config is not None:
            return _config_target(flags.config, flags.servers)
        return demo_target(flags.demo or "legacy")
    except TargetError as exc:
        raise usage_error(str(exc)) from exc


def _config_target(config: str, servers: tuple[str, ...]) -> Target:
    """The `--server` entry of `config`, or its only one when none is named."""
    if servers:
        return load_config_target(config, servers[0])
    found = load_config_targets(config)
    if len(found) != 1:
        names = ", ".join(name for name, _ in found) or "none"
        raise usage_error(
            f"{config} has {len(found)} servers ({names}): name one with --server "
            "(the inspector opens them all)"
        )
    _, target = found[0]
    if isinstance(target, TargetError):
        raise target
    return target


def _check_flags(flags: TargetOptions) -> None:
    """A usage error for a flag given without the one it belongs to."""
    if flags.url is None:
        _refuse_stray(
            "--url",
            (
                ("transport", flags.transport is not None),
                ("header", bool(flags.headers)),
                ("bearer", flags.bearer is not None),
                *((name.removeprefix("--"), True) for name in flags.auth.given),
            ),
        )
    if flags.command is None:
        _refuse_stray("--command", (("env", bool(flags.env)), ("cwd", flags.cwd is not None)))
    if flags.servers and flags.config is None:
        raise usage_error("--server names a server of --config FILE")


def _url_target(flags: TargetOptions, url: str) -> Target:
    transport = flags.transport or "streamable"
    return url_target(url, flags.headers, flags.bearer, transport, oauth_settings(flags.auth))


def _command_target(flags: TargetOptions, command: str) -> Target:
    env = dict(parse_env(item) for item in flags.env)
    return command_target(command, env, flags.cwd)


def tui_servers(flags: TargetOptions) -> list[tuple[str, Target | str]]:
    """The servers the inspector opens together: every entry of `--config` (or the `--server`
    ones, when more than one) and every `--url` and `--command` (each of those flags applying
    to all of its kind), each with its target or why its config entry cannot be used; empty when
    the flags name one server. A usage error when none of them can be used."""
    ad_hoc = len(flags.urls) + len(flags.commands)
    whole_config = flags.config is not None and len(flags.servers) != 1
    named = ad_hoc + (flags.config is not None)
    if flags.demo is not None or (named <= 1 and not whole_config):
        return []  # one server, or a contradiction `target_from_args` names
    _check_flags(flags)
    if len(flags.urls) > 1:
        _refuse_stray(
            "one --url (one server's credentials must not go to another: give each its own "
            "in a config file)",
            (
                ("bearer", flags.bearer is not None),
                ("header", bool(flags.headers)),
                *((name.removeprefix("--"), True) for name in flags.auth.given),
            ),
        )
        if os.environ.get(BEARER_ENV):
            raise usage_error(
                f"{BEARER_ENV} is one server's token and would go to every --url: give each "
                "server its own in a config file"
            )
    found: list[tuple[str, Target | TargetError]] = []
    try:
        if flags.config is not None:
            found = load_config_targets(flags.config, flags.servers)
        if len(found) == 1 and not flags.servers and not ad_hoc:
            return []  # the file's one server: opened as with --server
        found += [(_name_of_url(url), _url_target(flags, url)) for url in flags.urls]
        found += [(_name_of_command(line), _command_target(flags, line)) for line in flags.commands]
    except TargetError as exc:
        raise usage_error(str(exc)) from exc
    servers: list[tuple[str, Target | str]] = []
    taken: set[str] = set()
    for name, target in found:
        unique = server_name(name)
        for count in range(2, len(found) + 2):
            if unique not in taken:
                break
            unique = f"{server_name(name)}-{count}"
        taken.add(unique)
        servers.append((unique, str(target) if isinstance(target, TargetError) else target))
    if all(isinstance(target, str) for _, target in servers):
        problems = "; ".join(f"{name}: {target}" for name, target in servers)
        raise usage_error(f"no server of {flags.config} can be used: {problems}")
    return servers


def _name_of_url(url: str) -> str:
    """A `--url` server's name: its host and port (never its user or password)."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError as exc:
        raise TargetError(f"--url {url!r} is not a URL: {exc}") from exc
    return netloc.rpartition("@")[2] or "server"


def _name_of_command(line: str) -> str:
    """A `--command` server's name: its program's file name."""
    try:
        program = shlex.split(line)[0]
    except (ValueError, IndexError):
        return line
    return Path(program).name or program


def _refuse_stray(owner: str, flags: tuple[tuple[str, bool], ...]) -> None:
    """A usage error when a flag that only makes sense with `owner` was given without it."""
    for name, given in flags:
        if given:
            raise usage_error(f"--{name} only applies to {owner}")


MAX_KEY_BYTES = 64 * 1024


def oauth_settings(flags: AuthFlags) -> OAuthSettings:
    """The sign-in settings the OAuth flags give; a usage error when they do not add up."""
    private_key = None
    if flags.private_key_file is not None:
        try:
            with Path(flags.private_key_file).open("rb") as handle:
                raw = handle.read(MAX_KEY_BYTES + 1)
        except OSError as exc:
            raise usage_error(
                f"cannot read --client-private-key {flags.private_key_file!r}: {exc.strerror}"
            ) from None
        if len(raw) > MAX_KEY_BYTES or b"PRIVATE KEY" not in raw:
            raise usage_error("--client-private-key must be a PEM private key file")
        private_key = raw.decode("ascii", "replace")
    secret = flags.client_secret
    if secret is None and flags.client_id is not None:
        secret = os.environ.get(CLIENT_SECRET_ENV) or None
    settings = OAuthSettings(
        mode=cast(AuthMode, flags.mode or "interactive"),
        client_id=flags.client_id,
        client_secret=secret,
        client_metadata_url=flags.client_metadata_url,
        private_key=private_key,
        signing_algorithm=flags.signing_algorithm or "RS256",
        open_browser=not flags.no_browser,
    )
    problem = settings.problem()
    if problem is not None:
        raise usage_error(problem)
    return settings
