"""What every scenario of one run shares: the probe, the judge, the server, and the tools the run
may call (the `--tool-name` one, and the official suite's fixtures when the server lists them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.engine.check.judge import Judge
from app.engine.check.model import Evidence, excerpt_of
from app.engine.check.probe import Probe
from app.engine.rpc.rpc_types import Frame, ServerInfo
from app.engine.tasks.models import InputRequest

if TYPE_CHECKING:
    from app.engine.rpc.connection import Connection

FIXTURE_TOOLS = (
    "greet",
    "slow_compute",
    "confirm_delete",
    "multi_input",
    "failing_job",
    "protocol_error_job",
    "test_tool_with_task",
)
"""The official conformance suite's fixture tools: called only when the server lists them."""
UNKNOWN_TASK_ID = "taskscope-check-no-such-task-7f3a9c"
NEEDS_TOOL = "needs a tool to create tasks with: give --tool-name NAME (and --tool-args)"


@dataclass(slots=True)
class RunState:
    """One run's shared state; `tool` is the user's, `tools` every tool the server listed."""

    probe: Probe
    judge: Judge
    info: ServerInfo
    wire: str
    tool: str | None
    tool_args: dict[str, Any]
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    open_another: Callable[[], Connection] | None = None
    """A new, unopened connection to the same server (the session-binding check's second one)."""
    handshake_frames: tuple[Frame, ...] = ()
    """The frames of the handshake that opened the connection (what the server declared)."""

    def capabilities_evidence(self) -> tuple[Evidence, ...]:
        """The handshake answer that declared the server's capabilities (`initialize` on the
        legacy era, `server/discover` on the modern one), quoting them."""
        method = "initialize" if self.info.era == "legacy" else "server/discover"
        shown = {"capabilities": self.info.capabilities}
        answer = next(
            (
                frame
                for frame in reversed(self.handshake_frames)
                if frame.direction == "in"
                and frame.method == method
                and isinstance(frame.message, dict)
                and "result" in frame.message
            ),
            None,
        )
        if answer is None:
            return (Evidence(method, "in", None, None, excerpt_of(shown)),)
        return (self.probe.evidence_of(answer, shown),)

    def fixture(self, name: str) -> str | None:
        """`name` when the server lists that suite fixture, else None."""
        return name if name in FIXTURE_TOOLS and name in self.tools else None

    def task_tool(self) -> tuple[str, dict[str, Any]] | None:
        """The tool to create an ordinary task with: the user's, else the suite's `greet`."""
        if self.tool is not None:
            return self.tool, self.tool_args
        if self.fixture("greet"):
            return "greet", {"name": "taskscope"}
        return None

    def slow_tool(self) -> tuple[str, dict[str, Any]] | None:
        """A tool whose task stays working long enough to cancel: the suite's `slow_compute`,
        else the user's tool (which may end too soon, and then the check says so)."""
        if self.fixture("slow_compute"):
            return "slow_compute", {"seconds": 30}
        if self.tool is not None:
            return self.tool, self.tool_args
        return None

    def asking_tool(self) -> tuple[str, dict[str, Any]] | None:
        """A tool that asks questions: the suite's `multi_input` or `confirm_delete`, else the
        user's (which may not ask, and then the checks that need a question say so)."""
        if self.fixture("multi_input"):
            return "multi_input", {}
        if self.fixture("confirm_delete"):
            return "confirm_delete", {"filename": "taskscope-check.txt"}
        if self.tool is not None:
            return self.tool, self.tool_args
        return None

    def answer_for(self, request: InputRequest, tool: str) -> dict[str, Any] | None:
        """The answer to a question of a task made with `tool`: the answers file's, else for a
        suite fixture the accepting answer the suite gives, else None (declined)."""
        scripted = self.probe.answer(request)
        if scripted is not None or tool not in FIXTURE_TOOLS:
            return scripted
        schema = request.requested_schema or {}
        properties = schema.get("properties")
        content = {
            name: _sample(field)
            for name, field in (properties.items() if isinstance(properties, dict) else ())
            if isinstance(field, dict)
        }
        return {"action": "accept", "content": content}

    def capability(self, *path: str) -> Any:
        """The server capability at `path` (None when absent)."""
        node: Any = self.info.capabilities
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        return node


def _sample(field: dict[str, Any]) -> Any:
    """A value a fixture's form field takes (the suite answers `confirm: true`, a name)."""
    kind = field.get("type")
    choices = field.get("enum")
    if isinstance(choices, list) and choices:
        return choices[0]
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        return field.get("minimum", 1)
    if kind == "array":
        return []
    return "taskscope"
