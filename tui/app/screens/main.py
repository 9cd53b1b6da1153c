"""The main screen: header, steps strip, timeline, and the bottom tabs.

The screen owns the explorer's state (analysis and data zone, current step,
marks, gap) and turns the widgets' messages into updates of the others. The
words of the status line come from `tui.view.status`; the bottom tabs from
`bottom_tabs` (`BottomTabs`); where anchors point from `anchors`; the keys,
and when each is offered, from `main_keys`; what opens over the screen (help,
capture, comparison) from `main_dialogs`; the views built from the analysis
(step split, modules, compiled regions, critical path) from `main_views`.
Its parts own their state and workers and answer through messages the screen
hands back: the marks (`Marks`), the data zone (`ZoneSwitch`), the notes
(`NotesKeeper`), the findings computed later (`findings_later`), the report
export and the walk between a run's ranks.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from tui.app import heap
from tui.app.dialogs.note_form import NoteDraft
from tui.app.dialogs.scrub import ScrubDialog
from tui.app.messages import (
    EventActivated,
    EventSelected,
    MarkEvents,
    OperatorActivated,
    OperatorSelected,
    StatusText,
    TraceLoaded,
    ViewChanged,
)
from tui.app.screens import (
    anchors,
    findings_later,
    main_dialogs,
    main_views,
    rank_switch,
    report_export,
)
from tui.app.screens.bottom_tabs import TABS, BottomTabs, TabInputs
from tui.app.screens.comparison import Before
from tui.app.screens.details import DetailsScreen
from tui.app.screens.figures import FiguresScreen
from tui.app.screens.findings_later import FindingsRead
from tui.app.screens.help import KeySection
from tui.app.screens.kept_dialogs import BUILD_AHEAD_AFTER_S, KeptDialogs
from tui.app.screens.main_keys import MAIN_KEYS, key_offered
from tui.app.screens.marks import Marks, OperatorMarked, SearchMatched
from tui.app.screens.notes_keeper import NotesKeeper, NotesUpdated
from tui.app.screens.ranks import RankPlace
from tui.app.screens.report_export import ReportWritten
from tui.app.screens.zone_switch import ZoneApplied, ZoneSwitch
from tui.app.vocab import OpScope, PromptPurpose
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.header_line import HeaderLine
from tui.app.widgets.headline import HeadlineLine
from tui.app.widgets.info_line import InfoLine
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.notes_pane import NoteAction, NoteCommand, NotesPane
from tui.app.widgets.op_table import OperatorTable, default_mode
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.rows_view import FiguresAsked
from tui.app.widgets.steps_strip import StepChosen, StepsStrip
from tui.app.widgets.timeline import RowsCounted, Timeline
from tui.core.base.textsafe import printable
from tui.core.base.vocab import SortKey, ZoneSource
from tui.core.figures.analysis import Analysis, OpTable, Step
from tui.core.figures.device_load import device_load
from tui.core.findings.finding import Finding, ShowGap, ShowOperator, ShowStep
from tui.core.results.summary import capture_warnings
from tui.report.headline import Headline, capture_headline
from tui.view import status
from tui.view.status import StatusLine

if TYPE_CHECKING:
    from tui.notes import Anchor


BOTTOM_SHARE = 0.4
"""The bottom tabs' share of the screen's height (steptrace.tcss: #bottom)."""
SHORT_BOTTOM_SHARE = 0.35
"""Their share on a short screen (`-short`, under `TALL_FROM` lines): the
headline's lines come from them, so the timeline keeps its rows at 80x24."""
TALL_FROM = 30


class MainScreen(Screen[None]):
    """Everything about one capture, reachable from the keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = MAIN_KEYS
    # Textual types it as an instance variable (`ClassVar[...] | None`).
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_FROM, "-tall")]  # noqa: RUF012

    # The screen's own background does not change with the focus: Textual's
    # repaint of it on each focus move drew its 60 lines again (3 ms of a tab key).
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(
        self, loaded: TraceLoaded, *, rank_place: RankPlace | None = None
    ) -> None:
        """`rank_place`: which rank of a run this is, when opened from the ranks screen."""
        super().__init__()
        self.rank_place = rank_place
        self.loaded = loaded
        self.path: Path = loaded.path
        self.trace = loaded.trace
        self.analysis: Analysis = loaded.analysis
        self.findings: list[Finding] | None = loaded.findings
        """None while a worker computes them (a big capture)."""
        self.window_table: OpTable = loaded.op_table
        self.mode: SortKey = default_mode()
        self.scope = OpScope.WINDOW
        self.current_step: int | None = None
        self.input_purpose = PromptPurpose.NONE
        self.timeline = Timeline(
            self.trace,
            self.analysis,
            index=loaded.index,
            zone_view=loaded.zone_view,
            id="timeline",
        )
        self.marked = Marks(
            self, self.trace, self.analysis, self.timeline, self.show_info
        )
        self.dialogs = KeptDialogs(self)
        self.zone = ZoneSwitch(self, self.timeline.index, self.show_info, self.dialogs)
        self.notes = NotesKeeper(
            self, self.path, loaded.notes, loaded.notes_problem, self.dialogs
        )
        self.tabs = BottomTabs(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only keys that do something now; a text field keeps what is typed."""
        return key_offered(
            action,
            self.analysis,
            in_text_field=isinstance(self.focused, Input),
            marked=bool(self.marks.size),
            on_a_run=self.rank_place is not None,
        )

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield HeaderLine(self.analysis, id="header-line")
        yield HeadlineLine(self.headline(), id="headline")
        yield StepsStrip(self.analysis, id="steps")
        yield self.timeline
        yield InfoLine(id="info-line")
        shown = TabInputs(self.analysis, self.window_table, self.mode, self.findings)
        yield from self.tabs.compose(shown)
        yield PromptInput(id="prompt")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.timeline.focus()
        self.notes.open(self.query_one(NotesPane))
        for notice in self.loaded.notices:
            self.notify(printable(notice), severity="warning", markup=False)
        if self.analysis.zone_choice.source is ZoneSource.CHOSEN:
            self.show_info(status.zone_info(self.analysis))
        else:
            self.show_info(status.window_info(self.analysis))
        if self.rank_place is not None:
            arrival = rank_switch.arrival(
                self.rank_place, self.analysis.steps, self.notify
            )
            if arrival is not None:
                index, view = arrival
                self.go_to_step(index)
                if view is not None:
                    self.timeline.fit(*view)
        if self.findings is None:
            # After the first frame: the worker would slow its drawing down.
            self.call_after_refresh(findings_later.start, self, self.analysis)
        self.call_after_refresh(heap.settle)
        self.call_after_refresh(self.zone.prefetch, self.analysis)
        self.set_timer(BUILD_AHEAD_AFTER_S, self._build_dialogs)

    def headline(self, problem: str | None = None) -> Headline:
        """The top finding (or that they are being computed) and the device's state."""
        return capture_headline(self.findings, device_load(self.analysis), problem)

    def _build_dialogs(self) -> None:
        sections, zone = self.key_sections(), self.analysis.zone_choice
        main_dialogs.build_ahead(self.dialogs, sections, self.trace, zone)

    def on_rows_counted(self, message: RowsCounted) -> None:
        self.call_after_refresh(self._share_rows)

    def on_resize(self) -> None:
        self.call_after_refresh(self._share_rows)

    def _share_rows(self) -> None:
        """Give the bottom tabs the rows the timeline would leave blank under
        its tracks (few tracks, a tall terminal); else the tabs take 40%."""
        timeline, bottom = self.timeline, self.query_one("#bottom", TabbedContent)
        rows = len(timeline.rows_layout.rows)
        shared = timeline.outer_size.height + bottom.outer_size.height
        share = SHORT_BOTTOM_SHARE if self.size.height < TALL_FROM else BOTTOM_SHARE
        fitted = rows < shared - math.ceil(self.size.height * share)
        timeline.styles.height = rows if fitted else None
        bottom.styles.height = "1fr" if fitted else None

    def on_unmount(self) -> None:
        heap.release()
        self.dialogs.release()

    @property
    def run_label(self) -> str | None:
        """Which rank of which run is shown (None: a capture opened alone)."""
        return None if self.rank_place is None else self.rank_place.label()

    def action_rank(self, delta: int) -> None:
        """Show the next (or previous) rank of the run at the same step and zoom."""
        if self.rank_place is not None:
            here = self._view_in_step()
            rank_switch.switch(self.rank_place, delta, here, self.notify)

    def action_ranks(self) -> None:
        """Back to the run's ranks screen."""
        if self.rank_place is not None:
            rank_switch.back(self.rank_place, self._view_in_step()[0])

    def _view_in_step(self) -> tuple[int | None, tuple[float, float] | None]:
        view = (self.timeline.view_start_ns, self.timeline.view_end_ns)
        return rank_switch.view_in_step(
            self.rank_place, self.analysis, view, self.current_step
        )

    @property
    def ops(self) -> OperatorTable:
        """The operator table."""
        return self.query_one(OperatorTable)

    def key_sections(self) -> list[KeySection]:
        """Every key of the explorer, by where it works (W only when reading the
        capture warned: the help is built once, and its warnings do not change)."""
        warned = bool(capture_warnings(self.analysis))
        keys = [
            binding
            for binding in self.BINDINGS
            if warned
            or not (isinstance(binding, Binding) and binding.action == "warnings")
        ]
        return main_dialogs.key_sections(keys, self.rank_place is not None)

    def show_info(self, text: Text | StatusLine) -> None:
        """Say something on the status line (fitted to its width)."""
        self.query_one("#info-line", InfoLine).show(text)

    def view_span(self) -> int:
        """How long the timeline's view is (positions are written to its scale)."""
        timeline = self.timeline
        return timeline.view_end_ns - timeline.view_start_ns

    # -- the data zone (ZoneSwitch does the work) --------------------------------

    def action_zone(self) -> None:
        """Choose the data zone (the ranges where gaps are looked for)."""
        self.zone.open_picker(self.analysis)

    def apply_zone(self, names: tuple[str, ...], *, remember: bool = False) -> None:
        """Make `names` the data zone (none: the automatic one); figures follow."""
        self.zone.apply(self.analysis, names, remember=remember)

    def on_zone_applied(self, message: ZoneApplied) -> None:
        """Every part of the screen follows the new zone at once."""
        self.analysis = message.analysis
        self.findings = message.findings
        self.marked.follow_analysis(message.analysis)
        self.timeline.set_zone(message.analysis, message.zone_view)
        self.query_one(HeaderLine).set_analysis(message.analysis)
        self.tabs.follow_analysis(message.analysis, message.findings)
        self.query_one(HeadlineLine).show(self.headline())
        self.show_info(status.zone_info(message.analysis))
        self.refresh_bindings()
        remembered = self.zone.applied()
        if remembered is not None:
            self.notes.remember_zone(remembered)

    # -- steps ---------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        """Fit the previous or next step."""
        steps = self.analysis.steps
        if self.current_step is None:
            index = 0 if delta > 0 else len(steps) - 1
        else:
            index = max(0, min(len(steps) - 1, self.current_step + delta))
        self.go_to_step(index)

    def go_to_step(self, index: int) -> None:
        """Select and fit one step (index into the steps), and show its figures."""
        step: Step = self.analysis.steps[index]
        self.current_step = index
        self.query_one(StepsStrip).current = index
        self.timeline.select_range(step.start_ns, step.end_ns)
        self.timeline.fit(step.start_ns, step.end_ns)
        self.show_info(status.step_info(self.analysis, step))
        if self.scope is OpScope.STEP:
            self._apply_scope()

    def on_step_chosen(self, message: StepChosen) -> None:
        self.go_to_step(message.index)

    def on_view_changed(self, message: ViewChanged) -> None:
        """The strip follows the step under the middle of the view."""
        middle = (message.start_ns + message.end_ns) // 2
        for index, step in enumerate(self.analysis.steps):
            if step.start_ns <= middle < step.end_ns:
                if index != self.current_step:
                    self.current_step = index
                    self.query_one(StepsStrip).current = index
                break

    async def action_timeline(self, action: str) -> None:
        """A timeline key pressed in a pane that does not take it: the timeline
        takes the focus back and acts, and the status line says so."""
        if self.focused is not self.timeline:
            self.set_focus(self.timeline)
            self.show_info(Text(status.TIMELINE_FOCUSED))
        await self.timeline.run_action(action)

    def action_fit(self) -> None:
        """Fit what was selected last (an event, a gap, a step); again: the window."""
        timeline = self.timeline
        before = (timeline.view_start_ns, timeline.view_end_ns)
        timeline.fit_selection()
        if (timeline.view_start_ns, timeline.view_end_ns) == before:
            timeline.fit(0, max(self.trace.span_ns, 1))

    # -- events and details --------------------------------------------------

    def on_event_selected(self, message: EventSelected) -> None:
        if message.event is None:
            self.show_info(status.window_info(self.analysis))
            return
        self.show_info(
            status.event_info(self.analysis, message.event, self.view_span())
        )

    def on_event_activated(self, message: EventActivated) -> None:
        self.app.push_screen(DetailsScreen(self.analysis, message.event))

    def on_figures_asked(self, message: FiguresAsked) -> None:
        self.app.push_screen(FiguresScreen(message.title, message.figures))

    def action_details(self) -> None:
        """Open the details of the selected event."""
        event = self.timeline.selected_event
        if event is None:
            self.notify("Select an event on the timeline first (arrows, a/d, /).")
            return
        self.app.push_screen(DetailsScreen(self.analysis, event))

    def action_why_not(self) -> None:
        """Say why g, G, b, n or N have nothing to act on."""
        if not self.analysis.gaps and not self.marks.size:
            found = self.analysis.zone_reading.found
            self.notify(
                "No gaps in the data zone: the device is never idle inside it."
                if found
                else "No gaps: no data zone in this capture. z chooses one."
            )
        else:
            self.notify("Nothing marked: search with / or pick an operator.")

    # -- marks, search, gaps (marks.Marks does the work) ----------------------

    @property
    def marks(self) -> npt.NDArray[np.int64]:
        """The marked events (search matches, operator occurrences), in time order."""
        return self.marked.events

    @property
    def mark_label(self) -> str:
        """What the marks are."""
        return self.marked.label

    @property
    def gap_index(self) -> int | None:
        """The gap selected (index into the analysis's gaps)."""
        return self.marked.gap_index

    def action_mark(self, delta: int) -> None:
        """Select the next or previous match / operator occurrence."""
        self.marked.step(delta)

    def search(self, needle: str) -> None:
        """Mark every event whose name contains `needle`."""
        self.marked.search(needle)

    def on_search_matched(self, message: SearchMatched) -> None:
        self.marked.matched(message)

    def on_operator_marked(self, message: OperatorMarked) -> None:
        self.marked.operator_marked(message)

    def action_gap(self, delta: int) -> None:
        """Select the next or previous gap in the data zone."""
        self.marked.gap(delta)

    def action_gap_threshold(self) -> None:
        """Skip shorter (or fewer) gaps with g and G: the next threshold."""
        self.marked.next_gap_threshold()

    def action_biggest_gap(self) -> None:
        """Select the longest gap."""
        self.marked.biggest_gap()

    def select_gap(self, index: int) -> None:
        """Select a gap's range, fit its zone, and show its figures."""
        self.marked.select_gap(index)

    def action_search(self) -> None:
        """Ask for a name to search (n / N move between matches)."""
        self._prompt(
            PromptPurpose.SEARCH, "search event names (Enter; n/N next/previous)"
        )

    def action_filter_ops(self) -> None:
        """Ask for a filter on the table in view (the operators unless another
        tab that filters is in front)."""
        target = self.filter_target()
        if target is self.ops:
            self.tabs.show("tab-ops")
        what = {"kernels": "kernels", "copies": "copies"}.get(
            str(target.id), "operators"
        )
        self._prompt(PromptPurpose.FILTER, f"filter {what} by name (empty: all)")

    def filter_target(self) -> Any:
        """The table F filters: the bottom tab in front when it filters, else the operators."""
        return self.tabs.filter_target()

    def _prompt(self, purpose: PromptPurpose, placeholder: str) -> None:
        self.input_purpose = purpose
        filtering = purpose is PromptPurpose.FILTER
        self.query_one(PromptInput).open(
            self.filter_target().filter_text if filtering else "",
            placeholder,
            self.filter_target() if filtering else self.timeline,
        )

    @on(Input.Submitted, "#prompt")
    def _prompt_submitted(self, event: Input.Submitted) -> None:
        # The prompt closed itself and gave focus back (keys typed right after
        # Enter follow it there).
        if self.input_purpose is PromptPurpose.SEARCH and event.value:
            self.search(event.value)
        elif self.input_purpose is PromptPurpose.FILTER:
            self.filter_target().set_filter(event.value)

    def action_clear(self) -> None:
        """Close the prompt, or clear the marks."""
        prompt = self.query_one(PromptInput)
        if prompt.is_open:
            prompt.close()
            return
        self.marked.set(np.zeros(0, dtype=np.int64), "")
        self.timeline.select_event(None)
        self.timeline.selected_range = None
        self.marked.gap_index = None
        self.show_info(status.window_info(self.analysis))

    # -- operators -----------------------------------------------------------

    def action_toggle_total(self) -> None:
        """Switch the operator table between self and total time."""
        self.mode = SortKey.TOTAL if self.mode is SortKey.SELF else SortKey.SELF
        self.ops.set_mode(self.mode)

    def action_scope(self) -> None:
        """Switch the operator table between the whole window and the current step."""
        if self.scope is OpScope.WINDOW and not self.analysis.steps:
            self.notify("This capture has no steps: the table covers the window.")
            return
        self.scope = OpScope.STEP if self.scope is OpScope.WINDOW else OpScope.WINDOW
        self._apply_scope()

    def action_sort_table(self, step: int) -> None:
        """Sort the table in view (the operators unless another sortable tab is
        in front) by its next or previous column, wherever the focus is."""
        self.tabs.sortable_target().action_sort_next(step)

    def action_reverse_table(self) -> None:
        """Reverse the sort of the table in view, wherever the focus is."""
        self.tabs.sortable_target().action_reverse()

    def _apply_scope(self) -> None:
        if self.scope is OpScope.WINDOW:
            self.ops.scope_window(self.window_table)
            return
        index = self.current_step if self.current_step is not None else 0
        self.ops.scope_step(self.analysis, self.analysis.steps[index])

    def on_operator_selected(self, message: OperatorSelected) -> None:
        self.marked.operator(message.name, message.events)

    def on_operator_activated(self, message: OperatorActivated) -> None:
        self.action_mark(1)  # once marked, if a worker is marking them

    def on_mark_events(self, message: MarkEvents) -> None:
        """A tab marks events (a kernel's occurrences, copies): visit the first."""
        self.marked.set(message.events, message.label)
        if self.marks.size:
            self.action_mark(1)

    def on_status_text(self, message: StatusText) -> None:
        self.show_info(message.text)

    # -- findings ------------------------------------------------------------

    def on_findings_read(self, message: FindingsRead) -> None:
        panel = self.query_one(FindingsPanel)
        findings = findings_later.read(message, self.analysis, panel)
        if findings is not None:
            self.findings = findings
            self.query_one(HeadlineLine).show(self.headline())
        elif message.analysis is self.analysis and message.problem is not None:
            self.query_one(HeadlineLine).show(self.headline(message.problem))

    def on_findings_panel_chosen(self, event: FindingsPanel.Chosen) -> None:
        """Show on the timeline (or in the table) what a finding rests on."""
        target = anchors.finding_target(event.finding, self.trace, self.analysis)
        self.show(target, focus=True)

    # -- tabs, help, capture, share ------------------------------------------

    def action_tab(self, index: int) -> None:
        """Show a bottom tab and focus its widget now: `focus()` waits a turn of
        the queue, and a key typed right after the tab's would go to the old focus."""
        self.set_focus(self.tabs.show(TABS[index].pane_id))

    def action_help(self) -> None:
        """List every key."""
        main_dialogs.show_help(self.dialogs, self.key_sections(), self.trace)

    def action_step_split(self) -> None:
        """Each step's time as TensorBoard splits it, as bars (as `summary` says)."""
        view = main_views.step_split_view(self.analysis, self.current_step)
        if view is None:
            self.notify("No step and no CPU operator: there is no step to split.")
            return
        self.app.push_screen(view)

    def action_modules(self) -> None:
        """The nn.Module tree of the window (as `steptrace modules` says)."""
        self.app.push_screen(main_views.modules_view(self.analysis))

    def action_compiled(self) -> None:
        """torch.compile's regions, compilations and graph breaks (as `steptrace
        compiled` says)."""
        self.app.push_screen(main_views.compiled_view(self.analysis))

    def action_critical_path(self) -> None:
        """Mark the current step's critical path (HTA's; the whole capture without
        steps) on the timeline, n / N along it, and say what bounds it."""
        found = main_views.critical_path_visit(
            self.trace, self.analysis, self.current_step
        )
        if found is None:
            self.notify("No critical path here: it needs device work in the step.")
            return
        visit, bound = found
        self.show(visit)
        self.notify(bound, timeout=8)

    def action_warnings(self) -> None:
        """List what reading the capture warned of (as `steptrace summary` does)."""
        main_dialogs.show_warnings(self.app, capture_warnings(self.analysis))

    def action_capture(self) -> None:
        """Open the new-capture dialog (not in a served app unless allowed)."""
        main_dialogs.new_capture(self.app)

    def action_share(self) -> None:
        """List what identifies people or places, and write a scrubbed copy.
        Allowed in a served app: the copy is an export of this trace, written
        next to it under a fresh derived name, never over a file."""
        served = bool(getattr(self.app, "served", False))
        self.app.push_screen(ScrubDialog(self.path, served=served))

    def action_compare(self) -> None:
        """Ask for another capture and compare this one (before) with it (after)."""
        main_dialogs.compare(self.app, self.before(), self.mode)

    def before(self) -> Before:
        """This capture as the before side of a comparison."""
        return Before(self.path, self.analysis, self.timeline.index, self.notes)

    def action_export_report(self) -> None:
        """Write the method report next to the trace under a fresh name (off the UI).
        Allowed in a served app: an export writes a new file and runs nothing."""
        notes = list(self.notes.notes.values())
        report_export.export(self, self.path, self.analysis, notes)

    def on_report_written(self, message: ReportWritten) -> None:
        report_export.written(self, message, self.show_info)

    # -- notes ---------------------------------------------------------------

    @property
    def notes_store(self) -> Any:
        """The capture's NotesStore (None when notes cannot be read)."""
        return self.notes.store

    def on_notes_updated(self, message: NotesUpdated) -> None:
        self.notes.updated(message)

    def current_anchor(self) -> tuple[Anchor, str, NoteDraft]:
        """The anchor for a new note (see `anchors.current_anchor`)."""
        return anchors.current_anchor(
            self.focused,
            self.trace,
            self.timeline,
            self.analysis.steps,
            self.current_step,
        )

    def action_note(self) -> None:
        """Write a note on the current selection."""
        if self.notes.store is None:
            self.notify("Notes are unavailable for this capture.", severity="warning")
            return
        self.notes.write(*self.current_anchor())

    def on_note_action(self, message: NoteAction) -> None:
        if message.action is NoteCommand.ADD:
            self.action_note()
        else:
            self.notes.act(message.action, message.note_id, self.jump_to)

    def jump_to(self, anchor: Anchor) -> None:
        """Show what a note's anchor points at."""
        target = anchors.note_target(anchor, self.trace, self.analysis, self.findings)
        if not self.show(target):
            self.notify("The note's anchor is not in this capture.", severity="warning")

    def show(self, target: anchors.Target | None, *, focus: bool = False) -> bool:
        """Show where an anchor points; False when it points at nothing here.
        `focus`: an operator shown takes the focus (a finding chosen hands it on)."""
        timeline = self.timeline
        if isinstance(target, ShowStep):
            index = anchors.step_index(self.analysis, target.number)
            if index is None:
                return False
            self.go_to_step(index)
        elif isinstance(target, anchors.AtRange):
            timeline.select_range(target.start_ns, target.end_ns)
            timeline.fit(target.start_ns, max(target.end_ns, target.start_ns + 1))
        elif isinstance(target, ShowOperator):
            self.tabs.select_operator(target.name, focus=focus)
        elif isinstance(target, anchors.AtEvent):
            timeline.select_event(target.event)
            timeline.focus()
        elif isinstance(target, ShowGap):
            self.select_gap(target.index)
        elif isinstance(target, anchors.AtFinding):
            self.tabs.show("tab-findings")
            if target.pending:
                self.notify(
                    "The findings are still being computed: the tab fills in soon."
                )
            elif target.index is None:
                return False
            else:
                self.tabs.select_finding(target.index)
        elif isinstance(target, anchors.Visit):
            if not self.marked.visit(target.events, target.label, target.event):
                self.notify("What this finding points at is not in this capture.")
            if target.copy is not None:
                self.tabs.select_copy(target.copy)
            if target.kernel is not None:
                self.tabs.select_kernel(target.kernel)
            self.set_focus(timeline)  # at once: a late highlight says nothing
        return target is not None
