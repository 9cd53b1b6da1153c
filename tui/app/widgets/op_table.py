"""The operator table: a Line-API view over `OpTable`'s numpy columns.

Only visible rows are rendered, from the arrays, so drawing costs the same for
ten rows or a hundred thousand. Sorting and filtering rebuild one index array.
`i` groups the rows by input shape as `steptrace ops --group-by shape` does
(built in a worker); a capture without shapes says so instead. `p` brings
back the Python frames and module ranges of a `with_stack` capture, as
`steptrace ops --python` does (operators only by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt
from rich.cells import cell_len
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.app.messages import OperatorActivated, OperatorSelected
from tui.app.widgets.rows_view import SORT_BINDINGS, RowsView, SortableRows, fit
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import SortKey
from tui.core.figures.analysis import Analysis, OpTable, Step
from tui.core.figures.shapes import ShapeOpTable
from tui.core.results.ops import DEFAULT_SORT, SHAPES_OFF, default_device

SORT_COLUMNS = ("name", "calls", "cpu", "gpu")
CALLS_WIDTH = 8
TIME_WIDTH = 11
NAME_LEAST = 48
"""The name column's least width when there is room: the title reads whole,
and at 80 columns the names keep all the room the numbers leave."""
NAME_MOST = 96
"""The name column's most width: longer names are shortened, not the numbers
pushed to a wide terminal's far edge."""


@dataclass
class ShapesRead(Message):
    """A worker grouped a scope's operators by input shape (`table` None: no
    shapes recorded); `span` is the scope it was asked for (None: the window)."""

    table: ShapeOpTable | None
    span: tuple[int, int] | None


def default_column(table: OpTable) -> str:
    """The column `steptrace ops` sorts by: GPU time when observed, else CPU time."""
    if DEFAULT_SORT in (SortKey.SELF, SortKey.TOTAL):
        return str(default_device(table.self_gpu_ns is not None).value)
    return str(DEFAULT_SORT.value)


def default_mode() -> SortKey:
    """Self or total time first, as `steptrace ops` sorts."""
    return SortKey.TOTAL if DEFAULT_SORT is SortKey.TOTAL else SortKey.SELF


@dataclass
class ScopeTable(Message):
    """A worker computed the operator table of one step (the table's scope)."""

    table: OpTable
    label: str


