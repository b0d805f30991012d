"""Bench-only demo tools, listed only when a demo server runs with `--bench`.

`bench_churn` is a task that never ends on its own and changes its status message once every
`period_s` seconds, on wall-clock boundaries shifted by `offset_s`; giving a quarter of the tasks
each offset 0, 1, 2 and 3 with a 4 s period makes exactly a quarter of them change every second.
"""

from __future__ import annotations

import time
from typing import Any

from app.demo.tool_contract import DemoTool, JobContext, text_result

DEFAULT_PERIOD_S = 4.0


def _number(args: dict[str, Any], key: str, default: float) -> float:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value)


async def bench_churn(ctx: JobContext, args: dict[str, Any]) -> dict[str, Any]:
    """Change the status message every `period_s` (at `offset_s` past each boundary) for
    `steps` times (forever when absent), then complete."""
    period = max(_number(args, "period_s", DEFAULT_PERIOD_S), 0.01)
    offset = _number(args, "offset_s", 0.0) % period
    steps = args.get("steps")
    limit = steps if isinstance(steps, int) and not isinstance(steps, bool) else None
    step = 0
    await ctx.status("step 0")
    while limit is None or step < limit:
        now = time.time()
        next_boundary = now - ((now - offset) % period) + period
        await ctx.sleep(next_boundary - now)
        step += 1
        await ctx.status(f"step {step}")
    return text_result(f"churned {step} steps")


BENCH_TOOLS: tuple[DemoTool, ...] = (
    DemoTool(
        "bench_churn",
        "Benchmarks only: changes its status message every period_s seconds.",
        {
            "type": "object",
            "properties": {
                "period_s": {"type": "number", "default": DEFAULT_PERIOD_S},
                "offset_s": {"type": "number", "default": 0},
                "steps": {"type": "integer", "minimum": 0},
            },
        },
        bench_churn,
        legacy_task_support="required",
    ),
)
