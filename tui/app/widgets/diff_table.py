"""The comparison's operator table: before / after / change, read from one `DiffResult`.

A Line-API view over the diff's aligned columns: only visible rows are drawn.
Rows are ordered by the largest absolute change of the time shown (self or
total, `t`), or by calls or name (`o`); wide terminals show CPU and GPU side
by side, narrow ones one clock at a time (`c`). GPU cells of a side without
GPU events read n/o (not observed), never 0.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import numpy.typing as npt
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.messages import OperatorActivated, OperatorSelected
from tui.core.diff import TraceDiff
from tui.core.results.diff import DiffResult
from tui.core.textsafe import printable
from tui.core.vocab import SortKey, TimeDevice
from tui.view.comparison import (
    PRESENCE_MARK,
    calls_cell,
    gpu_note,
    ops_title,
    time_cells,
)

ORDERS = ("change", "calls", "name")
CALLS_WIDTH = 11
CELL_WIDTH = 10
DELTA_WIDTH = 11
MIN_NAME = 24
HEADER_ROWS = 2
# One clock's three cells and the spaces before them.
GROUP_WIDTH = 3 + 2 * CELL_WIDTH + DELTA_WIDTH


def _fit(text: str, width: int, right: bool = False) -> str:
    """Pad or cut to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - cell_len(text))
    return pad + text if right else text + pad


