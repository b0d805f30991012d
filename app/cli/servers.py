"""`taskscope servers --config FILE [--server NAME ...]`: every configured server, connected to
side by side, with its state, identity, era and tasks wire.

One JSON document; exit 0 even when some servers fail, each failure named with the error a
one-server command would print. A slow server does not hold the others (each has its own
`--timeout`); a server that wants a sign-in uses the credentials stored by `taskscope oauth
login` and is reported, not signed in to, when there are none (a listing opens no browser).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from app.cli.output import EXIT_OK, Output, error_document, usage_error
from app.cli.session import CONNECT_ERRORS, connection_failure, wire_mismatch_error
from app.engine.oauth.steps import AuthStep
from app.engine.rpc.session import EngineSession, WireMismatch
from app.engine.rpc.targets import HttpTarget, Target, TargetError, load_config_targets
from app.engine.safety.redact import Redactor
from app.engine.safety.sanitize import clean_text

DEFAULT_TIMEOUT_S = 30.0


async def servers_command(config: str, names: Sequence[str], timeout: float, out: Output) -> int:
    """Connect to each server of `config` (or the `names` ones) at once and print what each is."""
    try:
        entries = load_config_targets(config, names)
    except TargetError as exc:
        raise usage_error(str(exc)) from exc
    out.redactor = combined_redactor(
        [target for _, target in entries if not isinstance(target, TargetError)]
    )
    found = await asyncio.gather(
        *(
            _invalid(name, target)
            if isinstance(target, TargetError)
            else probe(name, target, timeout)
            for name, target in entries
        )
    )
    out.result({"config": config, "servers": list(found)})
    return EXIT_OK


def combined_redactor(targets: list[Target]) -> Redactor:
    """One redactor for every server's secrets: the bearers and header values of each."""
    bearers: list[str | None] = []
    headers: dict[str, str] = {}
    for index, target in enumerate(targets):
        if isinstance(target, HttpTarget):
            bearers.append(target.bearer)
            headers.update({f"{index}:{name}": value for name, value in target.headers.items()})
    return Redactor.build((), bearers, headers)


async def probe(name: str, target: Target, timeout: float) -> dict[str, Any]:
    """Connect to one server and describe it; a failure becomes its error document."""
    base = {"name": name, "transport": _transport(target)}
    session = EngineSession(target, auth_observer=StoredSignInOnly(name))
    try:
        async with asyncio.timeout(timeout):
            await session.open()
    except TimeoutError:
        return {
            **base,
            "state": "failed",
            **error_document(
                connection_failure(target, TimeoutError(f"no answer within {timeout:g} s"))
            ),
        }
    except WireMismatch as mismatch:
        return {**base, "state": "failed", **error_document(wire_mismatch_error(mismatch))}
    except CONNECT_ERRORS as exc:
        return {**base, "state": "failed", **error_document(connection_failure(target, exc))}
    else:
        info = session.info
        decision = info.era_decision
        return {
            **base,
            "state": "connected",
            "server": {"name": clean_text(info.name), "version": clean_text(info.version)},
            **session.capabilities.as_json(),
            "era": decision.as_json() if decision is not None else None,
        }
    finally:
        await session.close()


async def _invalid(name: str, problem: TargetError) -> dict[str, Any]:
    """A config entry that names no usable server."""
    return {"name": name, "state": "invalid", "error": {"code": "USAGE", "message": str(problem)}}


def _transport(target: Target) -> str:
    return target.transport if isinstance(target, HttpTarget) else "stdio"


class StoredSignInOnly:
    """A listing's sign-in observer: stored credentials (and their refresh) are used, a new
    sign-in is refused with the command that makes one."""

    def __init__(self, name: str) -> None:
        self._name = name

    def on_step(self, step: AuthStep) -> None:
        return None

    async def sign_in(self, authorization_url: str) -> None:
        from app.engine.oauth.authorizer import AuthorizationFailed

        raise AuthorizationFailed(
            f"{self._name} needs a sign-in: run taskscope oauth login --config FILE "
            f"--server {self._name}"
        )
