"""The timeline's keys: zoom, pan, rows and tracks, next event, unfold, click.

A mixin of the `Timeline` widget (`TimelineKeys`), whose key actions these
methods are: what each key selects is decided in `tui.view.navigation`; these
move the view and the cursor. What they need of the widget is `KeysHost`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Region
from textual.message import Message

from tui.app.messages import EventActivated, EventSelected, StatusText
from tui.core.base.units import plural
from tui.core.base.vocab import RowRole
from tui.core.model.trace import Trace, TrackKind
from tui.view.layout import Row
from tui.view.navigation import longest_in, next_on_row, row_contains, track_target
from tui.view.status import out_of_view_words
from tui.view.timeline_index import TimelineIndex

ZOOM = Binding.Group("Zoom")
"""Zoom in and out read as one item in the footer."""

KEY_BINDINGS: list[BindingType] = [
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
    Binding(
        "x", "toggle_expand", "Expand track (a device's row: its streams)", show=False
    ),
    Binding("Q", "toggle_queues", "Launch queue under each stream", show=False),
    Binding("enter", "activate", "Details"),
]
"""The timeline's keys; the actions they name are `TimelineKeys`'s methods."""

MIN_SPAN_NS = 20
ZOOM_FACTOR = 1.5
PAN_FRACTION = 0.125


def clamped(total_ns: int, start: int, end: int) -> tuple[int, int]:
    """A range inside a trace of `total_ns`, at least MIN_SPAN_NS wide, shifted
    rather than cut."""
    if end < start:
        start, end = end, start
    if end - start < MIN_SPAN_NS:
        middle = (start + end) // 2
        start = middle - MIN_SPAN_NS // 2
        end = middle + MIN_SPAN_NS - MIN_SPAN_NS // 2
    span = min(end - start, total_ns)
    start = max(0, min(start, total_ns - span))
    return start, start + span


def rows_out_of_view(host: KeysHost, wanted: Callable[[Row], bool]) -> tuple[int, int]:
    """How many track rows `wanted` keeps, and how many of them lie out of view."""
    header = len(host._header)
    top = int(host.scroll_y)
    height = max(host.scrollable_content_region.height - header, 0)
    picked = [
        position for position, row in enumerate(host._rows[header:]) if wanted(row)
    ]
    off = sum(1 for position in picked if not top <= position < top + height)
    return len(picked), off


def toggle_streams(host: KeysHost, row: Row) -> None:
    """Show a device's streams one by one under its row, or fold them into it."""
    host._unfolded ^= {row.device}
    host._relayout()
    if row.device not in host._unfolded:
        host.post_message(StatusText(Text(f"{row.label}: folded into one row (x)")))
        return
    tracks = host.trace.tracks

    def said() -> str:
        _, off = rows_out_of_view(
            host,
            lambda each: (
                each.first_of_track
                and each.track is not None
                and tracks[each.track].kind == TrackKind.DEVICE
                and tracks[each.track].device == row.device
            ),
        )
        return f"{row.label}: unfolded (x folds them)" + out_of_view_words(
            off, "stream"
        )

    say_when_laid_out(host, said)


LAYOUT_TURNS = 3
"""Refreshes before rows added are in place: the rows counted, the screen's
share of lines given, the new height laid out (`MainScreen._share_rows`)."""


def say_when_laid_out(
    host: KeysHost, said: Callable[[], str], turns: int = LAYOUT_TURNS
) -> None:
    """Put `said()` on the status line once the rows just added are laid out
    (where they land depends on the height the screen gives the timeline)."""
    if turns > 0:
        host.call_after_refresh(say_when_laid_out, host, said, turns - 1)
    else:
        host.post_message(StatusText(Text(said())))


class KeysHost(Protocol):
    """What the keys need of the timeline widget."""

    trace: Trace
    index: TimelineIndex
    total_ns: int
    _cursor_fraction: float
    _cursor_row: int
    _expanded: set[int]
    _queues_shown: bool
    _unfolded: set[int | None]
    selected_event: int | None

    @property
    def view_start_ns(self) -> int: ...
    @property
    def view_end_ns(self) -> int: ...
    @property
    def cursor_ns(self) -> int: ...
    @property
    def cursor_row_info(self) -> Row | None: ...
    @property
    def _rows(self) -> list[Row]: ...
    @property
    def _header(self) -> list[Row]: ...
    @property
    def is_mounted(self) -> bool: ...
    @property
    def scroll_y(self) -> float: ...
    @property
    def scrollable_content_region(self) -> Region: ...

    def fit(self, start_ns: int, end_ns: int) -> None: ...
    def select_event(self, event: int | None) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def call_after_refresh(
        self, callback: Callable[..., object], *args: object
    ) -> bool: ...
    def scroll_to(self, *, y: float, animate: bool, immediate: bool) -> None: ...
    def _label_width(self) -> int: ...
    def _lane_width(self) -> int: ...
    def _invalidate(self) -> None: ...
    def _relayout(self) -> None: ...


def zoom(host: KeysHost, factor: float) -> None:
    """Scale the span keeping the cursor's time under the cursor."""
    span = host.view_end_ns - host.view_start_ns
    new_span = max(MIN_SPAN_NS, round(span * factor))
    anchor = host.cursor_ns
    start = round(anchor - host._cursor_fraction * new_span)
    host.fit(start, start + new_span)
    refit_cursor(host, anchor)


def refit_cursor(host: KeysHost, anchor: int) -> None:
    """Keep the cursor on its time when clamping moved the view."""
    span = host.view_end_ns - host.view_start_ns
    host._cursor_fraction = min(max((anchor - host.view_start_ns) / span, 0.0), 1.0)


