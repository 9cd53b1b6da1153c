"""Drawing the timeline's lines: cells become styled segments, labels and the ruler.

Pure drawing: given a snapshot of the view (`LineView`: the time window, the
cursor, the selection), a row and the styles of the current theme, it builds
the segments of one line; it never reads the widget. What the cells hold is
decided in `tui.view.cells`; which rows exist in `tui.view.layout`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text
from tui.core.base.vocab import RowRole, StepPhase
from tui.core.model.trace import Kind, Trace
from tui.report.fit import fit_end, fit_middle
from tui.view.axis import ruler
from tui.view.cells import (
    Drawing,
    FloatArray,
    LaneCells,
    Viewport,
    covered_cells,
    row_cells,
)
from tui.view.lanes import BoolArray, Int64Array, Lane, run_heads
from tui.view.layout import GAP_GLYPH, Row, TimelineLayout, ZoneView
from tui.view.memory_lane import MemoryCells
from tui.view.navigation import row_contains
from tui.view.timeline_index import TimelineIndex

OCCUPANCY_GLYPHS = "▁▂▃▄▅▆▇█"
"""How much of a cell is busy when several short events share it."""
_OCCUPANCY_ARRAY = np.array(list(OCCUPANCY_GLYPHS))
BAR_GLYPH = "█"
DATA_ZONE_GLYPH = "▓"
"""Data zones (where gaps are looked for) are filled apart from other events."""
GRAPH_GLYPH = "▒"
"""Device work replayed by a CUDA graph is filled apart too (readable without colour)."""

_KIND_COLOURS: dict[int, str] = {
    Kind.CPU_OTHER: "blue",
    Kind.CPU_OP: "blue",
    Kind.USER_ANNOTATION: "magenta",
    Kind.PYTHON: "bright_black",
    Kind.RUNTIME: "yellow",
    Kind.DRIVER: "yellow",
    Kind.KERNEL: "green",
    Kind.MEMCPY: "cyan",
    Kind.MEMSET: "cyan",
    Kind.GPU_ANNOTATION: "magenta",
    Kind.SYNC: "red",
    Kind.DEVICE_OTHER: "green",
    Kind.TRACE_SPAN: "bright_black",
    Kind.DEVICE_RANGE: "magenta",
}
_DATA_ZONE_KEY = -1
_STEP_KEYS = (-2, -3)
_STARTUP_STEP_KEY = -4
_GRAPH_KEY = -5
"""Device work replayed by a CUDA graph: one launch call, many kernels."""
_OTHER_COLOURS: dict[int, str] = {
    _DATA_ZONE_KEY: "bright_yellow",
    -2: "blue",
    -3: "cyan",
    _STARTUP_STEP_KEY: "bright_black",
    _GRAPH_KEY: "bright_green",
}
_NO_COLOUR = -99
"""A cell with no event (no colour key)."""
_FILLS = {_DATA_ZONE_KEY: DATA_ZONE_GLYPH, _GRAPH_KEY: GRAPH_GLYPH}
_TEXT_ON: dict[str, str] = {
    "blue": "bright_white",
    "magenta": "bright_white",
    "bright_black": "bright_white",
    "red": "bright_white",
}


@dataclass(frozen=True)
class LineView:
    """What the timeline's lines are drawn from: a snapshot of its view."""

    start_ns: int
    end_ns: int
    label_width: int
    cursor_row: int
    cursor_fraction: float
    """Where the time cursor stands across the lane (0: left edge, 1: right)."""
    selected_event: int | None
    selected_range: tuple[int, int] | None
    drawing: Drawing
    layout: TimelineLayout


STYLES_KEPT = 1024
"""More than the styles one theme draws: none is built twice."""


