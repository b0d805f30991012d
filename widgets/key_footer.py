"""A one-widget key-hint footer: the screen's shown bindings drawn as one line of text.

Textual's `Footer` mounts and styles one widget per key and recomposes them all whenever the
bindings change; this footer draws the same hints (same keys, descriptions, disabled state and
command-palette hint at the right) from one `render`, so starting and refocusing cost one repaint.
When the keys do not fit, the rightmost ones give way first, except the pinned ones (the App pins
`? Keys` and `q Quit`), and the palette hint is shortened to its key as a last resort.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import NamedTuple, Protocol, runtime_checkable

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import ActiveBinding
from textual.widget import Widget

from app.engine.safety.sanitize import safe_text

SEPARATOR = "▏"
"""Drawn between the key hints and the command-palette hint (Textual's footer draws a `vkey`
left border there)."""


class KeyHint(NamedTuple):
    """One key drawn in the footer, the columns it covers and what a click on it does."""

    key: str
    label: str
    description: str
    enabled: bool
    tooltip: str
    action: str = ""
    start: int = 0
    end: int = 0

    @property
    def width(self) -> int:
        """Cells the hint takes: the key, then a space and the description if there is one."""
        return cell_len(self.label) + (cell_len(self.description) + 1 if self.description else 0)


class KeyFooter(Widget, can_focus=False):
    """The active bindings with `show=True` (first key per action; `check_action` hides or greys
    them out), and the command-palette key at the right; a click on a key presses it."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--hover",
        "key-footer--separator",
    }
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .key-footer--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(
        self,
        *,
        pinned: AbstractSet[str] = frozenset(),
        id: str | None = None,  # noqa: A002
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.pinned = frozenset(pinned)
        """Actions whose keys stay shown however narrow the footer is."""
        self._hints: list[KeyHint] = []
        """The hints as last drawn, with their columns (for clicks and hovering)."""
        self._hovered: str | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        """Redraw on the next refresh; several updates before it cost one render."""
        self.refresh()

    def key_hints(self) -> tuple[list[KeyHint], KeyHint | None]:
        """The shown bindings in order (first binding per action), and the command-palette hint
        (None when there is none to show)."""
        app = self.app
        active = self.screen.active_bindings
        hints: list[KeyHint] = []
        seen_actions: set[str] = set()
        for binding_state in active.values():
            binding = binding_state.binding
            if not binding.show or binding.action in seen_actions:
                continue
            seen_actions.add(binding.action)
            hint = _hint(binding_state, app.get_key_display(binding))
            if isinstance(app, RelabelsBindings):
                word = app.binding_description(binding.action.removeprefix("app."))
                hint = hint._replace(description=word or hint.description)
            if not hint.enabled and isinstance(app, ExplainsDisabled):
                reason = app.disabled_reason(binding.action.removeprefix("app."))
                hint = hint._replace(tooltip=reason or hint.tooltip)
            hints.append(hint)
        palette: KeyHint | None = None
        if app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                palette = _hint(found, app.get_key_display(found.binding))
        return hints, palette

    def render(self) -> Text:
        hints, palette = self.key_hints()
        width = self.size.width
        if (
            palette is not None
            and _hints_width(self._pinned_in(hints)) + _palette_width(palette) > width
        ):
            palette = palette._replace(description="")
        right = Text(no_wrap=True, end="")
        if palette is not None:
            right.append(SEPARATOR, self.get_component_rich_style("key-footer--separator"))
            palette = self._append_hint(right, palette, width - palette.width - 1)
            right.append(" ")  # the margin Textual's footer leaves after every key
        left = Text(no_wrap=True, overflow="crop", end="")
        placed: list[KeyHint] = []
        room = width - right.cell_len
        for hint in self._fitted(hints, room):
            if left.cell_len >= room:
                break
            placed.append(self._append_hint(left, hint, left.cell_len))
            left.append(" ")
        left.truncate(max(room, 0))
        left.pad_right(max(room - left.cell_len, 0))
        self._hints = [
            hint._replace(end=min(hint.end, room)) for hint in placed if hint.start < room
        ]
        if palette is not None:
            self._hints.append(palette)
        return Text.assemble(left, right, no_wrap=True, end="")

    def _pinned_in(self, hints: list[KeyHint]) -> list[KeyHint]:
        return [hint for hint in hints if hint.action in self.pinned]

    def _fitted(self, hints: list[KeyHint], room: int) -> list[KeyHint]:
        """The hints that fit in `room` cells: the rightmost unpinned ones are left out first."""
        kept = list(hints)
        while _hints_width(kept) > room:
            unpinned = [index for index, hint in enumerate(kept) if hint.action not in self.pinned]
            if not unpinned:
                break
            del kept[unpinned[-1]]
        return kept

    def _append_hint(self, text: Text, hint: KeyHint, start: int) -> KeyHint:
        """Append one hint's cells to `text`; the hint with the columns it was drawn at."""
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")
        if hint.key == self._hovered:
            hover = self.get_component_rich_style("key-footer--hover")
            key_style, description_style = key_style + hover, description_style + hover
        if not hint.enabled:
            dim = Style(dim=True)
            key_style, description_style = key_style + dim, description_style + dim
        text.append(hint.label, key_style)
        if hint.description:
            text.append(" " + hint.description, description_style)
        return hint._replace(start=start, end=start + hint.width)

    def hint_at(self, x: int) -> KeyHint | None:
        """The hint drawn at column `x` of the footer, if any."""
        for hint in self._hints:
            if hint.start <= x < hint.end:
                return hint
        return None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Press the clicked key, as Textual's footer does (a disabled one rings the bell)."""
        hint = self.hint_at(event.x)
        if hint is None:
            return
        event.stop()
        if hint.enabled:
            self.app.simulate_key(hint.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hint = self.hint_at(event.x)
        self._hover(hint)

    def on_leave(self, _event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, hint: KeyHint | None) -> None:
        """Highlight the hint under the pointer and show its tooltip (as plain text: Textual
        parses a `str` tooltip as markup)."""
        key = hint.key if hint is not None else None
        if key == self._hovered:
            return
        self._hovered = key
        self.tooltip = safe_text(hint.tooltip) if hint is not None and hint.tooltip else None
        self.refresh()


@runtime_checkable
class ExplainsDisabled(Protocol):
    """An App that can say why a greyed-out action cannot run (shown as its key's tooltip)."""

    def disabled_reason(self, action: str) -> str | None: ...


@runtime_checkable
class RelabelsBindings(Protocol):
    """An App whose key means something else in some states (`p` resumes while paused): the
    footer shows the word it returns instead of the binding's description (None: as bound)."""

    def binding_description(self, action: str) -> str | None: ...


def _hint(state: ActiveBinding, label: str) -> KeyHint:
    """The hint for one active binding."""
    binding = state.binding
    return KeyHint(
        key=binding.key,
        label=label,
        description=binding.description,
        enabled=state.enabled,
        tooltip=state.tooltip or binding.tooltip,
        action=binding.action,
    )


def _hints_width(hints: list[KeyHint]) -> int:
    """Cells the hints take on the left, each followed by a space."""
    return sum(hint.width + 1 for hint in hints)


def _palette_width(palette: KeyHint) -> int:
    """Cells the palette hint takes at the right: separator, hint and margin."""
    return cell_len(SEPARATOR) + palette.width + 1
