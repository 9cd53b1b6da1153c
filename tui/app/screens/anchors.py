"""What a note on the main screen is anchored to, and how to show an anchor (a
note's or a finding's) again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from tui.app.dialogs.note_form import NoteDraft
from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.op_table import OperatorTable
from tui.core.base.textsafe import printable
from tui.core.figures.kernels import readable_kernel_name
from tui.core.findings.readings import (
    Finding,
    ShowEvents,
    ShowGap,
    ShowKernel,
    ShowOperator,
    ShowStep,
)
from tui.report.findings import words
from tui.report.fit import fit_middle
from tui.view.marking import events_named

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def current_anchor(screen: MainScreen) -> tuple[Any, str, NoteDraft]:
    """The anchor for a new note: the focused finding or operator, else the
    selected event or range, else the current step, else the view."""
    from tui.notes import Anchor
    from tui.notes.model import us_text

    focused = screen.focused
    empty = NoteDraft("", "", "", "open")
    if isinstance(focused, FindingsPanel) and focused.current is not None:
        finding = focused.current
        said = words(finding)
        draft = NoteDraft(
            printable(said.hypothesis),
            printable(said.observation),
            printable(said.next_check),
            "open",
        )
        return Anchor.on_finding(finding.id.value), f"finding {said.title}", draft
    if isinstance(focused, OperatorTable) and focused.current_name is not None:
        name = focused.current_name
        return Anchor.on_op(name), f"operator {name}", empty
    trace = screen.trace
    timeline = screen.timeline
    steps = screen.analysis.steps
    if timeline.selected_event is not None:
        event = timeline.selected_event
        name = trace.event_name(event)
        track = trace.tracks[int(trace.track[event])].name
        start_ns = int(trace.start_ns[event])
        anchor = Anchor.on_event(name, start_ns, track)
        return anchor, f"event {name} @ {us_text(start_ns)} µs", empty
    if timeline.selected_range is not None:
        start, end = timeline.selected_range
        if screen.current_step is not None:
            step = steps[screen.current_step]
            if (start, end) == (step.start_ns, step.end_ns):
                return Anchor.at_step(step.number), f"step {step.number}", empty
        anchor = Anchor.over_range(int(start), int(end))
        return anchor, f"range {us_text(int(start))}–{us_text(int(end))} µs", empty
    if screen.current_step is not None:
        step = steps[screen.current_step]
        return Anchor.at_step(step.number), f"step {step.number}", empty
    start, end = int(timeline.view_start_ns), int(timeline.view_end_ns)
    anchor = Anchor.over_range(start, end)
    return anchor, f"range {us_text(start)}–{us_text(end)} µs", empty


def jump_to(screen: MainScreen, anchor: Any) -> bool:
    """Show what a note's anchor points at; False when it is not in this capture."""
    trace = screen.trace
    timeline = screen.timeline
    if anchor.kind == "step":
        for index, step in enumerate(screen.analysis.steps):
            if step.number == anchor.step:
                screen.go_to_step(index)
                return True
    elif anchor.kind == "range":
        start, end = anchor.start_ns, anchor.end_ns
        timeline.select_range(start, end)
        timeline.fit(start, max(end, start + 1))
        return True
    elif anchor.kind == "op":
        screen.show_tab("tab-ops")
        screen.ops.select_name(anchor.name)
        return True
    elif anchor.kind == "event":
        ids = [i for i, name in enumerate(trace.names) if name == anchor.name]
        events = events_named(trace, ids)
        tracks = [i for i, t in enumerate(trace.tracks) if t.name == anchor.track]
        on_track = events[np.isin(trace.track[events], np.array(tracks or [-1]))]
        if on_track.size:
            events = on_track
        if events.size:
            # The exact nanosecond when it is there; the nearest otherwise.
            wanted = np.int64(min(max(anchor.start_ns, -(2**62)), 2**62))
            best = events[np.argmin(np.abs(trace.start_ns[events] - wanted))]
            timeline.select_event(int(best))
            timeline.focus()
            return True
    elif anchor.kind == "finding":
        panel = screen.show_tab("tab-findings")
        if screen.findings is None:
            screen.notify(
                "The findings are still being computed: the tab fills in soon."
            )
            return True
        for index, finding in enumerate(screen.findings):
            if finding.id.value == anchor.finding_id:
                if isinstance(panel, FindingsPanel):
                    panel.highlighted = index
                return True
    return False


def show_finding(screen: MainScreen, finding: Finding) -> None:
    """Show on the timeline (or in the table) what a finding rests on: the gap,
    the operator in the table, the copy or the kernel selected among its own
    kind marked (n/N visit them), the step."""
    anchor = finding.anchor
    if isinstance(anchor, ShowGap) and anchor.index < len(screen.analysis.gaps):
        screen.select_gap(anchor.index)
    elif isinstance(anchor, ShowOperator):
        screen.show_tab("tab-ops")
        screen.ops.select_name(anchor.name)
        screen.set_focus(screen.ops)
    elif isinstance(anchor, ShowEvents):
        events = _named(screen, anchor.name)
        _visit(screen, events, f"{printable(anchor.name)}:", anchor.select)
        if anchor.select is not None:
            copies = screen.show_tab("tab-copies")
            if isinstance(copies, CopiesView):
                copies.select_copy(anchor.select)
        screen.set_focus(screen.timeline)  # at once: a late highlight says nothing
    elif isinstance(anchor, ShowKernel):
        events = _named(screen, anchor.name)
        step = next((s for s in screen.analysis.steps if s.number == anchor.step), None)
        first = None
        if step is not None and events.size:  # its first occurrence from that step on
            starts = screen.trace.start_ns[events]
            at = min(int(np.searchsorted(starts, step.start_ns)), events.size - 1)
            first = int(events[at])
        label = (
            f"kernel {fit_middle(printable(readable_kernel_name(anchor.name)), 24)}:"
        )
        _visit(screen, events, label, first)
        kernels = screen.show_tab("tab-kernels")
        if isinstance(kernels, KernelTable):
            kernels.select_name(anchor.name)
        screen.set_focus(screen.timeline)  # at once: a late highlight says nothing
    elif isinstance(anchor, ShowStep):
        for index, step in enumerate(screen.analysis.steps):
            if step.number == anchor.number:
                screen.go_to_step(index)
                return
    elif screen.analysis.steps:
        screen.go_to_step(0)


def _named(screen: MainScreen, name: str) -> npt.NDArray[np.int64]:
    """The events with exactly this name, in time order."""
    trace = screen.trace
    events = events_named(
        trace, [i for i, item in enumerate(trace.names) if item == name]
    )
    return events[np.argsort(trace.start_ns[events], kind="stable")]


def _visit(
    screen: MainScreen,
    events: npt.NDArray[np.int64],
    label: str,
    event: int | None,
) -> None:
    """Mark `events` and select `event` among them (else the first), saying which."""
    marked = screen.marked
    marked.set(events, label)
    if not marked.events.size:
        screen.notify("What this finding points at is not in this capture.")
        return
    found = np.flatnonzero(marked.events == (-1 if event is None else event))
    marked.index = (int(found[0]) if found.size else 0) - 1
    marked.step(1)