class Painter:
    """Styles of one theme and the names drawn, cached; builds line segments."""

    def __init__(self, index: TimelineIndex, zone: ZoneView) -> None:
        self.index = index
        self.trace: Trace = index.trace
        self.zone = zone
        self.base = Style()
        self._styles: LRUCache[tuple[object, ...], Style] = LRUCache(STYLES_KEPT)
        self._names: dict[int, str] = {}
        self._step_of_event = {step.event: step for step in index.steps}

    def set_base(self, base: Style) -> None:
        """A new theme or focus: every style is rebuilt from the widget's own."""
        self.base = base
        self._styles.clear()

    def style(self, *key: object) -> Style:
        """Styles built once per theme: (what, colour key, selected, marked)."""
        style = self._styles.get(key)
        if style is not None:
            return style
        base = self.base
        what = key[0]
        if what == "plain":
            style = base
        elif what == "label":
            style = base + Style(bold=bool(key[1]))
        elif what == "cursor_label":
            style = base + Style(reverse=True, bold=True)
        elif what == "rule":
            style = base + Style(dim=True)
        elif what == "gap":
            style = base + Style(color="bright_yellow", bold=True)
        elif what == "range":
            style = base + Style(reverse=True)
        elif what == "cursor":
            style = base + Style(bold=True, color="bright_red")
        elif what == "memory":
            style = base + Style(color="magenta")
        elif what == "queue":
            style = base + Style(color="yellow")
        else:
            colour_key = int(key[1])  # type: ignore[call-overload]
            colour = _KIND_COLOURS.get(colour_key) or _OTHER_COLOURS.get(
                colour_key, "white"
            )
            if what == "text":
                style = base + Style(
                    color=_TEXT_ON.get(colour, "black"), bgcolor=colour
                )
            else:
                style = base + Style(color=colour)
            if key[2]:
                style += Style(reverse=True, bold=True)
            if key[3]:
                style += Style(underline=True, bold=True)
        self._styles[key] = style
        return style

    # -- the left column --------------------------------------------------------

    def label(self, row: Row, text: str, width: int, on_cursor: bool) -> Segment:
        """The left column: what the row is; reversed on the cursor's row."""
        fitted = fit_middle(text, width)
        fitted += " " * (width - cell_len(fitted))
        if on_cursor:
            return Segment(fitted, self.style("cursor_label"))
        return Segment(
            fitted,
            self.style("label", row.first_of_track or row.role is not RowRole.TRACK),
        )

    # -- the axis -----------------------------------------------------------------

    def axis(
        self,
        start_ns: int,
        end_ns: int,
        width: int,
        cursor_cell: int,
        in_range: BoolArray | None,
    ) -> list[Segment]:
        """Ticks with times from the trace start, and the cursor mark."""
        line = ruler(start_ns, end_ns, width, cursor_cell)
        cursor_cell = min(max(cursor_cell, 0), width - 1)
        rule = self.style("rule")
        segments = [
            Segment(line[:cursor_cell], rule),
            Segment(line[cursor_cell], self.style("cursor")),
            Segment(line[cursor_cell + 1 :], rule),
        ]
        if in_range is not None and in_range.any():
            strip = Strip(segments, width)
            a = int(np.argmax(in_range))
            b = a + int(in_range[a:].sum())
            parts = strip.divide([a, b, width])
            highlighted = parts[1].apply_style(self.style("range"))
            return [*parts[0], *highlighted, *parts[2]]
        return segments

    @staticmethod
    def span_label(span_ns: int) -> str:
        """The axis row's label: how long the view is."""
        return f"span {duration_text(span_ns)}"

    # -- memory rows ------------------------------------------------------------------

    def memory_segments(
        self, cells: MemoryCells, in_range: BoolArray | None
    ) -> list[Segment]:
        """Block glyphs in eighths of the peak in view; a selected range reversed."""
        return self.level_segments(cells.glyphs(), self.style("memory"), in_range)

    def level_segments(
        self, glyphs: str, style: Style, in_range: BoolArray | None
    ) -> list[Segment]:
        """A lane of level glyphs (memory, queue); a selected range reversed."""
        if in_range is None or not in_range.any():
            return [Segment(glyphs, style)]
        a = int(np.argmax(in_range))
        b = a + int(in_range[a:].sum())
        highlighted = style + self.style("range")
        return [
            Segment(glyphs[:a], style),
            Segment(glyphs[a:b], highlighted),
            Segment(glyphs[b:], style),
        ]

    @staticmethod
    def memory_label(row: Row, cells: MemoryCells, width: int) -> str:
        """The device and the peak in view (what a full block stands for);
        `alloc` left out when the column is narrow, never the device."""
        peak = size_text(cells.peak)
        full = f"{row.label} {peak}"
        if cell_len(full) <= width or row.memory is None:
            return full
        return f"{row.memory.label} {peak}"

    # -- event rows -------------------------------------------------------------------

    def colour_key(self, row: Row, event: int) -> int:
        """One event's colour key (`colour_keys`)."""
        return int(self.colour_keys(row, np.array([event], dtype=np.int64))[0])

    def event_name(self, row: Row, event: int, width: int) -> str:
        """The escaped name fitted to `width` cells (a step falls back to #N)."""
        name_id = int(self.trace.name_id[event])
        name = self._names.get(name_id)
        if name is None:
            name = printable(self.trace.names[name_id])
            self._names[name_id] = name
        if row.role is RowRole.STEPS and cell_len(name) > width:
            step = self._step_of_event.get(event)
            if step is not None:
                name = f"#{step.number}"
        return fit_end(name, width)

    def colour_keys(self, row: Row, owner: Int64Array) -> Int64Array:
        """Each cell's colour key (-99 where no event): by kind; steps
        alternate (start-up dimmed); data zones and graph replays stand apart."""
        keys = np.full(owner.size, _NO_COLOUR, dtype=np.int64)
        drawn = np.flatnonzero(owner >= 0)
        if row.role is RowRole.STEPS:  # a few steps: one by one
            for cell in drawn.tolist():
                step = self._step_of_event.get(int(owner[cell]))
                if step is not None and step.phase is not StepPhase.ACTIVE:
                    keys[cell] = _STARTUP_STEP_KEY
                else:
                    keys[cell] = _STEP_KEYS[(step.number if step else 0) % 2]
            return keys
        events = owner[drawn]
        colour = self.trace.kind[events].astype(np.int64)
        graph = self.index.graph_work
        if graph is not None:
            colour[graph[events]] = _GRAPH_KEY
        colour[self.zone.data_zone_mask[events]] = _DATA_ZONE_KEY
        keys[drawn] = colour
        return keys

    def row_segments(
        self,
        row: Row,
        cells: LaneCells,
        marked: BoolArray,
        gap: BoolArray,
        selected: int | None,
        in_range: BoolArray | None,
    ) -> list[Segment]:
        """Turn cells into segments, one per run of cells drawn alike.

        Cells of short events are drawn one by one (their glyph says how
        busy), but a run of them in one style is one segment: on a busy lane,
        a segment and a style lookup per cell are most of a line's cost.
        """
        owner = cells.owner
        width = owner.size
        selected_cells = (
            owner == selected if selected is not None else np.zeros(width, bool)
        )
        short = ~cells.wide & (owner >= 0)
        colours = self.colour_keys(row, owner)
        run_starts, run_ends = _runs(
            owner, short, colours, gap, marked, selected_cells, in_range
        )
        glyphs = _occupancy_glyphs(cells.occupancy)
        owner_list = owner.tolist()
        gap_list = gap.tolist()
        marked_list = marked.tolist()
        short_list = short.tolist()
        colour_list = colours.tolist()
        selected_list = selected_cells.tolist()
        range_list = in_range.tolist() if in_range is not None else None
        segments: list[Segment] = []
        named: set[int] = set()
        zones_row = row.role is RowRole.ZONES
        for a, b in zip(run_starts, run_ends, strict=True):
            event = owner_list[a]
            length = b - a
            highlighted = range_list is not None and range_list[a]
            if event < 0:
                if gap_list[a]:
                    style, text = self.style("gap"), GAP_GLYPH * length
                else:
                    style, text = self.style("plain"), " " * length
                if highlighted:
                    style = style + self.style("range")
                segments.append(Segment(text, style))
                continue
            colour = colour_list[a]
            is_selected = selected_list[a]
            is_marked = marked_list[a]
            # On the zones row the gap is drawn over the zone itself.
            over_gap = zones_row and gap_list[a]
            if over_gap:
                fill, bar_style = GAP_GLYPH, self.style("gap")
                if is_selected:
                    bar_style = bar_style + Style(reverse=True)
            else:
                fill = _FILLS.get(colour, BAR_GLYPH)
                bar_style = self.style("bar", colour, is_selected, is_marked)
            if highlighted:
                bar_style = bar_style + Style(underline=True)
            if short_list[a]:
                text = GAP_GLYPH * length if over_gap else "".join(glyphs[a:b])
                segments.append(Segment(text, bar_style))
                continue
            if length >= 3 and event not in named:
                named.add(event)
                name = self.event_name(row, event, length)
                text_style = self.style("text", colour, is_selected, is_marked)
                if highlighted:
                    text_style = text_style + Style(underline=True)
                segments.append(Segment(name, text_style))
                rest = length - cell_len(name)
                if rest > 0:
                    segments.append(Segment(fill * rest, bar_style))
            else:
                segments.append(Segment(fill * length, bar_style))
        return segments


