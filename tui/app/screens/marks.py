"""What the main screen marks and selects on the timeline: search matches,
operator occurrences (n / N) and the gap in view (g / G / b)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from rich.text import Text

from tui.core.analysis import group_name
from tui.core.model import Trace
from tui.core.textsafe import printable
from tui.view import status

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def events_named(trace: Trace, name_ids: list[int]) -> npt.NDArray[np.int64]:
    """The events whose name is one of `name_ids`, in event order (a table lookup:
    np.isin compares every event with every name)."""
    wanted = np.zeros(len(trace.names), dtype=np.bool_)
    wanted[name_ids] = True
    return np.flatnonzero(wanted[trace.name_id]).astype(np.int64, copy=False)


class Marks:
    """The marked events of one main screen, the one selected, and the gap selected."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.events: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.index = -1
        self.label = ""
        self.gap_index: int | None = None
        self._group_ids: dict[str, list[int]] | None = None

    def set(self, events: npt.NDArray[np.int64], label: str) -> None:
        """Mark these events (in time order) on the timeline."""
        trace = self.screen.trace
        order = np.argsort(trace.start_ns[events], kind="stable")
        had_marks = bool(self.events.size)
        self.events = events[order].astype(np.int64, copy=False)
        self.index = -1
        self.label = label
        self.screen.timeline.mark_events(self.events)
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

    def search(self, needle: str) -> int:
        """Mark every event whose name contains `needle`; returns the count."""
        trace = self.screen.trace
        lowered = needle.lower()
        ids = [i for i, name in enumerate(trace.names) if lowered in name.lower()]
        events = events_named(trace, ids)
        self.set(events, f"search {printable(needle)!s}:")
        if events.size:
            self.step(1)
        else:
            self.screen.show_info(Text(f"no event name contains {printable(needle)}"))
        return int(events.size)

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
