"""The timeline: tracks of events over time, drawn line by line from sorted columns.

A Line-API `ScrollView`: each terminal line is one row (the time axis, the
steps, the zones, or one nesting depth of one track) rendered on demand from
numpy arrays, so the cost of a redraw depends on what is visible, not on the
size of the trace. Time is not scrolled by the ScrollView: panning and zooming
change `view_start_ns`/`view_end_ns`; only rows scroll vertically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import numpy.typing as npt
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.messages import EventActivated, EventSelected, ViewChanged
from tui.core.analysis import Analysis
from tui.core.model import Kind, Trace, TrackKind
from tui.core.textsafe import printable
from tui.core.vocab import GapKind

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

GAP_GLYPH = "░"
"""Drawn over device-idle (or CPU-wait) time: readable without colour."""
OCCUPANCY_GLYPHS = "▁▂▃▄▅▆▇█"
"""How much of a cell is busy when several short events share it."""
BAR_GLYPH = "█"
DATA_ZONE_GLYPH = "▓"
"""Data zones (where gaps are looked for) are filled apart from other events."""
CURSOR_GLYPH = "▼"
MIN_SPAN_NS = 20
ZOOM_FACTOR = 1.5
PAN_FRACTION = 0.125
DEFAULT_DEPTH_CAP = 4
EXPANDED_DEPTH_CAP = 64
MAX_LANES = 12
DENSE_EVENTS_PER_CELL = 8
"""Above this many events per cell a lane is summarised per cell, not per event."""

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
_OTHER_COLOURS: dict[int, str] = {
    _DATA_ZONE_KEY: "bright_yellow",
    -2: "blue",
    -3: "cyan",
    _STARTUP_STEP_KEY: "bright_black",
}
_TEXT_ON: dict[str, str] = {
    "blue": "bright_white",
    "magenta": "bright_white",
    "bright_black": "bright_white",
    "red": "bright_white",
}


@dataclass(frozen=True)
class _Lane:
    """Events of one row whose running maximum end makes both bounds a binary search."""

    events: Int64Array
    starts: Int64Array
    ends: Int64Array
    end_key: Int64Array  # running max of ends: monotone, so searchsorted works
    cover: (
        Int64Array | None
    )  # who reaches end_key (the one still running); None: itself
    busy_prefix: Int64Array  # busy_prefix[i]: sum of the first i durations
    monotone: bool

    @classmethod
    def build(
        cls,
        events: Int64Array,
        starts: Int64Array,
        ends: Int64Array,
        end_key: Int64Array | None = None,
    ) -> _Lane:
        """Index a lane once: running max end, who reaches it, prefix sums of durations."""
        if end_key is None:
            end_key = np.maximum.accumulate(ends) if ends.size else ends
        monotone = bool(np.array_equal(end_key, ends))
        cover = None
        if not monotone:
            positions = np.arange(ends.size, dtype=np.int64)
            cover = np.maximum.accumulate(np.where(ends >= end_key, positions, 0))
        busy_prefix = np.zeros(ends.size + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=busy_prefix[1:])
        return cls(
            events,
            starts,
            ends,
            ends if monotone else end_key,
            cover,
            busy_prefix,
            monotone,
        )

    def covering(self, positions: Int64Array) -> Int64Array:
        """For each position, the event position whose end is the running max there."""
        return positions if self.cover is None else self.cover[positions]

    def visible(self, start_ns: int, end_ns: int) -> tuple[int, int]:
        """Index range of the events that may overlap [start, end)."""
        low = int(np.searchsorted(self.end_key, start_ns, side="right"))
        high = int(np.searchsorted(self.starts, end_ns, side="left"))
        return low, max(low, high)


@dataclass
class _Row:
    """One terminal line of the timeline."""

    role: str  # "axis" | "steps" | "zones" | "track"
    label: str
    lanes: list[_Lane] = field(default_factory=list)
    track: int | None = None
    depth: int = 0
    first_of_track: bool = False
    deeper: int = 0
    gaps: tuple[Int64Array, Int64Array] | None = None
    members: Int64Array | None = None  # sorted events, for header rows only


@dataclass
class _Cells:
    """What each cell of a row's time lane shows."""

    owner: Int64Array  # event drawn in the cell, -1 for none
    wide: BoolArray  # the owner covers more than one cell
    occupancy: FloatArray  # busy fraction of cells holding only short events
    marked: BoolArray
    gap: BoolArray


def _split_lanes(
    events: Int64Array, starts: Int64Array, ends: Int64Array
) -> list[_Lane]:
    """Peel events (sorted by start) into lanes whose ends never decrease.

    In such a lane the events overlapping a window are exactly one contiguous
    slice found by two binary searches, whatever lies outside the window.
    """
    lanes: list[_Lane] = []
    remaining = events
    remaining_starts = starts
    remaining_ends = ends
    while remaining.size:
        running = np.maximum.accumulate(remaining_ends)
        record = remaining_ends >= running
        if len(lanes) == MAX_LANES - 1 or record.all():
            lanes.append(
                _Lane.build(remaining, remaining_starts, remaining_ends, running)
            )
            break
        lanes.append(
            _Lane.build(
                remaining[record], remaining_starts[record], remaining_ends[record]
            )
        )
        keep = ~record
        remaining = remaining[keep]
        remaining_starts = remaining_starts[keep]
        remaining_ends = remaining_ends[keep]
    return lanes


def _neighbour(
    lane: _Lane, here: tuple[int, int], direction: int
) -> tuple[int, int] | None:
    """The (start, event) just after or just before `here` in a lane."""
    start = here[0]
    if direction > 0:
        position = int(np.searchsorted(lane.starts, start, side="left"))
        while position < lane.starts.size:
            candidate = (int(lane.starts[position]), int(lane.events[position]))
            if candidate > here:
                return candidate
            position += 1
        return None
    position = int(np.searchsorted(lane.starts, start, side="right")) - 1
    while position >= 0:
        candidate = (int(lane.starts[position]), int(lane.events[position]))
        if candidate < here:
            return candidate
        position -= 1
    return None