def _runs(
    owner: Int64Array,
    short: BoolArray,
    colours: Int64Array,
    gap: BoolArray,
    marked: BoolArray,
    selected_cells: BoolArray,
    in_range: BoolArray | None,
) -> tuple[list[int], list[int]]:
    """Where each run of cells drawn alike begins, and where it ends (`Painter.row_segments`).

    A run ends where the event, the colour, the gap, the mark, the selection
    or the range changes; short cells in a row stay one run while they look
    alike.
    """
    change = run_heads(owner)
    change[1:] &= ~(short[1:] & short[:-1])
    change[1:] |= (
        (gap[1:] != gap[:-1])
        | (marked[1:] != marked[:-1])
        | (short[1:] != short[:-1])
        | (colours[1:] != colours[:-1])
        | (selected_cells[1:] != selected_cells[:-1])
    )
    if in_range is not None:
        change[1:] |= in_range[1:] != in_range[:-1]
    starts: list[int] = np.flatnonzero(change).tolist()
    return starts, [*starts[1:], owner.size]


def _occupancy_glyphs(occupancy: FloatArray) -> list[str]:
    """Each cell's glyph for how busy it is, one eighth a step."""
    levels = np.clip(np.ceil(occupancy * 8).astype(np.int64) - 1, 0, 7)
    glyphs: list[str] = _OCCUPANCY_ARRAY[levels].tolist()
    return glyphs


