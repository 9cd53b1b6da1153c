"""A Line-API list with header lines and a cursor: the base of every table of rows
(operators, the comparison's operators, kernels, copies).

Only visible lines are drawn, each from the subclass's own columns, so a table
costs the same with ten rows or a hundred thousand. A table with nothing to
show (figures being read, GPU work not observed) draws its message instead,
wrapped. Section lines (headings) are drawn apart and skipped by the cursor.
`SortableRows` adds what the sortable tables share: a sort column, its
direction, the next column (o), reverse (r) and the arrow in the header;
`ReadOnce` what the tabs whose figures are read in a worker share.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.events import Show
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, WorkerState

from tui.report.fit import fit_end

SortT = TypeVar("SortT")


def fit(text: str, width: int, right: bool = False) -> str:
    """Pad or cut `text` (already escaped) to exactly `width` cells."""
    shown = fit_end(text, width)
    pad = " " * (width - cell_len(shown))
    return pad + shown if right else shown + pad


class RowsView(ScrollView, can_focus=True):
    """Rows under header lines; up/down/page/home/end move a cursor over them."""

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

    HEADER_LINES: ClassVar[int] = 1
    """Lines above the rows (they do not scroll)."""

    ROW_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    """Actions that need rows: not offered while the message shows."""

    def __init__(
        self, *, id: str | None = None, message: str | None = "reading…"
    ) -> None:
        super().__init__(id=id)
        self.cursor = 0
        self.message: str | None = message
        """Shown instead of the rows while there are none to show (and why)."""
        self.filter_text = ""
        self._styles: LRUCache[tuple[bool, str], Style] = LRUCache(64)
        self._drawn_width = -1
        """The width the lines were last drawn for."""

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
        """The header line (of a table with one)."""
        return ""

    def header_line(self, y: int, width: int) -> str:
        """Header line `y` (0 to HEADER_LINES - 1)."""
        return self.header_text(width)

    def cursor_moved(self) -> None:
        """The cursor is on another line (say what it is)."""

    def reorder(self) -> None:
        """Order and filter the rows again (sort, direction or filter changed)."""
        self.rows_changed()

    def header_clicked(self, x: int) -> None:
        """A click on the header at cell `x`."""

    def row_double_clicked(self) -> None:
        """A double click on a row (after the first click moved the cursor to it)."""

    # -- state ---------------------------------------------------------------

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
        self.virtual_size = Size(0, count + self.HEADER_LINES)
        self.cursor = min(self.cursor, max(count - 1, 0))
        if count and self.is_section(self.cursor):
            self.cursor = self._selectable(self.cursor, 1)
        self.refresh()

    def set_filter(self, text: str) -> None:
        """Keep only the rows matching `text` (empty: all), from the first row."""
        self.filter_text = text
        self.cursor = 0
        self.reorder()
        self.scroll_to(y=0, animate=False)

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
        visible = max(self.size.height - self.HEADER_LINES, 1)
        top = int(self.scroll_y)
        # Forced: rows just read have no scrollbar until the next layout, and
        # Textual refuses to scroll a widget without one (the cursor would stay
        # off screen); the target is still clamped to the rows there are.
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= top + visible:
            self.scroll_to(
                y=self.cursor - visible + 1, animate=False, immediate=True, force=True
            )

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta, delta)

    def action_page(self, direction: int) -> None:
        page = max(self.size.height - self.HEADER_LINES - 1, 1)
        self.move_cursor(self.cursor + direction * page, direction)

    def action_edge(self, end: int) -> None:
        self.move_cursor(self.line_count() - 1 if end else 0, -1 if end else 1)

    def on_click(self, event: events.Click) -> None:
        if event.y < self.HEADER_LINES:
            self.header_clicked(event.x)
            return
        self.move_cursor(int(self.scroll_y) + event.y - self.HEADER_LINES)
        if event.chain == 2:
            self.row_double_clicked()

    def on_resize(self, event: events.Resize) -> None:
        # Textual drew the resized table already (a tab shown: its 37 lines a
        # second time cost 4 ms of the key); only lines of another width go.
        if self.scrollable_content_region.width != self._drawn_width:
            self.refresh()
        # A cursor placed while the table was hidden or not yet laid out (a
        # finding's anchor on a tab shown by the same key) was scrolled to with
        # the size it had then: once the real size is known, it is brought in.
        self.call_after_refresh(self._cursor_into_view)

    # -- drawing ---------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, what: str) -> Style:
        """Styles per focus state; computing them per line is costly."""
        key = (self.has_focus, what)
        style = self._styles.get(key)
        if style is None:
            base = self.rich_style
            style = (
                base
                if what == "base"
                else base + self.get_component_rich_style(f"rows-view--{what}")
            )
            self._styles[key] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        self._drawn_width = width
        if y < self.HEADER_LINES:
            return self._strip(self.header_line(y, width), width, "header")
        index = int(self.scroll_y) + y - self.HEADER_LINES
        if self.message is not None:
            lines = textwrap.wrap(self.message, max(width - 2, 10)) or [""]
            text = " " + lines[index] if index < len(lines) else ""
            return self._strip(text, width, "message")
        if index >= self.line_count():
            return Strip([Segment(" " * width, self._style("base"))], width)
        text = self.line_text(index, width)
        if self.is_section(index):
            what = "section"
        elif index == self.cursor:
            what = "cursor"
        else:
            what = "base"
        return self._strip(text, width, what)

    def _strip(self, text: str, width: int, what: str) -> Strip:
        return Strip([Segment(fit(text, width), self._style(what))], width)


class SortableRows(RowsView, Generic[SortT]):
    """Rows sorted by a column, largest first (names A to Z); o, O and r change it."""

    NAME_SORT: ClassVar[object] = "name"
    """The column sorted A to Z by default (every other one largest first)."""

    def __init__(
        self,
        sort: SortT,
        descending: bool,
        *,
        id: str | None = None,
        message: str | None = "reading…",
    ) -> None:
        super().__init__(id=id, message=message)
        self.sort: SortT = sort
        self.descending = descending

    def sort_columns(self) -> Sequence[SortT]:
        """The columns o and O go through, in order."""
        return [self.sort]

    def set_sort(self, sort: SortT, descending: bool | None = None) -> None:
        """Sort by a column: numbers largest first, names A to Z by default;
        the same column again reverses."""
        if descending is None:
            descending = (
                not self.descending if sort == self.sort else sort != self.NAME_SORT
            )
        self.sort = sort
        self.descending = descending
        self.reorder()

    def action_sort_next(self, step: int) -> None:
        columns = list(self.sort_columns())
        index = columns.index(self.sort) if self.sort in columns else 0
        self.set_sort(columns[(index + step) % len(columns)])

    def action_reverse(self) -> None:
        self.set_sort(self.sort, not self.descending)

    def arrow(self, column: SortT | None) -> str:
        """The header's mark of the sorted column (and its direction); "" for the others."""
        if column is None or column != self.sort:
            return ""
        return " ▼" if self.descending else " ▲"


