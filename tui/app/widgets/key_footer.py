"""The footer: Textual's `Footer` drawn by one widget on one line.

Textual's footer mounts a widget per key each time the keys change (every
focus move, tab and dialog), about 50 ms of a key press; this one draws the
same keys, in the same styles and places, on one line, and draws again only
when the keys shown change. A compact footer or a compact key group, which the
explorer does not use, falls back to Textual's own widgets.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True)
class Shown:
    """One key as the footer shows it (in a group: `description` is the group's)."""

    key: str
    display: str
    description: str
    enabled: bool
    group: str | None = None


def shown_keys(footer: Footer) -> tuple[Shown, ...] | None:
    """The keys Textual's footer would show, in its order (None: a layout this
    footer does not draw, compact groups)."""
    app = footer.app
    by_action: defaultdict[str, list[tuple[Binding, bool]]] = defaultdict(list)
    for _node, binding, enabled, _tooltip in footer.screen.active_bindings.values():
        if binding.show:
            by_action[binding.action].append((binding, enabled))
    keys: list[Shown] = []
    entries = [bindings[0] for bindings in by_action.values()]
    index = 0
    while index < len(entries):
        binding, enabled = entries[index]
        group = binding.group
        run = 1
        while (
            group is not None
            and index + run < len(entries)
            and entries[index + run][0].group == group
        ):
            run += 1
        if group is not None and run > 1:
            if group.compact:
                return None
            for grouped, grouped_enabled in entries[index : index + run]:
                keys.append(
                    Shown(
                        grouped.key,
                        app.get_key_display(grouped),
                        group.description,
                        grouped_enabled,
                        group=group.description,
                    )
                )
        else:
            for single, single_enabled in entries[index : index + run]:
                keys.append(
                    Shown(
                        single.key,
                        app.get_key_display(single),
                        single.description,
                        single_enabled,
                    )
                )
        index += run
    return tuple(keys)


class KeyLine(Widget):
    """The footer's keys, drawn as one line; a click presses the key under it."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key",
        "footer-key--description",
        "footer-key--label",
    }
    # The looks of Textual's FooterKey and FooterLabel, on a background like a key's.
    DEFAULT_CSS = """
    KeyLine {
        width: 1fr;
        height: 1;
        background: $footer-item-background;
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer-key--label {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: tuple[Shown, ...] = ()
        self._places: list[tuple[int, int, Shown]] = []

    def show(self, keys: tuple[Shown, ...]) -> None:
        """Draw these keys."""
        self.keys = keys
        self.refresh()

    def _segments(self) -> list[Segment]:
        """The keys as Textual's footer lays them out, and where each one lies."""
        blank = Style.from_color(None, self.parent_style.bgcolor)
        base = self.rich_style
        dim = base + Style(dim=True)
        key_style = self.get_component_rich_style("footer-key--key")
        text_style = self.get_component_rich_style("footer-key--description")
        label_style = self.get_component_rich_style("footer-key--label")
        segments: list[Segment] = []
        places: list[tuple[int, int, Shown]] = []
        x = 0

        def add(text: str, style: Style, key: Shown | None = None) -> None:
            nonlocal x
            segments.append(Segment(text, style))
            if key is not None:
                places.append((x, x + cell_len(text), key))
            x += cell_len(text)

        keys = self.keys
        index = 0
        while index < len(keys):
            shown = keys[index]
            under = base if shown.enabled else dim
            if shown.group is None:
                add(" " + shown.display + " ", under + key_style, shown)
                add(shown.description + " ", under + text_style, shown)
                index += 1
                continue
            # A group: its keys one cell apart (margins collapse), then its name.
            while index < len(keys) and keys[index].group == shown.group:
                grouped = keys[index]
                add(" ", blank)
                add(grouped.display, (base if grouped.enabled else dim) + key_style)
                places.append((x - cell_len(grouped.display), x, grouped))
                index += 1
            add(" ", blank)
            add(shown.group, label_style)
            add(" ", blank)
        self._places = places
        return segments

    @property
    def parent_style(self) -> Style:
        """The footer's own style, which the space between keys has."""
        parent = self.parent
        return parent.rich_style if isinstance(parent, Widget) else self.rich_style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        blank = Style.from_color(None, self.parent_style.bgcolor)
        if y != 0:
            return Strip.blank(width, blank)
        return Strip(self._segments()).crop_extend(0, width, blank)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for start, end, key in self._places:
            if start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return


class KeyFooter(Footer):
    """Textual's footer drawn by one `KeyLine`, redrawn only when its keys change."""

    def __init__(self) -> None:
        super().__init__()
        self._drawn: tuple[Shown, ...] | None = None
        self._palette: tuple[str, bool] | None = None
        self._fallback = False

    def compose(self) -> ComposeResult:
        if self._fallback:
            yield from super().compose()
            return
        yield KeyLine()
        if not self._bindings_ready:
            return
        palette = self._palette_key()
        if palette is not None:
            _key, enabled = palette
            binding = self.screen.active_bindings[self.app.COMMAND_PALETTE_BINDING][1]
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=binding.tooltip or binding.description,
            )

    def _palette_key(self) -> tuple[str, bool] | None:
        """The command palette's key and whether it is enabled (None: not shown)."""
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if found is None:
            return None
        return found[1].key, found[2]

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._follow_keys)

    async def _follow_keys(self) -> None:
        """Draw the keys now shown; mount widgets only when the palette key changes."""
        if not self.is_attached:
            return
        keys = None if self.compact else shown_keys(self)
        palette = self._palette_key()
        if keys is None or self._fallback or palette != self._palette:
            self._fallback = keys is None
            self._palette = palette
            self._drawn = None
            await self.recompose()
        if keys is not None and keys != self._drawn:
            self._draw(keys)

    def _draw(self, keys: tuple[Shown, ...]) -> None:
        self._drawn = keys
        for line in self.query(KeyLine):
            line.show(keys)