def _run_heads(values: npt.NDArray[np.generic]) -> BoolArray:
    """True where a run of equal values begins (np.r_ is slow on hot paths)."""
    heads = np.empty(values.size, dtype=np.bool_)
    if values.size:
        heads[0] = True
        np.not_equal(values[1:], values[:-1], out=heads[1:])
    return heads


def format_ns(value: float) -> str:
    """A duration or time with a unit chosen from its size (ns, µs, ms, s)."""
    magnitude = abs(value)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if magnitude >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.0f}ns"


def _tick_step(span_ns: float, cells: int, spacing: int = 14) -> float:
    """A 1-2-5 step giving a tick about every `spacing` cells."""
    raw = span_ns * spacing / max(cells, 1)
    power = 10 ** math.floor(math.log10(max(raw, 1e-9)))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return float(factor * power)
    return float(10 * power)


def _tick_unit(step_ns: float) -> tuple[str, float]:
    """The unit that writes ticks `step_ns` apart with few digits."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if step_ns >= scale:
            return unit, scale
    return "ns", 1.0


def _tick_label(value_ns: float, step_ns: float, unit: str, scale: float) -> str:
    """A tick's time, with the decimals its step needs."""
    decimals = max(0, -math.floor(math.log10(step_ns / scale) + 1e-9))
    return f"{value_ns / scale:.{decimals}f}{unit}"


def _fit_text(text: str, width: int) -> str:
    """`text` cut to `width` cells with an ellipsis when it is longer."""
    if width <= 0:
        return ""
    if text.isascii():
        return text if len(text) <= width else text[: width - 1] + "…"
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"