class DiffOpTable(ScrollView, can_focus=True):
    """Operators of both captures, before / after / change, sortable by change."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "activate", "Timelines"),
        Binding("o", "order", "Order: change/calls/name", show=False),
        Binding("c", "clock", "CPU/GPU", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-table--header",
        "diff-table--cursor",
    }

    DEFAULT_CSS = """
    DiffOpTable { overflow-x: hidden; scrollbar-size-vertical: 1; }
    DiffOpTable > .diff-table--header { text-style: bold; }
    DiffOpTable > .diff-table--cursor { text-style: reverse; }
    DiffOpTable:focus > .diff-table--cursor { text-style: reverse bold; }
    """

    def __init__(
        self,
        diff: TraceDiff,
        *,
        mode: SortKey = SortKey.SELF,
        order: str = "change",
        device: TimeDevice | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.diff = diff
        self.mode = mode
        self.order_by = order
        self.device = diff.ops.device_for(device)
        self.cursor = 0
        shapes = diff.ops.input_shapes
        self._shown = [
            printable(name)
            + ("" if shapes is None else f" {printable(str(shapes[row]))}")
            for row, name in enumerate(diff.ops.names)
        ]
        self._styles: dict[bool, tuple[Style, Style, Style]] = {}
        self._reorder()

    # -- data -------------------------------------------------------------

    @property
    def result(self) -> DiffResult:
        """The diff with the order shown (the same rows `steptrace diff` lists)."""
        sort = (
            self.mode
            if self.order_by == "change"
            else SortKey.CALLS
            if self.order_by == "calls"
            else SortKey.NAME
        )
        return DiffResult.from_diff(self.diff, sort=sort, device=self.device)

    def _reorder(self) -> None:
        keep = self.current_row
        self.order: npt.NDArray[np.int64] = self.result.op_rows
        self.virtual_size = Size(0, int(self.order.size) + HEADER_ROWS)
        if keep is not None:
            found = np.flatnonzero(self.order == keep)
            self.cursor = int(found[0]) if found.size else 0
        self.refresh()

    def set_mode(self, mode: SortKey) -> None:
        """Self or total time; ordered by the change of the time shown."""
        self.mode = mode
        self._reorder()

    @property
    def current_row(self) -> int | None:
        """The diff row under the cursor."""
        order = getattr(self, "order", None)
        if order is None or order.size == 0:
            return None
        return int(order[min(self.cursor, order.size - 1)])

    @property
    def current_name(self) -> str | None:
        """The operator name under the cursor."""
        row = self.current_row
        return None if row is None else self.diff.ops.names[row]

    def shown_devices(self) -> list[TimeDevice]:
        """The clocks drawn: both when the terminal is wide enough, else the chosen one."""
        width = self.scrollable_content_region.width
        if width - 2 - CALLS_WIDTH - 1 - 2 * GROUP_WIDTH >= MIN_NAME:
            return [TimeDevice.CPU, TimeDevice.GPU]
        return [self.device]

    # -- keys -------------------------------------------------------------

    def move_cursor(self, index: int) -> None:
        """Put the cursor on a row, scroll to it and say which operator it is."""
        if self.order.size == 0:
            return
        self.cursor = max(0, min(int(self.order.size) - 1, index))
        visible = max(self.size.height - HEADER_ROWS, 1)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False)
        self.refresh()
        row = int(self.order[self.cursor])
        self.post_message(OperatorSelected(self.diff.ops.names[row], row))

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor + direction * max(self.size.height - 3, 1))

    def action_edge(self, end: int) -> None:
        self.move_cursor(int(self.order.size) - 1 if end else 0)

    def action_activate(self) -> None:
        """Ask the screen to show this operator on both timelines."""
        row = self.current_row
        if row is not None:
            self.post_message(OperatorActivated(self.diff.ops.names[row], row))

    def action_order(self) -> None:
        """Order by change of the time shown, by change of calls, or by name."""
        self.order_by = ORDERS[(ORDERS.index(self.order_by) + 1) % len(ORDERS)]
        self._reorder()

    def action_clock(self) -> None:
        """Read CPU time or GPU work (the change is ordered on GPU only when both sides have it)."""
        self.device = (
            TimeDevice.GPU if self.device is TimeDevice.CPU else TimeDevice.CPU
        )
        self._reorder()

    def on_click(self, event: events.Click) -> None:
        if event.y >= HEADER_ROWS:
            self.move_cursor(int(self.scroll_y) + event.y - HEADER_ROWS)
            if event.chain == 2:
                self.action_activate()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(0, int(self.order.size) + HEADER_ROWS)

    # -- rendering --------------------------------------------------------

    def _name_width(self, groups: int) -> int:
        width = self.scrollable_content_region.width
        return max(width - 2 - CALLS_WIDTH - 1 - groups * GROUP_WIDTH, 8)

    def title_text(self) -> str:
        """The first header line: what is compared, the order, what is not observed."""
        result = self.result
        title = ops_title(result, self.mode, result.device)
        note = gpu_note(self.diff.ops)
        return title if note is None else f"{title}; {note}"

    def columns_text(self) -> str:
        """The second header line: the column names, the sorted change marked ▼."""
        devices = self.shown_devices()
        sorted_device = self.result.device
        text = "  " + _fit("Operator", self._name_width(len(devices)))
        arrow = " ▼" if self.order_by == "calls" else ""
        text += " " + _fit("Calls b→a" + arrow, CALLS_WIDTH, right=True)
        for device in devices:
            clock = device.value.upper()
            arrow = (
                " ▼" if self.order_by == "change" and device is sorted_device else ""
            )
            text += (
                " "
                + _fit(f"{clock} before", CELL_WIDTH, right=True)
                + " "
                + _fit(f"{clock} after", CELL_WIDTH, right=True)
                + " "
                + _fit(f"Δ {clock}{arrow}", DELTA_WIDTH, right=True)
            )
        return text

    def row_text(self, row: int) -> str:
        """One operator's cells, as drawn."""
        ops = self.diff.ops
        devices = self.shown_devices()
        text = PRESENCE_MARK[ops.presence[row]] + " "
        text += _fit(self._shown[row], self._name_width(len(devices)))
        text += " " + _fit(calls_cell(ops, row), CALLS_WIDTH, right=True)
        for device in devices:
            before, after, delta = time_cells(ops, row, self.mode, device)
            text += (
                " "
                + _fit(before, CELL_WIDTH, right=True)
                + " "
                + _fit(after, CELL_WIDTH, right=True)
                + " "
                + _fit(delta, DELTA_WIDTH, right=True)
            )
        return text

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style_set(self) -> tuple[Style, Style, Style]:
        key = self.has_focus
        styles = self._styles.get(key)
        if styles is None:
            base = self.rich_style
            styles = (
                base,
                base + self.get_component_rich_style("diff-table--header"),
                base + self.get_component_rich_style("diff-table--cursor"),
            )
            self._styles[key] = styles
        return styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base, header, cursor = self._style_set()
        if y == 0:
            return Strip([Segment(_fit(self.title_text(), width), header)], width)
        if y == 1:
            line = self.columns_text()
            return Strip([Segment(_fit(line, width), header)], width)
        index = int(self.scroll_y) + y - HEADER_ROWS
        if index >= self.order.size:
            return Strip([Segment(" " * width, base)], width)
        row = int(self.order[index])
        style = cursor if index == self.cursor else base
        return Strip([Segment(_fit(self.row_text(row), width), style)], width)
