"""Which watched tasks the table shows and in what order: the `/` filter query and the sort keys.

Pure functions of the `WatchedTask`s, so the App, the tests and any other view order rows alike.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from app.view.watched import WatchedTask

SortKey = Literal["age", "status", "tool", "last_change"]
SORT_KEYS: tuple[SortKey, ...] = ("age", "status", "tool", "last_change")
FIRST_DESCENDING: frozenset[SortKey] = frozenset({"age", "last_change"})
"""Sorts whose first press puts the latest moment first (the newest task, the latest change), as
a person reads "sort by age"; pressing the key again reverses."""


FilterField = Literal["status", "tool", "id", "server", "text"]


@dataclass(frozen=True, slots=True)
class FilterTerm:
    """One `/` token: `status:`, `tool:`, `id:`, `server:` or free text, optionally negated with
    `!`."""

    field: FilterField
    value: str
    negated: bool = False

    def matches(self, watched: WatchedTask) -> bool:
        return self._hit(watched) != self.negated

    def _hit(self, watched: WatchedTask) -> bool:
        needle = self.value.casefold()
        if self.field == "status":
            names = {watched.status, watched.task.status if watched.task else "unknown"}
            wanted = needle.split(",")
            return any(name.startswith(want) for name in names for want in wanted if want)
        if self.field == "tool":
            return needle in (watched.tool_name or "").casefold()
        if self.field == "id":
            return needle in watched.server_task_id.casefold()
        if self.field == "server":
            wanted = needle.split(",")
            server = (watched.server or "").casefold()
            return any(want in server for want in wanted if want)
        message = watched.task.status_message if watched.task else None
        parts = (watched.task_id, watched.tool_name, watched.status, message)
        haystack = " ".join(part for part in parts if part)
        return needle in haystack.casefold()


@dataclass(frozen=True, slots=True)
class TaskFilter:
    """All `/` tokens (every one must match) plus the faults-only toggle."""

    terms: tuple[FilterTerm, ...] = ()
    faults_only: bool = False

    @property
    def is_empty(self) -> bool:
        return not self.terms and not self.faults_only

    def matches(self, watched: WatchedTask) -> bool:
        if self.faults_only and not watched.is_fault:
            return False
        return all(term.matches(watched) for term in self.terms)


_FIELD_PREFIXES: dict[str, FilterField] = {
    "status": "status",
    "s": "status",
    "tool": "tool",
    "t": "tool",
    "id": "id",
    "task": "id",
    "server": "server",
}


def parse_filter(query: str, *, faults_only: bool = False) -> TaskFilter:
    """Parse a `/` query such as `status:working tool:"long job" !id:abc deploy` into a filter."""
    try:
        tokens = shlex.split(query)
    except ValueError:  # an unbalanced quote: fall back to plain words
        tokens = query.split()
    terms: list[FilterTerm] = []
    for token in tokens:
        negated = token.startswith("!")
        body = token[1:] if negated else token
        prefix, colon, value = body.partition(":")
        field_name = _FIELD_PREFIXES.get(prefix.casefold()) if colon else None
        if field_name is not None:
            if value:
                terms.append(FilterTerm(field_name, value, negated))
        elif body:
            terms.append(FilterTerm("text", body, negated))
    return TaskFilter(tuple(terms), faults_only)


_STATUS_RANK: dict[str, int] = {
    "input_required": 0,
    "failed": 1,
    "forgotten": 2,
    "not_found": 3,
    "not_visible": 3,
    "expired": 4,
    "unknown": 5,
    "working": 6,
    "cancelled": 7,
    "completed": 8,
}


def sort_key(watched: WatchedTask, key: SortKey) -> tuple[Any, ...]:
    """A comparable key for one order; ties fall back to first-seen then id, so rows stay put."""
    stable = (watched.first_seen, watched.task_id)
    if key == "age":
        return (watched.created_at, *stable)
    if key == "status":
        return (_STATUS_RANK.get(watched.status, 9), not watched.erroring, *stable)
    if key == "tool":
        return ((watched.tool_name or "\uffff").casefold(), *stable)
    return (watched.changed_at, *stable)


def ordered_ids(
    tasks: Mapping[str, WatchedTask],
    *,
    task_filter: TaskFilter | None = None,
    sort: SortKey | None = None,
    descending: bool = False,
) -> list[str]:
    """The ids to show, filtered, in sort order (first-seen order when `sort` is None)."""
    shown: Iterable[WatchedTask] = tasks.values()
    if task_filter is not None and not task_filter.is_empty:
        shown = [watched for watched in shown if task_filter.matches(watched)]
    if sort is None:
        ids = [watched.task_id for watched in shown]
        return ids[::-1] if descending else ids
    ranked = sorted(shown, key=lambda watched: sort_key(watched, sort), reverse=descending)
    return [watched.task_id for watched in ranked]
