"""The adapters' `TaskMemo`: an unchanged `tasks/get` answer hands back the very same Task.

Pure logic (no server): what counts as unchanged (JSON equality with types, at any depth), what
is re-noted, what is not kept, and when a decorated copy is reused.
"""

from __future__ import annotations

from typing import Any

from app.engine.tasks.base import TaskMemo, same_json
from app.engine.tasks.models import Progress
from app.engine.tasks.normalize import Variants


def answer(**extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "taskId": "t-1",
        "status": "working",
        "statusMessage": "step 1",
        "createdAt": "2025-11-25T10:00:00Z",
        "ttl": 60000,
        "pollInterval": 1000,
    }
    body.update(extra)
    return body


def test_an_equal_answer_gives_back_the_same_task_and_a_changed_one_a_new_one() -> None:
    memo, variants = TaskMemo(), Variants()
    first = memo.task(answer(), wire="legacy", task_id="t-1", variants=variants)
    again = memo.task(answer(), wire="legacy", task_id="t-1", variants=variants)
    changed = memo.task(
        answer(statusMessage="step 2"), wire="legacy", task_id="t-1", variants=variants
    )
    assert again is first
    assert changed is not first and changed.status_message == "step 2"


def test_json_types_count_so_true_is_not_one() -> None:
    memo, variants = TaskMemo(), Variants()
    first = memo.task(answer(flag=True), wire="legacy", task_id="t-1", variants=variants)
    other = memo.task(answer(flag=1), wire="legacy", task_id="t-1", variants=variants)
    assert other is not first and other.raw["flag"] == 1
    assert not same_json({"a": [1, 2]}, {"a": [1, 2.0]})
    assert not same_json({"a": 1}, {"b": 1})
    assert same_json({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})


def test_deeply_nested_answers_are_compared_without_recursion() -> None:
    def nest(depth: int) -> list[Any]:
        root: list[Any] = []
        inner = root
        for _ in range(depth):
            inner.append([])
            inner = inner[0]
        return root

    assert same_json(nest(50_000), nest(50_000))
    assert not same_json(nest(50_000), nest(50_001))


def test_a_reused_answer_notes_its_wire_variants_again() -> None:
    memo, variants = TaskMemo(), Variants()
    variant_answer = {"task": answer()}  # the nested {task: …} variant
    memo.task(variant_answer, wire="legacy", task_id="t-1", variants=variants)
    memo.task({"task": answer()}, wire="legacy", task_id="t-1", variants=variants)
    assert variants.seen and set(variants.seen.values()) == {2}


def test_a_terminal_answer_is_not_kept() -> None:
    memo, variants = TaskMemo(), Variants()
    done = answer(status="completed")
    first = memo.task(done, wire="legacy", task_id="t-1", variants=variants)
    again = memo.task(dict(done), wire="legacy", task_id="t-1", variants=variants)
    assert again is not first and again == first


def test_a_decorated_copy_is_reused_until_a_decoration_changes() -> None:
    memo, variants = TaskMemo(), Variants()
    task = memo.task(answer(), wire="legacy", task_id="t-1", variants=variants)
    decorated = memo.decorated(task, {"tool_name": "slow", "progress": None})
    again = memo.decorated(task, {"tool_name": "slow", "progress": None})
    progress = Progress(progress=1, total=4)
    moved = memo.decorated(task, {"tool_name": "slow", "progress": progress})
    assert decorated.tool_name == "slow" and again is decorated
    assert moved is not decorated and moved.progress == progress
    fresh = memo.task(
        answer(statusMessage="step 2"), wire="legacy", task_id="t-1", variants=variants
    )
    assert memo.decorated(fresh, {"tool_name": "slow", "progress": progress}) is not moved
