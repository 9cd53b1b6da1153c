"""The main screen: header, steps strip, timeline, and operators/findings/notes.

The screen owns the explorer's state (current step, marks, gap, notes) and
turns the widgets' messages into updates of the other widgets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane

from tui.app.dialogs.capture import CaptureDialog
from tui.app.dialogs.note_form import NoteDraft, NoteForm
from tui.app.dialogs.scrub import ScrubDialog
from tui.app.messages import (
    EventActivated,
    EventSelected,
    FindingChosen,
    NoteAction,
    OperatorActivated,
    OperatorSelected,
    StepChosen,
    TraceHashed,
    ViewChanged,
)
from tui.app.screens.details import DetailsScreen
from tui.app.screens.help import HelpScreen, KeySection
from tui.app.screens.loading import LoadingScreen
from tui.app.screens.notes_keeper import NotesKeeper
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.header_line import HeaderLine
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.steps_strip import StepsStrip
from tui.app.widgets.timeline import Timeline
from tui.core.analysis import Analysis, Gap, OpTable, Step, group_name
from tui.core.findings import (
    Finding,
    ShowEvents,
    ShowGap,
    ShowKernel,
    ShowOperator,
    ShowStep,
)
from tui.core.findings_text import words
from tui.core.model import Trace
from tui.core.textsafe import printable
from tui.core.units import duration_text
from tui.core.vocab import GapKind

TABS = ("tab-ops", "tab-findings", "tab-notes")


class MainScreen(Screen[None]):
    """Everything about one capture, reachable from the keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
        # Steps win over the timeline's own [ ] (previous/next event on a track).
        Binding("left_square_bracket", "step(-1)", "Previous step", priority=True),
        Binding("right_square_bracket", "step(1)", "Next step", priority=True),
        Binding("f", "fit", "Fit selection (or window)"),
        Binding("enter", "details", "Details of the selected event", show=False),
        Binding("slash", "search", "Search event names"),
        Binding("n", "mark(1)", "Next match / occurrence", show=False),
        Binding("N", "mark(-1)", "Previous match / occurrence", show=False),
        Binding("g", "gap(1)", "Next gap"),
        Binding("G", "gap(-1)", "Previous gap", show=False),
        Binding("b", "biggest_gap", "Biggest gap", show=False),
        Binding("t", "toggle_total", "Self/total"),
        Binding("F", "filter_ops", "Filter operators", show=False),
        Binding("S", "scope", "Scope: window/step", show=False),
        Binding("1", "tab(0)", "Operators", show=False),
        Binding("2", "tab(1)", "Findings", show=False),
        Binding("3", "tab(2)", "Notes", show=False),
        Binding("m", "note", "Note"),
        Binding("c", "capture", "New capture", show=False),
        Binding("E", "share", "Share: scrub a copy", show=False),
        Binding(
            "escape", "clear", "Clear marks and selection / close search", show=False
        ),
    ]

    def __init__(
        self,
        path: Path,
        trace: Trace,
        analysis: Analysis,
        findings: list[Finding],
        op_table: OpTable,
    ) -> None:
        super().__init__()
        self.path = path
        self.trace = trace
        self.analysis = analysis
        self.findings = findings
        self.window_table = op_table
        self.mode = "self"
        self.scope = "window"
        self.current_step: int | None = None
        self.gap_index: int | None = None
        self.marks: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.mark_index = -1
        self.mark_label = ""
        self.input_purpose = ""
        self._group_ids: dict[str, list[int]] | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Let a text field keep the keys typed into it, even the priority ones."""
        return not (action == "step" and isinstance(self.focused, Input))

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield HeaderLine(self.analysis, id="header-line")
        yield StepsStrip(self.analysis, id="steps")
        yield Timeline(self.trace, self.analysis, id="timeline")
        yield Static("", id="info-line", markup=False)
        with TabbedContent(id="bottom"):
            with TabPane("Operators [1]", id="tab-ops"):
                yield OperatorTable(self.window_table, mode=self.mode, id="ops")
            with TabPane("Findings [2]", id="tab-findings"):
                yield FindingsPanel(self.findings, id="findings")
            with TabPane("Notes [3]", id="tab-notes"):
                yield NotesPane(id="notes")
        yield Input(id="prompt", classes="hidden")
        yield Footer()

    def on_mount(self) -> None:
        self.notes = NotesKeeper(self, self.query_one(NotesPane), self.path)
        self.query_one(Timeline).focus()
        self._open_notes()
        self._show_info(self._window_info())

    @property
    def timeline(self) -> Timeline:
        """The timeline widget."""
        return self.query_one(Timeline)

    @property
    def ops(self) -> OperatorTable:
        """The operator table."""
        return self.query_one(OperatorTable)

    def key_sections(self) -> list[KeySection]:
        """Every key of the explorer, by where it works."""
        shadowed = {
            key
            for binding in self.BINDINGS
            if isinstance(binding, Binding) and binding.priority
            for key in binding.key.split(",")
        }
        timeline_keys: list[BindingType] = []
        for binding in Timeline.BINDINGS:
            if not isinstance(binding, Binding):
                timeline_keys.append(binding)
                continue
            keys = [key for key in binding.key.split(",") if key not in shadowed]
            if keys:
                timeline_keys.append(
                    Binding(",".join(keys), binding.action, binding.description)
                )
        return [
            ("Main screen", self.BINDINGS),
            ("Timeline", timeline_keys),
            ("Operator table", OperatorTable.BINDINGS),
            ("Findings", FindingsPanel.BINDINGS),
            ("Notes", NotesPane.BINDINGS),
            ("Note form", NoteForm.BINDINGS),
            ("Details", DetailsScreen.BINDINGS),
            ("Loading", LoadingScreen.BINDINGS),
            ("New capture", CaptureDialog.BINDINGS),
            ("Share (scrub a copy)", ScrubDialog.BINDINGS),
            ("Everywhere", [Binding("ctrl+p", "", "Command palette")]),
        ]

    # -- the info line -------------------------------------------------------

    def _show_info(self, text: Text) -> None:
        self.query_one("#info-line", Static).update(text)

    def _window_info(self) -> Text:
        text = Text()
        text.append(f"{self.trace.event_count} events", style="bold")
        text.append(f" over {duration_text(self.trace.span_ns)}")
        gaps = self.analysis.gaps
        if gaps:
            kind = gaps[0].kind.label
            text.append(f"  {len(gaps)} gaps ({kind}) in data zones: g / G / b")
        text.append("  ? help", style="italic")
        return text

    # -- steps ---------------------------------------------------------------

    def _steps(self) -> list[Step]:
        return self.analysis.steps

    def action_step(self, delta: int) -> None:
        """Fit the previous or next step."""
        steps = self._steps()
        if not steps:
            self.notify("This capture has no steps (no ProfilerStep#N).")
            return
        if self.current_step is None:
            index = 0 if delta > 0 else len(steps) - 1
        else:
            index = max(0, min(len(steps) - 1, self.current_step + delta))
        self._go_to_step(index)

    def _go_to_step(self, index: int) -> None:
        step = self._steps()[index]
        self.current_step = index
        self.query_one(StepsStrip).current = index
        self.timeline.select_range(step.start_ns, step.end_ns)
        self.timeline.fit(step.start_ns, step.end_ns)
        text = Text()
        text.append(f"step {step.number}", style="bold")
        text.append(f" ({step.phase})  {duration_text(step.duration_ns)}")
        busy = self.analysis.device_busy_ns(step.start_ns, step.end_ns)
        text.append(
            "  GPU busy "
            + (duration_text(busy) if busy is not None else "not observed")
        )
        for zone in self.analysis.zones_in(step.start_ns, step.end_ns)[:4]:
            text.append(f"  {printable(zone.name)} ")
            text.append(duration_text(zone.duration_ns), style="bold")
        self._show_info(text)
        if self.scope == "step":
            self._apply_scope()

    def on_step_chosen(self, message: StepChosen) -> None:
        self._go_to_step(message.index)

    def on_view_changed(self, message: ViewChanged) -> None:
        """The strip follows the step under the middle of the view."""
        middle = (message.start_ns + message.end_ns) // 2
        for index, step in enumerate(self._steps()):
            if step.start_ns <= middle < step.end_ns:
                if index != self.current_step:
                    self.current_step = index
                    self.query_one(StepsStrip).current = index
                break

    def action_fit(self) -> None:
        """Fit the selected range or event; again (or with nothing selected): the window."""
        timeline = self.timeline
        before = (timeline.view_start_ns, timeline.view_end_ns)
        if timeline.selected_range is not None:
            timeline.fit(*timeline.selected_range)
        elif timeline.selected_event is not None:
            event = timeline.selected_event
            start = int(self.trace.start_ns[event])
            timeline.fit(start, start + max(int(self.trace.duration_ns[event]), 1))
        if (timeline.view_start_ns, timeline.view_end_ns) == before:
            timeline.fit(0, max(self.trace.span_ns, 1))

    # -- events and details --------------------------------------------------

    def on_event_selected(self, message: EventSelected) -> None:
        if message.event is None:
            return
        event = message.event
        trace = self.trace
        text = Text()
        text.append(printable(trace.event_name(event)), style="bold")
        text.append(f"  {duration_text(int(trace.duration_ns[event]))}")
        text.append(f"  at {int(trace.start_ns[event]) / 1e3:.3f} µs")
        text.append("  Enter: details", style="italic")
        self._show_info(text)

    def on_event_activated(self, message: EventActivated) -> None:
        self.app.push_screen(DetailsScreen(self.analysis, message.event))

    def action_details(self) -> None:
        """Open the details of the selected event."""
        event = self.timeline.selected_event
        if event is None:
            self.notify("Select an event on the timeline first (arrows, a/d).")
            return
        self.app.push_screen(DetailsScreen(self.analysis, event))

    # -- marks: search matches and operator occurrences -----------------------

    def _set_marks(self, events: npt.NDArray[np.int64], label: str) -> None:
        order = np.argsort(self.trace.start_ns[events], kind="stable")
        self.marks = events[order].astype(np.int64)
        self.mark_index = -1
        self.mark_label = label
        self.timeline.mark_events(self.marks)

    def action_mark(self, delta: int) -> None:
        """Select the next or previous match / operator occurrence."""
        if self.marks.size == 0:
            self.notify("Nothing marked: search with / or pick an operator.")
            return
        self.mark_index = (self.mark_index + delta) % int(self.marks.size)
        event = int(self.marks[self.mark_index])
        self.timeline.select_event(event)
        text = Text()
        text.append(f"{self.mark_label} ", style="bold")
        text.append(f"{self.mark_index + 1}/{self.marks.size}  ")
        text.append(printable(self.trace.event_name(event)))
        text.append(f"  {duration_text(int(self.trace.duration_ns[event]))}")
        self._show_info(text)

    def search(self, needle: str) -> int:
        """Mark every event whose name contains `needle`; returns the count."""
        lowered = needle.lower()
        ids = [i for i, name in enumerate(self.trace.names) if lowered in name.lower()]
        events = np.flatnonzero(
            np.isin(self.trace.name_id, np.array(ids or [-1], dtype=np.int32))
        )
        self._set_marks(events, f"search {printable(needle)!s}:")
        if events.size:
            self.action_mark(1)
        else:
            text = Text()
            text.append(f"no event name contains {printable(needle)}")
            self._show_info(text)
        return int(events.size)

    def action_search(self) -> None:
        """Ask for a name to search (n / N move between matches)."""
        self._prompt("search", "search event names (Enter; n/N next/previous)")

    def action_filter_ops(self) -> None:
        """Ask for a filter on operator names."""
        self.query_one(TabbedContent).active = "tab-ops"
        self._prompt("filter", "filter operators by name (empty: all)")

    def _prompt(self, purpose: str, placeholder: str) -> None:
        prompt = self.query_one("#prompt", Input)
        self.input_purpose = purpose
        prompt.placeholder = placeholder
        prompt.value = self.ops.filter_text if purpose == "filter" else ""
        prompt.remove_class("hidden")
        prompt.focus()

    @on(Input.Submitted, "#prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        prompt = self.query_one("#prompt", Input)
        prompt.add_class("hidden")
        if self.input_purpose == "search" and event.value:
            self.search(event.value)
            self.timeline.focus()
        elif self.input_purpose == "filter":
            self.ops.set_filter(event.value)
            self.ops.focus()

    def action_clear(self) -> None:
        """Close the prompt, or clear the marks."""
        prompt = self.query_one("#prompt", Input)
        if not prompt.has_class("hidden"):
            prompt.add_class("hidden")
            self.timeline.focus()
            return
        self._set_marks(np.zeros(0, dtype=np.int64), "")
        self.timeline.select_event(None)
        self.timeline.selected_range = None
        self.gap_index = None
        self._show_info(self._window_info())

    # -- gaps ----------------------------------------------------------------

    def action_gap(self, delta: int) -> None:
        """Select the next or previous gap in a data zone."""
        gaps = self.analysis.gaps
        if not gaps:
            self.notify(
                "No gaps: no data zone (lecture_batch_cpu, DataLoader) in this capture."
            )
            return
        if self.gap_index is None:
            index = 0 if delta > 0 else len(gaps) - 1
        else:
            index = (self.gap_index + delta) % len(gaps)
        self.select_gap(index)

    def action_biggest_gap(self) -> None:
        """Select the longest gap."""
        gaps = self.analysis.gaps
        if not gaps:
            self.action_gap(1)
            return
        self.select_gap(max(range(len(gaps)), key=lambda i: gaps[i].duration_ns))

    def gap_range(self, gap: Gap) -> tuple[int, int]:
        """The time range a gap covers."""
        return gap.start_ns, gap.end_ns

    def select_gap(self, index: int) -> None:
        """Select a gap's range, fit its zone, and show its figures."""
        gaps = self.analysis.gaps
        gap = gaps[index]
        self.gap_index = index
        start, end = self.gap_range(gap)
        zone = gap.zone_event
        zone_start = int(self.trace.start_ns[zone])
        zone_end = zone_start + int(self.trace.duration_ns[zone])
        self.timeline.select_range(start, end)
        margin = max((zone_end - zone_start) // 10, 1)
        self.timeline.fit(max(zone_start - margin, 0), zone_end + margin)
        self._show_info(self.gap_text(index))

    def gap_text(self, index: int) -> Text:
        """The figures of one gap, named GPU idle or CPU wait as it is."""
        gap = self.analysis.gaps[index]
        text = Text()
        text.append(f"gap {index + 1}/{len(self.analysis.gaps)} ", style="bold")
        if gap.kind is GapKind.GPU_IDLE:
            device = "" if gap.device is None else f" (device {gap.device})"
            text.append(" GPU idle" + device + " ", style="bold reverse")
        else:
            text.append(" CPU wait (no GPU events) ", style="bold reverse")
        text.append(" ")
        text.append(duration_text(gap.duration_ns), style="bold")
        text.append("  zone ")
        text.append(printable(gap.zone), style="bold")
        text.append("  step " + ("—" if gap.step is None else str(gap.step)))
        text.append(f"  at {gap.start_ns / 1e3:.3f} µs")
        return text

    # -- operators -----------------------------------------------------------

    def action_toggle_total(self) -> None:
        """Switch the operator table between self and total time."""
        self.mode = "total" if self.mode == "self" else "self"
        self.ops.set_mode(self.mode)

    def action_scope(self) -> None:
        """Switch the operator table between the whole window and the current step."""
        if self.scope == "window" and not self._steps():
            self.notify("This capture has no steps: the table covers the window.")
            return
        self.scope = "step" if self.scope == "window" else "window"
        self._apply_scope()

    def _apply_scope(self) -> None:
        if self.scope == "window":
            self.ops.set_table(self.window_table, "whole window")
            return
        index = self.current_step if self.current_step is not None else 0
        step = self._steps()[index]
        table = self.analysis.op_table(step.start_ns, step.end_ns)
        self.ops.set_table(table, f"step {step.number}")

    def _occurrences(self, name: str) -> npt.NDArray[np.int64]:
        if self._group_ids is None:
            groups: dict[str, list[int]] = {}
            for name_id, event_name in enumerate(self.trace.names):
                groups.setdefault(group_name(event_name), []).append(name_id)
            self._group_ids = groups
        ids = np.array(self._group_ids.get(name, [-1]), dtype=np.int32)
        return np.flatnonzero(np.isin(self.trace.name_id, ids)).astype(np.int64)

    def on_operator_selected(self, message: OperatorSelected) -> None:
        events = self._occurrences(message.name)
        self._set_marks(events, f"{printable(message.name)}:")
        text = Text()
        text.append(printable(message.name), style="bold")
        text.append(f"  {events.size} occurrences marked; n/N or Enter to visit")
        self._show_info(text)

    def on_operator_activated(self, message: OperatorActivated) -> None:
        if self.marks.size:
            self.action_mark(1)

    # -- findings ------------------------------------------------------------

    def on_finding_chosen(self, message: FindingChosen) -> None:
        if not isinstance(self.focused, FindingsPanel):
            return
        finding = self._finding(message.finding_id)
        if finding is None:
            return
        said = words(finding)
        text = Text()
        text.append(said.title, style="bold")
        text.append("  " + said.status_label)
        text.append("  m: note from this finding", style="italic")
        if finding.anchor is not None:
            text.append("  Enter: show it", style="italic")
        self._show_info(text)

    def _finding(self, finding_id: str | None) -> Finding | None:
        return next((f for f in self.findings if f.id.value == finding_id), None)

    @on(FindingsPanel.OptionSelected, "#findings")
    def _show_finding(self, event: FindingsPanel.OptionSelected) -> None:
        """Show on the timeline (or in the table) what a finding rests on."""
        finding = self._finding(event.option_id)
        if finding is None:
            return
        anchor = finding.anchor
        if isinstance(anchor, ShowGap) and anchor.index < len(self.analysis.gaps):
            self.select_gap(anchor.index)
        elif isinstance(anchor, ShowOperator):
            self.query_one(TabbedContent).active = "tab-ops"
            self.ops.select_name(anchor.name)
        elif isinstance(anchor, ShowEvents):
            self.search(anchor.name)
            if anchor.select is not None and anchor.select < self.trace.event_count:
                self.timeline.select_event(anchor.select)
        elif isinstance(anchor, ShowKernel):
            ids = self.trace.name_ids_matching({anchor.name})
            self._set_marks(
                np.flatnonzero(np.isin(self.trace.name_id, ids)).astype(np.int64),
                f"{printable(anchor.name)}:",
            )
            step = next((s for s in self._steps() if s.number == anchor.step), None)
            if step is not None:  # the first occurrence from that step on
                starts = self.trace.start_ns[self.marks]
                self.mark_index = int(np.searchsorted(starts, step.start_ns)) - 1
            if self.marks.size:
                self.action_mark(1)
        elif isinstance(anchor, ShowStep):
            for index, step in enumerate(self._steps()):
                if step.number == anchor.number:
                    self._go_to_step(index)
                    return
        elif self._steps():
            self._go_to_step(0)

    # -- tabs, help, capture, share ------------------------------------------

    def action_tab(self, index: int) -> None:
        """Show operators, findings or notes, and focus it."""
        self.query_one(TabbedContent).active = TABS[index]
        widget = (self.ops, self.query_one(FindingsPanel), self.query_one(NotesPane))
        widget[index].focus()

    def action_help(self) -> None:
        """List every key."""
        self.app.push_screen(HelpScreen(self.key_sections()))

    def action_capture(self) -> None:
        """Open the new-capture dialog; the result opens when it ends.
        A served app (a browser's) launches nothing unless allowed to."""
        if not getattr(self.app, "capture_allowed", True):
            self.notify(
                "Captures are off in a served app: they run commands and write "
                "files on the server (steptrace serve --allow-capture turns them on).",
                severity="warning",
            )
            return

        def opened(path: Path | None) -> None:
            if path is not None:
                self.app.call_later(self.app.open_trace, path)  # type: ignore[attr-defined]

        self.app.push_screen(CaptureDialog(), opened)

    def action_share(self) -> None:
        """List what identifies people or places, and write a scrubbed copy.
        Allowed in a served app: the copy is an export of this trace, written
        next to it under a fresh derived name, never over a file."""
        self.app.push_screen(ScrubDialog(self.path))

    # -- notes ---------------------------------------------------------------

    def _open_notes(self) -> None:
        if self.notes.open():
            self.hash_trace()

    @work(thread=True, exclusive=True, exit_on_error=False, group="hash")
    def hash_trace(self) -> None:
        """Hash the trace file off the UI so notes can tell if it changed."""
        import hashlib

        digest = hashlib.sha256()
        try:
            with open(self.path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            return
        self.post_message(TraceHashed(digest.hexdigest()))

    def on_trace_hashed(self, message: TraceHashed) -> None:
        self.notes.trace_hashed(message.sha256)

    @property
    def notes_store(self) -> Any:
        """The capture's NotesStore (None when notes cannot be read)."""
        return self.notes.store

    def current_anchor(self) -> tuple[Any, str, NoteDraft]:
        """The anchor for a new note: the focused finding or operator, else the
        selected event or range, else the current step, else the view."""
        from tui.notes import Anchor
        from tui.notes.model import us_text

        focused = self.focused
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
        timeline = self.timeline
        if timeline.selected_event is not None:
            event = timeline.selected_event
            name = self.trace.event_name(event)
            track = self.trace.tracks[int(self.trace.track[event])].name
            start_ns = int(self.trace.start_ns[event])
            anchor = Anchor.on_event(name, start_ns, track)
            return anchor, f"event {name} @ {us_text(start_ns)} µs", empty
        if timeline.selected_range is not None:
            start, end = timeline.selected_range
            if self.current_step is not None:
                step = self._steps()[self.current_step]
                if (start, end) == (step.start_ns, step.end_ns):
                    return Anchor.at_step(step.number), f"step {step.number}", empty
            anchor = Anchor.over_range(int(start), int(end))
            return anchor, f"range {us_text(int(start))}–{us_text(int(end))} µs", empty
        if self.current_step is not None:
            step = self._steps()[self.current_step]
            return Anchor.at_step(step.number), f"step {step.number}", empty
        start, end = int(timeline.view_start_ns), int(timeline.view_end_ns)
        anchor = Anchor.over_range(start, end)
        return anchor, f"range {us_text(start)}–{us_text(end)} µs", empty

    def action_note(self) -> None:
        """Write a note on the current selection."""
        if self.notes.store is None:
            self.notify("Notes are unavailable for this capture.", severity="warning")
            return
        self.notes.write(*self.current_anchor())

    def on_note_action(self, message: NoteAction) -> None:
        if message.action == "add":
            self.action_note()
        else:
            self.notes.act(message.action, message.note_id, self.jump_to)

    def jump_to(self, anchor: Any) -> None:
        """Show what a note's anchor points at."""
        trace = self.trace
        if anchor.kind == "step":
            for index, step in enumerate(self._steps()):
                if step.number == anchor.step:
                    self._go_to_step(index)
                    return
        elif anchor.kind == "range":
            start, end = anchor.start_ns, anchor.end_ns
            self.timeline.select_range(start, end)
            self.timeline.fit(start, max(end, start + 1))
            return
        elif anchor.kind == "op":
            self.query_one(TabbedContent).active = "tab-ops"
            self.ops.select_name(anchor.name)
            return
        elif anchor.kind == "event":
            ids = [i for i, name in enumerate(trace.names) if name == anchor.name]
            events = np.flatnonzero(np.isin(trace.name_id, np.array(ids or [-1])))
            tracks = [i for i, t in enumerate(trace.tracks) if t.name == anchor.track]
            on_track = events[np.isin(trace.track[events], np.array(tracks or [-1]))]
            if on_track.size:
                events = on_track
            if events.size:
                # The exact nanosecond when it is there; the nearest otherwise.
                wanted = np.int64(min(max(anchor.start_ns, -(2**62)), 2**62))
                best = events[np.argmin(np.abs(trace.start_ns[events] - wanted))]
                self.timeline.select_event(int(best))
                self.timeline.focus()
                return
        elif anchor.kind == "finding":
            self.action_tab(1)
            panel = self.query_one(FindingsPanel)
            for index, finding in enumerate(self.findings):
                if finding.id.value == anchor.finding_id:
                    panel.highlighted = index
                    return
        self.notify("The note's anchor is not in this capture.", severity="warning")