SORT_BINDINGS: list[BindingType] = [
    Binding("o", "sort_next(1)", "Sort by next column"),
    Binding("O", "sort_next(-1)", "Sort by previous column", show=False),
    Binding("r", "reverse", "Reverse the sort", show=False),
]
"""The keys of a sortable table (after its own Enter, as the footer lists them)."""


@dataclass
class FiguresAsked(Message):
    """A tab's row is asked for in full (its details key): the screen shows
    `figures` (trace strings already escaped) under `title`."""

    title: str
    figures: Text


class ReadOnce(RowsView):
    """Rows whose figures are read once, in a worker, the first time the tab shows
    (the worker builds the rows too); until then, and on failure, a message."""

    READS: ClassVar[str] = "figures"
    """What is read, in words ("the kernels"); also the worker's group."""

    _reading = False

    def is_read(self) -> bool:
        """Whether the figures are here."""
        return False

    def reader(self) -> Callable[[], None]:
        """The worker's job: read the figures and post them (run off the UI)."""
        return lambda: None

    def on_show(self, event: Show) -> None:
        self.read()

    def read(self) -> None:
        """Read the figures in a worker, unless read or being read."""
        if self._reading or self.is_read():
            return
        self._reading = True
        self.show_message(f"reading the {self.READS}…")
        self.run_worker(
            self.reader(),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group=self.READS,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == self.READS and event.state is WorkerState.ERROR:
            self.show_message(f"could not read the {self.READS}: {event.worker.error}")
