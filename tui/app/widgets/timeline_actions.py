"""The timeline's keys: zoom, pan, rows and tracks, next event, unfold, click.

Functions of the `Timeline` widget, which its key actions call: what each
key selects is decided in `tui.view.navigation`; these move the view and the
cursor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.events import Click

from tui.app.messages import EventActivated, EventSelected
from tui.view.navigation import longest_in, next_on_row, row_contains, track_target

if TYPE_CHECKING:
    from tui.app.widgets.timeline import Timeline

ZOOM = Binding.Group("Zoom")
"""Zoom in and out read as one item in the footer."""

BINDINGS: list[BindingType] = [
    Binding("w,plus,equals_sign", "zoom_in", "Zoom in", key_display="w", group=ZOOM),
    Binding("s,minus", "zoom_out", "Zoom out", key_display="s", group=ZOOM),
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
"""The timeline's keys; the actions they name call the functions below."""

MIN_SPAN_NS = 20
ZOOM_FACTOR = 1.5
PAN_FRACTION = 0.125


def clamped(timeline: Timeline, start: int, end: int) -> tuple[int, int]:
    """A range inside the trace, at least MIN_SPAN_NS wide, shifted rather than cut."""
    if end < start:
        start, end = end, start
    if end - start < MIN_SPAN_NS:
        middle = (start + end) // 2
        start = middle - MIN_SPAN_NS // 2
        end = middle + MIN_SPAN_NS - MIN_SPAN_NS // 2
    span = min(end - start, timeline.total_ns)
    start = max(0, min(start, timeline.total_ns - span))
    return start, start + span


def zoom_in(timeline: Timeline) -> None:
    """Narrow the view around the cursor."""
    zoom(timeline, 1 / ZOOM_FACTOR)


def zoom_out(timeline: Timeline) -> None:
    """Widen the view around the cursor."""
    zoom(timeline, ZOOM_FACTOR)


def zoom(timeline: Timeline, factor: float) -> None:
    """Scale the span keeping the cursor's time under the cursor."""
    span = timeline.view_end_ns - timeline.view_start_ns
    new_span = max(MIN_SPAN_NS, round(span * factor))
    anchor = timeline.cursor_ns
    start = round(anchor - timeline._cursor_fraction * new_span)
    timeline.fit(start, start + new_span)
    refit_cursor(timeline, anchor)


def refit_cursor(timeline: Timeline, anchor: int) -> None:
    """Keep the cursor on its time when clamping moved the view."""
    span = timeline.view_end_ns - timeline.view_start_ns
    timeline._cursor_fraction = min(
        max((anchor - timeline.view_start_ns) / span, 0.0), 1.0
    )


def pan(timeline: Timeline, direction: int) -> None:
    """Move the view by an eighth of its width."""
    span = timeline.view_end_ns - timeline.view_start_ns
    shift = max(1, round(span * PAN_FRACTION)) * direction
    timeline.fit(timeline.view_start_ns + shift, timeline.view_end_ns + shift)


def home(timeline: Timeline) -> None:
    """Go to the start of the trace, keeping the zoom."""
    timeline.fit(0, timeline.view_end_ns - timeline.view_start_ns)


def end(timeline: Timeline) -> None:
    """Go to the end of the trace, keeping the zoom."""
    span = timeline.view_end_ns - timeline.view_start_ns
    timeline.fit(timeline.total_ns - span, timeline.total_ns)


def move_cursor(timeline: Timeline, cells: int) -> None:
    """Move the time cursor by cells; pick the event under it."""
    width = max(1, timeline._lane_width())
    timeline._cursor_fraction = min(
        max(timeline._cursor_fraction + cells / width, 0.0), 1.0
    )
    pick_under_cursor(timeline)
    timeline._invalidate()


def row(timeline: Timeline, delta: int) -> None:
    """Move the cursor to the row above or below and pick the event under it."""
    last = len(timeline._rows) - 1
    set_cursor_row(timeline, max(1, min(last, timeline._cursor_row + delta)))
    pick_under_cursor(timeline)


def track(timeline: Timeline, direction: int) -> None:
    """Jump to the first row of the previous or next track (skipping its depths)."""
    target = track_target(timeline._rows, timeline._cursor_row, direction)
    if target is not None:
        set_cursor_row(timeline, target)
        pick_under_cursor(timeline)


def step_event(timeline: Timeline, direction: int) -> None:
    """Select the previous or next event on the cursor's row and bring it into view."""
    row = timeline.cursor_row_info
    if row is None:
        return
    selected = timeline.selected_event
    if selected is not None and row_contains(timeline.index, row, selected):
        here = (int(timeline.trace.start_ns[selected]), selected)
    else:
        here = (timeline.cursor_ns, -1 if direction > 0 else timeline.trace.event_count)
    found = next_on_row(row, here, direction)
    if found is not None:
        timeline.select_event(found)
        timeline.post_message(EventSelected(found))


def toggle_expand(timeline: Timeline) -> None:
    """Show every depth of the cursor's track, or fold it back to the cap."""
    row = timeline.cursor_row_info
    if row is None or row.track is None:
        return
    timeline._expanded ^= {row.track}
    timeline._relayout()


def activate(timeline: Timeline) -> None:
    """Ask the app to open the selected event."""
    if timeline.selected_event is not None:
        timeline.post_message(EventActivated(timeline.selected_event))


def set_cursor_row(timeline: Timeline, index: int) -> None:
    """Move the cursor to a row and scroll it on screen (header rows never scroll)."""
    timeline._cursor_row = index
    header = len(timeline._header)
    if index >= header and timeline.is_mounted:
        body_index = index - header
        visible = max(1, timeline.scrollable_content_region.height - header)
        top = round(timeline.scroll_y)
        if body_index < top:
            timeline.scroll_to(y=body_index, animate=False, immediate=True)
        elif body_index >= top + visible:
            timeline.scroll_to(
                y=body_index - visible + 1, animate=False, immediate=True
            )
    timeline._invalidate()


def pick_under_cursor(timeline: Timeline) -> None:
    """Select the longest event of the cursor row within the cursor's cell."""
    row = timeline.cursor_row_info
    if row is None:
        return
    width = max(1, timeline._lane_width())
    span = timeline.view_end_ns - timeline.view_start_ns
    cell = min(int(timeline._cursor_fraction * width), width - 1)
    low = timeline.view_start_ns + cell * span // width
    high = timeline.view_start_ns + (cell + 1) * span // width
    picked = longest_in(row, low, max(high, low + 1))
    if picked != timeline.selected_event:
        timeline.selected_event = picked
        timeline.post_message(EventSelected(picked))


def click(timeline: Timeline, event: Click) -> None:
    """Select the event under the mouse, where a mouse is available."""
    header = len(timeline._header)
    y = event.y
    index = y if y < header else header + round(timeline.scroll_y) + y - header
    label_width = timeline._label_width()
    if index >= len(timeline._rows) or event.x <= label_width or index == 0:
        return
    width = max(1, timeline._lane_width())
    timeline._cursor_fraction = min(
        max((event.x - label_width - 1 + 0.5) / width, 0.0), 1.0
    )
    set_cursor_row(timeline, index)
    pick_under_cursor(timeline)
