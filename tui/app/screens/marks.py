"""What the main screen marks and selects on the timeline: search matches,
operator occurrences (n / N) and the gap in view (g / G / b)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from rich.text import Text

from tui.app.messages import SearchMatched
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import group_name
from tui.view import status
from tui.view.marking import (
    PreparedMarks,
    events_named,
    in_time_order,
    name_matches,
    named_like,
)

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


SEARCH_IN_WORKER_AT = 500_000
"""Captures of at least this many events are searched in a worker: matching and
ordering millions of events would hold the keys for tens of milliseconds."""


class Marks:
    """The marked events of one main screen, the one selected, and the gap selected."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.events: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.index = -1
        self.label = ""
        self.gap_index: int | None = None
        self._group_ids: dict[str, list[int]] | None = None
        self._serial = 0
        """Counts markings: a search answered after a newer marking is dropped."""

    def set(
        self,
        events: npt.NDArray[np.int64],
        label: str,
        prepared: PreparedMarks | None = None,
    ) -> None:
        """Mark these events on the timeline, in time order (`prepared`: already
        in time order, with the rows' marks a worker made)."""
        self._serial += 1
        had_marks = bool(self.events.size)
        if prepared is None:
            self.events = in_time_order(self.screen.trace, events)
            self.screen.timeline.mark_events(self.events)
        else:
            self.events = prepared.events
            self.screen.timeline.mark_prepared(prepared)
        self.index = -1
        self.label = label
        if had_marks != bool(self.events.size):
            self.screen.refresh_bindings()  # n / N are offered or not

    def step(self, delta: int) -> None:
        """Select the next or previous marked event and say which."""
        screen = self.screen
        self.index = (self.index + delta) % int(self.events.size)
        event = int(self.events[self.index])
        screen.timeline.select_event(event)
        screen.show_info(
            status.mark_info(
                screen.analysis,
                self.label,
                self.index,
                int(self.events.size),
                event,
                screen.view_span(),
            )
        )

    def search(self, needle: str) -> None:
        """Mark every event whose name contains `needle` and visit the first; a
        big capture is searched in a worker (the status line says so meanwhile)."""
        screen = self.screen
        trace = screen.trace
        if trace.event_count < SEARCH_IN_WORKER_AT:
            # In event order: `set` puts them in time order, once.
            self.show_matches(needle, named_like(trace, needle))
            return
        serial = self._serial = self._serial + 1
        layout = screen.timeline.rows_layout
        screen.show_info(Text(f"searching event names for {printable(needle)}…"))

        def find() -> None:
            events = name_matches(trace, needle)
            prepared = PreparedMarks.of(trace, events, layout)
            screen.post_message(SearchMatched(needle, serial, prepared))

        screen.run_worker(
            find, thread=True, exclusive=True, exit_on_error=False, group="search"
        )

    def matched(self, message: SearchMatched) -> None:
        """A worker's search answered: shown unless something was marked since."""
        if message.serial == self._serial:
            prepared = message.prepared
            self.show_matches(message.needle, prepared.events, prepared)

    def show_matches(
        self,
        needle: str,
        events: npt.NDArray[np.int64],
        prepared: PreparedMarks | None = None,
    ) -> None:
        """Mark a search's matches and visit the first (or say there is none)."""
        self.set(events, f"search {printable(needle)!s}:", prepared)
        if events.size:
            self.step(1)
        else:
            self.screen.show_info(Text(f"no event name contains {printable(needle)}"))

    def operator(self, name: str, events: npt.NDArray[np.int64] | None = None) -> None:
        """Mark the occurrences of an operator (a table row's name), or the calls
        `events` of one row by input shape."""
        trace = self.screen.trace
        if events is None:
            if self._group_ids is None:
                groups: dict[str, list[int]] = {}
                for name_id, event_name in enumerate(trace.names):
                    groups.setdefault(group_name(event_name), []).append(name_id)
                self._group_ids = groups
            events = events_named(trace, self._group_ids.get(name, []))
            what = "occurrences"
        else:
            what = "calls with these input shapes"
        self.set(events, f"{printable(name)}:")
        text = Text()
        text.append(printable(name), style="bold")
        text.append(f"  {events.size:,} {what} marked; n/N or Enter to visit")
        self.screen.show_info(text)

    def gap(self, delta: int) -> None:
        """Select the next or previous gap in the data zone."""
        gaps = self.screen.analysis.gaps
        if self.gap_index is None:
            index = 0 if delta > 0 else len(gaps) - 1
        else:
            index = (self.gap_index + delta) % len(gaps)
        self.select_gap(index)

    def biggest_gap(self) -> None:
        """Select the longest gap."""
        gaps = self.screen.analysis.gaps
        self.select_gap(max(range(len(gaps)), key=lambda i: gaps[i].duration_ns))

    def select_gap(self, index: int) -> None:
        """Select a gap's range, fit its zone occurrence, and show its figures."""
        screen = self.screen
        trace = screen.trace
        gap = screen.analysis.gaps[index]
        self.gap_index = index
        zone_start = int(trace.start_ns[gap.zone_event])
        zone_end = zone_start + int(trace.duration_ns[gap.zone_event])
        screen.timeline.select_range(gap.start_ns, gap.end_ns)
        margin = max((zone_end - zone_start) // 10, 1)
        screen.timeline.fit(max(zone_start - margin, 0), zone_end + margin)
        screen.show_info(status.gap_info(screen.analysis, index, screen.view_span()))
