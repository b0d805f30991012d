"""Reconnecting against real demo servers: the stdio child is killed (the session respawns it) or
the HTTP server is stopped and started again on the same port, mid-watch, on both wires.

Each test asserts the connection events (lost, reconnecting, reconnected / gave_up) and what became
of the watched task: the restarted demo server is in-memory, so an extension task is unknown
(expired) and a legacy task is "lost with the old session".
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest

from app.engine.polling.poller import Poller
from app.engine.rpc.reconnect import LOST_WITH_OLD_SESSION, ConnectionEvent, ReconnectPolicy
from app.engine.rpc.session import EngineSession
from app.engine.rpc.targets import HttpTarget, StdioTarget, Target
from app.engine.tasks.events import TaskEvent
from tests.support.demo_servers import (
    REPO_ROOT,
    demo_children,
    free_port,
    spawn_http_demo,
    start_http_demo,
    stdio_demo_command,
    stop_process,
    until,
    wait_for_port,
)

pytestmark = pytest.mark.timeout(90)

WIRES = ["legacy", "extension"]
FAST = ("--poll-interval-ms", "200")
QUICK_POLICY = ReconnectPolicy(attempts=20, first_delay_s=0.3, max_delay_s=0.6)


@dataclass
class Watch:
    """One session watching one long task: its task events and connection events, in order."""

    session: EngineSession
    poller: Poller
    task_id: str
    events: list[TaskEvent] = field(default_factory=list)
    connection: list[ConnectionEvent] = field(default_factory=list)
    final_state: str = ""
    """The session's state when the watch ended (before it was closed)."""

    def kinds(self) -> list[str]:
        return [event.kind for event in self.connection]

    def of(self, kind: str) -> list[TaskEvent]:
        return [event for event in self.events if event.kind == kind]


async def watched(
    target: Target,
    policy: ReconnectPolicy,
    disrupt: Callable[[Watch], Awaitable[None]],
    *,
    max_errors: int = 5,
) -> Watch:
    """Create a long task, watch it; after its first good poll run `disrupt`; watch to the end."""
    session = EngineSession(target, policy=policy, request_timeout=5.0)
    await session.open()
    try:
        events: list[TaskEvent] = []
        poller = Poller(session.adapter, events.append, max_consecutive_errors=max_errors)
        outcome = await session.adapter.create("migrate_database", {"tables": 500})
        assert outcome.task is not None
        watch = Watch(session, poller, outcome.task.task_id, events)
        session.add_connection_listener(watch.connection.append)
        poller.watch(outcome.task)
        runner = asyncio.create_task(poller.run_until_idle())
        await until(lambda: watch.of("polled") or watch.of("changed"))
        await disrupt(watch)
        await asyncio.wait_for(runner, 60)
        watch.final_state = session.state
        return watch
    finally:
        await session.close()


