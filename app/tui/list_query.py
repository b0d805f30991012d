"""How the task list is shown: the filter as typed, what it parses to, and the sort order.

One frozen value, so the App holds it in one reactive and the list redraws once per change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.view.state import SortKey, TaskFilter, parse_filter
from app.view.task_filter import FIRST_DESCENDING


@dataclass(frozen=True, slots=True)
class ListQuery:
    """The `/` query as typed (stripped), the filter it parses to (with faults-only), the sort."""

    text: str = ""
    filter: TaskFilter = field(default_factory=TaskFilter)
    sort: SortKey | None = None
    descending: bool = False

    def filtered(self, text: str, *, faults_only: bool) -> ListQuery:
        """This query with a new filter text and faults-only toggle."""
        text = text.strip()
        return replace(self, text=text, filter=parse_filter(text, faults_only=faults_only))

    def sorted_by(self, key: SortKey) -> ListQuery:
        """Sort by `key` the way a person expects (age and changed: newest first); the same key
        again reverses."""
        if self.sort == key:
            return replace(self, descending=not self.descending)
        return replace(self, sort=key, descending=key in FIRST_DESCENDING)
