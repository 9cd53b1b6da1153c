"""The timeline widget: keys, view and selection state, and a cache of drawn lines.

A Line-API `ScrollView`: each terminal line is one row (the axis, the steps,
the zones, or one nesting depth of one track) drawn on demand, so a redraw
costs what is visible, not the size of the trace. Time is not scrolled by the
ScrollView: panning and zooming change `view_start_ns`/`view_end_ns`; only rows
scroll vertically. The rows come from `tui.view.layout`, the cells from
`tui.view.cells`, what keys select from `tui.view.navigation`; the key
actions are the `TimelineKeys` mixin's (`timeline_actions`), and the
`Painter` (`timeline_render`) draws each line from a snapshot of the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.messages import ViewChanged
from tui.app.widgets.timeline_actions import (
    KEY_BINDINGS,
    MIN_SPAN_NS,
    TimelineKeys,
    clamped,
    refit_cursor,
    set_cursor_row,
)
from tui.app.widgets.timeline_render import LineView, Painter, draw_line
from tui.core.figures.analysis import Analysis
from tui.core.model.trace import Trace
from tui.view.cells import Drawing, Viewport
from tui.view.lanes import Lane, marked_lanes
from tui.view.layout import (
    GAP_GLYPH,
    Row,
    TimelineLayout,
    ZoneView,
    build_layout,
    first_cap_for,
)
from tui.view.marking import PreparedMarks, marked_mask
from tui.view.navigation import Picked, Selection, row_of
from tui.view.timeline_index import DEFAULT_DEPTH_CAP, TimelineIndex

__all__ = ["GAP_GLYPH", "Timeline"]


@dataclass
class RowsCounted(Message):
    """The timeline's rows changed in number (tracks folded or expanded, another
    zone): a screen may give the rows it leaves blank to its other parts."""

    rows: int


class Timeline(TimelineKeys, ScrollView, can_focus=True):
    """Keyboard-driven timeline of a trace's threads and streams, rendered per visible line."""

    DEFAULT_CSS = """
    Timeline {
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = KEY_BINDINGS

    view_start_ns: reactive[int] = reactive(0, layout=False, init=False)
    view_end_ns: reactive[int] = reactive(1, layout=False, init=False)
    selected_event: reactive[int | None] = reactive(None, init=False)
    selected_range: reactive[tuple[int, int] | None] = reactive(None, init=False)

    def __init__(
        self,
        trace: Trace,
        analysis: Analysis,
        *,
        index: TimelineIndex | None = None,
        zone_view: ZoneView | None = None,
        id: str | None = None,
    ) -> None:
        """`index` and `zone_view` are built here unless the load worker made them."""
        super().__init__(id=id)
        self.trace = trace
        self.analysis = analysis
        self.index = index or TimelineIndex.build(trace, analysis)
        self.zone_view = zone_view or ZoneView.build(self.index, analysis)
        self.painter = Painter(self.index, self.zone_view)
        self.total_ns = max(int(trace.span_ns), MIN_SPAN_NS)
        self.events_examined = 0
        """How many events the renderer has visited one by one: the test of view-bound cost."""
        self.drawing = Drawing.AUTO
        self.selection = Selection()
        self._cursor_fraction = 0.5
        self._expanded: set[int] = set()
        self._queues_shown = False
        self._unfolded: set[int | None] = set()
        """Devices whose streams show one by one under their device row (x)."""
        self._first_cap = DEFAULT_DEPTH_CAP
        self._marked_mask: npt.NDArray[np.bool_] | None = None
        self._row_marks: dict[int, list[Lane]] = {}
        self._generation = 0
        self._line_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self.rows_layout: TimelineLayout = build_layout(self.index, self.zone_view)
        self._rows_told = 0
        """How many rows the last RowsCounted said."""
        self._cursor_row = self.rows_layout.first_track_row()
        self.set_reactive(Timeline.view_start_ns, 0)
        self.set_reactive(Timeline.view_end_ns, self.total_ns)

    # -- rows -------------------------------------------------------------------

    @property
    def _rows(self) -> list[Row]:
        """Header rows (fixed at the top) then track rows (scrolled)."""
        return self.rows_layout.rows

    @property
    def _header(self) -> list[Row]:
        return self.rows_layout.header

    def _relayout(self) -> None:
        """Rebuild the rows (zone, fold or height changed), keeping the cursor's track."""
        rows = self._rows
        here = rows[self._cursor_row] if self._cursor_row < len(rows) else None
        self.rows_layout = build_layout(
            self.index,
            self.zone_view,
            self._expanded,
            self._first_cap,
            self._queues_shown,
            self._unfolded,
        )
        self._row_marks.clear()
        rows = self._rows
        target = self.rows_layout.first_track_row()
        if here is not None:
            for position, row in enumerate(rows):
                if (
                    row.role is here.role
                    and row.track == here.track
                    and row.device == here.device
                ):
                    target = position
                    if row.depth >= here.depth:
                        break
        self._cursor_row = min(target, max(len(rows) - 1, 0))
        self._update_virtual_size()
        self._invalidate()

    def set_zone(self, analysis: Analysis, zone_view: ZoneView) -> None:
        """Show another data zone: its occurrences, its gaps, its legend."""
        self.analysis = analysis
        self.zone_view = zone_view
        self.painter.zone = zone_view
        self._relayout()

    def _fit_first_track(self) -> None:
        """On a small screen, fold the main thread so the first stream shows."""
        if not self.is_mounted:
            return
        visible = self.scrollable_content_region.height - len(self._header)
        cap = first_cap_for(self.index, visible)
        if cap != self._first_cap:
            self._first_cap = cap
            self._relayout()

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

    def watch_selected_event(self, old: int | None, event: int | None) -> None:
        self.selection.event = event
        if event is not None:
            self.selection.latest = Picked.EVENT
        self._invalidate()
        if (old is None) != (event is None):
            self.refresh_bindings()  # Enter (details) is offered or not

    def watch_selected_range(self, selected: tuple[int, int] | None) -> None:
        self.selection.range = selected
        if selected is not None:
            self.selection.latest = Picked.RANGE
        self._invalidate()

    def _invalidate(self) -> None:
        """Drop drawn lines: what they show (selection, marks, cursor) changed."""
        self._generation += 1
        self._line_cache.clear()
        self.refresh()

    def _view_changed(self) -> None:
        """Lines show the old range: drop them, redraw, tell the app."""
        self._line_cache.clear()
        self.refresh()
        self.post_message(ViewChanged(self.view_start_ns, self.view_end_ns))

    def notify_style_update(self) -> None:
        """Theme or focus changed: styles are baked into cached lines, which
        are drawn again only if the widget's own style changed (focus alone
        does not change it: the lines after a prompt closed were drawn twice)."""
        super().notify_style_update()
        base = self.rich_style
        if base != self.painter.base:
            self.painter.set_base(base)
            self._line_cache.clear()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter is offered only on a selected event."""
        if action == "activate":
            return self.selected_event is not None
        return True

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

    @property
    def cursor_row_info(self) -> Row | None:
        """The row under the cursor."""
        rows = self._rows
        return rows[self._cursor_row] if 0 <= self._cursor_row < len(rows) else None

    def fit(self, start_ns: int, end_ns: int) -> None:
        """Show [start, end), clamped to the trace and at least MIN_SPAN_NS wide."""
        start, end = clamped(self.total_ns, int(start_ns), int(end_ns))
        if (start, end) == (self.view_start_ns, self.view_end_ns):
            return
        self.set_reactive(Timeline.view_start_ns, start)
        self.set_reactive(Timeline.view_end_ns, end)
        self._view_changed()

    def fit_selection(self) -> bool:
        """Fit what was selected last (an event or a range); False when nothing is."""
        target = self.selection.fit_target(self.index)
        if target is None:
            return False
        self.fit(*target)
        return True

    def select_event(self, event: int | None) -> None:
        """Highlight an event, bring its row on screen and make it visible in time."""
        if event is None:
            self.selected_event = None
            return
        event = int(event)
        self.selected_event = event
        self.selection.latest = Picked.EVENT
        row_index = row_of(self.index, self.rows_layout, event)
        if row_index is not None:
            set_cursor_row(self, row_index)
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
        refit_cursor(self, (start + end) // 2)
        self._invalidate()

    def select_range(self, start_ns: int, end_ns: int) -> None:
        """Highlight a time range (a gap, a step) and show it with a margin around it."""
        start, end = sorted((int(start_ns), int(end_ns)))
        self.selected_range = (start, end)
        self.selection.latest = Picked.RANGE
        margin = max((end - start) // 10, MIN_SPAN_NS)
        self.fit(start - margin, end + margin)
        self._cursor_fraction = 0.5
        self._invalidate()

    def mark_events(self, events: npt.NDArray[np.integer] | None) -> None:
        """Draw these events underlined and bold (operator occurrences, search matches)."""
        chosen = (
            np.zeros(0, np.int64) if events is None else np.asarray(events, np.int64)
        )
        self._marked_mask = marked_mask(self.trace, chosen)
        self._row_marks.clear()
        self._invalidate()

    def mark_prepared(self, prepared: PreparedMarks) -> None:
        """Draw marks whose rows a worker prepared (kept if made for these rows)."""
        self._marked_mask = prepared.mask
        self._row_marks.clear()
        if prepared.layout is self.rows_layout:
            self._row_marks.update(prepared.row_marks)
        self._invalidate()

    def _marks_of(self, row: Row) -> list[Lane]:
        """The row's marked events as lanes (built once per marking)."""
        mask = self._marked_mask
        if mask is None or not row.lanes:
            return []
        key = id(row)
        if key not in self._row_marks:
            self._row_marks[key] = marked_lanes(row.lanes, mask)
        return self._row_marks[key]

    # -- sizes -----------------------------------------------------------------

    def _total_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def _label_width(self) -> int:
        total = self._total_width()
        return max(8, min(28, total // 5 if total < 60 else max(16, total // 5)))

    def _lane_width(self) -> int:
        return max(1, self._total_width() - self._label_width() - 1)

    def _edges(self, width: int) -> npt.NDArray[np.int64]:
        """The times where cells begin, and the end of the last one."""
        return Viewport(self.view_start_ns, self.view_end_ns, width).edges()

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._total_width(), len(self._rows))
        if len(self._rows) != self._rows_told:
            self._rows_told = len(self._rows)
            self.post_message(RowsCounted(self._rows_told))

    def on_mount(self) -> None:
        self.painter.set_base(self.rich_style)
        self._update_virtual_size()
        self._fit_first_track()

    def on_resize(self) -> None:
        self._update_virtual_size()
        self._line_cache.clear()
        self._fit_first_track()

    # -- drawing ----------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        """Draw one line: fixed header rows, then track rows scrolled vertically."""
        header = len(self._header)
        index = y if y < header else header + round(self.scroll_y) + (y - header)
        width = self._total_width()
        if index >= len(self._rows):
            return Strip.blank(width, self.painter.style("plain"))
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
        strip, examined = draw_line(
            self.painter,
            self.line_view(),
            self._rows[index],
            index,
            width,
            self._marks_of,
        )
        self.events_examined += examined
        self._line_cache[key] = strip
        return strip

    def line_view(self) -> LineView:
        """A snapshot of what the lines show now (the painter draws from it)."""
        return LineView(
            self.view_start_ns,
            self.view_end_ns,
            self._label_width(),
            self._cursor_row,
            self._cursor_fraction,
            self.selected_event,
            self.selected_range,
            self.drawing,
            self.rows_layout,
        )
