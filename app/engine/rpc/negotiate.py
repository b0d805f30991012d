"""The era dance: decide whether a server speaks legacy (2025-11-25) or modern (2026-07-28) MCP.

`auto` probes `server/discover` and settles by what answers (reference §3.2):
- a DiscoverResult listing a modern version means modern;
- `-32022` naming a modern version means modern at that version; the other modern errors
  (`-32021`, `-32020`) mean a modern server that refused us, which is an error;
- any other answer means legacy, so `initialize` follows: a DiscoverResult without a modern
  `supportedVersions` (also `{}` from servers that answer every method so), any other JSON-RPC
  error whatever its `id`, an HTTP 4xx without a modern body, a malformed answer;
- silence for `probe_timeout` over stdio or HTTP+SSE (where a legacy server may never answer an
  unknown method): `initialize` goes out beside the still-open probe and the first to settle
  wins. A late DiscoverResult means a modern server that started slowly; an initialize result
  means legacy; an initialize refused with `-32022` naming a modern version means modern. Over
  Streamable HTTP every POST is answered, so the probe is simply awaited (a timeout falls back).
Every request and what answered it is kept in an `EraDecision`, which both faces show.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.era import (
    HANDSHAKE_VERSIONS,
    LEGACY_VERSION,
    META_SERVER_INFO,
    MODERN_ERROR_CODES,
    MODERN_VERSION,
    RATE_LIMITED,
    UNSUPPORTED_VERSION_CODES,
    EraPreference,
    is_modern_version,
    stamp_modern,
)
from app.engine.rpc.era_decision import (
    EraDecision,
    EraStep,
    Negotiated,
    NegotiationError,
    describe_failure,
)
from app.engine.rpc.transports.base import Era, TransportError, TransportKind
from app.engine.safety import deep_json


class RpcFailure(Protocol):
    """What negotiation needs to know about a JSON-RPC error (rpc_types.RpcError)."""

    code: int
    message: str
    data: Any


class HandshakeChannel(Protocol):
    """The few connection operations negotiation drives."""

    transport_kind: TransportKind

    def use_era(self, era: Era, protocol_version: str) -> None: ...

    async def handshake_request(
        self, method: str, params: dict[str, Any], *, timeout: float | None, reason: str
    ) -> dict[str, Any]: ...

    async def handshake_notify(self, method: str, params: dict[str, Any] | None) -> None: ...

    def is_rpc_error(self, error: BaseException) -> bool: ...


async def negotiate(
    channel: HandshakeChannel,
    preference: EraPreference,
    *,
    client_info: Mapping[str, str],
    probe_timeout: float,
    request_timeout: float,
    advertised: ClientCapabilities | None = None,
) -> Negotiated:
    """Run the era dance on a freshly started transport and return what was agreed
    (`advertised`: the client capabilities `server/discover` and `initialize` carry)."""
    dance = _Dance(channel, preference, client_info, probe_timeout, request_timeout)
    if advertised is not None:
        dance.advertised = advertised
    try:
        return await dance.run()
    except BaseException as error:
        if isinstance(error, Exception) and not hasattr(error, "era_steps"):
            error.era_steps = tuple(dance.steps)  # type: ignore[attr-defined]
        raise
    finally:
        dance.abandon()


PROBE_TIMEOUT = 3.0
"""How long the era probe waits over stdio or SSE before `initialize` goes out beside it."""

_Verdict = tuple[Literal["modern", "legacy"], str | None, str]
"""(era to try next, the modern version to retry at, why) after a failed probe."""


class _Dance:
    """One negotiation: the requests in flight and the written record of every answer."""

    def __init__(
        self,
        channel: HandshakeChannel,
        preference: EraPreference,
        client_info: Mapping[str, str],
        probe_timeout: float,
        request_timeout: float,
    ) -> None:
        self.channel = channel
        self.preference = preference
        self.client_info = client_info
        self.probe_timeout = probe_timeout
        self.request_timeout = request_timeout
        self.advertised = ClientCapabilities()
        self.steps: list[EraStep] = []
        self._in_flight: set[asyncio.Task[dict[str, Any]]] = set()

    async def run(self) -> Negotiated:
        if self.preference == "legacy":
            init = self._initialize("connect: --era legacy, the 2025-11-25 handshake")
            return await self._legacy(await init, "--era legacy: initialize without a probe")
        probe = self._discover(MODERN_VERSION, "connect: era probe")
        if self.preference == "modern":
            return await self._modern_or_raise(probe, "--era modern")
        if self.channel.transport_kind == "http":
            # Every POST gets an answer: a slow one means a busy server, not a legacy one, and
            # racing initialize against it would let load pick the era of a dual-era server.
            await asyncio.wait({probe})
            return await self._after_probe(probe)
        done, _ = await asyncio.wait({probe}, timeout=self.probe_timeout)
        if probe in done:
            return await self._after_probe(probe)
        self._note(
            "server/discover",
            MODERN_VERSION,
            f"no answer within {self.probe_timeout:g} s; kept listening while initialize went out",
        )
        return await self._race(probe)

    def abandon(self) -> None:
        """Stop waiting for the requests the dance no longer needs (they are answered late)."""
        for task in self._in_flight:
            task.cancel()

    # -- the requests ---------------------------------------------------------------------------

    def _discover(self, version: str, reason: str) -> asyncio.Task[dict[str, Any]]:
        self.channel.use_era("modern", version)
        params = stamp_modern(
            None,
            version=version,
            client_info=self.client_info,
            capabilities=self.advertised.modern(),
        )
        return self._send("server/discover", params, reason)

    def _initialize(self, reason: str) -> asyncio.Task[dict[str, Any]]:
        self.channel.use_era("legacy", LEGACY_VERSION)
        params = {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": self.advertised.legacy(),
            "clientInfo": dict(self.client_info),
        }
        return self._send("initialize", params, reason)

    def _send(
        self, method: str, params: dict[str, Any], reason: str
    ) -> asyncio.Task[dict[str, Any]]:
        request = self.channel.handshake_request(
            method, params, timeout=self.request_timeout, reason=reason
        )
        task = asyncio.ensure_future(request)
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        task.add_done_callback(_failure_seen)
        return task

    # -- settling -------------------------------------------------------------------------------

    async def _after_probe(self, probe: asyncio.Task[dict[str, Any]]) -> Negotiated:
        """The probe answered within its window: settle, retry it, or fall back."""
        error = probe.exception()
        if error is None:
            result = probe.result()
            modern = self._judge_discover(result, MODERN_VERSION)
            if modern is not None:
                return self._modern(result, modern, "server/discover answered")
            why = "server/discover listed no modern version"
        else:
            era, version, why = self._judge_error(error, "server/discover", MODERN_VERSION)
            if era == "modern" and version is not None:
                return await self._retry_modern(version, why)
        return await self._fall_back(why)

    async def _race(self, probe: asyncio.Task[dict[str, Any]]) -> Negotiated:
        """The probe is silent: initialize beside it; the first usable answer settles the era."""
        init = self._initialize("connect: era fallback, server/discover was silent")
        pending: set[asyncio.Task[dict[str, Any]]] = {probe, init}
        init_error: BaseException | None = None
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if probe in done:
                late = self._late_probe(probe)
                if late is not None:
                    self._drop(init, "initialize", LEGACY_VERSION)
                    return self._modern(*late, "server/discover answered late (a slow start)")
            if init in done:
                init_error = init.exception()
                if init_error is None:
                    probe_said = "answered late, not modern" if probe.done() else "was silent"
                    self._drop(probe, "server/discover", MODERN_VERSION)
                    why = f"server/discover {probe_said}; initialize answered"
                    return await self._legacy(init.result(), why)
                self._note("initialize", LEGACY_VERSION, describe_failure(init_error))
                version = self._modern_refusal(init_error)
                if version is not None:
                    if not probe.done():
                        await asyncio.wait({probe})
                        late = self._late_probe(probe)
                        if late is not None:
                            return self._modern(*late, "server/discover answered late")
                    return await self._retry_modern(
                        version, f"initialize was refused with -32022 naming {version}"
                    )
        assert init_error is not None
        raise init_error

    def _late_probe(self, probe: asyncio.Task[dict[str, Any]]) -> tuple[dict[str, Any], str] | None:
        """A probe answer after the window: a modern DiscoverResult and the version to speak
        (which settle the era), else None (the answer is noted)."""
        error = probe.exception()
        if error is not None:
            self._note("server/discover", MODERN_VERSION, f"late: {describe_failure(error)}")
            return None
        result = probe.result()
        modern = self._judge_discover(result, MODERN_VERSION, late=True)
        return None if modern is None else (result, modern)

    async def _modern_or_raise(self, probe: asyncio.Task[dict[str, Any]], why: str) -> Negotiated:
        """`--era modern`: the probe must succeed (once more at a version the server names)."""
        try:
            result = await probe
        except BaseException as error:
            version = self._modern_refusal(error)
            self._note("server/discover", MODERN_VERSION, describe_failure(error))
            if version is None:
                raise
            return await self._retry_modern(version, f"{why}; -32022 named {version}")
        modern = self._judge_discover(result, MODERN_VERSION)
        if modern is None:
            raise NegotiationError("server/discover lists no modern version", tuple(self.steps))
        return self._modern(result, modern, f"{why}: server/discover answered")

    async def _retry_modern(self, version: str, why: str) -> Negotiated:
        """Probe once more at the modern version the server named; this time it must work."""
        try:
            result = await self._discover(version, f"connect: era probe at {version} ({why})")
        except BaseException as error:
            self._note("server/discover", version, describe_failure(error))
            raise
        modern = self._judge_discover(result, version)
        if modern is None:
            raise NegotiationError(
                f"server/discover at {version} lists no modern version", tuple(self.steps)
            )
        return self._modern(result, modern, f"{why}; server/discover at {version} answered")

    async def _fall_back(self, why: str) -> Negotiated:
        init = self._initialize(f"connect: era fallback, {why}")
        try:
            result = await init
        except BaseException as error:
            version = self._modern_refusal(error)
            if version is None:
                self._note("initialize", LEGACY_VERSION, describe_failure(error))
                raise
            return await self._retry_modern(
                version, f"initialize was refused with -32022 naming {version}"
            )
        return await self._legacy(result, f"{why}, initialize answered")

    async def _legacy(self, result: dict[str, Any], why: str) -> Negotiated:
        version = result.get("protocolVersion")
        if not isinstance(version, str) or not version:
            self._note("initialize", LEGACY_VERSION, "a result without protocolVersion")
            raise NegotiationError("initialize result has no protocolVersion", tuple(self.steps))
        self._note("initialize", LEGACY_VERSION, f"a result (protocol {version})")
        self.channel.use_era("legacy", version)
        await self.channel.handshake_notify("notifications/initialized", None)
        return self._settle("legacy", version, result, result.get("serverInfo"), why)

    def _modern(self, result: dict[str, Any], version: str, why: str) -> Negotiated:
        self.channel.use_era("modern", version)
        meta = result.get("_meta")
        server = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        return self._settle("modern", version, result, server, why)

    def _settle(
        self, era: Era, version: str, result: dict[str, Any], server: Any, why: str
    ) -> Negotiated:
        server_info = server if isinstance(server, dict) else {}
        capabilities = result.get("capabilities")
        instructions = result.get("instructions")
        decision = EraDecision(self.preference, era, version, why, tuple(self.steps))
        return Negotiated(
            era=era,
            protocol_version=version,
            result=copy.deepcopy(result),
            name=str(server_info.get("name") or ""),
            version=str(server_info.get("version") or ""),
            capabilities=dict(capabilities) if isinstance(capabilities, dict) else {},
            instructions=instructions if isinstance(instructions, str) else None,
            decision=decision,
        )

    # -- judging answers ------------------------------------------------------------------------

    def _judge_discover(
        self, result: dict[str, Any], asked: str, *, late: bool = False
    ) -> str | None:
        """The modern version to speak after a DiscoverResult, or None when it lists none."""
        listed = result.get("supportedVersions")
        offered = [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []
        modern = [v for v in offered if is_modern_version(v)]
        prefix = "late: " if late else ""
        if not modern:
            shown = deep_json.dumps(offered) if offered else "no supportedVersions"
            self._note("server/discover", asked, f"{prefix}a result with {shown}: not modern")
            return None
        chosen = asked if asked in modern else max(modern)
        self._note("server/discover", asked, f"{prefix}a result listing {', '.join(modern)}")
        return chosen

    def _judge_error(self, error: BaseException, method: str, asked: str) -> _Verdict:
        """What a failed probe says about the era; raises when it says "stop"."""
        self._note(method, asked, describe_failure(error))
        version = self._modern_refusal(error)
        if version is not None:
            return ("modern", version, f"-32022 named {version}")
        if self.channel.is_rpc_error(error):
            code = getattr(error, "code", None)
            if code in MODERN_ERROR_CODES:
                if code in UNSUPPORTED_VERSION_CODES and _names_only_handshake(error):
                    return ("legacy", None, "-32022 named only handshake versions")
                if code in UNSUPPORTED_VERSION_CODES:
                    raise NegotiationError(
                        f"server rejected protocol {asked} and offered no usable version "
                        f"(supported: {_offered(error) or 'none'})",
                        tuple(self.steps),
                    ) from error
                raise error
            return ("legacy", None, f"{method} got JSON-RPC error {code}, not a modern error")
        if isinstance(error, TransportError):
            status = error.http_status
            if error.kind == "timeout":
                return ("legacy", None, f"{method} got no answer")
            if status is not None and 400 <= status < 500 and status != RATE_LIMITED:
                return ("legacy", None, f"{method} got HTTP {status} without a modern error")
            if error.kind == "malformed":
                return ("legacy", None, f"{method} got a malformed answer")
            raise error
        if isinstance(error, NegotiationError):
            return ("legacy", None, str(error))
        raise error

    def _modern_refusal(self, error: BaseException) -> str | None:
        """For `-32022` naming a modern version other than ours, that version (else None)."""
        if not self.channel.is_rpc_error(error):
            return None
        if getattr(error, "code", None) not in UNSUPPORTED_VERSION_CODES:
            return None
        modern = [v for v in _offered(error) if is_modern_version(v)]
        if not modern:
            return None
        return MODERN_VERSION if MODERN_VERSION in modern else max(modern)

    # -- the record -----------------------------------------------------------------------------

    def _note(self, method: str, version: str, answer: str) -> None:
        self.steps.append(EraStep(method, version, answer))

    def _drop(self, task: asyncio.Task[dict[str, Any]], method: str, version: str) -> None:
        """Stop waiting for a request whose answer no longer matters, and say so."""
        if not task.done():
            task.cancel()
            other = "initialize" if method == "server/discover" else "server/discover"
            self._note(method, version, f"abandoned: {other} answered first")


def _failure_seen(task: asyncio.Task[dict[str, Any]]) -> None:
    """Mark a handshake request's failure as seen: the race drops the request it no longer
    needs, and its refusal (the other era's -32022) is no error of the connection."""
    if not task.cancelled():
        task.exception()


def _offered(error: BaseException) -> list[str]:
    data = getattr(error, "data", None)
    supported = data.get("supported") if isinstance(data, dict) else None
    return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []


def _names_only_handshake(error: BaseException) -> bool:
    offered = _offered(error)
    return bool(offered) and all(v in HANDSHAKE_VERSIONS for v in offered)
