"""One engine session, shared by the CLI and the TUI: connect, resolve and assert the tasks wire,
gate the adapter, hook the recorder, and reconnect when the connection is lost.

The session hands out one adapter (`adapter`: a `SessionAdapter`, which also gates read-only mode
and journals actions) that stays valid across reconnects, so a poller built on it keeps watching.
It is built the first time a verb asks for it: `capabilities` and plain `request`s never load the
wire adapters (nor pydantic), which keeps `tasks capabilities` and `tools list` quick to start.
Connection events ("lost", "reconnecting", "reconnected", "gave_up") go to connection listeners;
the faces show them (TUI header, a stderr line).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from app.engine.record.recorder import server_key, session_info
from app.engine.rpc.advertised import ClientCapabilities
from app.engine.rpc.connect_hint import next_step
from app.engine.rpc.connection import Connection
from app.engine.rpc.negotiate import PROBE_TIMEOUT
from app.engine.rpc.reconnect import ConnectionEvent, ReconnectPolicy, is_connection_lost
from app.engine.rpc.reconnector import ConnectionListener, Reconnector
from app.engine.rpc.targets import HttpTarget
from app.engine.rpc.transports.base import TransportError
from app.engine.tasks.wire import resolve_capabilities

if TYPE_CHECKING:
    from app.engine.oauth.authorizer import Authorizer
    from app.engine.oauth.steps import AuthObserver
    from app.engine.record.recorder import Recorder
    from app.engine.rpc.era import EraPreference
    from app.engine.rpc.rpc_types import FrameListener, ServerInfo
    from app.engine.rpc.session_adapter import SessionAdapter
    from app.engine.rpc.targets import Target
    from app.engine.tasks.broker import InputBroker
    from app.engine.tasks.contract import TasksCapabilities
    from app.engine.tasks.factory import WireAdapter

log = logging.getLogger(__name__)
T = TypeVar("T")

CLOSE_TIMEOUT_S = 5.0

SessionState = Literal["idle", "connected", "reconnecting", "failed", "closed"]


class WireMismatch(Exception):
    """`--wire` asserted one tasks wire and the server speaks another; nothing was sent."""

    def __init__(self, expected: str, actual: str, info: ServerInfo) -> None:
        super().__init__(f"expected the {expected} tasks wire, but the server speaks {actual}")
        self.expected = expected
        self.actual = actual
        self.info = info


class EngineSession:
    """A connection to one target that reconnects by `policy`, with a gated, stable adapter."""

    def __init__(
        self,
        target: Target,
        *,
        era: EraPreference = "auto",
        expected_wire: str | None = None,
        redact: Sequence[str] = (),
        readonly: bool = False,
        recorder: Recorder | None = None,
        key: str | None = None,
        policy: ReconnectPolicy | None = None,
        request_timeout: float = 30.0,
        handshake: tuple[float, float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        roots: Sequence[dict[str, str]] = (),
        advertised: ClientCapabilities | None = None,
        auth_observer: AuthObserver | None = None,
    ) -> None:
        self.target = target
        self.authorizer = _authorizer(target, auth_observer)
        """Signs in when the HTTP server asks (one for the session: it outlives reconnects)."""
        self.roots = tuple(roots)
        """The `--root` entries `roots/list` is answered with; the `roots` capability is declared
        only when there are some."""
        self._advertised = dataclasses.replace(
            advertised or ClientCapabilities(), roots=bool(self.roots)
        )
        self.era: EraPreference = era
        self.expected_wire = expected_wire
        self.redact = tuple(redact)
        self.readonly = readonly
        self.recorder = recorder
        self.server_key = key or server_key(target)
        self.request_timeout = request_timeout
        self.handshake = handshake
        """(probe, each request) timeouts of the era dance; None: the connection's defaults."""
        self.state: SessionState = "idle"
        self._reconnector = Reconnector(policy or ReconnectPolicy(), sleep)
        self._frame_listeners: list[FrameListener] = []
        self._connection: Connection | None = None
        self._wire_adapter: WireAdapter | None = None
        self._adapter: SessionAdapter | None = None
        self._info: ServerInfo | None = None
        self._capabilities: TasksCapabilities | None = None
        self._generation = 0
        self._watchers: set[asyncio.Task[Any]] = set()
        self._opening: dict[Connection, asyncio.Task[None] | None] = {}
        """Connections whose handshake runs (a first open, a retry, a reconnect attempt), or that
        failed and are being closed (with the task closing each)."""

    # -- set-up ---------------------------------------------------------------------------------

    def add_frame_listener(self, listener: FrameListener) -> None:
        """Report every frame of this and every later connection to `listener`."""
        self._frame_listeners.append(listener)
        if self._connection is not None:
            self._connection.add_frame_listener(listener)

    def add_connection_listener(self, listener: ConnectionListener) -> None:
        """Tell `listener` about every connection event from now on."""
        self._reconnector.listeners.append(listener)

    async def open(self) -> ServerInfo:
        """Connect, negotiate, resolve the tasks wire and check it against `expected_wire`.

        Raises what the connection raises (RpcError, TransportError, OSError, NegotiationError),
        with a `hint` attribute naming the next thing to try, or `WireMismatch`; the first
        connection is never retried.
        """
        connection = self._new_connection()
        try:
            info = await self._opened(connection)
        except BaseException as error:
            if not self.closed:
                self.state = "failed"
            if isinstance(error, Exception):
                error.hint = next_step(  # type: ignore[attr-defined]
                    error, preference=self.era, transport=connection.transport_kind
                )
            raise
        capabilities = resolve_capabilities(info, self.expected_wire)
        wire = capabilities.wire
        if self.expected_wire is not None and wire != self.expected_wire:
            await _quietly(connection.close())
            self.state = "failed"
            raise WireMismatch(self.expected_wire, wire, info)
        self._capabilities = capabilities
        self._install(connection, info)
        if self.recorder is not None:
            self.recorder.opened(
                session_info(
                    info,
                    capabilities,
                    self.target,
                    readonly=self.readonly,
                    key=self.server_key,
                )
            )
        return info

    async def open_until_reachable(self) -> ServerInfo:
        """`open`, tried again on the reconnect policy's backoff while the server cannot be
        reached at all (told to the connection listeners as reconnecting, with why); any other
        failure, or the last try's, is raised."""
        try:
            return await self.open()
        except Exception as exc:
            if not _unreachable(exc):
                raise
            failure = exc

        async def again() -> tuple[str, bool] | None:
            nonlocal failure
            try:
                await self.open()
            except Exception as exc:
                failure = exc
                if self.closed:
                    return _describe(exc), True
                self.state = "reconnecting"
                return _describe(exc), not _unreachable(exc)
            return None

        self.state = "reconnecting"
        if await self._reconnector.attempts(again, _describe(failure), say_why=True) is not None:
            if not self.closed:
                self.state = "failed"
            raise failure
        return self.info

    # -- what the faces use ---------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether `close()` was called (an open or reconnect still running then gives up)."""
        return self.state == "closed"

    @property
    def policy(self) -> ReconnectPolicy:
        """How often, and after how long, a lost connection is reconnected."""
        return self._reconnector.policy

    @property
    def last_event(self) -> ConnectionEvent | None:
        """The latest connection event ("lost", "reconnecting", …), if any."""
        return self._reconnector.last_event

    @property
    def connection(self) -> Connection:
        """The current connection (a new one after each reconnect)."""
        if self._connection is None:
            raise RuntimeError("the session is not open yet")
        return self._connection

    @property
    def info(self) -> ServerInfo:
        """The server as the current connection negotiated it."""
        if self._info is None:
            raise RuntimeError("the session is not open yet")
        return self._info

    @property
    def adapter(self) -> SessionAdapter:
        """The gated adapter every verb goes through; valid across reconnects. Built (with the
        wire adapter of the current connection) the first time it is asked for."""
        if self._adapter is None:
            self._adapter = self._build_adapter()
        return self._adapter

    @property
    def capabilities(self) -> TasksCapabilities:
        """The resolved tasks wire and the verbs the server declared (no adapter needed)."""
        if self._capabilities is None:
            raise RuntimeError("the session is not open yet")
        return self._capabilities

    @property
    def wire(self) -> str:
        return self.capabilities.wire

    @property
    def advertised(self) -> ClientCapabilities:
        """The client capabilities this session advertises (`--withhold`,
        `--client-capabilities`, or the inspector's toggles)."""
        return self._advertised

    def advertise(self, capabilities: ClientCapabilities) -> None:
        """Advertise `capabilities` from the next request on, on this connection and every
        later one (a legacy server keeps what `initialize` declared until it reconnects)."""
        self._advertised = capabilities
        if self._connection is not None:
            self._connection.advertised = capabilities

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, reason: str = "user"
    ) -> dict[str, Any]:
        """A plain request on the current connection, repeated once after a reconnect."""
        return await self._on_connection(lambda c: c.request(method, params, reason=reason))

    async def list_tools(self, *, reason: str = "user") -> list[dict[str, Any]]:
        """Every page of `tools/list`, repeated once after a reconnect."""
        return await self._on_connection(lambda c: c.list_tools(reason=reason))

    async def list_all(self, method: str, key: str) -> list[dict[str, Any]]:
        """Every page of a paginated list (`resources/list` → `resources`, …)."""
        return await self._on_connection(lambda c: c.list_all(method, key))

    def tool_problem(self, name: str) -> str | None:
        """Why tool `name` cannot be called over this connection (SEP-2243), if so."""
        return self.connection.tool_problem(name)

    async def _on_connection(self, job: Callable[[Connection], Awaitable[T]]) -> T:
        generation = await self._usable()
        try:
            answer = await job(self.connection)
        except Exception as error:
            if not await self.recover(error, generation):
                raise
            generation = await self._usable()
            answer = await job(self.connection)
        self.succeeded(generation)
        return answer

    async def close(self) -> None:
        """Stop reconnecting, stop the adapter's background calls and close the connection."""
        self.state = "closed"
        running = self._reconnector.running
        tasks = [*self._watchers, *([running] if running else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._wire_adapter is not None:
            await _quietly(self._wire_adapter.close())
        if self._connection is not None:
            await _quietly(self._connection.close())
        await asyncio.gather(*(_quietly(opening.close()) for opening in list(self._opening)))
        if self.authorizer is not None:
            await _quietly(self.authorizer.close())

    # -- supervision (the SessionAdapter's Supervisor) ------------------------------------------

    async def ready(self) -> tuple[WireAdapter, int]:
        """The current wire adapter and its generation, waiting out a running reconnect."""
        generation = await self._usable()
        if self._wire_adapter is None:
            raise TransportError("closed", "the session is closed")
        return self._wire_adapter, generation

    async def _usable(self) -> int:
        """The generation of the current connection, once no reconnect runs; raises when the
        session gave up or is closed."""
        await self._reconnector.settled()
        gave_up = self._reconnector.gave_up
        if self.state == "failed" and gave_up is not None:
            raise gave_up
        if self._connection is None or self.state == "closed":
            raise TransportError("closed", "the session is closed")
        return self._generation

    def succeeded(self, generation: int) -> None:
        """A request on generation `generation` was answered: the connection is healthy again."""
        if generation == self._generation:
            self._reconnector.worked()

    async def recover(self, error: BaseException, generation: int) -> bool:
        """True when the failure of generation `generation` was a lost connection that a
        reconnect (this one, or one already done) replaced; False otherwise."""
        if generation < self._generation:
            return isinstance(error, TransportError)
        if self.state in ("closed", "failed") or self.policy.attempts <= 0:
            return False
        connection = self._connection
        if connection is None or not self._is_lost(error, connection):
            return False
        reason = _describe(error)
        return await asyncio.shield(self._reconnector.start(lambda: self._reconnect(reason)))

    def _is_lost(self, error: BaseException, connection: Connection) -> bool:
        legacy_http = connection.transport_kind != "stdio" and self.info.era == "legacy"
        closed = connection.state == "closed"
        return is_connection_lost(error, closed=closed, legacy_http=legacy_http)

    async def _reconnect(self, reason: str) -> bool:
        """Close what is left, then connect again as the policy allows."""
        self.state = "reconnecting"
        last_error = await self._reconnector.run(reason, self._close_current, self._connect_again)
        if last_error is not None:
            self.state = "failed"
            self._reconnector.give_up(last_error)
            return False
        self._listen_again()
        return True

    async def _close_current(self) -> None:
        if self._wire_adapter is not None:
            await _quietly(self._wire_adapter.close())
        if self._connection is not None:
            await _quietly(self._connection.close())

    async def _connect_again(self) -> tuple[str, bool] | None:
        """One reconnect attempt: None once the new connection (same wire) is in place, else
        why not, and whether to stop (the server now speaks another wire)."""
        connection = self._new_connection()
        try:
            info = await self._opened(connection)
        except Exception as exc:
            return _describe(exc), False
        wire = resolve_capabilities(info, self.expected_wire).wire
        if wire != self.wire:
            await _quietly(connection.close())
            return f"the server now speaks the {wire} wire", True
        self._generation += 1
        self._install(connection, info)
        if self._adapter is not None:
            self._wire_adapter = self._new_wire_adapter(connection, self._adapter.broker)
            self._adapter.swap(self._wire_adapter, self._generation)
        return None

    def _listen_again(self) -> None:
        """Ask the new connection for the `subscriptions/listen` stream the old one had."""
        assert self._adapter is not None
        task_ids = self._adapter.listening
        if task_ids:
            self._spawn(self._adapter.start_listening(task_ids))

    # -- internals ------------------------------------------------------------------------------

    async def _opened(self, connection: Connection) -> ServerInfo:
        """`connection.open()`, closed by `close()` too while its handshake runs: the server it
        started must not outlive the session (a silent stdio server would, re-parented to init)."""
        if self.closed:
            raise TransportError("closed", "the session is closed")
        self._opening[connection] = None
        try:
            info = await connection.open()
        except BaseException:
            self._close_unused(connection)
            raise
        if self.closed:  # closed while the handshake ran: nobody will use it
            self._close_unused(connection)
            raise TransportError("closed", "the session is closed")
        del self._opening[connection]
        return info

    def _close_unused(self, connection: Connection) -> None:
        """Close a connection nobody will use, keeping it in `_opening` until its server has
        ended, so `close()` waits for that even when the handshake was cancelled mid-way."""

        async def close() -> None:
            await _quietly(connection.close())
            self._opening.pop(connection, None)

        self._opening[connection] = asyncio.ensure_future(close())

    def _new_connection(self) -> Connection:
        connection = Connection(
            self.target,
            era=self.era,
            redact=self.redact,
            request_timeout=self.request_timeout,
            advertised=self._advertised,
            authorizer=self.authorizer,
            probe_timeout=self.handshake[0] if self.handshake is not None else PROBE_TIMEOUT,
            handshake_timeout=self.handshake[1] if self.handshake is not None else None,
        )
        for listener in self._frame_listeners:
            connection.add_frame_listener(listener)
        return connection

    def _build_adapter(self) -> SessionAdapter:
        """A `SessionAdapter` on the current connection's wire adapter."""
        from app.engine.rpc.session_adapter import SessionAdapter

        self._wire_adapter = self._new_wire_adapter(self.connection)
        return SessionAdapter(
            self, self._wire_adapter, readonly=self.readonly, recorder=self.recorder
        )

    def _new_wire_adapter(
        self, connection: Connection, broker: InputBroker | None = None
    ) -> WireAdapter:
        """The wire adapter of `connection` (the adapters, and pydantic, load on first use)."""
        from app.engine.tasks.factory import make_adapter

        return make_adapter(connection, broker, self.expected_wire)

    def _install(self, connection: Connection, info: ServerInfo) -> None:
        self._connection = connection
        self._wire_adapter = None
        self._info = info
        self.state = "connected"
        generation = self._generation
        connection.add_close_listener(lambda error: self._channel_closed(error, generation))

    def _channel_closed(self, error: TransportError, generation: int) -> None:
        """The channel died while nobody was asking: start reconnecting at once."""
        if generation == self._generation and self.state == "connected":
            self._spawn(self.recover(error, generation))

    def _spawn(self, job: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(job)
        self._watchers.add(task)
        task.add_done_callback(self._watcher_done)

    def _watcher_done(self, task: asyncio.Task[Any]) -> None:
        self._watchers.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("session background job ended with %r", task.exception())


def _unreachable(error: BaseException) -> bool:
    """Whether connecting failed because nothing answers at the server's address."""
    return is_connection_lost(error, closed=False, legacy_http=False)


def _describe(error: BaseException) -> str:
    text = str(error)
    return text or type(error).__name__


async def _quietly(job: Awaitable[Any]) -> None:
    """Await a clean-up step, giving up after CLOSE_TIMEOUT_S and ignoring its failure."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(job)), CLOSE_TIMEOUT_S)


def _authorizer(target: Target, observer: AuthObserver | None) -> Authorizer | None:
    """The session's authorizer for an HTTP target (its module loads only for those)."""
    if not isinstance(target, HttpTarget):
        return None
    from app.engine.oauth.authorizer import authorizer_for

    return authorizer_for(target, observer)