def row_label(view: LineView, row: Row, width: int) -> str:
    """The left column's words for a row."""
    if row.role is RowRole.AXIS:
        return Painter.span_label(view.end_ns - view.start_ns)
    if row.role is not RowRole.TRACK:
        return row.label
    if row.first_of_track and row.track is not None:
        return view.layout.track_labels(width).get(row.track, row.label)
    if row.deeper:
        return f"  +{row.deeper} deeper"
    return f"  · {row.depth}"


def draw_line(
    painter: Painter,
    view: LineView,
    row: Row,
    index: int,
    total_width: int,
    marks_of: Callable[[Row], list[Lane]],
) -> tuple[Strip, int]:
    """Label, rule, then the row's time lane (`marks_of`: a row's marked
    events); the line and how many events were visited one by one to draw it."""
    label_width = view.label_width
    on_cursor = index == view.cursor_row
    window = Viewport(view.start_ns, view.end_ns, max(1, total_width - label_width - 1))
    segments = [
        painter.label(row, row_label(view, row, label_width), label_width, on_cursor),
        Segment("│", painter.style("rule")),
    ]
    examined = 0
    selected_range = view.selected_range
    in_range = window.range_cells(*selected_range) if selected_range else None
    if row.role is RowRole.MEMORY and row.memory is not None:
        memory = row.memory.cells(window)
        examined += memory.examined
        segments[0] = painter.label(
            row,
            painter.memory_label(row, memory, label_width),
            label_width,
            on_cursor,
        )
        segments += painter.memory_segments(memory, in_range)
    elif row.role is RowRole.QUEUE and row.queue is not None:
        segments += painter.level_segments(
            row.queue.glyphs(window), painter.style("queue"), in_range
        )
    elif row.role is RowRole.AXIS:
        cursor_cell = min(window.width - 1, int(view.cursor_fraction * window.width))
        segments += painter.axis(
            window.start_ns, window.end_ns, window.width, cursor_cell, in_range
        )
    else:
        cells, examined = row_cells_with_selection(painter, view, row, window)
        gap = (
            window.paint_sorted(*row.gaps)
            if row.gaps is not None
            else np.zeros(window.width, dtype=np.bool_)
        )
        marked = covered_cells(marks_of(row), window)
        segments += painter.row_segments(
            row,
            cells,
            marked,
            gap,
            view.selected_event,
            in_range if row.role is not RowRole.TRACK else None,
        )
    strip = Strip(segments).adjust_cell_length(total_width, painter.style("plain"))
    return strip, examined


def row_cells_with_selection(
    painter: Painter, view: LineView, row: Row, window: Viewport
) -> tuple[LaneCells, int]:
    """The row's cells, with the selected event drawn over whatever it shares;
    and how many events were visited one by one."""
    cells, examined = row_cells(row.lanes, window, view.drawing)
    selected = view.selected_event
    if selected is not None and row_contains(painter.index, row, selected):
        trace = painter.trace
        start = int(trace.start_ns[selected])
        end = start + int(trace.duration_ns[selected])
        if end >= window.start_ns and start <= window.end_ns:
            first, last = window.cell_bounds(
                np.array([start], dtype=np.int64), np.array([end], dtype=np.int64)
            )
            a, b = int(first[0]), int(last[0])
            cells.owner[a:b] = selected
            cells.wide[a:b] = b - a > 1
            cells.occupancy[a:b] = 1.0
    return cells, examined
