"""What the main screen marks and selects on the timeline: search matches,
operator occurrences (n / N) and the gap in view (g / G / b; J the shortest
gap g and G stop at).

A part the screen owns: it draws on the timeline it is given, says what it
did through `say`, and searches a big capture in a worker of its host screen
whose answer (`SearchMatched`) the screen hands back to `matched`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.text import Text
from textual.message import Message
from textual.screen import Screen

from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.analysis import Analysis, group_name
from tui.core.model.trace import Trace
from tui.view import status
from tui.view.gap_walk import (
    DEFAULT_GAP_THRESHOLD_NS,
    gap_view,
    next_gap,
    next_threshold,
    threshold_words,
)
from tui.view.marking import (
    PreparedMarks,
    events_named,
    in_time_order,
    name_matches,
    named_like,
)
from tui.view.status import StatusLine

SEARCH_IN_WORKER_AT = 500_000
"""Captures of at least this many events are searched, and an operator's
occurrences marked, in a worker: matching and ordering millions of events, and
each row's marked lanes, would hold the keys for tens of milliseconds."""


@dataclass
class SearchMatched(Message):
    """A worker found a search's matches (a big capture) and prepared their marks;
    `serial` tells whether the screen marked something else since."""

    needle: str
    serial: int
    prepared: PreparedMarks


@dataclass
class OperatorMarked(Message):
    """A worker found an operator's occurrences (a big capture) and prepared
    their marks; `serial` tells whether the screen marked something else since."""

    name: str
    what: str
    serial: int
    prepared: PreparedMarks | None
    """None: the worker failed (`error` says how)."""
    error: str = ""


