"""The operator table: a Line-API view over `OpTable`'s numpy columns.

Only visible rows are rendered, from the arrays, so drawing costs the same for
ten rows or a hundred thousand. Sorting and filtering rebuild one index array.
`i` groups the rows by input shape as `steptrace ops --group-by shape` does
(built in a worker); a capture without shapes says so instead.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import numpy.typing as npt
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.messages import OperatorActivated, OperatorSelected, ShapesRead
from tui.core.analysis import Analysis, OpTable
from tui.core.results.ops import DEFAULT_SORT, SHAPES_OFF, default_device
from tui.core.shapes import ShapeOpTable
from tui.core.textsafe import printable
from tui.core.units import duration_text
from tui.core.vocab import SortKey

SORT_COLUMNS = ("name", "calls", "cpu", "gpu")
CALLS_WIDTH = 8
TIME_WIDTH = 11


def default_column(table: OpTable) -> str:
    """The column `steptrace ops` sorts by: GPU time when observed, else CPU time."""
    if DEFAULT_SORT in (SortKey.SELF, SortKey.TOTAL):
        return str(default_device(table.self_gpu_ns is not None).value)
    return str(DEFAULT_SORT.value)


def default_mode() -> str:
    """Self or total time first, as `steptrace ops` sorts."""
    return "total" if DEFAULT_SORT is SortKey.TOTAL else "self"


class OperatorTable(ScrollView, can_focus=True):
    """Operators with calls and CPU/GPU time; self or total, sortable, filterable."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "activate", "Mark on timeline"),
        Binding("o", "sort_next(1)", "Sort by next column"),
        Binding("O", "sort_next(-1)", "Sort by previous column", show=False),
        Binding("r", "reverse", "Reverse the sort", show=False),
        Binding("i", "shapes", "Rows by input shape"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "op-table--header",
        "op-table--cursor",
        "op-table--dim",
    }

    DEFAULT_CSS = """
    OperatorTable { overflow-x: hidden; scrollbar-size-vertical: 1; }
    OperatorTable > .op-table--header { text-style: bold underline; }
    OperatorTable > .op-table--cursor { text-style: reverse; }
    OperatorTable:focus > .op-table--cursor { text-style: reverse bold; }
    OperatorTable > .op-table--dim { text-style: dim; }
    """

    def __init__(
        self,
        table: OpTable,
        *,
        mode: str = "self",
        analysis: Analysis | None = None,
        id: str | None = None,
    ) -> None:
        """`analysis`: what rows by input shape are built from (none: no `i`)."""
        super().__init__(id=id)
        self.analysis = analysis
        self.mode = mode
        self.by_shape = False
        """Rows keyed by (name, input shapes) rather than by name."""
        self.shapes_state = ""
        """While grouping by shape: "reading", "off" (not recorded) or "" (shown)."""
        self.scope_span: tuple[int, int] | None = None
        """The scope's time range (None: the whole window), set by the screen."""
        self.name_table = table
        self.sort = default_column(table)
        self.descending = DEFAULT_SORT is not SortKey.NAME
        self.filter_text = ""
        self.scope_label = "whole window"
        self.cursor = 0
        self._styles: dict[bool, tuple[Style, Style, Style]] = {}
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
        keys = table.names
        if isinstance(table, ShapeOpTable):
            keys = [
                f"{name}\0{table.shapes_text(row)}"
                for row, name in enumerate(table.names)
            ]
        self._by_name = np.array(
            sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64
        )
        self._reorder()

    def set_table(self, table: OpTable, scope_label: str) -> None:
        """Show another table (another scope), keeping mode, sort, filter and grouping."""
        self.scope_label = scope_label
        self.name_table = table
        if self.by_shape:
            self._read_shapes()
        else:
            self._show_keeping_cursor(table)

    def _show_keeping_cursor(self, table: OpTable) -> None:
        name = self.current_name
        self._set_table(table)
        if name is not None and name in table.names:
            self.select_name(name)

    # -- rows by input shape ---------------------------------------------------

    def action_shapes(self) -> None:
        """Group rows by (name, input shapes), or back by name."""
        if self.by_shape:
            was_off = self.shapes_state == "off"
            self.by_shape = False
            self.shapes_state = ""
            self._show_keeping_cursor(self.name_table)
            if was_off:
                self.refresh_bindings()  # row keys are offered again
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
            from tui.core.shapes import shape_op_table, shapes_in_trace

            table = None
            if shapes_in_trace(analysis.trace):
                table = shape_op_table(analysis, *(span or (None, None)))
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
            self.virtual_size = Size(0, 1)
            self.refresh()
            self.refresh_bindings()
            return
        self.shapes_state = ""
        self._show_keeping_cursor(message.table)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Row keys are not offered while the table says shapes were not recorded."""
        return not (self.shapes_state == "off" and action in ("activate", "sort_next"))

    @property
    def gpu_observed(self) -> bool:
        """Whether the table has GPU columns."""
        return self.table.self_gpu_ns is not None

    def _column(self, device: str) -> npt.NDArray[np.int64] | None:
        table = self.table
        if device == "gpu":
            return table.self_gpu_ns if self.mode == "self" else table.total_gpu_ns
        return table.self_cpu_ns if self.mode == "self" else table.total_cpu_ns

    def _reorder(self) -> None:
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
        self.virtual_size = Size(0, int(order.size) + 1)
        self.cursor = min(self.cursor, max(int(order.size) - 1, 0))
        self.refresh()

    def set_mode(self, mode: str) -> None:
        """Self or total time; the order follows the shown values."""
        self.mode = mode
        self._reorder()

    def set_filter(self, text: str) -> None:
        """Keep only operators whose name contains `text` (case-insensitive)."""
        self.filter_text = text
        self.cursor = 0
        self._reorder()
        self.scroll_to(y=0, animate=False)

    def set_sort(self, column: str, descending: bool | None = None) -> None:
        """Sort by a column; numbers largest first, names A to Z by default."""
        if descending is None:
            descending = (
                not self.descending if column == self.sort else column != "name"
            )
        self.sort = column
        self.descending = descending
        self._reorder()

    @property
    def current_row(self) -> int | None:
        """The OpTable row under the cursor (none while shapes read "not recorded")."""
        if self.order.size == 0 or self.shapes_state == "off":
            return None
        return int(self.order[self.cursor])

    @property
    def current_name(self) -> str | None:
        """The operator name under the cursor."""
        row = self.current_row
        return None if row is None else self.table.names[row]

    def select_name(self, name: str) -> None:
        """Put the cursor on an operator by name, if shown (by shape: its first row shown)."""
        rows = [row for row, item in enumerate(self.table.names) if item == name]
        if not rows:
            return
        found = np.flatnonzero(np.isin(self.order, np.array(rows, dtype=np.int64)))
        if found.size:
            self.move_cursor(int(found[0]))

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

    # -- cursor -----------------------------------------------------------

    def move_cursor(self, index: int) -> None:
        """Put the cursor on a shown row, scroll to it and say which operator it is."""
        if self.order.size == 0 or self.shapes_state == "off":
            return
        index = max(0, min(int(self.order.size) - 1, index))
        self.cursor = index
        self._scroll_cursor_into_view()
        self.refresh()
        row = int(self.order[index])
        self.post_message(OperatorSelected(self.table.names[row], row))

    def _scroll_cursor_into_view(self) -> None:
        visible = max(self.size.height - 1, 1)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False)

    def _move(self, row: int) -> None:
        self.move_cursor(row)

    def action_cursor(self, delta: int) -> None:
        self._move(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._move(self.cursor + direction * max(self.size.height - 2, 1))

    def action_edge(self, end: int) -> None:
        self._move(int(self.order.size) - 1 if end else 0)

    def action_activate(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(OperatorActivated(self.table.names[row], row))

    def action_sort_next(self, step: int) -> None:
        columns = [c for c in SORT_COLUMNS if c != "gpu" or self.gpu_observed]
        index = columns.index(self.sort) if self.sort in columns else 0
        self.set_sort(columns[(index + step) % len(columns)], None)

    def action_reverse(self) -> None:
        self.set_sort(self.sort, not self.descending)

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            column = self._column_at(event.x)
            if column is not None:
                self.set_sort(column)
            return
        self._move(int(self.scroll_y) + event.y - 1)
        if event.chain == 2:
            self.action_activate()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(0, int(self.order.size) + 1)

    # -- rendering --------------------------------------------------------

    def _widths(self) -> tuple[int, int, int, int]:
        width = self.scrollable_content_region.width
        name_width = max(width - CALLS_WIDTH - 2 * TIME_WIDTH - 3, 8)
        return name_width, CALLS_WIDTH, TIME_WIDTH, TIME_WIDTH

    def _column_at(self, x: int) -> str | None:
        name_w, calls_w, cpu_w, _ = self._widths()
        edges = [name_w, name_w + 1 + calls_w, name_w + 2 + calls_w + cpu_w]
        for column, edge in zip(SORT_COLUMNS[:3], edges, strict=True):
            if x < edge:
                return column
        return "gpu" if self.gpu_observed else None

    def _arrow(self, column: str) -> str:
        if column != self.sort:
            return ""
        return " ▼" if self.descending else " ▲"

    def header_text(self) -> str:
        """The header line, which says self or total, the sort and the grouping."""
        mode = "Self" if self.mode == "self" else "Total"
        name_w, calls_w, cpu_w, gpu_w = self._widths()
        if self.shapes_state:
            state = "grouping…" if self.shapes_state == "reading" else "not recorded"
            return f"Operator × input shapes: {state}"
        grouping = " × input shapes" if isinstance(self.table, ShapeOpTable) else ""
        title = (
            f"Operator{grouping} ({self.order.size} of {len(self.table.names)}"
            f"{', filter: ' + printable(self.filter_text) if self.filter_text else ''}"
            f"; {self.scope_label}){self._arrow('name')}"
        )
        gpu = f"{mode} GPU" if self.gpu_observed else "GPU n/o"
        return (
            _fit(title, name_w)
            + " "
            + _fit("Calls" + self._arrow("calls"), calls_w, right=True)
            + " "
            + _fit(f"{mode} CPU" + self._arrow("cpu"), cpu_w, right=True)
            + " "
            + _fit(gpu + self._arrow("gpu"), gpu_w, right=True)
        )

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style_set(self) -> tuple[Style, Style, Style]:
        """Base, header and cursor styles; computing them per line is costly."""
        key = self.has_focus
        styles = self._styles.get(key)
        if styles is None:
            base = self.rich_style
            styles = (
                base,
                base + self.get_component_rich_style("op-table--header"),
                base + self.get_component_rich_style("op-table--cursor"),
            )
            self._styles[key] = styles
        return styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base, header, cursor = self._style_set()
        if y == 0:
            return Strip([Segment(_fit(self.header_text(), width), header)], width)
        if self.shapes_state == "off":
            return self._shapes_off_line(y - 1, width, base)
        index = int(self.scroll_y) + y - 1
        if index >= self.order.size:
            return Strip([Segment(" " * width, base)], width)
        row = int(self.order[index])
        calls, cpu, gpu = self.values(row)
        name_w, calls_w, cpu_w, gpu_w = self._widths()
        text = (
            _fit(self._shown[row], name_w)
            + " "
            + _fit(str(calls), calls_w, right=True)
            + " "
            + _fit(duration_text(cpu), cpu_w, right=True)
            + " "
            + _fit("—" if gpu is None else duration_text(gpu), gpu_w, right=True)
        )
        style = cursor if index == self.cursor else base
        return Strip([Segment(_fit(text, width), style)], width)

    def _shapes_off_line(self, line: int, width: int, style: Style) -> Strip:
        """The why of an empty grouping, wrapped, instead of rows."""
        import textwrap

        lines = textwrap.wrap(SHAPES_OFF_WHY, max(width - 2, 10))
        text = " " + lines[line] if line < len(lines) else ""
        return Strip([Segment(_fit(text, width), style)], width)


SHAPES_OFF_WHY = (
    f"{SHAPES_OFF}: its trace holds no input shapes, so rows stay one per name. "
    "Capture again with shapes on (steptrace capture --record-shapes, or "
    "record_shapes=True): it adds cost to every operator and can keep tensors "
    "alive longer. i: back to rows by name."
)


def _fit(text: str, width: int, right: bool = False) -> str:
    """Pad or cut to exactly `width` cells (names are escaped, so one cell a char
    except wide glyphs, which `Strip` crops)."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) > width:
        return set_cell_size(text, max(width - 1, 0)) + "…" if width > 0 else ""
    pad = " " * (width - cell_len(text))
    return pad + text if right else text + pad
