"""`make_adapter` on a server without a tasks wire: every tasks verb refuses, tools still work."""

from __future__ import annotations

import asyncio
import sys

import pytest

from app.engine.rpc.connection import Connection
from app.engine.rpc.rpc_types import Frame
from app.engine.rpc.targets import StdioTarget
from app.engine.tasks.contract import VerbUnsupported
from app.engine.tasks.factory import NoTasksAdapter, make_adapter
from app.engine.tasks.models import InputKind, InputRequest
from tests.support.demo_servers import REPO_ROOT


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_server_without_tasks_gets_the_no_tasks_adapter(era: str) -> None:
    command = [sys.executable, "-m", "tests.support.servers.sdk_server", "--transport", "stdio"]
    target = StdioTarget(command=command, cwd=str(REPO_ROOT))
    async with Connection(target, era=era) as connection:  # type: ignore[arg-type]
        sent: list[str] = []

        def listen(frame: Frame) -> None:
            if frame.direction == "out" and frame.message and "method" in frame.message:
                sent.append(frame.message["method"])

        connection.add_frame_listener(listen)
        adapter = make_adapter(connection)
        assert isinstance(adapter, NoTasksAdapter)
        assert adapter.capabilities.wire == "none"
        for verb in (
            adapter.create("echo", {"text": "x"}),
            adapter.get("t"),
            adapter.list_tasks(),
            adapter.fetch_result("t"),
            adapter.cancel("t"),
            adapter.answer_many("t", {}),
        ):
            with pytest.raises(VerbUnsupported) as caught:
                await verb
            assert caught.value.wire == "none"
        assert await adapter.start_listening(["t"]) is False
        assert sent == []
        result = await adapter.call_tool("echo", {"text": "hello"})
        assert result["content"][0]["text"] == "hello"
        assert adapter.pending_inputs() == []
        await adapter.close()


async def test_questions_of_a_legacy_synchronous_call_go_through_the_broker() -> None:
    """The server asks with `elicitation/create` on the call's own stream."""
    command = [sys.executable, "-m", "tests.support.servers.sdk_server", "--transport", "stdio"]
    target = StdioTarget(command=command, cwd=str(REPO_ROOT))
    async with Connection(target, era="legacy") as connection:
        adapter = make_adapter(connection)
        asked: list[InputRequest] = []

        def answer(request: InputRequest) -> None:
            asked.append(request)
            reply = {"action": "accept", "content": {"name": "Ada"}}
            asyncio.get_running_loop().create_task(adapter.answer(request, reply))

        adapter.on_input(answer)
        result = await adapter.call_tool("ask", {})
        assert result["content"][0]["text"] == "Hello, Ada!"
        (question,) = asked
        assert question.kind is InputKind.FORM and question.message == "Please enter your name."
        assert adapter.pending_inputs() == []
        await adapter.close()
