"""What a note on the main screen is anchored to, and where an anchor (a note's
or a finding's) points: a `Target` the screen shows.

A finding's anchor kinds are the core's (`Show*`, `core/findings/finding.py`):
a step, a gap or an operator is shown as it is, and a kind that marks events
becomes a `Visit`. The types here are what only the app has: a range, one
event, a note's finding, a visit. Reading an anchor needs only the capture
and what is selected; showing the target is the screen's (it owns the
timeline, the tabs and the marks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from textual.widget import Widget

from tui.app.dialogs.note_form import NoteDraft
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.analysis import Analysis, Step
from tui.core.figures.syncs import SyncColumns
from tui.core.findings.finding import (
    Finding,
    ShowEvents,
    ShowGap,
    ShowKernel,
    ShowOperator,
    ShowStep,
    ShowSyncs,
)
from tui.core.model.trace import Trace
from tui.report.findings import words
from tui.report.kernel_names import kernel_label
from tui.view.marking import events_named
from tui.view.navigation import Picked

if TYPE_CHECKING:
    from tui.notes import Anchor


@dataclass(frozen=True)
class AtRange:
    """Select and fit a time range."""

    start_ns: int
    end_ns: int


@dataclass(frozen=True)
class AtEvent:
    """Select one event on the timeline."""

    event: int


@dataclass(frozen=True)
class AtFinding:
    """Highlight a finding in its tab (`index` None: not among them; `pending`:
    the findings are still being computed)."""

    index: int | None
    pending: bool = False


@dataclass(frozen=True)
class Visit:
    """Mark `events` and select `event` among them (else the first); then select
    the copy `copy` or the kernel `kernel` in its tab, and focus the timeline."""

    events: npt.NDArray[np.int64]
    label: str
    event: int | None
    copy: int | None = None
    kernel: str | None = None


Target = ShowStep | ShowGap | ShowOperator | AtRange | AtEvent | AtFinding | Visit


def current_anchor(
    focused: Widget | None,
    trace: Trace,
    timeline: Timeline,
    steps: list[Step],
    current_step: int | None,
) -> tuple[Anchor, str, NoteDraft]:
    """The anchor for a new note: the focused finding or operator, else the
    event or range selected last, else the current step, else the view."""
    from tui.notes import Anchor
    from tui.notes.model import Status, us_text

    empty = NoteDraft("", "", "", Status.OPEN)
    if isinstance(focused, FindingsPanel) and focused.current is not None:
        finding = focused.current
        said = words(finding)
        draft = NoteDraft(
            printable(said.hypothesis),
            printable(said.observation),
            printable(said.next_check),
            Status.OPEN,
        )
        return Anchor.on_finding(finding.id.value), f"finding {said.title}", draft
    if isinstance(focused, OperatorTable) and focused.current_name is not None:
        name = focused.current_name
        return Anchor.on_op(name), f"operator {name}", empty
    # The selection made last is the one the screen shows as current (a step
    # moved to after a search's event is the note's anchor, not that event).
    range_last = (
        timeline.selected_range is not None
        and timeline.selection.latest is Picked.RANGE
    )
    if timeline.selected_event is not None and not range_last:
        event = timeline.selected_event
        name = trace.event_name(event)
        track = trace.tracks[int(trace.track[event])].name
        start_ns = int(trace.start_ns[event])
        anchor = Anchor.on_event(name, start_ns, track)
        return anchor, f"event {name} @ {duration_text(start_ns)}", empty
    if timeline.selected_range is not None:
        start, end = timeline.selected_range
        if current_step is not None:
            step = steps[current_step]
            if (start, end) == (step.start_ns, step.end_ns):
                return Anchor.at_step(step.number), f"step {step.number}", empty
        anchor = Anchor.over_range(int(start), int(end))
        return anchor, f"range {us_text(int(start))}–{us_text(int(end))} µs", empty
    if current_step is not None:
        step = steps[current_step]
        return Anchor.at_step(step.number), f"step {step.number}", empty
    start, end = int(timeline.view_start_ns), int(timeline.view_end_ns)
    anchor = Anchor.over_range(start, end)
    return anchor, f"range {us_text(start)}–{us_text(end)} µs", empty


def note_target(
    anchor: Anchor, trace: Trace, analysis: Analysis, findings: list[Finding] | None
) -> Target | None:
    """Where a note's anchor points; None when it is not in this capture.
    (A note's anchor holds the fields of its kind: the notes check it.)"""
    from tui.notes.model import AnchorKind

    start_ns = anchor.start_ns or 0
    if anchor.kind is AnchorKind.STEP:
        number = anchor.step
        if number is not None and step_index(analysis, number) is not None:
            return ShowStep(number)
    elif anchor.kind is AnchorKind.RANGE:
        return AtRange(start_ns, anchor.end_ns or 0)
    elif anchor.kind is AnchorKind.OP:
        return ShowOperator(anchor.name or "")
    elif anchor.kind is AnchorKind.EVENT:
        ids = [i for i, name in enumerate(trace.names) if name == anchor.name]
        events = events_named(trace, ids)
        tracks = [i for i, t in enumerate(trace.tracks) if t.name == anchor.track]
        on_track = events[np.isin(trace.track[events], np.array(tracks or [-1]))]
        if on_track.size:
            events = on_track
        if events.size:
            # The exact nanosecond when it is there; the nearest otherwise.
            wanted = np.int64(min(max(start_ns, -(2**62)), 2**62))
            best = events[np.argmin(np.abs(trace.start_ns[events] - wanted))]
            return AtEvent(int(best))
    elif anchor.kind is AnchorKind.FINDING:
        if findings is None:
            return AtFinding(None, pending=True)
        found = (i for i, f in enumerate(findings) if f.id.value == anchor.finding_id)
        return AtFinding(next(found, None))
    return None


def finding_target(finding: Finding, trace: Trace, analysis: Analysis) -> Target | None:
    """Where a finding rests: the gap, the operator in the table, the copy or
    the kernel selected among its own kind marked (n/N visit them), the step
    (the first one when it points at nothing here)."""
    anchor = finding.anchor
    if isinstance(anchor, ShowGap) and anchor.index < len(analysis.gaps):
        return anchor
    if isinstance(anchor, ShowOperator):
        return anchor
    if isinstance(anchor, ShowEvents):
        events = _named(trace, anchor.name)
        return Visit(events, f"{printable(anchor.name)}:", anchor.select, anchor.select)
    if isinstance(anchor, ShowSyncs):
        syncs = SyncColumns.of(analysis).events  # in time order
        return Visit(syncs, "sync:", anchor.select)
    if isinstance(anchor, ShowKernel):
        events = _named(trace, anchor.name)
        step = next((s for s in analysis.steps if s.number == anchor.step), None)
        first = None
        if step is not None and events.size:  # its first occurrence from that step on
            starts = trace.start_ns[events]
            at = min(int(np.searchsorted(starts, step.start_ns)), events.size - 1)
            first = int(events[at])
        label = f"kernel {kernel_label(anchor.name, 24)}:"
        return Visit(events, label, first, kernel=anchor.name)
    if isinstance(anchor, ShowStep):
        return anchor if step_index(analysis, anchor.number) is not None else None
    return ShowStep(analysis.steps[0].number) if analysis.steps else None


def step_index(analysis: Analysis, number: int) -> int | None:
    """The index in the analysis's steps of the step with this number (None: none)."""
    found = (i for i, step in enumerate(analysis.steps) if step.number == number)
    return next(found, None)


def _named(trace: Trace, name: str) -> npt.NDArray[np.int64]:
    """The events with exactly this name, in time order."""
    events = events_named(
        trace, [i for i, item in enumerate(trace.names) if item == name]
    )
    return events[np.argsort(trace.start_ns[events], kind="stable")]
