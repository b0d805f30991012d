"""`ToolInfo.from_wire`: one `tools/list` entry as the picker and the arguments form read it."""

from __future__ import annotations

from app.engine.rpc.tool_info import ToolInfo


def test_tool_info_reads_task_support_only_on_legacy() -> None:
    wire = {
        "name": "x",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"},
    }
    assert ToolInfo.from_wire(wire, legacy=True).task_support == "required"
    assert ToolInfo.from_wire(wire, legacy=False).task_support is None
    assert ToolInfo.from_wire({"name": "y"}, legacy=True).task_support == "forbidden"
