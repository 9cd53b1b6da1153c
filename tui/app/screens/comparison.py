"""The comparison screen: two captures of the same window, before and after.

The verdict (likely faster / slower at most with one capture a side; the
runs, what moved and the steps set aside for their reasons), the checks
both traces record and those they do not, every comparability warning, both
steps strips one above the other, the operator changes (`DiffOpTable`, rows by
change per kept step), and — Enter on an
operator — its occurrences on both timelines, one above the other, each fitted
to the same step. Loading the other capture and comparing run in a worker
(`comparison_data.compare`); the open capture's main screen stays beneath,
and its notes keeper saves the tested-by links (`l`, `comparison_links`). The
widgets of each state come from `comparison_layout`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ContentSwitcher, ProgressBar, Static

from tui.app.dialogs.tested_by import TestedByDialog
from tui.app.messages import (
    EventActivated,
    EventSelected,
    LoadProgressed,
    OperatorActivated,
    OperatorSelected,
    ViewChanged,
)
from tui.app.screens import comparison_layout as layout
from tui.app.screens import comparison_links as links
from tui.app.screens.comparison_data import (
    CompareRequest,
    Comparison,
    ComparisonRefused,
    Side,
    compare,
)
from tui.app.screens.comparison_layout import SIDES
from tui.app.screens.details import DetailsScreen
from tui.app.screens.help import HelpScreen, KeySection, timeline_keys
from tui.app.screens.notes_keeper import NotesKeeper
from tui.app.widgets.diff_table import DiffOpTable
from tui.app.widgets.info_line import InfoLine
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.steps_strip import StepChosen, StepsStrip
from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import SortKey
from tui.core.diff.occurrences import AlignedOccurrences, SideOccurrences, align
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import LoadProgress
from tui.report.progress import load_status
from tui.view import status
from tui.view.status import StatusLine
from tui.view.timeline_index import TimelineIndex


@dataclass
class ComparisonReady(Message):
    """A comparison worker loaded the other capture and compared both."""

    comparison: Comparison


@dataclass
class ComparisonFailed(Message):
    """A comparison worker could not load or compare (one line each)."""

    lines: list[str]


@dataclass(frozen=True)
class Before:
    """The open capture a comparison starts from: its trace, analysis and
    timeline rows, and its notes keeper (which saves the tested-by links)."""

    path: Path
    analysis: Analysis
    index: TimelineIndex
    notes: NotesKeeper


def _name(path: Path | str) -> str:
    return printable(Path(path).name)


class ComparisonScreen(Screen[None]):
    """The open capture (before) against another one (after)."""

    CSS_PATH = Path(__file__).parent.parent / "comparison.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding(
            "left_square_bracket",
            "step(-1)",
            "Previous step",
            priority=True,
            show=False,
        ),
        Binding(
            "right_square_bracket", "step(1)", "Next step", priority=True, show=False
        ),
        Binding("t", "toggle_total", "Self/total"),
        Binding("n", "mark(1)", "Next occurrence", show=False),
        Binding("N", "mark(-1)", "Previous occurrence", show=False),
        Binding("l", "link", "Tested by"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, before: Before, request: CompareRequest) -> None:
        super().__init__()
        self.before = before
        self.request = request
        self.cancel_event = threading.Event()
        self.comparison: Comparison | None = None
        self.failure: list[str] | None = None
        self.mode = SortKey.TOTAL if request.sort is SortKey.TOTAL else SortKey.SELF
        self.aligned: AlignedOccurrences | None = None
        self.pair: int | None = None
        self._marked: dict[str, int] = {}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer the comparison's keys only once it is there."""
        if action in ("step", "toggle_total", "mark", "link"):
            if self.comparison is None:
                return False
            if action == "step":
                return bool(self.comparison.pairs)
            if action == "mark":
                return self.aligned is not None
        return True

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        comparison = self.comparison
        if self.failure is not None:
            yield from layout.failure(self.request, self.failure)
        elif comparison is None:
            yield from layout.loading(self.before.path, self.request)
        else:
            yield from layout.comparison(comparison, self.request, self.mode)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.run_comparison()

    # -- the worker -------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False)
    def run_comparison(self) -> None:
        """Load the other capture and compare; only posts messages back."""
        from tui.core.base.errors import LoadCancelled, TraceLoadError

        before = self.before
        try:
            comparison = compare(
                before.path,
                before.analysis,
                before.index,
                self.request,
                progress=self._progress,
                cancel=self.cancel_event,
            )
        except LoadCancelled:
            self.post_message(ComparisonFailed([]))
        except TraceLoadError as error:
            self.post_message(ComparisonFailed([str(error)]))
        except ComparisonRefused as refused:
            self.post_message(ComparisonFailed(refused.lines))
        except MemoryError:
            self.post_message(
                ComparisonFailed(["not enough memory to load the other capture"])
            )
        except Exception as error:  # any failure must still leave the loading view
            self.post_message(
                ComparisonFailed(
                    [
                        f"unexpected {type(error).__name__} while comparing: {error} "
                        "(a steptrace bug: please report it)"
                    ]
                )
            )
        else:
            self.post_message(ComparisonReady(comparison))

    def _progress(self, progress: LoadProgress) -> None:
        self.post_message(LoadProgressed(progress))

    def on_load_progressed(self, message: LoadProgressed) -> None:
        progress = message.progress
        if self.comparison is not None or self.failure is not None:
            return
        phase = self.query("#cmp-loading-phase")
        if not phase:
            return
        done = progress.bytes_read if progress.bytes_total else 0
        phase.first(Static).update(load_status(progress))
        if progress.bytes_total:
            self.query_one("#cmp-loading-bar", ProgressBar).update(
                total=progress.bytes_total, progress=done
            )

    async def on_comparison_ready(self, message: ComparisonReady) -> None:
        self.comparison = message.comparison
        await self.recompose()
        self.query_one(DiffOpTable).focus()
        self.refresh_bindings()
        self._say_table()

    async def on_comparison_failed(self, message: ComparisonFailed) -> None:
        if not message.lines:  # cancelled
            self.dismiss(None)
            return
        self.failure = message.lines
        await self.recompose()

    # -- what each side shows ------------------------------------------------

    def _side(self, word: str) -> Side:
        assert self.comparison is not None
        return self.comparison.before if word == "before" else self.comparison.after

    def timeline(self, word: str) -> Timeline:
        """The timeline of one side."""
        return self.query_one(f"#cmp-timeline-{word}", Timeline)

    @property
    def table(self) -> DiffOpTable:
        """The operator changes."""
        return self.query_one(DiffOpTable)

    def show_info(self, text: Text | StatusLine) -> None:
        """Say something on the status line."""
        self.query_one("#cmp-info", InfoLine).show(text)

    def _say_table(self) -> None:
        text = Text()
        text.append("Enter", style="bold")
        text.append(": both timelines, same step")
        text.append("  t self/total  o order  l tested by", style="italic")
        self.show_info(text)

    @property
    def showing_timelines(self) -> bool:
        """Whether the two timelines are shown (else the operator table)."""
        return self.query_one(ContentSwitcher).current == "cmp-timelines"

    def _show_timelines(self) -> None:
        switcher = self.query_one(ContentSwitcher)
        if switcher.current != "cmp-timelines":
            switcher.current = "cmp-timelines"
            self.add_class("timelines")
            self.timeline("before").focus()

    # -- operators and steps ---------------------------------------------------

    def on_operator_selected(self, message: OperatorSelected) -> None:
        message.stop()

    def on_operator_activated(self, message: OperatorActivated) -> None:
        """Enter on an operator: its occurrences on both timelines, at the same step."""
        message.stop()
        comparison = self.comparison
        if comparison is None:
            return
        name = message.name
        self.aligned = align(
            comparison.before.analysis,
            comparison.after.analysis,
            comparison.pairs,
            name,
            comparison.before.operators.of(name),
            comparison.after.operators.of(name),
        )
        self._marked = {}
        for word in SIDES:
            occurrences = self._occurrences(word)
            self.timeline(word).mark_events(
                occurrences.events if occurrences.events.size else None
            )
        self._show_timelines()
        self._go_to_pair(self.aligned.pair)
        self.refresh_bindings()

    def _occurrences(self, word: str) -> SideOccurrences:
        assert self.aligned is not None
        return self.aligned.before if word == "before" else self.aligned.after

    def action_step(self, delta: int) -> None:
        """Show the previous or next step on both timelines."""
        comparison = self.comparison
        if comparison is None or not comparison.pairs:
            return
        if self.pair is None:
            pair = 0 if delta > 0 else len(comparison.pairs) - 1
        else:
            pair = max(0, min(len(comparison.pairs) - 1, self.pair + delta))
        if self.aligned is not None:
            self.aligned = align(
                comparison.before.analysis,
                comparison.after.analysis,
                comparison.pairs,
                self.aligned.name,
                self.aligned.before.events,
                self.aligned.after.events,
                pair,
            )
        self._show_timelines()
        self._go_to_pair(pair)

    def _go_to_pair(self, pair: int | None) -> None:
        """Fit both timelines to one pair of steps; select the first occurrence in each."""
        comparison = self.comparison
        assert comparison is not None
        self.pair = pair
        steps = comparison.pairs[pair] if pair is not None else None
        for word in SIDES:
            side = self._side(word)
            step = None if steps is None else getattr(steps, word)
            timeline = self.timeline(word)
            strip = self.query_one(f"#cmp-steps-{word}", StepsStrip)
            if step is None:
                strip.current = None
                timeline.fit(0, max(side.trace.span_ns, 1))
            else:
                strip.current = side.analysis.steps.index(step)
                margin = max(step.duration_ns // 20, 1)
                timeline.fit(step.start_ns - margin, step.end_ns + margin)
                first = self._first_in(word, step.start_ns, step.end_ns)
                timeline.select_event(first)
            self.query_one(f"#cmp-line-{word}", Static).update(
                self._step_line(word, step, steps.label if steps else "")
            )
        self.show_info(self._pair_info())

    def _first_in(self, word: str, start_ns: int, end_ns: int) -> int | None:
        if self.aligned is None:
            return None
        events = self._occurrences(word).events
        trace = self._side(word).trace
        starts = trace.start_ns[events]
        position = int(np.searchsorted(starts, start_ns, side="left"))
        if position < events.size and starts[position] < end_ns:
            self._marked[word] = position
            return int(events[position])
        return None

    def _step_line(self, word: str, step: Any, label: str) -> Text:
        side = self._side(word)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{word:<7}", style="bold")
        text.append(f" {_name(side.path)}  ")
        if step is None:
            text.append(
                f"no {label or 'step'} in this capture: the whole trace is shown",
                style="italic",
            )
            return text
        text.append(f"step {step.number} ", style="bold")
        text.append(f"({duration_text(step.duration_ns)})")
        if self.aligned is not None:
            occurrences = self._occurrences(word)
            text.append("  ")
            text.append(printable(self.aligned.name), style="bold")
            text.append(
                f"  {occurrences.in_step} of {occurrences.events.size} in this step"
            )
        return text

    def _pair_info(self) -> Text:
        text = Text()
        comparison = self.comparison
        if comparison is None or self.pair is None:
            text.append("no step on either side: the whole traces are shown")
            return text
        text.append(comparison.pairs[self.pair].label, style="bold")
        text.append(f" ({self.pair + 1} of {len(comparison.pairs)})")
        text.append(
            "  [ ] step  n/N occurrence  Tab other timeline  Esc table", "italic"
        )
        return text

    def action_mark(self, delta: int) -> None:
        """Select the next or previous occurrence on the focused timeline."""
        if self.aligned is None:
            return
        word = "after" if self.focused is self.timeline("after") else "before"
        events = self._occurrences(word).events
        if events.size == 0:
            self.notify(f"No occurrence in the {word} capture.")
            return
        position = (self._marked.get(word, -1) + delta) % int(events.size)
        self._marked[word] = position
        event = int(events[position])
        timeline = self.timeline(word)
        timeline.select_event(event)
        side = self._side(word)
        self.show_info(
            status.mark_info(
                side.analysis,
                f"{word} {printable(self.aligned.name)}:",
                position,
                int(events.size),
                event,
                timeline.view_end_ns - timeline.view_start_ns,
            )
        )

    # -- timelines' messages -------------------------------------------------

    def _focused_side(self) -> Side | None:
        if self.comparison is None:
            return None
        if self.focused is self.timeline("after"):
            return self.comparison.after
        return self.comparison.before

    def on_event_selected(self, message: EventSelected) -> None:
        message.stop()
        side = self._focused_side()
        if side is None or message.event is None:
            return
        timeline = self.timeline("after" if side is self._side("after") else "before")
        self.show_info(
            status.event_info(
                side.analysis,
                message.event,
                timeline.view_end_ns - timeline.view_start_ns,
            )
        )

    def on_event_activated(self, message: EventActivated) -> None:
        message.stop()
        side = self._focused_side()
        if side is not None:
            self.app.push_screen(DetailsScreen(side.analysis, message.event))

    def on_view_changed(self, message: ViewChanged) -> None:
        message.stop()

    def on_step_chosen(self, message: StepChosen) -> None:
        message.stop()

    # -- keys ----------------------------------------------------------------

    def action_back(self) -> None:
        """Back to the table from the timelines; from the table, back to the open capture."""
        if self.comparison is None and self.failure is None:
            self.cancel_event.set()
            self.query_one("#cmp-loading-phase", Static).update("cancelling…")
            return
        if self.comparison is not None and self.showing_timelines:
            self.query_one(ContentSwitcher).current = "cmp-table"
            self.remove_class("timelines")
            self.table.focus()
            self._say_table()
            return
        self.dismiss(None)

    def action_toggle_total(self) -> None:
        """Compare self or total time; rows follow the change of the time shown."""
        self.mode = SortKey.TOTAL if self.mode is SortKey.SELF else SortKey.SELF
        self.table.set_mode(self.mode)

    def action_help(self) -> None:
        """List every key of the comparison."""
        self.app.push_screen(HelpScreen(self.key_sections()))

    def key_sections(self) -> list[KeySection]:
        """Every key of the comparison, by where it works."""
        return [
            ("Comparison", self.BINDINGS),
            ("Operator changes", DiffOpTable.BINDINGS),
            ("Timelines", timeline_keys(self.BINDINGS, Timeline.BINDINGS)),
            ("Tested by (link a note)", TestedByDialog.BINDINGS),
            ("Details", DetailsScreen.BINDINGS),
            ("Everywhere", [Binding("ctrl+p", "", "Command palette")]),
        ]

    # -- notes: tested by -------------------------------------------------------

    def action_link(self) -> None:
        """Link an open note of the before capture to the after one ("tested by")."""
        if self.comparison is not None:
            links.link(self.app, self.before.notes, self.before.path, self.comparison)