def _fit_label(text: str, width: int) -> str:
    """A track name fitted to `width` cells, keeping both ends (names differ at either)."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    if width < 8:
        return set_cell_size(_fit_text(text, width), width)
    head = (width - 1) // 2
    tail = width - 1 - head
    return set_cell_size(text, head) + "…" + _tail_cells(text, tail)


def _tail_cells(text: str, width: int) -> str:
    """The last `width` cells of `text`."""
    taken: list[str] = []
    used = 0
    for character in reversed(text):
        size = cell_len(character)
        if used + size > width:
            break
        taken.append(character)
        used += size
    return set_cell_size("".join(reversed(taken)), width)


class Timeline(ScrollView, can_focus=True):
    """Keyboard-driven timeline of a trace's threads and streams, rendered per visible line."""

    DEFAULT_CSS = """
    Timeline {
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w,plus,equals_sign", "zoom_in", "Zoom in", key_display="w/+"),
        Binding("s,minus", "zoom_out", "Zoom out", key_display="s/-"),
        Binding("a,left", "pan(-1)", "Pan left", show=False),
        Binding("d,right", "pan(1)", "Pan right", show=False),
        Binding("shift+left", "move_cursor(-1)", "Cursor left", show=False),
        Binding("shift+right", "move_cursor(1)", "Cursor right", show=False),
        Binding("up", "row(-1)", "Track up", show=False),
        Binding("down", "row(1)", "Track down", show=False),
        Binding("shift+up", "track(-1)", "Previous track", show=False),
        Binding("shift+down", "track(1)", "Next track", show=False),
        Binding(
            "left_square_bracket,comma", "step_event(-1)", "Previous event", show=False
        ),
        Binding(
            "right_square_bracket,full_stop", "step_event(1)", "Next event", show=False
        ),
        Binding("home", "home", "Start", show=False),
        Binding("end", "end", "End", show=False),
        Binding("x", "toggle_expand", "Expand track", show=False),
        Binding("enter", "activate", "Details"),
    ]

    view_start_ns: reactive[int] = reactive(0, layout=False, init=False)
    view_end_ns: reactive[int] = reactive(1, layout=False, init=False)
    selected_event: reactive[int | None] = reactive(None, init=False)
    selected_range: reactive[tuple[int, int] | None] = reactive(None, init=False)

    def __init__(
        self, trace: Trace, analysis: Analysis, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.trace = trace
        self.analysis = analysis
        self.total_ns = max(int(trace.span_ns), MIN_SPAN_NS)
        self.events_examined = 0
        """How many events the renderer has looked at: the test of view-bound cost."""
        self._cursor_fraction = 0.5
        self._cursor_row = 0
        self._expanded: set[int] = set()
        self._marked_mask: BoolArray | None = None
        self._row_marks: dict[int, _Lane] = {}
        self._generation = 0
        self._line_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self._names: dict[int, str] = {}
        self._styles: dict[tuple[object, ...], Style] = {}
        self._data_zone_mask = np.zeros(trace.event_count, dtype=np.bool_)
        self._data_zone_mask[analysis.data_zone_events] = True
        self._step_of_event = {step.event: step for step in analysis.steps}
        self._track_depths: dict[int, list[Int64Array]] = {}
        self._depth = analysis.depth
        self._header: list[_Row] = []
        self._body: list[_Row] = []
        self._rows: list[_Row] = []
        """Header rows (fixed at the top) then track rows (scrolled)."""
        self._zone_gaps: tuple[Int64Array, Int64Array] = (
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
        )
        self._gaps_by_device = self._build_gaps()
        self._build_rows()
        self.set_reactive(Timeline.view_start_ns, 0)
        self.set_reactive(Timeline.view_end_ns, self.total_ns)
        first_track = next(
            (i for i, row in enumerate(self._rows) if row.role == "track"), 0
        )
        self._cursor_row = first_track

    # -- building rows ------------------------------------------------------

    def _build_gaps(self) -> dict[int | None, tuple[Int64Array, Int64Array]]:
        """Gap intervals per device, exactly the core's (never recomputed here)."""
        reading = self.analysis.zone_reading
        self._zone_gaps = (reading.gap_union.starts, reading.gap_union.ends)
        return {
            device: (intervals.starts, intervals.ends)
            for device, intervals in reading.gap_intervals.items()
        }

    def _depth_events(self, track: int) -> list[Int64Array]:
        """Events of a track per nesting depth (computed once per track)."""
        cached = self._track_depths.get(track)
        if cached is not None:
            return cached
        span = self.trace.track_slice(track)
        if self.trace.tracks[track].kind == TrackKind.CPU:
            depth = self._depth[span]
            top = int(depth.max()) if depth.size else 0
            order = np.argsort(depth, kind="stable")
            sorted_depth = depth[order]
            bounds = np.searchsorted(sorted_depth, np.arange(top + 2))
            per_depth = [
                (order[bounds[d] : bounds[d + 1]] + span.start).astype(np.int64)
                for d in range(top + 1)
            ]
        else:
            per_depth = [np.arange(span.start, span.stop, dtype=np.int64)]
        self._track_depths[track] = per_depth
        return per_depth

    def _lanes_for(self, events: Int64Array) -> list[_Lane]:
        """Lanes of events sorted by start; a contiguous run reads the columns in place."""
        trace = self.trace
        if events.size and bool(np.all(np.diff(events) == 1)):
            run = slice(int(events[0]), int(events[-1]) + 1)
            starts = trace.start_ns[run]
            return _split_lanes(events, starts, starts + trace.duration_ns[run])
        starts = trace.start_ns[events]
        return _split_lanes(events, starts, starts + trace.duration_ns[events])

    def _build_rows(self) -> None:
        """Lay out rows: axis, steps, zones, then CPU threads, device streams, other lanes."""
        trace = self.trace
        analysis = self.analysis
        header = [_Row("axis", "")]
        if analysis.steps:
            step_events = np.array(
                [step.event for step in analysis.steps], dtype=np.int64
            )
            step_events.sort()
            header.append(
                _Row(
                    "steps", "steps", self._lanes_for(step_events), members=step_events
                )
            )
        zone_events = np.union1d(
            analysis.zone_events, analysis.data_zone_events
        ).astype(np.int64)
        all_gaps = self._zone_gaps
        if zone_events.size or all_gaps[0].size:
            legend = ""
            if analysis.gaps:
                legend = f" {GAP_GLYPH} {analysis.gap_kind.label}"
            # Zones on several threads: order them by start for the lane split.
            order = np.argsort(trace.start_ns[zone_events], kind="stable")
            header.append(
                _Row(
                    "zones",
                    "zones" + legend,
                    self._lanes_for(zone_events[order]) if zone_events.size else [],
                    gaps=all_gaps,
                    members=zone_events,
                )
            )
        body: list[_Row] = []
        order_of_kind = {TrackKind.CPU: 0, TrackKind.DEVICE: 1, TrackKind.OTHER: 2}
        tracks = sorted(
            trace.tracks, key=lambda track: (order_of_kind[track.kind], track.index)
        )
        # Thread names repeat across processes: say which process when there are several.
        several_processes = (
            len({str(t.pid) for t in trace.tracks if t.kind == TrackKind.CPU}) > 1
        )
        for track in tracks:
            span = trace.track_slice(track.index)
            if span.stop <= span.start:
                continue
            per_depth = self._depth_events(track.index)
            cap = (
                EXPANDED_DEPTH_CAP
                if track.index in self._expanded
                else DEFAULT_DEPTH_CAP
            )
            shown = min(len(per_depth), cap)
            name = printable(track.label)
            if track.kind == TrackKind.CPU and several_processes:
                name = f"{printable(str(track.pid))} {name}"
            gaps = None
            if track.kind == TrackKind.DEVICE and analysis.gap_kind is GapKind.GPU_IDLE:
                gaps = self._gaps_by_device.get(track.device)
            for depth in range(shown):
                deeper = 0
                if depth == shown - 1 and len(per_depth) > shown:
                    deeper = len(per_depth) - shown
                    events = np.sort(np.concatenate(per_depth[depth:]))
                else:
                    events = per_depth[depth]
                body.append(
                    _Row(
                        "track",
                        name,
                        self._lanes_for(events),
                        track=track.index,
                        depth=depth,
                        first_of_track=depth == 0,
                        deeper=deeper,
                        gaps=gaps,
                    )
                )
        self._header = header
        self._body = body
        self._rows = header + body

    # -- reactives ------------------------------------------------------------

    def validate_view_start_ns(self, value: int) -> int:
        """Keep the start inside the trace and before the end."""
        upper = min(self.total_ns, self.view_end_ns) - MIN_SPAN_NS
        return int(max(0, min(int(value), upper)))

    def validate_view_end_ns(self, value: int) -> int:
        """Keep the end inside the trace and after the start."""
        lower = max(0, self.view_start_ns) + MIN_SPAN_NS
        return int(min(self.total_ns, max(int(value), lower)))

    def watch_view_start_ns(self) -> None:
        self._view_changed()

    def watch_view_end_ns(self) -> None:
        self._view_changed()

    def watch_selected_event(self) -> None:
        self._invalidate()

    def watch_selected_range(self) -> None:
        self._invalidate()

    def _invalidate(self) -> None:
        """Drop rendered lines: what they show (selection, marks, cursor) changed."""
        self._generation += 1
        self._line_cache.clear()
        self.refresh()

    def _view_changed(self) -> None:
        """Lines show the old range: drop them, redraw, tell the app."""
        self._line_cache.clear()
        self.refresh()
        self.post_message(ViewChanged(self.view_start_ns, self.view_end_ns))

    def notify_style_update(self) -> None:
        """Theme or focus changed: styles are baked into cached lines."""
        super().notify_style_update()
        self._styles.clear()
        self._line_cache.clear()

    # -- public interface --------------------------------------------------

    @property
    def cursor_ns(self) -> int:
        """The time under the cursor (zoom keeps it in place)."""
        span = self.view_end_ns - self.view_start_ns
        return int(self.view_start_ns + self._cursor_fraction * span)

    @property
    def cursor_row(self) -> int:
        """Index of the cursor's row among all rows (header rows first)."""
        return self._cursor_row

    def fit(self, start_ns: int, end_ns: int) -> None:
        """Show [start, end), clamped to the trace and at least MIN_SPAN_NS wide."""
        start, end = self._clamped(int(start_ns), int(end_ns))
        if (start, end) == (self.view_start_ns, self.view_end_ns):
            return
        self.set_reactive(Timeline.view_start_ns, start)
        self.set_reactive(Timeline.view_end_ns, end)
        self._view_changed()

    def select_event(self, event: int | None) -> None:
        """Highlight an event, bring its row on screen and make it visible in time."""
        if event is None:
            self.selected_event = None
            return
        event = int(event)
        self.selected_event = event
        row_index = self._row_of(event)
        if row_index is not None:
            self._set_cursor_row(row_index)
        start = int(self.trace.start_ns[event])
        end = start + int(self.trace.duration_ns[event])
        view_start, view_end = self.view_start_ns, self.view_end_ns
        span = view_end - view_start
        if start < view_start or end > view_end:
            if end - start <= span * 0.8:
                middle = (start + end) // 2
                self.fit(middle - span // 2, middle - span // 2 + span)
            else:
                margin = max((end - start) // 10, 1)
                self.fit(start - margin, end + margin)
        self._refit_cursor((start + end) // 2)
        self._invalidate()

    def select_range(self, start_ns: int, end_ns: int) -> None:
        """Highlight a time range (a gap, a step) and show it with a margin around it."""
        start, end = sorted((int(start_ns), int(end_ns)))
        self.selected_range = (start, end)
        margin = max((end - start) // 10, MIN_SPAN_NS)
        self.fit(start - margin, end + margin)
        self._cursor_fraction = 0.5
        self._invalidate()

    def mark_events(self, events: npt.NDArray[np.integer] | None) -> None:
        """Draw these events underlined and bold (operator occurrences, search matches)."""
        if events is None or len(events) == 0:
            self._marked_mask = None
        else:
            mask = np.zeros(self.trace.event_count, dtype=np.bool_)
            mask[np.asarray(events, dtype=np.int64)] = True
            self._marked_mask = mask
        self._row_marks.clear()
        self._invalidate()

    def _marks_of(self, row: _Row) -> _Lane | None:
        """The row's marked events as one searchable lane (built once per marking)."""
        mask = self._marked_mask
        if mask is None or not row.lanes:
            return None
        marks = self._row_marks.get(id(row))
        if marks is None:
            events = np.concatenate(
                [lane.events[mask[lane.events]] for lane in row.lanes]
            )
            starts = self.trace.start_ns[events]
            order = np.argsort(starts, kind="stable")
            events, starts = events[order], starts[order]
            marks = _Lane.build(events, starts, starts + self.trace.duration_ns[events])
            self._row_marks[id(row)] = marks
        return marks

    # -- actions -------------------------------------------------------------

    def _clamped(self, start: int, end: int) -> tuple[int, int]:
        """A range inside the trace, at least MIN_SPAN_NS wide, shifted rather than cut."""
        if end < start:
            start, end = end, start
        if end - start < MIN_SPAN_NS:
            middle = (start + end) // 2
            start, end = (
                middle - MIN_SPAN_NS // 2,
                middle + MIN_SPAN_NS - MIN_SPAN_NS // 2,
            )
        span = min(end - start, self.total_ns)
        start = max(0, min(start, self.total_ns - span))
        return start, start + span

    def action_zoom_in(self) -> None:
        """Narrow the view around the cursor."""
        self._zoom(1 / ZOOM_FACTOR)

    def action_zoom_out(self) -> None:
        """Widen the view around the cursor."""
        self._zoom(ZOOM_FACTOR)

    def _zoom(self, factor: float) -> None:
        """Scale the span keeping the cursor's time under the cursor."""
        span = self.view_end_ns - self.view_start_ns
        new_span = max(MIN_SPAN_NS, round(span * factor))
        anchor = self.cursor_ns
        start = round(anchor - self._cursor_fraction * new_span)
        self.fit(start, start + new_span)
        self._refit_cursor(anchor)

    def _refit_cursor(self, anchor: int) -> None:
        """Keep the cursor on its time when clamping moved the view."""
        span = self.view_end_ns - self.view_start_ns
        self._cursor_fraction = min(max((anchor - self.view_start_ns) / span, 0.0), 1.0)

    def action_pan(self, direction: int) -> None:
        """Move the view by an eighth of its width."""
        span = self.view_end_ns - self.view_start_ns
        shift = max(1, round(span * PAN_FRACTION)) * direction
        self.fit(self.view_start_ns + shift, self.view_end_ns + shift)

    def action_home(self) -> None:
        """Go to the start of the trace, keeping the zoom."""
        span = self.view_end_ns - self.view_start_ns
        self.fit(0, span)

    def action_end(self) -> None:
        """Go to the end of the trace, keeping the zoom."""
        span = self.view_end_ns - self.view_start_ns
        self.fit(self.total_ns - span, self.total_ns)

    def action_move_cursor(self, cells: int) -> None:
        """Move the time cursor by cells; pick the event under it."""
        width = max(1, self._lane_width())
        self._cursor_fraction = min(
            max(self._cursor_fraction + cells / width, 0.0), 1.0
        )
        self._pick_under_cursor()
        self._invalidate()

    def action_row(self, delta: int) -> None:
        """Move the cursor to the row above or below and pick the event under it."""
        rows = self._rows
        self._set_cursor_row(max(1, min(len(rows) - 1, self._cursor_row + delta)))
        self._pick_under_cursor()

    def action_track(self, direction: int) -> None:
        """Jump to the first row of the previous or next track (skipping its depths)."""
        rows = self._rows
        current = rows[self._cursor_row].track if self._cursor_row < len(rows) else None
        starts = [
            index
            for index, row in enumerate(rows)
            if row.role != "axis" and (row.role != "track" or row.first_of_track)
        ]
        if direction > 0:
            after = [
                index
                for index in starts
                if index > self._cursor_row and rows[index].track != current
            ]
            target = after[0] if after else None
        else:
            first_of_current = next(
                (
                    index
                    for index in starts
                    if current is not None and rows[index].track == current
                ),
                self._cursor_row,
            )
            before = [index for index in starts if index < first_of_current]
            target = before[-1] if before else None
        if target is not None:
            self._set_cursor_row(target)
            self._pick_under_cursor()

    def action_step_event(self, direction: int) -> None:
        """Select the previous or next event on the cursor's row and bring it into view."""
        rows = self._rows
        if not 0 <= self._cursor_row < len(rows):
            return
        row = rows[self._cursor_row]
        selected = self.selected_event
        if selected is not None and self._row_contains(row, selected):
            here = (int(self.trace.start_ns[selected]), selected)
        else:
            here = (self.cursor_ns, -1 if direction > 0 else self.trace.event_count)
        best: tuple[int, int] | None = None
        for lane in row.lanes:
            candidate = _neighbour(lane, here, direction)
            if candidate is None:
                continue
            if best is None or (candidate < best) == (direction > 0):
                best = candidate
        if best is not None:
            self.select_event(best[1])
            self.post_message(EventSelected(best[1]))

    def action_toggle_expand(self) -> None:
        """Show every depth of the cursor's track, or fold it back to the cap."""
        rows = self._rows
        row = rows[self._cursor_row] if 0 <= self._cursor_row < len(rows) else None
        if row is None or row.track is None:
            return
        track = row.track
        if track in self._expanded:
            self._expanded.discard(track)
        else:
            self._expanded.add(track)
        self._build_rows()
        self._row_marks.clear()
        first = next(
            i for i, candidate in enumerate(self._rows) if candidate.track == track
        )
        self._set_cursor_row(min(first + row.depth, len(self._rows) - 1))
        self._update_virtual_size()
        self._invalidate()

    def action_activate(self) -> None:
        """Ask the app to open the selected event."""
        if self.selected_event is not None:
            self.post_message(EventActivated(self.selected_event))

    def _set_cursor_row(self, index: int) -> None:
        """Move the cursor to a row and scroll it on screen (header rows never scroll)."""
        self._cursor_row = index
        header = len(self._header)
        if index >= header and self.is_mounted:
            body_index = index - header
            visible = max(1, self.scrollable_content_region.height - header)
            top = round(self.scroll_y)
            if body_index < top:
                self.scroll_to(y=body_index, animate=False, immediate=True)
            elif body_index >= top + visible:
                self.scroll_to(
                    y=body_index - visible + 1, animate=False, immediate=True
                )
        self._invalidate()

    def _row_of(self, event: int) -> int | None:
        """Index of the row drawing `event` (its track's capped row when deeper)."""
        track = int(self.trace.track[event])
        for index, row in enumerate(self._rows):
            if (
                row.role == "track"
                and row.track == track
                and self._row_contains(row, event)
            ):
                return index
        for index, row in enumerate(self._header):
            if self._row_contains(row, event):
                return index
        return None

    def _row_contains(self, row: _Row, event: int) -> bool:
        """Whether `event` is drawn on `row`, in constant or logarithmic time."""
        if row.role == "track":
            if row.track != int(self.trace.track[event]):
                return False
            depth = (
                int(self._depth[event])
                if self.trace.tracks[row.track].kind == TrackKind.CPU
                else 0
            )
            return depth == row.depth or (row.deeper > 0 and depth >= row.depth)
        members = row.members
        if members is None or members.size == 0:
            return False
        position = int(np.searchsorted(members, event))
        return position < members.size and int(members[position]) == event

    def _pick_under_cursor(self) -> None:
        """Select the longest event of the cursor row within the cursor's cell."""
        rows = self._rows
        if not 0 <= self._cursor_row < len(rows):
            return
        width = max(1, self._lane_width())
        span = self.view_end_ns - self.view_start_ns
        cell = min(int(self._cursor_fraction * width), width - 1)
        low = self.view_start_ns + cell * span // width
        high = self.view_start_ns + (cell + 1) * span // width
        picked = self._longest_in(rows[self._cursor_row], low, max(high, low + 1))
        if picked != self.selected_event:
            self.selected_event = picked
            self.post_message(EventSelected(picked))

    def _longest_in(self, row: _Row, low: int, high: int) -> int | None:
        """The longest event of `row` overlapping [low, high), earliest on ties."""
        best: tuple[int, int] | None = None
        for lane in row.lanes:
            first, last = lane.visible(low, high)
            if last <= first:
                continue
            ends = lane.ends[first:last]
            durations = ends - lane.starts[first:last]
            durations = np.where(ends > low, durations, -1)
            position = int(np.argmax(durations))
            if durations[position] < 0:
                continue
            candidate = (int(durations[position]), -int(lane.events[first + position]))
            if best is None or candidate > best:
                best = candidate
        return None if best is None else -best[1]

    def on_click(self, event: Click) -> None:
        """Select the event under the mouse, where a mouse is available."""
        header = len(self._header)
        y = event.y
        index = y if y < header else header + round(self.scroll_y) + y - header
        label_width = self._label_width()
        if index >= len(self._rows) or event.x <= label_width or index == 0:
            return
        width = max(1, self._lane_width())
        self._cursor_fraction = min(
            max((event.x - label_width - 1 + 0.5) / width, 0.0), 1.0
        )
        self._set_cursor_row(index)
        self._pick_under_cursor()

    # -- sizes -----------------------------------------------------------------

    def _total_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def _label_width(self) -> int:
        return max(8, min(28, self._total_width() // 5))

    def _lane_width(self) -> int:
        return max(1, self._total_width() - self._label_width() - 1)

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._total_width(), len(self._rows))

    def on_mount(self) -> None:
        self._update_virtual_size()

    def on_resize(self) -> None:
        self._update_virtual_size()
        self._line_cache.clear()

    # -- rendering -------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        """Draw one line: fixed header rows, then track rows scrolled vertically."""
        header = len(self._header)
        index = y if y < header else header + round(self.scroll_y) + (y - header)
        width = self._total_width()
        if index >= len(self._rows):
            return Strip.blank(width, self._style("plain"))
        key = (
            index,
            self.view_start_ns,
            self.view_end_ns,
            width,
            self._generation,
            self._cursor_row == index,
            self._cursor_fraction if index == 0 else None,
        )
        cached = self._line_cache.get(key)
        if cached is not None:
            return cached
        strip = self._render_row(self._rows[index], index, width)
        self._line_cache[key] = strip
        return strip

    def _style(self, *key: object) -> Style:
        """Styles built once per theme: (what, colour key, selected, marked)."""
        style = self._styles.get(key)
        if style is not None:
            return style
        base = self.rich_style
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

    def _label(self, row: _Row, index: int, width: int) -> Segment:
        """The left column: what the row is; reversed on the cursor's row."""
        if row.role == "axis":
            text = f"span {format_ns(self.view_end_ns - self.view_start_ns)}"
        elif row.role != "track" or row.first_of_track:
            text = row.label
        elif row.deeper:
            text = f"  +{row.deeper} deeper"
        else:
            text = f"  · {row.depth}"
        fitted = _fit_label(text, width)
        if index == self._cursor_row:
            return Segment(fitted, self._style("cursor_label"))
        return Segment(
            fitted, self._style("label", row.first_of_track or row.role != "track")
        )

    def _render_row(self, row: _Row, index: int, total_width: int) -> Strip:
        """Label, rule, then the row's time lane."""
        label_width = self._label_width()
        lane_width = max(1, total_width - label_width - 1)
        segments = [
            self._label(row, index, label_width),
            Segment("│", self._style("rule")),
        ]
        if row.role == "axis":
            segments.extend(self._axis_segments(lane_width))
        else:
            cells = self._cells(row, lane_width)
            segments.extend(self._row_segments(row, cells, lane_width))
        return Strip(segments).adjust_cell_length(total_width, self._style("plain"))

    def _cell_bounds(
        self, starts: Int64Array, ends: Int64Array, width: int
    ) -> tuple[Int64Array, Int64Array]:
        """First cell and one past the last cell each interval covers (at least one)."""
        view_start = self.view_start_ns
        scale = width / (self.view_end_ns - view_start)
        first = np.floor((starts - view_start) * scale)
        last = np.ceil((ends - view_start) * scale)
        first_cell = np.clip(first, 0, width - 1).astype(np.int64)
        last_cell = np.clip(last, 0, width).astype(np.int64)
        return first_cell, np.maximum(last_cell, first_cell + 1)

    def _paint(self, starts: Int64Array, ends: Int64Array, width: int) -> BoolArray:
        """Cells touched by any of the intervals."""
        if starts.size == 0:
            return np.zeros(width, dtype=np.bool_)
        first, last = self._cell_bounds(starts, ends, width)
        change = np.bincount(first, minlength=width + 1) - np.bincount(
            last, minlength=width + 1
        )
        return np.cumsum(change[:width]) > 0

    def _covered_cells(self, lane: _Lane | None, width: int) -> BoolArray:
        """Cells holding any event of `lane` (the row's marked events)."""
        if lane is None:
            return np.zeros(width, dtype=np.bool_)
        low, high = lane.visible(self.view_start_ns, self.view_end_ns)
        if high - low <= DENSE_EVENTS_PER_CELL * width:
            return self._paint(lane.starts[low:high], lane.ends[low:high], width)
        edges = self._edges(width)
        first_at = np.searchsorted(lane.starts, edges, side="left")
        before = np.maximum(first_at[:-1] - 1, 0)
        running = (first_at[:-1] > 0) & (lane.end_key[before] > edges[:-1])
        return (np.diff(first_at) > 0) | running

    def _edges(self, width: int) -> Int64Array:
        """The times where cells begin, and the end of the last one."""
        view_start = self.view_start_ns
        span = self.view_end_ns - view_start
        return view_start + (np.arange(width + 1, dtype=np.int64) * span) // width

    def _exact_lane(
        self, lane: _Lane, low: int, high: int, width: int
    ) -> tuple[Int64Array, Int64Array, BoolArray, FloatArray] | None:
        """Each cell's longest event among a few visible ones, and how busy the cell is."""
        view_start, view_end = self.view_start_ns, self.view_end_ns
        scale = width / (view_end - view_start)
        starts = lane.starts[low:high]
        ends = lane.ends[low:high]
        lane_events = lane.events[low:high]
        if not lane.monotone:
            keep = ends > view_start
            starts, ends, lane_events = starts[keep], ends[keep], lane_events[keep]
            if lane_events.size == 0:
                return None
        durations = ends - starts
        first, last = self._cell_bounds(starts, ends, width)
        spans = last - first
        occupancy = np.zeros(width, dtype=np.float64)
        single = spans == 1
        if single.any():
            clipped = (
                np.minimum(ends[single], view_end)
                - np.maximum(starts[single], view_start)
            ) * scale
            occupancy += np.bincount(first[single], weights=clipped, minlength=width)[
                :width
            ]
        # Every (cell, event) pair; the longest event of a cell wins, then the earliest.
        cells = np.repeat(first, spans) + (
            np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
        )
        pair_durations = np.repeat(durations, spans)
        pair_events = np.repeat(lane_events, spans)
        order = np.lexsort((-pair_events, pair_durations, cells))
        last_of_cell = np.append(_run_heads(cells[order])[1:], True)
        winners = order[last_of_cell]
        owner = np.full(width, -1, dtype=np.int64)
        owner_duration = np.full(width, -1, dtype=np.int64)
        wide = np.zeros(width, dtype=np.bool_)
        winner_cells = cells[winners]
        owner[winner_cells] = pair_events[winners]
        owner_duration[winner_cells] = pair_durations[winners]
        wide[winner_cells] = np.repeat(spans > 1, spans)[winners]
        return owner, owner_duration, wide, occupancy

    def _dense_lane(
        self, lane: _Lane, width: int
    ) -> tuple[Int64Array, Int64Array, BoolArray, FloatArray]:
        """Many events per cell: summarise each cell by binary searches, not per event.

        Busy time comes from prefix sums, the event still running into a cell
        from the running max end; the drawn event is the one covering the cell,
        else the first starting in it. Cost is O(width log n) however many
        events are in view.
        """
        edges = self._edges(width)
        first_at = np.searchsorted(lane.starts, edges, side="left")
        count = np.diff(first_at)
        cell_ns = np.maximum(np.diff(edges), 1)
        busy = lane.busy_prefix[first_at[1:]] - lane.busy_prefix[first_at[:-1]]
        before = np.maximum(first_at[:-1] - 1, 0)
        has_before = first_at[:-1] > 0
        running_end = np.where(has_before, lane.end_key[before], edges[:-1])
        carry = np.clip(running_end - edges[:-1], 0, cell_ns)
        occupancy = (busy + carry) / cell_ns
        covered = has_before & (running_end >= edges[1:])
        last_position = max(lane.events.size - 1, 0)
        position = np.where(
            covered | ((count == 0) & (carry > 0)),
            lane.covering(before),
            np.minimum(first_at[:-1], last_position),
        )
        wide = covered.copy()
        # A long event also owns the cell it starts in, so its name starts there.
        long_cells = np.flatnonzero(covered)
        if long_cells.size:
            long_positions = position[long_cells]
            start_cells = np.searchsorted(first_at, long_positions, side="right") - 1
            starts_here = (start_cells >= 0) & (start_cells < long_cells)
            position[start_cells[starts_here]] = long_positions[starts_here]
            wide[start_cells[starts_here]] = True
        drawn = wide | (count > 0) | (carry > 0)
        owner = np.where(drawn, lane.events[position], -1)
        owner_duration = np.where(
            drawn, lane.ends[position] - lane.starts[position], -1
        )
        return owner, owner_duration, wide, occupancy

    def _cells(self, row: _Row, width: int) -> _Cells:
        """Bucket the row's visible events into cells: the longest one owns a cell."""
        view_start, view_end = self.view_start_ns, self.view_end_ns
        owner = np.full(width, -1, dtype=np.int64)
        owner_duration = np.full(width, -1, dtype=np.int64)
        wide = np.zeros(width, dtype=np.bool_)
        occupancy = np.zeros(width, dtype=np.float64)
        for lane in row.lanes:
            low, high = lane.visible(view_start, view_end)
            if high <= low:
                continue
            drawn: tuple[Int64Array, Int64Array, BoolArray, FloatArray] | None
            if high - low > DENSE_EVENTS_PER_CELL * width:
                drawn = self._dense_lane(lane, width)
            else:
                self.events_examined += high - low
                drawn = self._exact_lane(lane, low, high, width)
            if drawn is None:
                continue
            lane_owner, lane_duration, lane_wide, lane_occupancy = drawn
            better = lane_duration > owner_duration
            owner[better] = lane_owner[better]
            owner_duration[better] = lane_duration[better]
            wide[better] = lane_wide[better]
            occupancy += lane_occupancy
        marked = self._covered_cells(self._marks_of(row), width)
        selected = self.selected_event
        if selected is not None and self._row_contains(row, selected):
            start = int(self.trace.start_ns[selected])
            end = start + int(self.trace.duration_ns[selected])
            if end >= view_start and start <= view_end:
                first_cell, last_cell = self._cell_bounds(
                    np.array([start], dtype=np.int64),
                    np.array([end], dtype=np.int64),
                    width,
                )
                a, b = int(first_cell[0]), int(last_cell[0])
                owner[a:b] = selected
                wide[a:b] = b - a > 1
                occupancy[a:b] = 1.0
        gap = np.zeros(width, dtype=np.bool_)
        if row.gaps is not None and row.gaps[0].size:
            gap_starts, gap_ends = row.gaps
            low = int(np.searchsorted(gap_ends, view_start, side="right"))
            high = int(np.searchsorted(gap_starts, view_end, side="left"))
            gap = self._paint(gap_starts[low:high], gap_ends[low:high], width)
        return _Cells(owner, wide, np.minimum(occupancy, 1.0), marked, gap)

    def _colour_key(self, row: _Row, event: int) -> int:
        """Colour by kind; steps alternate (start-up dimmed); data zones stand apart."""
        if row.role == "steps":
            step = self._step_of_event.get(event)
            if step is not None and step.phase != "active":
                return _STARTUP_STEP_KEY
            return _STEP_KEYS[(step.number if step else 0) % 2]
        if self._data_zone_mask[event]:
            return _DATA_ZONE_KEY
        return int(self.trace.kind[event])

    def _event_name(self, row: _Row, event: int, width: int) -> str:
        """The escaped name fitted to `width` cells (a step falls back to #N)."""
        name_id = int(self.trace.name_id[event])
        name = self._names.get(name_id)
        if name is None:
            name = printable(self.trace.names[name_id])
            self._names[name_id] = name
        if row.role == "steps" and cell_len(name) > width:
            step = self._step_of_event.get(event)
            if step is not None:
                name = f"#{step.number}"
        return _fit_text(name, width)

    def _row_segments(self, row: _Row, cells: _Cells, width: int) -> list[Segment]:
        """Turn cells into segments, one per run of cells drawn alike."""
        owner = cells.owner
        selected = self.selected_event
        selected_cells = (
            owner == selected if selected is not None else np.zeros(width, bool)
        )
        in_range = self._range_cells(width) if row.role != "track" else None
        change = _run_heads(owner)
        # Cells of short events are drawn one by one (their glyph says how busy).
        short = ~cells.wide & (owner >= 0)
        change[1:] |= (
            (cells.gap[1:] != cells.gap[:-1])
            | (cells.marked[1:] != cells.marked[:-1])
            | short[1:]
            | short[:-1]
        )
        if in_range is not None:
            change[1:] |= in_range[1:] != in_range[:-1]
        run_starts = np.flatnonzero(change).tolist()
        run_ends = [*run_starts[1:], width]
        owner_list = owner.tolist()
        gap_list = cells.gap.tolist()
        marked_list = cells.marked.tolist()
        wide_list = cells.wide.tolist()
        occupancy_list = cells.occupancy.tolist()
        selected_list = selected_cells.tolist()
        range_list = in_range.tolist() if in_range is not None else None
        segments: list[Segment] = []
        named: set[int] = set()
        for a, b in zip(run_starts, run_ends, strict=True):
            event = owner_list[a]
            length = b - a
            highlighted = range_list is not None and range_list[a]
            if event < 0:
                if gap_list[a]:
                    style = self._style("gap")
                    text = GAP_GLYPH * length
                else:
                    style = self._style("plain")
                    text = " " * length
                if highlighted:
                    style = style + self._style("range")
                segments.append(Segment(text, style))
                continue
            colour = self._colour_key(row, event)
            is_selected = selected_list[a]
            is_marked = marked_list[a]
            # On the zones row the gap is drawn over the zone itself.
            over_gap = row.role == "zones" and gap_list[a]
            if over_gap:
                fill, bar_style = GAP_GLYPH, self._style("gap")
                if is_selected:
                    bar_style = bar_style + Style(reverse=True)
            else:
                fill = DATA_ZONE_GLYPH if colour == _DATA_ZONE_KEY else BAR_GLYPH
                bar_style = self._style("bar", colour, is_selected, is_marked)
            if highlighted:
                bar_style = bar_style + Style(underline=True)
            if not wide_list[a]:
                if over_gap:
                    glyph = GAP_GLYPH
                else:
                    level = math.ceil(occupancy_list[a] * 8) - 1
                    glyph = OCCUPANCY_GLYPHS[min(7, max(0, level))]
                segments.append(Segment(glyph, bar_style))
                continue
            if length >= 3 and event not in named:
                named.add(event)
                name = self._event_name(row, event, length)
                text_style = self._style("text", colour, is_selected, is_marked)
                if highlighted:
                    text_style = text_style + Style(underline=True)
                segments.append(Segment(name, text_style))
                rest = length - cell_len(name)
                if rest > 0:
                    segments.append(Segment(fill * rest, bar_style))
            else:
                segments.append(Segment(fill * length, bar_style))
        return segments

    def _range_cells(self, width: int) -> BoolArray | None:
        """Cells inside the selected range, if one is selected."""
        if self.selected_range is None:
            return None
        start, end = self.selected_range
        first, last = self._cell_bounds(
            np.array([start], dtype=np.int64), np.array([end], dtype=np.int64), width
        )
        cells = np.zeros(width, dtype=np.bool_)
        if end >= self.view_start_ns and start <= self.view_end_ns:
            cells[int(first[0]) : int(last[0])] = True
        return cells

    def _axis_segments(self, width: int) -> list[Segment]:
        """Ticks every ~14 cells with times in a unit chosen from the zoom, and the cursor."""
        view_start, view_end = self.view_start_ns, self.view_end_ns
        span = view_end - view_start
        step = _tick_step(span, width)
        unit, scale = _tick_unit(step)
        chars = [" "] * width
        first_tick = math.ceil(view_start / step) * step
        free_from = 0
        tick = first_tick
        while tick < view_end:
            cell = int((tick - view_start) * width / span)
            label = "╵" + _tick_label(tick, step, unit, scale)
            if cell >= free_from and cell + len(label) <= width:
                chars[cell : cell + len(label)] = list(label)
                free_from = cell + len(label) + 1
            elif cell >= free_from and cell < width:
                chars[cell] = "╵"
            tick += step
        cursor_cell = min(width - 1, int(self._cursor_fraction * width))
        rule = self._style("rule")
        segments = [Segment("".join(chars[:cursor_cell]), rule)]
        segments.append(Segment(CURSOR_GLYPH, self._style("cursor")))
        segments.append(Segment("".join(chars[cursor_cell + 1 :]), rule))
        in_range = self._range_cells(width)
        if in_range is not None and in_range.any():
            strip = Strip(segments, width)
            a = int(np.argmax(in_range))
            b = a + int(in_range[a:].sum())
            parts = strip.divide([a, b, width])
            highlighted = parts[1].apply_style(self._style("range"))
            return [*parts[0], *highlighted, *parts[2]]
        return segments