class Marks:
    """The marked events of one main screen, the one selected, and the gap selected."""

    def __init__(
        self,
        host: Screen[Any],
        trace: Trace,
        analysis: Analysis,
        timeline: Timeline,
        say: Callable[[Text | StatusLine], None],
    ) -> None:
        """`host`: the screen whose workers search and whose keys follow the
        marks; `say`: puts words on its status line."""
        self.host = host
        self.trace = trace
        self.analysis = analysis
        self.timeline = timeline
        self.say = say
        self.events: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.index = -1
        self.label = ""
        self.gap_index: int | None = None
        self.gap_threshold_ns = DEFAULT_GAP_THRESHOLD_NS
        """g and G skip gaps shorter than this (J walks the thresholds)."""
        self._group_ids: dict[str, list[int]] | None = None
        self._serial = 0
        """Counts markings: a search answered after a newer marking is dropped."""
        self._pending: int | None = None
        """The serial of an operator's marking a worker is making (None: none)."""
        self._visit_on_arrival = 0
        """n / N / Enter pressed while it was made: visited once it comes."""

    def set(
        self,
        events: npt.NDArray[np.int64],
        label: str,
        prepared: PreparedMarks | None = None,
    ) -> None:
        """Mark these events on the timeline, in time order (`prepared`: already
        in time order, with the rows' marks a worker made)."""
        self._serial += 1
        self._pending = None
        had_marks = bool(self.events.size)
        if prepared is None:
            self.events = in_time_order(self.trace, events)
            self.timeline.mark_events(self.events)
        else:
            self.events = prepared.events
            self.timeline.mark_prepared(prepared)
        self.index = -1
        self.label = label
        if had_marks != bool(self.events.size):
            self.host.refresh_bindings()  # n / N are offered or not

    def step(self, delta: int) -> None:
        """Select the next or previous marked event and say which (once they
        are marked, when a worker is marking them: never an older marking's)."""
        if self._pending == self._serial:
            self._visit_on_arrival = delta
            return
        if not self.events.size:
            return
        self.index = (self.index + delta) % int(self.events.size)
        event = int(self.events[self.index])
        self.timeline.select_event(event)
        self.say(
            status.mark_info(
                self.analysis,
                self.label,
                self.index,
                int(self.events.size),
                event,
                self._view_span(),
            )
        )

    def visit(
        self, events: npt.NDArray[np.int64], label: str, event: int | None
    ) -> bool:
        """Mark `events` and select `event` among them (else the first), saying
        which; False when there is none to mark."""
        self.set(events, label)
        if not self.events.size:
            return False
        found = np.flatnonzero(self.events == (-1 if event is None else event))
        self.index = (int(found[0]) if found.size else 0) - 1
        self.step(1)
        return True

    def follow_analysis(self, analysis: Analysis) -> None:
        """Another data zone: its gaps replace the old ones (none is selected)."""
        if self.gap_index is not None:
            self.timeline.selected_range = None  # an old zone's gap
        self.gap_index = None
        self.analysis = analysis

    def _view_span(self) -> int:
        """How long the timeline's view is (positions are written to its scale)."""
        return self.timeline.view_end_ns - self.timeline.view_start_ns

    def search(self, needle: str) -> None:
        """Mark every event whose name contains `needle` and visit the first; a
        big capture is searched in a worker (the status line says so meanwhile)."""
        trace = self.trace
        if trace.event_count < SEARCH_IN_WORKER_AT:
            # In event order: `set` puts them in time order, once.
            self.show_matches(needle, named_like(trace, needle))
            return
        serial = self._serial = self._serial + 1
        layout = self.timeline.rows_layout
        host = self.host
        self.say(Text(f"searching event names for {printable(needle)}…"))

        def find() -> None:
            events = name_matches(trace, needle)
            prepared = PreparedMarks.of(trace, events, layout)
            host.post_message(SearchMatched(needle, serial, prepared))

        host.run_worker(
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
            self.say(Text(f"no event name contains {printable(needle)}"))

    def operator(self, name: str, events: npt.NDArray[np.int64] | None = None) -> None:
        """Mark the occurrences of an operator (a table row's name), or the calls
        `events` of one row by input shape."""
        trace = self.trace
        what = "occurrences" if events is None else "calls with these input shapes"
        name_ids: list[int] = []
        if events is None:
            if self._group_ids is None:
                groups: dict[str, list[int]] = {}
                for name_id, event_name in enumerate(trace.names):
                    groups.setdefault(group_name(event_name), []).append(name_id)
                self._group_ids = groups
            name_ids = self._group_ids.get(name, [])
        if trace.event_count < SEARCH_IN_WORKER_AT:
            if events is None:
                events = events_named(trace, name_ids)
            self.set(events, f"{printable(name)}:")
            self._say_marked(name, what)
            return
        serial = self._serial = self._serial + 1
        self._pending = serial
        self._visit_on_arrival = 0
        layout = self.timeline.rows_layout
        host = self.host
        chosen = events

        def mark() -> None:
            try:
                found = events_named(trace, name_ids) if chosen is None else chosen
                ordered = in_time_order(trace, found)
                prepared = PreparedMarks.of(trace, ordered, layout)
            except Exception as error:  # told, and n / N work again
                host.post_message(OperatorMarked(name, what, serial, None, str(error)))
                return
            host.post_message(OperatorMarked(name, what, serial, prepared))

        host.run_worker(
            mark, thread=True, exclusive=True, exit_on_error=False, group="marks"
        )

    def operator_marked(self, message: OperatorMarked) -> None:
        """A worker marked an operator's occurrences: shown unless something was
        marked since; a visit asked for meanwhile is made now."""
        if message.serial != self._serial:
            return
        prepared = message.prepared
        if prepared is None:
            self._pending = None
            self.say(
                Text(
                    f"could not mark {printable(message.name)}: "
                    f"{printable(message.error)} (a steptrace bug: please report it)"
                )
            )
            return
        visit = self._visit_on_arrival
        self.set(prepared.events, f"{printable(message.name)}:", prepared)
        self._say_marked(message.name, message.what)
        if visit:
            self.step(visit)

    def _say_marked(self, name: str, what: str) -> None:
        text = Text()
        text.append(printable(name), style="bold")
        text.append(f"  {self.events.size:,} {what} marked; n/N or Enter to visit")
        self.say(text)

    def gap(self, delta: int) -> None:
        """Select the next or previous gap in the data zone at least the
        threshold long (J changes it)."""
        gaps = self.analysis.gaps
        durations = [gap.duration_ns for gap in gaps]
        threshold = self.gap_threshold_ns
        index = next_gap(durations, self.gap_index, delta, threshold)
        if index is None:
            self.say(
                Text(
                    f"No gap of at least {duration_text(threshold)} in the data"
                    f" zone ({len(gaps)} shorter): J lowers the threshold"
                )
            )
            return
        self.select_gap(index)

    def next_gap_threshold(self) -> None:
        """Walk the next threshold below which g and G skip gaps, and say it."""
        self.gap_threshold_ns = next_threshold(self.gap_threshold_ns)
        gaps = self.analysis.gaps
        kept = sum(1 for gap in gaps if gap.duration_ns >= self.gap_threshold_ns)
        self.say(
            Text(
                f"g and G: {threshold_words(self.gap_threshold_ns)}, {kept} of"
                f" {len(gaps)} gaps walked (J: the next threshold)"
            )
        )

    def biggest_gap(self) -> None:
        """Select the longest gap."""
        gaps = self.analysis.gaps
        self.select_gap(max(range(len(gaps)), key=lambda i: gaps[i].duration_ns))

    def select_gap(self, index: int) -> None:
        """Select a gap's range, fit its zone occurrence, and show its figures."""
        trace = self.trace
        gap = self.analysis.gaps[index]
        self.gap_index = index
        zone_start = int(trace.start_ns[gap.zone_event])
        zone_end = zone_start + int(trace.duration_ns[gap.zone_event])
        self.timeline.select_range(gap.start_ns, gap.end_ns)
        self.timeline.fit(*gap_view((gap.start_ns, gap.end_ns), (zone_start, zone_end)))
        self.say(status.gap_info(self.analysis, index, self._view_span()))