@contextmanager
def http_demo(wire: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """A demo server on 127.0.0.1:`port` until the block ends (or it is stopped earlier)."""
    process = spawn_http_demo(wire, port, *FAST)  # type: ignore[arg-type]
    try:
        wait_for_port(port, process=process)
        yield process
    finally:
        stop_process(process)


def assert_task_outcome(watch: Watch, wire: str) -> None:
    """The restarted server does not know the task: expired (extension) or lost (legacy)."""
    (expired,) = watch.of("expired")
    assert expired.task_id == watch.task_id
    assert expired.task is not None and expired.task.status == "working"
    if wire == "legacy":
        assert (expired.detail or "").startswith(LOST_WITH_OLD_SESSION)
    else:
        assert not (expired.detail or "").startswith(LOST_WITH_OLD_SESSION)
        assert "not found" in (expired.detail or "").lower()
    assert watch.events[-1].kind == "stopped" and watch.events[-1].detail == "expired"


@pytest.mark.parametrize("wire", WIRES)
async def test_stdio_child_killed_is_respawned(wire: str) -> None:
    target = StdioTarget(stdio_demo_command(wire, *FAST), cwd=str(REPO_ROOT))  # type: ignore[arg-type]
    killed: list[int] = []
    respawned: list[int] = []

    async def kill_child(watch: Watch) -> None:
        (pid,) = demo_children()
        killed.append(pid)
        os.kill(pid, signal.SIGKILL)
        await until(lambda: "reconnected" in watch.kinds())
        respawned.extend(demo_children())

    watch = await watched(target, QUICK_POLICY, kill_child)
    assert watch.kinds() == ["lost", "reconnecting", "reconnected"]
    lost, reconnecting, reconnected = watch.connection
    assert "exited with code -9" in (lost.detail or "")
    assert reconnecting.attempt == 1 and reconnecting.delay_s is not None
    assert reconnected.attempt == 1
    assert watch.final_state == "connected"
    assert len(respawned) == 1 and respawned != killed  # a new child serves the session
    assert not watch.of("error")  # the polls waited for the reconnect instead of failing
    assert_task_outcome(watch, wire)


@pytest.mark.parametrize("wire", WIRES)
async def test_http_server_restarted_on_the_same_port(wire: str) -> None:
    port = free_port()
    restarted: list[subprocess.Popen[bytes]] = []

    async def restart(watch: Watch) -> None:
        stop_process(first)
        await until(lambda: "reconnecting" in watch.kinds())
        restarted.append(spawn_http_demo(wire, port, *FAST))  # type: ignore[arg-type]

    try:
        with http_demo(wire, port) as first:
            watch = await watched(
                HttpTarget(url=f"http://127.0.0.1:{port}/mcp"), QUICK_POLICY, restart
            )
    finally:
        for process in restarted:
            stop_process(process)
    kinds = watch.kinds()
    assert kinds[0] == "lost" and kinds[-1] == "reconnected"
    assert set(kinds[1:-1]) == {"reconnecting"}
    assert "ConnectError" in (watch.connection[0].detail or "")
    attempts = [event.attempt for event in watch.connection if event.kind == "reconnecting"]
    assert attempts == list(range(1, len(attempts) + 1))
    assert watch.connection[-1].attempt == attempts[-1]
    assert_task_outcome(watch, wire)


@pytest.mark.parametrize("wire", WIRES)
async def test_http_server_gone_for_good_gives_up_after_bounded_attempts(wire: str) -> None:
    policy = ReconnectPolicy(attempts=2, first_delay_s=0.2, max_delay_s=0.3)

    async def stop(watch: Watch) -> None:
        stop_process(server)

    # no restart on the same port: a free one is retried if another process takes it first
    with start_http_demo(wire, *FAST) as (url, server):  # type: ignore[arg-type]
        watch = await watched(HttpTarget(url=url), policy, stop, max_errors=1)
    assert watch.kinds() == ["lost", "reconnecting", "reconnecting", "gave_up"]
    assert "ConnectError" in (watch.connection[-1].detail or "")
    assert watch.final_state == "failed"
    (error,) = watch.of("error")
    assert "ConnectError" in (error.detail or "")
    assert error.task is not None and error.task.status == "working"
    assert watch.events[-1].kind == "stopped"
    assert watch.events[-1].detail == "1 consecutive errors"


async def test_reconnecting_off_keeps_a_lost_stdio_connection_lost() -> None:
    target = StdioTarget(stdio_demo_command("extension", *FAST), cwd=str(REPO_ROOT))  # type: ignore[arg-type]

    async def kill_child(watch: Watch) -> None:
        for pid in demo_children():
            os.kill(pid, signal.SIGKILL)

    watch = await watched(target, ReconnectPolicy(attempts=0), kill_child, max_errors=1)
    assert watch.connection == []
    (error,) = watch.of("error")
    assert "exited with code -9" in (error.detail or "")
    assert watch.events[-1].detail == "1 consecutive errors"