class OperatorTable(SortableRows[str]):
    """Operators with calls and CPU/GPU time; self or total, sortable, filterable."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *RowsView.BINDINGS,
        Binding("enter", "activate", "Mark on timeline"),
        *SORT_BINDINGS,
        Binding("i", "shapes", "Rows by input shape"),
        Binding("p", "python", "Python frames shown/hidden"),
    ]

    # Why shapes are not recorded reads as plain text, not as a (italic) notice.
    DEFAULT_CSS = """
    OperatorTable > .rows-view--message { text-style: none; }
    """

    def __init__(
        self,
        table: OpTable,
        *,
        mode: SortKey = SortKey.SELF,
        analysis: Analysis | None = None,
        id: str | None = None,
    ) -> None:
        """`analysis`: what rows by input shape are built from (none: no `i`)."""
        super().__init__(
            default_column(table),
            DEFAULT_SORT is not SortKey.NAME,
            id=id,
            message=None,
        )
        self.analysis = analysis
        self.mode = mode
        self.by_shape = False
        """Rows keyed by (name, input shapes) rather than by name."""
        self.shapes_state = ""
        """While grouping by shape: "reading", "off" (not recorded) or "" (shown)."""
        self.scope_span: tuple[int, int] | None = None
        """The scope's time range (None: the whole window)."""
        self.python = False
        """Python frames and module ranges are rows too (`p`)."""
        self._window_table = table
        self.name_table = table
        self.scope_label = "whole window"
        self._set_table(table)

    # -- data -------------------------------------------------------------

    def _set_table(self, table: OpTable) -> None:
        self.table = table
        if isinstance(table, ShapeOpTable):
            self._shown = [
                f"{printable(name)} {printable(table.shapes_text(row))}"
                for row, name in enumerate(table.names)
            ]
        else:
            self._shown = [printable(name) for name in table.names]
        self._lower = [shown.lower() for shown in self._shown]
        self._longest = max((cell_len(shown) for shown in self._shown), default=0)
        keys = table.names
        if isinstance(table, ShapeOpTable):
            keys = [
                f"{name}\0{table.shapes_text(row)}"
                for row, name in enumerate(table.names)
            ]
        self._by_name = np.array(
            sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64
        )
        self.reorder()

    def set_table(self, table: OpTable, scope_label: str) -> None:
        """Show another table (another scope), keeping mode, sort, filter and grouping."""
        self.scope_label = scope_label
        self.name_table = table
        if self.by_shape:
            self._read_shapes()
        else:
            self._show_keeping_cursor(table, say=False)

    def scope_window(self, table: OpTable) -> None:
        """Cover the whole window, whose table (operators only) is `table`."""
        self.scope_span = None
        self._window_table = table
        if self.python and self.analysis is not None:
            self._read_scope(self.analysis, None, "whole window")
        else:
            self.set_table(table, "whole window")

    def scope_step(self, analysis: Analysis, step: Step) -> None:
        """Cover one step; its table is a pass over its events, made off the UI."""
        self.scope_span = (step.start_ns, step.end_ns)
        self._read_scope(analysis, self.scope_span, f"step {step.number}")

    def _read_scope(
        self, analysis: Analysis, span: tuple[int, int] | None, label: str
    ) -> None:
        """The table of `span` (None: the window), with Python frames if shown,
        made in a worker."""
        python = self.python

        def scope_table() -> None:
            table = analysis.op_table(*(span or (None, None)), python=python)
            self.post_message(ScopeTable(table, label))

        self.run_worker(
            scope_table, thread=True, exclusive=True, exit_on_error=False, group="scope"
        )

    def action_python(self) -> None:
        """Show the Python frames and module ranges beside the operators, or hide them."""
        if self.analysis is None:
            return
        self.python = not self.python
        span = self.scope_span
        if span is None and not self.python:
            self.set_table(self._window_table, "whole window")
            return
        self._read_scope(self.analysis, span, self.scope_label)

    def on_scope_table(self, message: ScopeTable) -> None:
        message.stop()
        if (self.scope_span is None) == (message.label == "whole window"):
            self.set_table(message.table, message.label)

    def _show_keeping_cursor(self, table: OpTable, *, say: bool = True) -> None:
        """Show `table` with the cursor on the same operator; `say`: mark its
        rows anew (by input shapes, a row holds other events), which another
        scope does not (it is no new choice of operator)."""
        name = self.current_name
        self._set_table(table)
        if name is not None and name in table.names:
            self.select_name(name, say=say)

    # -- rows by input shape ---------------------------------------------------

    def action_shapes(self) -> None:
        """Group rows by (name, input shapes), or back by name."""
        if self.by_shape:
            self.by_shape = False
            self.shapes_state = ""
            self.show_message(None)  # row keys are offered again
            self._show_keeping_cursor(self.name_table)
            return
        if self.analysis is None:
            return
        self.by_shape = True
        self._read_shapes()

    def _read_shapes(self) -> None:
        """Build the scope's rows by shape in a worker (None when none were recorded)."""
        analysis = self.analysis
        if analysis is None:
            return
        span = self.scope_span
        self.shapes_state = "reading"
        self.refresh()

        def read() -> None:
            from tui.core.figures.shapes import shape_op_table, shapes_in_trace

            table = None
            if shapes_in_trace(analysis.trace):
                table = shape_op_table(
                    analysis, *(span or (None, None)), python=self.python
                )
            self.post_message(ShapesRead(table, span))

        self.run_worker(
            read, thread=True, exclusive=True, exit_on_error=False, group="shapes"
        )

    def on_shapes_read(self, message: ShapesRead) -> None:
        message.stop()
        if not self.by_shape or message.span != self.scope_span:
            return  # toggled back, or another scope asked for since
        if message.table is None:
            self.shapes_state = "off"
            self.show_message(SHAPES_OFF_WHY)
            return
        self.shapes_state = ""
        self._show_keeping_cursor(message.table)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Row keys are not offered while the table says shapes were not recorded."""
        return not (self.message is not None and action in ("activate", "sort_next"))

    @property
    def gpu_observed(self) -> bool:
        """Whether the table has GPU columns."""
        return self.table.self_gpu_ns is not None

    def _column(self, device: str) -> npt.NDArray[np.int64] | None:
        table = self.table
        if device == "gpu":
            return (
                table.self_gpu_ns if self.mode is SortKey.SELF else table.total_gpu_ns
            )
        return table.self_cpu_ns if self.mode is SortKey.SELF else table.total_cpu_ns

    def reorder(self) -> None:
        """Rebuild the row order from sort, direction and filter."""
        rows = self._by_name
        if self.filter_text:
            needle = self.filter_text.lower()
            keep = np.fromiter(
                (needle in self._lower[row] for row in rows.tolist()),
                dtype=bool,
                count=rows.size,
            )
            rows = rows[keep]
        if self.sort == "name":
            order = rows if not self.descending else rows[::-1]
        else:
            if self.sort == "calls":
                column = self.table.calls
            else:
                chosen = self._column(self.sort) if self.sort == "gpu" else None
                if chosen is None:
                    chosen = self._column("cpu")
                assert chosen is not None
                column = chosen
            key = column[rows]
            order = rows[np.argsort(-key if self.descending else key, kind="stable")]
        self.order: npt.NDArray[np.int64] = order
        self.rows_changed()

    def set_mode(self, mode: SortKey) -> None:
        """Self or total time; the order follows the shown values."""
        self.mode = mode
        self.reorder()

    def sort_columns(self) -> list[str]:
        return [c for c in SORT_COLUMNS if c != "gpu" or self.gpu_observed]

    @property
    def current_row(self) -> int | None:
        """The OpTable row under the cursor (none while shapes read "not recorded")."""
        if self.order.size == 0 or self.message is not None:
            return None
        return int(self.order[self.cursor])

    @property
    def current_name(self) -> str | None:
        """The operator name under the cursor."""
        row = self.current_row
        return None if row is None else self.table.names[row]

    def select_name(self, name: str, *, say: bool = True) -> None:
        """Put the cursor on an operator by name, if shown (by shape: its first
        row shown); `say`: announce it (OperatorSelected), as a move by the user."""
        rows = [row for row, item in enumerate(self.table.names) if item == name]
        if not rows:
            return
        found = np.flatnonzero(np.isin(self.order, np.array(rows, dtype=np.int64)))
        if found.size:
            self.move_cursor(int(found[0]), say=say)

    def values(self, row: int) -> tuple[int, int, int | None]:
        """Calls, CPU and GPU time of a row in the current mode."""
        cpu = self._column("cpu")
        gpu = self._column("gpu")
        assert cpu is not None
        return (
            int(self.table.calls[row]),
            int(cpu[row]),
            None if gpu is None else int(gpu[row]),
        )

    # -- cursor and keys ---------------------------------------------------

    def cursor_moved(self) -> None:
        row = int(self.order[self.cursor])
        table = self.table
        events = table.row_events(row) if isinstance(table, ShapeOpTable) else None
        self.post_message(OperatorSelected(table.names[row], row, events))

    def action_activate(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(OperatorActivated(self.table.names[row], row))

    def header_clicked(self, x: int) -> None:
        column = self._column_at(x)
        if column is not None:
            self.set_sort(column)

    def row_double_clicked(self) -> None:
        self.action_activate()

    # -- rendering --------------------------------------------------------

    def _widths(self) -> tuple[int, int, int, int]:
        """The columns' widths: the names take the room the numbers leave, up
        to the longest name (at least the title's room, at most NAME_MOST), so
        on a wide terminal the numbers sit beside the names."""
        width = self.scrollable_content_region.width
        room = max(width - CALLS_WIDTH - 2 * TIME_WIDTH - 3, 8)
        wanted = min(max(self._longest, NAME_LEAST), NAME_MOST)
        return min(room, wanted), CALLS_WIDTH, TIME_WIDTH, TIME_WIDTH

    def _column_at(self, x: int) -> str | None:
        name_w, calls_w, cpu_w, _ = self._widths()
        edges = [name_w, name_w + 1 + calls_w, name_w + 2 + calls_w + cpu_w]
        for column, edge in zip(SORT_COLUMNS[:3], edges, strict=True):
            if x < edge:
                return column
        return "gpu" if self.gpu_observed else None

    def header_text(self, width: int | None = None) -> str:
        """The header line, which says self or total, the sort and the grouping."""
        mode = "Self" if self.mode is SortKey.SELF else "Total"
        name_w, calls_w, cpu_w, gpu_w = self._widths()
        if self.shapes_state:
            state = "grouping…" if self.shapes_state == "reading" else "not recorded"
            return f"Operator × input shapes: {state}"
        grouping = " × input shapes" if isinstance(self.table, ShapeOpTable) else ""
        title = (
            f"Operator{grouping} ({self.order.size} of {len(self.table.names)}"
            f"{', filter: ' + printable(self.filter_text) if self.filter_text else ''}"
            f"; {self.scope_label}){self.arrow('name')}"
        )
        gpu = f"{mode} GPU" if self.gpu_observed else "GPU n/o"
        return (
            fit(title, name_w)
            + " "
            + fit("Calls" + self.arrow("calls"), calls_w, right=True)
            + " "
            + fit(f"{mode} CPU" + self.arrow("cpu"), cpu_w, right=True)
            + " "
            + fit(gpu + self.arrow("gpu"), gpu_w, right=True)
        )

    def line_count(self) -> int:
        return int(self.order.size)

    def line_text(self, index: int, width: int) -> str:
        row = int(self.order[index])
        calls, cpu, gpu = self.values(row)
        name_w, calls_w, cpu_w, gpu_w = self._widths()
        return (
            fit(self._shown[row], name_w)
            + " "
            + fit(str(calls), calls_w, right=True)
            + " "
            + fit(duration_text(cpu), cpu_w, right=True)
            + " "
            + fit("—" if gpu is None else duration_text(gpu), gpu_w, right=True)
        )


SHAPES_OFF_WHY = (
    f"{SHAPES_OFF}: its trace holds no input shapes, so rows stay one per name. "
    "Capture again with shapes on (steptrace capture --record-shapes, or "
    "record_shapes=True): it adds cost to every operator and can keep tensors "
    "alive longer. i: back to rows by name."
)
