"""A Line-API list with a header line and a cursor: the base of the Kernels and
Copies tabs.

Only visible lines are drawn, each from the subclass's own columns, so a tab
costs the same with ten rows or a hundred thousand. A tab with nothing to show
(figures being read, GPU work not observed) draws its message instead, wrapped.
Section lines (headings) are drawn apart and skipped by the cursor.
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


def fit(text: str, width: int, right: bool = False) -> str:
    """Pad or cut `text` (already escaped) to exactly `width` cells."""
    if width <= 0:
        return ""
    size = cell_len(text)
    if size > width:
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - size)
    return pad + text if right else text + pad


class RowsView(ScrollView, can_focus=True):
    """Rows under a header line; up/down/page/home/end move a cursor over them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rows-view--header",
        "rows-view--cursor",
        "rows-view--section",
        "rows-view--message",
    }

    DEFAULT_CSS = """
    RowsView { overflow-x: hidden; scrollbar-size-vertical: 1; }
    RowsView > .rows-view--header { text-style: bold underline; }
    RowsView > .rows-view--cursor { text-style: reverse; }
    RowsView:focus > .rows-view--cursor { text-style: reverse bold; }
    RowsView > .rows-view--section { text-style: bold; }
    RowsView > .rows-view--message { text-style: italic; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cursor = 0
        self.message: str | None = "reading…"
        """Shown instead of the rows while there are none to show (and why)."""
        self._styles: dict[bool, dict[str, Style]] = {}

    # -- what subclasses tell -------------------------------------------------

    def line_count(self) -> int:
        """How many lines there are under the header."""
        return 0

    def line_text(self, index: int, width: int) -> str:
        """Line `index` fitted to `width` cells (trace strings escaped)."""
        return ""

    def is_section(self, index: int) -> bool:
        """Whether line `index` is a heading the cursor skips."""
        return False

    def header_text(self, width: int) -> str:
        """The header line."""
        return ""

    def cursor_moved(self) -> None:
        """The cursor is on another line (say what it is)."""

    # -- state ---------------------------------------------------------------

    ROW_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    """Actions that need rows: not offered while the message shows."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers row keys only when there are rows to act on."""
        if action in self.ROW_ACTIONS:
            return self.message is None and self.line_count() > 0
        return True

    def show_message(self, message: str | None) -> None:
        """Draw `message` instead of the rows (None: the rows again)."""
        had = self.message is None
        self.message = message
        self.rows_changed()
        if had != (message is None):
            self.refresh_bindings()

    def rows_changed(self) -> None:
        """The lines changed: size, cursor and picture follow."""
        count = self.line_count() if self.message is None else 0
        self.virtual_size = Size(0, count + 1)
        self.cursor = min(self.cursor, max(count - 1, 0))
        if count and self.is_section(self.cursor):
            self.cursor = self._selectable(self.cursor, 1)
        self.refresh()

    def _selectable(self, index: int, direction: int) -> int:
        """The nearest line at or after (before) `index` that is not a heading."""
        count = self.line_count()
        step = 1 if direction >= 0 else -1
        probe = index
        while 0 <= probe < count:
            if not self.is_section(probe):
                return probe
            probe += step
        probe = index
        while 0 <= probe < count:
            if not self.is_section(probe):
                return probe
            probe -= step
        return max(0, min(index, count - 1))

    def move_cursor(self, index: int, direction: int = 1, *, say: bool = True) -> None:
        """Put the cursor on a line (not a heading), scroll to it, say what it is
        (unless `say` is False: another place speaks, a finding's anchor)."""
        count = self.line_count()
        if self.message is not None or count == 0:
            return
        index = self._selectable(max(0, min(count - 1, index)), direction)
        self.cursor = index
        self._cursor_into_view()
        # Rows just read: the scroll range follows the new size after a refresh.
        self.call_after_refresh(self._cursor_into_view)
        self.refresh()
        if say:
            self.cursor_moved()

    def _cursor_into_view(self) -> None:
        visible = max(self.size.height - 1, 1)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta, delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(
            self.cursor + direction * max(self.size.height - 2, 1), direction
        )

    def action_edge(self, end: int) -> None:
        self.move_cursor(self.line_count() - 1 if end else 0, -1 if end else 1)

    def on_click(self, event: events.Click) -> None:
        if event.y > 0:
            self.move_cursor(int(self.scroll_y) + event.y - 1)

    def on_resize(self, event: events.Resize) -> None:
        self.rows_changed()

    # -- drawing ---------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, what: str) -> Style:
        """Styles per focus state; computing them per line is costly."""
        styles = self._styles.setdefault(self.has_focus, {})
        style = styles.get(what)
        if style is None:
            base = self.rich_style
            style = (
                base
                if what == "base"
                else base + self.get_component_rich_style(f"rows-view--{what}")
            )
            styles[what] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            return Strip(
                [Segment(fit(self.header_text(width), width), self._style("header"))],
                width,
            )
        index = int(self.scroll_y) + y - 1
        if self.message is not None:
            lines = textwrap.wrap(self.message, max(width - 2, 10)) or [""]
            text = " " + lines[index] if index < len(lines) else ""
            return Strip([Segment(fit(text, width), self._style("message"))], width)
        if index >= self.line_count():
            return Strip([Segment(" " * width, self._style("base"))], width)
        text = self.line_text(index, width)
        if self.is_section(index):
            style = self._style("section")
        elif index == self.cursor:
            style = self._style("cursor")
        else:
            style = self._style("base")
        return Strip([Segment(fit(text, width), style)], width)
