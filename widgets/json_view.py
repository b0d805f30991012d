"""A folding JSON tree that copes with hostile data: lazy, capped, and with literal labels.

Children are built only when a node is first expanded, so a huge or deeply nested result costs
nothing until it is opened; depth and width caps show "…" nodes instead of recursing, and every
key and value goes through `one_line`, never through Rich markup. A line wider than the pane
scrolls sideways and shows "…" where the pane cuts it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.theme import Theme
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from app.engine.safety.sanitize import one_line
from widgets.theme_style import theme_style


@dataclass(frozen=True, slots=True)
class JsonChildren:
    """A container whose children are not built yet; replaced by None once they are."""

    value: dict[str, Any] | list[Any]
    depth: int


JsonNode = TreeNode[JsonChildren | None]


class JsonView(Tree[JsonChildren | None]):
    """Shows one JSON value as a tree; `load` replaces it and unfolds the first levels."""

    DEFAULT_CSS = """
    JsonView {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(
        self,
        data: Any = None,
        *,
        label: str = "JSON",
        max_depth: int = 32,
        max_children: int = 200,
        value_width: int = 120,
        id: str | None = None,  # noqa: A002 - Textual's own name for it
        classes: str | None = None,
    ) -> None:
        super().__init__(Text(label), id=id, classes=classes)
        self.max_depth = max_depth
        self.max_children = max_children
        self.value_width = value_width
        self._data: Any = data
        self._expand_levels = 2
        self._styles: dict[str, Style] = {}

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.load(self._data)

    def process_label(self, label: str | Text) -> Text:
        """Labels are shown literally: a `str` is never parsed as markup."""
        text = Text(label) if isinstance(label, str) else label
        return text.split()[0] if "\n" in text.plain else text

    def render_line(self, y: int) -> Strip:
        """A line running past the pane's right edge ends in "…" there (the rest is a scroll
        away), so cut text always shows it is cut."""
        strip = super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width  # a vertical scrollbar takes its cells
        node = self.get_node_at_line(scroll_y + y)
        if node is None or width < 2 or self._line_cells(node) <= scroll_x + width:
            return strip
        shown = list(strip.crop(0, width - 1))
        return Strip([*shown, Segment("…", shown[-1].style if shown else None)], width)

    def _line_cells(self, node: JsonNode) -> int:
        """Cells `node`'s whole line takes: its guides (one step per ancestor) and its label."""
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        return depth * self.guide_depth + self.get_label_width(node)

    def load(self, data: Any, *, expand_levels: int = 2) -> None:
        """Show `data`, unfolding `expand_levels` levels below the root."""
        self._data = data
        self._expand_levels = expand_levels
        self.clear()
        root = self.root
        if isinstance(data, dict | list):
            root.set_label(self._container_label(None, data))
            root.data = JsonChildren(data, 0)
            self._unfold(root, expand_levels)
        else:
            root.set_label(self._label(None, data))
            root.data = None
            root.allow_expand = False
        root.expand()

    def _unfold(self, node: JsonNode, levels: int) -> None:
        """Build and expand `levels` levels under `node`, breadth first, without recursion."""
        frontier = [node]
        for _ in range(levels):
            next_frontier: list[JsonNode] = []
            for current in frontier:
                next_frontier.extend(self._populate(current))
                current.expand()
            frontier = next_frontier

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[JsonChildren | None]) -> None:
        event.stop()
        self._populate(event.node)

    def _populate(self, node: JsonNode) -> list[JsonNode]:
        """Build `node`'s children once; returns the children that are themselves containers."""
        pending = node.data
        if pending is None:
            return []
        node.data = None
        value, depth = pending.value, pending.depth + 1
        items: list[tuple[str | int, Any]] = (
            list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        )
        containers: list[JsonNode] = []
        for key, child in items[: self.max_children]:
            if isinstance(child, dict | list) and child:
                if depth >= self.max_depth:
                    node.add_leaf(self._truncated_label(key, "… deeper levels not shown"))
                    continue
                added = node.add(self._container_label(key, child), JsonChildren(child, depth))
                containers.append(added)
            else:
                node.add_leaf(self._label(key, child))
        if len(items) > self.max_children:
            node.add_leaf(self._truncated_label(None, f"… {len(items) - self.max_children} more"))
        return containers

    def _style(self, variable: str) -> Style:
        style = self._styles.get(variable)
        if style is None:
            style = theme_style(self.app.theme_variables, variable)
            self._styles[variable] = style
        return style

    def _key_text(self, key: str | int | None) -> Text:
        if key is None:
            return Text()
        shown = f"[{key}]" if isinstance(key, int) else one_line(key[:400], 40)
        return Text.assemble((shown, self._style("text-primary")), ": ")

    def _container_label(self, key: str | int | None, value: dict[str, Any] | list[Any]) -> Text:
        summary = f"{{{len(value)}}}" if isinstance(value, dict) else f"[{len(value)}]"
        return Text.assemble(self._key_text(key), (summary, Style(dim=True)))

    def _truncated_label(self, key: str | int | None, note: str) -> Text:
        return Text.assemble(self._key_text(key), (note, Style(dim=True, italic=True)))

    def _label(self, key: str | int | None, value: Any) -> Text:
        if isinstance(value, str) and len(value) > self.value_width * 2:
            # A long string is encoded only as far as it is shown: a 50 MB one stays instant.
            head = json.dumps(value[: self.value_width * 2], ensure_ascii=False)[:-1]
            return Text.assemble(
                self._key_text(key),
                (one_line(head, self.value_width - 1) + "…", self._style("text-success")),
                (f" ({len(value):,} chars)", Style(dim=True)),
            )
        if isinstance(value, str):
            shown = one_line(json.dumps(value, ensure_ascii=False), self.value_width)
            variable = "text-success"
        elif isinstance(value, bool) or value is None:
            shown, variable = json.dumps(value), "text-accent"
        elif isinstance(value, int | float):
            shown, variable = one_line(repr(value), self.value_width), "text-warning"
        elif isinstance(value, dict | list):  # an empty container
            shown, variable = json.dumps(value), ""
        else:
            shown, variable = one_line(value, self.value_width), ""
        style = self._style(variable) if variable else Style(dim=True)
        return Text.assemble(self._key_text(key), (shown, style))

    def _on_theme_changed(self, _theme: Theme) -> None:
        self._styles = {}
        self.load(self._data, expand_levels=self._expand_levels)
