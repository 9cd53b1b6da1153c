"""The Kernels tab: kernels per name as `steptrace kernels` counts them, sortable
and filterable; Enter marks a kernel's occurrences on the timeline.

The figures are read once, in a worker, the first time the tab shows. When no
GPU work was observed the tab says so and why, never an empty table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.app.messages import MarkEvents, StatusText
from tui.app.widgets.rows_view import (
    SORT_BINDINGS,
    FiguresAsked,
    ReadOnce,
    RowsView,
    SortableRows,
    fit,
)
from tui.core.base.textsafe import printable
from tui.core.base.vocab import KernelSort
from tui.core.figures.analysis import Analysis
from tui.report.kernel_names import kernel_label
from tui.view.kernel_rows import (
    COLUMNS,
    SORTS,
    KernelRows,
    kernel_details,
    visible_columns,
)

if TYPE_CHECKING:
    from tui.core.results.kernels import KernelsResult


@dataclass
class KernelsRead(Message):
    """A worker read the capture's kernels (the Kernels tab's figures) and built
    the tab's rows (None: no kernel figures)."""

    result: KernelsResult
    rows: KernelRows | None = None


class KernelTable(ReadOnce, SortableRows[KernelSort]):
    """Kernels per name: count, total, median, max, busy share, launch delay."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *RowsView.BINDINGS,
        Binding("enter", "activate", "Mark on timeline"),
        *SORT_BINDINGS,
        Binding("v", "details", "Details (full name)"),
    ]

    ROW_ACTIONS = frozenset(("activate", "details", "sort_next", "reverse"))
    NAME_SORT = KernelSort.NAME
    READS = "kernels"

    def __init__(self, analysis: Analysis, *, id: str | None = None) -> None:
        super().__init__(KernelSort.TOTAL, True, id=id)
        self.analysis = analysis
        self.rows: KernelRows | None = None
        self.order = np.zeros(0, dtype=np.int64)
        self._wanted: str | None = None

    # -- reading (once, off the UI) ----------------------------------------------

    def is_read(self) -> bool:
        return self.rows is not None

    def reader(self) -> Callable[[], None]:
        analysis = self.analysis

        def read() -> None:
            from tui.core.results.kernels import KernelsResult

            result = KernelsResult.of(analysis)
            rows = None if result.stats is None else KernelRows.of(result)
            self.post_message(KernelsRead(result, rows))

        return read

    def on_kernels_read(self, message: KernelsRead) -> None:
        message.stop()
        result = message.result
        if result.stats is None:
            self.show_message(
                "Kernels: not observed — "
                + printable(str(result.gpu_missing_reason))
                + ". No kernel figure is shown as 0: the capture holds no device "
                "work to read them from."
            )
            return
        self.rows = message.rows or KernelRows.of(result)
        if not len(self.rows):
            self.show_message(
                "No kernel in this capture: the device ran copies or sets only "
                "(see the Copies tab)."
            )
            return
        self.show_message(None)
        self.reorder()
        if self._wanted is not None:
            self.select_name(self._wanted)
        else:
            self.cursor_moved()

    # -- order and filter -----------------------------------------------------------

    def reorder(self) -> None:
        rows = self.rows
        if rows is None:
            return
        self.order = rows.order(self.sort, self.descending, self.filter_text)
        self.rows_changed()

    def sort_columns(self) -> list[KernelSort]:
        return SORTS

    @property
    def current_row(self) -> int | None:
        """The kernel row under the cursor."""
        if self.message is not None or self.order.size == 0:
            return None
        return int(self.order[min(self.cursor, self.order.size - 1)])

    def select_name(self, name: str) -> None:
        """Put the cursor on a kernel by its full name (once the figures are read)."""
        rows = self.rows
        if rows is None:
            self._wanted = name
            return
        self._wanted = None
        row = rows.stats.table.row_of(name)
        if row is None:
            return
        found = np.flatnonzero(self.order == row)
        if found.size == 0 and self.filter_text:
            self.set_filter("")
            found = np.flatnonzero(self.order == row)
        if found.size:
            self.move_cursor(int(found[0]), say=False)

    # -- rows -------------------------------------------------------------------------

    def line_count(self) -> int:
        return int(self.order.size)

    def _columns(self, width: int) -> list[int]:
        return visible_columns(width, self.sort)

    def _name_width(self, width: int) -> int:
        shown = self._columns(width)
        return max(width - sum(COLUMNS[i][1] + 1 for i in shown), 8)

    def header_text(self, width: int) -> str:
        rows = self.rows
        if rows is None or self.message is not None:
            return "Kernels"
        title = (
            f"Kernel ({self.order.size} of {len(rows)}"
            + (f", filter: {printable(self.filter_text)}" if self.filter_text else "")
            + ")"
            + self.arrow(KernelSort.NAME)
        )
        parts = [fit(title, self._name_width(width))]
        for column in self._columns(width):
            heading, size, sort = COLUMNS[column]
            parts.append(fit(heading + self.arrow(sort), size, True))
        return " ".join(parts)

    def line_text(self, index: int, width: int) -> str:
        rows = self.rows
        assert rows is not None
        row = int(self.order[index])
        name_width = self._name_width(width)
        parts = [fit(rows.labels(name_width)[row], name_width)]
        cells = rows.cells(row)
        for column in self._columns(width):
            parts.append(fit(cells[column], COLUMNS[column][1], right=True))
        return " ".join(parts)

    def cursor_moved(self) -> None:
        row = self.current_row
        rows = self.rows
        if row is None or rows is None:
            return
        text = Text()
        text.append(rows.short_name(row), style="bold")
        text.append(f"  {int(rows.stats.table.count[row]):,} kernels")
        text.append("  Enter: mark on the timeline  v: full name", style="italic")
        self.post_message(StatusText(text))

    # -- keys -------------------------------------------------------------------------

    def action_activate(self) -> None:
        """Mark the kernel's occurrences on the timeline and visit the first."""
        row = self.current_row
        rows = self.rows
        if row is None or rows is None:
            return
        self.post_message(
            MarkEvents(
                rows.events(row),
                f"kernel {kernel_label(rows.stats.table.names[row], 24)}:",
            )
        )

    def action_details(self) -> None:
        """The kernel's full name, figures and launching operators."""
        row = self.current_row
        rows = self.rows
        if row is None or rows is None:
            return
        self.post_message(
            FiguresAsked("Kernel", kernel_details(rows, row, self.analysis))
        )
