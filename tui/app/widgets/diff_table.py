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
from textual.binding import Binding, BindingType

from tui.app.messages import OperatorActivated, OperatorSelected
from tui.app.widgets.rows_view import RowsView, fit
from tui.core.base.textsafe import printable
from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.diff import TraceDiff
from tui.core.results.diff import DiffResult
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


class DiffOpTable(RowsView):
    """Operators of both captures, before / after / change, sortable by change."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *RowsView.BINDINGS,
        Binding("enter", "activate", "Timelines"),
        Binding("o", "order", "Order: change/calls/name", show=False),
        Binding("c", "clock", "CPU/GPU", show=False),
        Binding("w", "whole", "Δ per step/whole trace", show=False),
    ]

    # Two header lines (what is compared, the columns), bold but not underlined.
    DEFAULT_CSS = """
    DiffOpTable > .rows-view--header { text-style: bold; }
    """

    HEADER_LINES = HEADER_ROWS

    def __init__(
        self,
        diff: TraceDiff,
        *,
        mode: SortKey = SortKey.SELF,
        order: str = "change",
        device: TimeDevice | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, message=None)
        self.diff = diff
        self.mode = mode
        self.order_by = order
        self.device = diff.ops.device_for(device)
        self.per_step = True
        """Δ per kept step, as `steptrace diff` (False: of the whole trace, `w`)."""
        shapes = diff.ops.input_shapes
        self._shown = [
            printable(name)
            + ("" if shapes is None else f" {printable(str(shapes[row]))}")
            for row, name in enumerate(diff.ops.names)
        ]
        self.reorder()

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

    def reorder(self) -> None:
        keep = self.current_row
        self.order: npt.NDArray[np.int64] = self.result.op_rows
        if keep is not None:
            found = np.flatnonzero(self.order == keep)
            self.cursor = int(found[0]) if found.size else 0
        self.rows_changed()

    def set_mode(self, mode: SortKey) -> None:
        """Self or total time; ordered by the change of the time shown."""
        self.mode = mode
        self.reorder()

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

    def cursor_moved(self) -> None:
        row = int(self.order[self.cursor])
        self.post_message(OperatorSelected(self.diff.ops.names[row], row))

    def action_activate(self) -> None:
        """Ask the screen to show this operator on both timelines."""
        row = self.current_row
        if row is not None:
            self.post_message(OperatorActivated(self.diff.ops.names[row], row))

    def action_order(self) -> None:
        """Order by change of the time shown, by change of calls, or by name."""
        self.order_by = ORDERS[(ORDERS.index(self.order_by) + 1) % len(ORDERS)]
        self.reorder()

    def action_whole(self) -> None:
        """Δ of the mean per kept step, or of the whole trace."""
        self.per_step = not self.per_step
        self.rows_changed()

    def action_clock(self) -> None:
        """Read CPU time or GPU work (the change is ordered on GPU only when both sides have it)."""
        self.device = (
            TimeDevice.GPU if self.device is TimeDevice.CPU else TimeDevice.CPU
        )
        self.reorder()

    def row_double_clicked(self) -> None:
        self.action_activate()

    # -- rendering --------------------------------------------------------

    def _name_width(self, groups: int) -> int:
        width = self.scrollable_content_region.width
        return max(width - 2 - CALLS_WIDTH - 1 - groups * GROUP_WIDTH, 8)

    def title_text(self) -> str:
        """The first header line: what is compared, the order, what is not observed."""
        result = self.result
        title = ops_title(result, self.mode, result.device, self.per_step)
        note = gpu_note(self.diff.ops)
        return title if note is None else f"{title}; {note}"

    def columns_text(self) -> str:
        """The second header line: the column names, the sorted change marked ▼."""
        devices = self.shown_devices()
        sorted_device = self.result.device
        text = "  " + fit("Operator", self._name_width(len(devices)))
        arrow = " ▼" if self.order_by == "calls" else ""
        text += " " + fit("Calls b→a" + arrow, CALLS_WIDTH, right=True)
        for device in devices:
            clock = device.value.upper()
            arrow = (
                " ▼" if self.order_by == "change" and device is sorted_device else ""
            )
            text += (
                " "
                + fit(f"{clock} before", CELL_WIDTH, right=True)
                + " "
                + fit(f"{clock} after", CELL_WIDTH, right=True)
                + " "
                + fit(f"Δ {clock}{arrow}", DELTA_WIDTH, right=True)
            )
        return text

    def row_text(self, row: int) -> str:
        """One operator's cells, as drawn."""
        ops = self.diff.ops
        devices = self.shown_devices()
        text = PRESENCE_MARK[ops.presence[row]] + " "
        text += fit(self._shown[row], self._name_width(len(devices)))
        text += " " + fit(calls_cell(ops, row), CALLS_WIDTH, right=True)
        for device in devices:
            before, after, delta = time_cells(
                ops, row, self.mode, device, self.per_step
            )
            text += (
                " "
                + fit(before, CELL_WIDTH, right=True)
                + " "
                + fit(after, CELL_WIDTH, right=True)
                + " "
                + fit(delta, DELTA_WIDTH, right=True)
            )
        return text

    def header_line(self, y: int, width: int) -> str:
        return self.title_text() if y == 0 else self.columns_text()

    def line_count(self) -> int:
        return int(self.order.size)

    def line_text(self, index: int, width: int) -> str:
        return self.row_text(int(self.order[index]))
