"""The rank × step heat table: a Line-API widget over `tui.view.run_table`.

Only the visible lines are drawn, each from the run's figures, so a run of
hundreds of ranks costs what the screen shows. The column titles, the
per-step median and spread stay on top, and the rank columns on the left;
ranks scroll vertically and steps horizontally with the cursor. Colour
doubles the marks (`*`, arrows), never replaces them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tui.core.base.vocab import HeatLevel, HeatValue, RankSort
from tui.view.run_table import (
    CELL_WIDTH,
    COLUMN_GAP,
    LEFT_WIDTH,
    SEPARATOR,
    RunTable,
    default_descending,
)

FIXED_LINES = 3  # titles, medians, spreads
_LEVEL_CLASS = {level: f"heat-table--{level.value}" for level in HeatLevel}


@dataclass
class RankCellHighlighted(Message):
    """The heat table's cursor is on this rank and step number."""

    rank: int
    step: int | None

    def can_replace(self, message: Message) -> bool:
        """Only the latest cell matters while keys repeat."""
        return isinstance(message, RankCellHighlighted)


@dataclass
class RankCellChosen(Message):
    """Enter on a heat table cell: open this rank's timeline at this step."""

    rank: int
    step: int | None


class HeatTable(Widget, can_focus=True):
    """Ranks down, steps across; a cell is a rank's step time in its band."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(0,-1)", "Rank up", show=False),
        Binding("down", "move(0,1)", "Rank down", show=False),
        Binding("left", "move(-1,0)", "Step left", show=False),
        Binding("right", "move(1,0)", "Step right", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First rank", show=False),
        Binding("end", "edge(1)", "Last rank", show=False),
        Binding("enter", "choose", "Open rank at step"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "heat-table--header",
        "heat-table--dim",
        "heat-table--cursor",
        "heat-table--row",
        "heat-table--straggler",
        *_LEVEL_CLASS.values(),
    }

    # Blue for faster, oranges for slower: told apart with any colour vision.
    DEFAULT_CSS = """
    HeatTable { height: 1fr; }
    HeatTable > .heat-table--header { text-style: bold; }
    HeatTable > .heat-table--dim { text-style: dim; }
    HeatTable > .heat-table--row { text-style: bold; }
    HeatTable > .heat-table--cursor { text-style: reverse; }
    HeatTable:focus > .heat-table--cursor { text-style: reverse bold; }
    HeatTable > .heat-table--straggler { text-style: bold; }
    HeatTable > .heat-table--faster { background: #9ecae1; color: #000000; }
    HeatTable > .heat-table--slower { background: #fdd0a2; color: #000000; }
    HeatTable > .heat-table--slow { background: #fd8d3c; color: #000000; }
    HeatTable > .heat-table--slowest { background: #a63603; color: #ffffff; }
    """

    def __init__(self, table: RunTable, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table
        self.sort = table.first_sort
        self.descending = default_descending(self.sort)
        self.shown = HeatValue.STEP_TIME
        self.cursor_row = 0  # position in `order`
        self.cursor_col = 0  # step index
        self.top = 0
        self.first_col = 0
        self.order: list[int] = table.order(self.sort, self.descending)
        self._styles: LRUCache[str, Style] = LRUCache(64)

    # -- state ------------------------------------------------------------------

    @property
    def current_rank(self) -> int | None:
        """The rank under the cursor."""
        if not self.order:
            return None
        return self.table.rows[self.order[self.cursor_row]].rank

    @property
    def current_step(self) -> int | None:
        """The step number under the cursor."""
        steps = self.table.steps
        return steps[self.cursor_col].number if steps else None

    def ranks_in_order(self) -> list[int]:
        """The ranks as the table lists them now."""
        return [self.table.rows[index].rank for index in self.order]

    def set_sort(self, key: RankSort, descending: bool | None = None) -> None:
        """Order the ranks by `key`, keeping the cursor on its rank."""
        rank = self.current_rank
        self.sort = key
        self.descending = default_descending(key) if descending is None else descending
        self._reorder(rank)

    def set_shown(self, shown: HeatValue) -> None:
        """Show each cell's step time, wait in the collectives or device idle share."""
        self.shown = shown
        self.refresh()

    def _reorder(self, rank: int | None) -> None:
        self.order = self.table.order(self.sort, self.descending, self.cursor_col)
        if rank is not None:
            self.go_to(rank, self.current_step)
        self.refresh()

    def go_to(self, rank: int | None, step: int | None) -> None:
        """Put the cursor on a rank's row and a step's column (each when given and shown)."""
        if rank is not None:
            row = self.table.row_of_rank(rank)
            if row is not None and row in self.order:
                self.cursor_row = self.order.index(row)
        if step is not None:
            column = self.table.step_index(step)
            if column is not None:
                self.cursor_col = column
        self._moved()

    # -- keys -------------------------------------------------------------------

    def _visible_rows(self) -> int:
        return max(self.size.height - FIXED_LINES, 1)

    def _visible_cols(self) -> int:
        room = self.size.width - LEFT_WIDTH - len(SEPARATOR)
        return max(room // (CELL_WIDTH + COLUMN_GAP), 1)

    def _moved(self) -> None:
        """Clamp the cursor, scroll it into view, redraw and say where it is."""
        self.cursor_row = max(0, min(self.cursor_row, len(self.order) - 1))
        self.cursor_col = max(0, min(self.cursor_col, len(self.table.steps) - 1))
        rows, cols = self._visible_rows(), self._visible_cols()
        if self.cursor_row < self.top:
            self.top = self.cursor_row
        elif self.cursor_row >= self.top + rows:
            self.top = self.cursor_row - rows + 1
        self.top = max(0, min(self.top, max(len(self.order) - rows, 0)))
        if self.cursor_col < self.first_col:
            self.first_col = self.cursor_col
        elif self.cursor_col >= self.first_col + cols:
            self.first_col = self.cursor_col - cols + 1
        self.refresh()
        rank = self.current_rank
        if rank is not None:
            self.post_message(RankCellHighlighted(rank, self.current_step))

    def action_move(self, columns: int, rows: int) -> None:
        """Move the cursor by steps and ranks."""
        self.cursor_col += columns
        self.cursor_row += rows
        self._moved()

    def action_page(self, direction: int) -> None:
        """A screenful of ranks up or down."""
        self.cursor_row += direction * self._visible_rows()
        self._moved()

    def action_edge(self, end: int) -> None:
        """The first or last rank of the order."""
        self.cursor_row = len(self.order) - 1 if end else 0
        self._moved()

    def action_choose(self) -> None:
        """Ask to open the rank under the cursor at its step."""
        rank = self.current_rank
        if rank is not None:
            self.post_message(RankCellChosen(rank, self.current_step))

    def sort_next(self, step: int) -> None:
        """The next (or previous) sort key."""
        keys = self.table.sort_keys
        index = keys.index(self.sort)
        self.set_sort(keys[(index + step) % len(keys)])

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on a cell; a double click opens it."""
        if event.y >= FIXED_LINES:
            self.cursor_row = self.top + event.y - FIXED_LINES
        cells_x = event.x - LEFT_WIDTH - len(SEPARATOR)
        if cells_x >= 0:
            self.cursor_col = self.first_col + cells_x // (CELL_WIDTH + COLUMN_GAP)
        self._moved()
        if event.chain == 2:
            self.action_choose()

    def on_resize(self) -> None:
        self._moved()

    # -- drawing ----------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, name: str) -> Style:
        """The widget's style, or a component's on top of it."""
        style = self._styles.get(name)
        if style is None:
            base = self.rich_style
            style = base if name == "base" else base + self._overlay(name)
            self._styles[name] = style
        return style

    def _overlay(self, name: str) -> Style:
        """Only what a component's rule sets (to add on a coloured cell)."""
        key = "overlay:" + name
        style = self._styles.get(key)
        if style is None:
            style = self.get_component_rich_style(name, partial=True)
            self._styles[key] = style
        return style

    def _columns(self) -> range:
        steps = len(self.table.steps)
        return range(self.first_col, min(self.first_col + self._visible_cols(), steps))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self._style("base")
        if y < FIXED_LINES:
            segments = self._fixed_line(y)
        else:
            position = self.top + y - FIXED_LINES
            if position >= len(self.order):
                return Strip.blank(width, base)
            segments = self._rank_line(position)
        return Strip(segments).adjust_cell_length(width, base)

    def _separator(self, more_left: bool) -> str:
        return " ◂" if more_left else SEPARATOR

    def _fixed_line(self, y: int) -> list[Segment]:
        table = self.table
        columns = self._columns()
        gap = " " * COLUMN_GAP
        if y == 0:
            header = self._style("heat-table--header")
            text = table.header_left(self.sort, self.descending)
            segments = [Segment(f"{text:<{LEFT_WIDTH}}", header)]
            segments.append(Segment(self._separator(self.first_col > 0), header))
            for index in columns:
                title = table.step_title(
                    index, self.sort, self.descending, self.cursor_col
                )
                style = (
                    header + Style(underline=True)
                    if index == self.cursor_col
                    else header
                )
                segments.append(Segment(gap, header))
                segments.append(Segment(table.aligned(title), style))
            if columns and columns.stop < len(table.steps):
                segments.append(Segment(" ▸", header))
            return segments
        dim = self._style("heat-table--dim")
        shown = self.shown
        label = table.median_label(shown) if y == 1 else table.spread_label(shown)
        segments = [Segment(f"{label:>{LEFT_WIDTH}}", dim), Segment(SEPARATOR, dim)]
        for index in columns:
            value = (
                table.median_text(index, shown)
                if y == 1
                else table.spread_text(index, shown)
            )
            segments.append(Segment(gap + value, dim))
        return segments

    def _rank_line(self, position: int) -> list[Segment]:
        table = self.table
        row = self.order[position]
        base = self._style("base")
        is_cursor_row = position == self.cursor_row
        left = self._style("heat-table--row") if is_cursor_row else base
        segments = [
            Segment(f"{table.left_text(row, self.sort):<{LEFT_WIDTH}}", left),
            Segment(SEPARATOR, base),
        ]
        for index in self._columns():
            cell = table.cell(row, index, self.shown)
            style = base
            if cell.level is not None and cell.level is not HeatLevel.NEAR:
                style = self._style(_LEVEL_CLASS[cell.level])
            if cell.straggler:
                style = style + self._overlay("heat-table--straggler")
            if is_cursor_row and index == self.cursor_col:
                style = style + self._overlay("heat-table--cursor")
            segments.append(Segment(" " * COLUMN_GAP, base))
            segments.append(Segment(cell.text, style))
        return segments