def set_cursor_row(host: KeysHost, index: int) -> None:
    """Move the cursor to a row and scroll it on screen (header rows never scroll)."""
    host._cursor_row = index
    header = len(host._header)
    if index >= header and host.is_mounted:
        body_index = index - header
        visible = max(1, host.scrollable_content_region.height - header)
        top = round(host.scroll_y)
        if body_index < top:
            host.scroll_to(y=body_index, animate=False, immediate=True)
        elif body_index >= top + visible:
            host.scroll_to(y=body_index - visible + 1, animate=False, immediate=True)
    host._invalidate()


def pick_under_cursor(host: KeysHost) -> None:
    """Select the longest event of the cursor row within the cursor's cell."""
    row = host.cursor_row_info
    if row is None:
        return
    width = max(1, host._lane_width())
    span = host.view_end_ns - host.view_start_ns
    cell = min(int(host._cursor_fraction * width), width - 1)
    low = host.view_start_ns + cell * span // width
    high = host.view_start_ns + (cell + 1) * span // width
    picked = longest_in(row, low, max(high, low + 1))
    if picked != host.selected_event:
        host.selected_event = picked
        host.post_message(EventSelected(picked))


class TimelineKeys:
    """The timeline's key actions and the cursor moves they share."""

    def action_zoom_in(self: KeysHost) -> None:
        """Narrow the view around the cursor."""
        zoom(self, 1 / ZOOM_FACTOR)

    def action_zoom_out(self: KeysHost) -> None:
        """Widen the view around the cursor."""
        zoom(self, ZOOM_FACTOR)

    def action_pan(self: KeysHost, direction: int) -> None:
        """Move the view by an eighth of its width."""
        span = self.view_end_ns - self.view_start_ns
        shift = max(1, round(span * PAN_FRACTION)) * direction
        self.fit(self.view_start_ns + shift, self.view_end_ns + shift)

    def action_home(self: KeysHost) -> None:
        """Go to the start of the trace, keeping the zoom."""
        self.fit(0, self.view_end_ns - self.view_start_ns)

    def action_end(self: KeysHost) -> None:
        """Go to the end of the trace, keeping the zoom."""
        span = self.view_end_ns - self.view_start_ns
        self.fit(self.total_ns - span, self.total_ns)

    def action_move_cursor(self: KeysHost, cells: int) -> None:
        """Move the time cursor by cells; pick the event under it."""
        width = max(1, self._lane_width())
        self._cursor_fraction = min(
            max(self._cursor_fraction + cells / width, 0.0), 1.0
        )
        pick_under_cursor(self)
        self._invalidate()

    def action_row(self: KeysHost, delta: int) -> None:
        """Move the cursor to the row above or below and pick the event under it."""
        last = len(self._rows) - 1
        set_cursor_row(self, max(1, min(last, self._cursor_row + delta)))
        pick_under_cursor(self)

    def action_track(self: KeysHost, direction: int) -> None:
        """Jump to the first row of the previous or next track (skipping its depths)."""
        target = track_target(self._rows, self._cursor_row, direction)
        if target is not None:
            set_cursor_row(self, target)
            pick_under_cursor(self)

    def action_step_event(self: KeysHost, direction: int) -> None:
        """Select the previous or next event on the cursor's row and bring it into view."""
        row = self.cursor_row_info
        if row is None:
            return
        selected = self.selected_event
        if selected is not None and row_contains(self.index, row, selected):
            here = (int(self.trace.start_ns[selected]), selected)
        else:
            here = (self.cursor_ns, -1 if direction > 0 else self.trace.event_count)
        found = next_on_row(row, here, direction)
        if found is not None:
            self.select_event(found)
            self.post_message(EventSelected(found))

    def action_toggle_expand(self: KeysHost) -> None:
        """Show every depth of the cursor's track (on a device's row: its
        streams one by one), or fold it back; the status line says where the
        device rows went."""
        row = self.cursor_row_info
        if row is not None and row.role is RowRole.DEVICE:
            toggle_streams(self, row)
            return
        if row is None or row.track is None:
            return
        self._expanded ^= {row.track}
        self._relayout()
        what = "unfolded" if row.track in self._expanded else "folded"
        tracks = self.trace.tracks

        def said() -> str:
            _, off = rows_out_of_view(
                self,
                lambda each: (
                    each.first_of_track
                    and each.track is not None
                    and tracks[each.track].kind == TrackKind.DEVICE
                ),
            )
            return f"track {what}" + out_of_view_words(off, "device stream")

        say_when_laid_out(self, said)

    def action_toggle_queues(self: KeysHost) -> None:
        """Show each device stream's launch queue under it (HTA's queue length),
        or hide them; the status line says how many and whether they show."""
        self._queues_shown = not self._queues_shown
        self._relayout()
        if not self._queues_shown:
            self.post_message(StatusText(Text("launch queues hidden (Q shows them)")))
            return

        def said() -> str:
            shown, off = rows_out_of_view(self, lambda each: each.role is RowRole.QUEUE)
            words = f"{plural(shown, 'launch queue')} shown"
            return words + out_of_view_words(off, "launch queue")

        say_when_laid_out(self, said)

    def action_activate(self: KeysHost) -> None:
        """Ask the app to open the selected event."""
        if self.selected_event is not None:
            self.post_message(EventActivated(self.selected_event))

    def on_click(self: KeysHost, event: Click) -> None:
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
        set_cursor_row(self, index)
        pick_under_cursor(self)
