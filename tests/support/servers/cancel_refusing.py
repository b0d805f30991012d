"""A demo server that refuses every `tasks/cancel` of a task it made (-32603), so a task
`taskscope check` created cannot be cancelled: the proof that such a task is reported as left
behind. Built on the violating relay (tests/support/servers/violating.py), over stdio:

    python -m tests.support.servers.cancel_refusing --wire extension -- --conformance
"""

from __future__ import annotations

import argparse
import asyncio
import os

from tests.support.servers.violating import Message, Relay, relay_stdio


class CancelRefusingRelay(Relay):
    """Relays everything untouched, except that it answers a cancel of a real task itself."""

    def reply(self, message: Message) -> Message | None:
        params = message.get("params")
        task_id = str(params.get("taskId")) if isinstance(params, dict) else ""
        if message.get("method") == "tasks/cancel" and not task_id.startswith("taskscope-"):
            error = {"code": -32603, "message": "this server refuses to cancel"}
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}
        return super().reply(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wire", choices=["legacy", "extension"], required=True)
    parser.add_argument("demo_args", nargs="*", help="passed to python -m app.demo")
    options = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(relay_stdio(options.wire, CancelRefusingRelay("none"), options.demo_args))


if __name__ == "__main__":
    main()
