"""The task list's column layout kept fitted to its width and to the widest cell of each sized
column, counting rows one by one and rescanning them only after a widest one shrank or left."""

from __future__ import annotations

from collections.abc import Iterable

from widgets.table_layout import SIZED_KEYS, ColumnLayout, fit_columns
from widgets.task_cells import ContentWidths


class ColumnFitter:
    """The widest content of each sized column and the layout last fitted to it."""

    def __init__(self) -> None:
        self._content: dict[str, int] = dict.fromkeys(SIZED_KEYS, 0)
        """The widest cell of each sized column over every row (see `_stale`)."""
        self._stale = False
        """A row that was among the widest shrank or left: `_content` is recomputed when read."""
        self._fitted_for: tuple[int, tuple[int, ...]] | None = None
        """The width and column contents `columns` was fitted to."""
        self.columns: ColumnLayout = ()
        """The columns shown, with their widths (see `widgets.table_layout`)."""

    def widen(self, content: ContentWidths) -> None:
        """Count one row's content in the widest cell of each sized column."""
        for key, width in zip(SIZED_KEYS, content, strict=True):
            if width > self._content[key]:
                self._content[key] = width

    def row_changed(self, old: ContentWidths, new: ContentWidths) -> None:
        """Count a row whose content went from `old` to `new`."""
        self._stale |= any(now < before for now, before in zip(new, old, strict=True))
        self.widen(new)

    def row_left(self) -> None:
        """A row is no longer shown: the widest cells are counted again at the next fit."""
        self._stale = True

    def fit(self, width: int, rows: Iterable[ContentWidths]) -> bool:
        """Fit the columns to `width` and the content of `rows` (every row shown, read only when
        a widest row shrank or left); True when the layout changed."""
        if self._stale:
            self._stale = False
            self._content = dict.fromkeys(SIZED_KEYS, 0)
            for content in rows:
                self.widen(content)
        fitted_for = (width, tuple(self._content.values()))
        if fitted_for == self._fitted_for:
            return False
        self._fitted_for = fitted_for
        layout = fit_columns(width, self._content)
        if layout == self.columns:
            return False
        self.columns = layout
        return True
