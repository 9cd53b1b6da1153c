"""The ranks screen: a run's ranks side by side, and the way into each rank's timeline.

The heat table (rank × step, each cell a rank's step time against the
step's median, stragglers marked), the per-rank device breakdown bars, the
run's reading (one rank late at the collectives, worded by `tui.report.findings`,
with what the figures cannot show), its warnings, and its collectives (per
kind and size, bandwidth, wait and transfer: read from every trace again,
so only when their tab is first shown, in a thread that posts the words
`steptrace collectives DIR` prints). Enter on a cell
opens that rank at that step, through the ordinary loading screen (and the
column cache); the app shows it (`RankLoaded`), and its main screen carries
a `RankPlace` to move between ranks (`rank_switch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane

from tui.app.messages import LoadFailed, RunLoaded, TraceLoaded, ZoneRefused
from tui.app.screens.help import HelpScreen, KeySection
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.loading import LoadingScreen
from tui.app.screens.main_keys import MAIN_KEYS, RUN_ACTIONS
from tui.app.screens.run_loading import RunLoadingScreen
from tui.app.widgets.findings_panel import finding_text
from tui.app.widgets.headline import HeadlineLine
from tui.app.widgets.heat_table import HeatTable, RankCellChosen, RankCellHighlighted
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.rank_bars import RankBars
from tui.core.base.textsafe import printable
from tui.core.base.units import plural
from tui.core.base.vocab import HeatLevel, HeatValue, RankSort
from tui.core.findings.finding import ShowStep
from tui.report.fit import fit_middle
from tui.report.headline import run_headline
from tui.report.many_ranks import panel_lines
from tui.view.run_table import STRAGGLER_MARK, RunTable

BOTTOM_TABS = (
    "ranks-breakdown",
    "ranks-reading",
    "ranks-warnings",
    "ranks-collectives",
    "ranks-spread",  # runs of many ranks only
)
COLLECTIVES_HINT = (
    "4 reads the collectives of every rank (each trace again, in the background):"
    " per kind and size, count, time, algorithm and bus bandwidth, and each"
    " collective's time split into wait (arrival skew) and transfer."
)
_LEGEND_STYLE = {
    HeatLevel.FASTER: "#000000 on #9ecae1",
    HeatLevel.SLOWER: "#000000 on #fdd0a2",
    HeatLevel.SLOW: "#000000 on #fd8d3c",
    HeatLevel.SLOWEST: "#ffffff on #a63603",
}


def _action_of(binding: Binding) -> tuple[str, tuple[object, ...]]:
    """A binding's action name and parameters, as `check_action` is asked."""
    _, name, parameters = parse_action(binding.action)
    return name, parameters


@dataclass(frozen=True)
class RankPlace:
    """Which rank of which run a main screen shows, and where its view goes."""

    ranks: RanksScreen
    rank: int
    step: int | None  # the step number to show
    view: tuple[float, float] | None = (
        None  # view edges from the step's start, in steps
    )

    def label(self) -> str:
        """`rank 3 of run1 (world size 8)`: what the header says."""
        run = self.ranks.run
        world = "" if run.world_size is None else f" (world size {run.world_size})"
        return f"rank {self.rank} of {printable(run.folder.name)}{world}"


@dataclass
class RankLoaded(Message):
    """A rank of the run is loaded: the app shows it at `place`, in place of
    the rank's main screen shown before."""

    loaded: TraceLoaded
    place: RankPlace


class CollectivesRead(Message):
    """The run's collectives in words (or why they could not be read)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class RanksScreen(Screen[None]):
    """A run folder's ranks: step times, stragglers, waits, device breakdowns."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "sort(1)", "Sort"),
        Binding("O", "sort(-1)", "Sort by the previous key", show=False),
        Binding("r", "reverse", "Reverse the sort", show=False),
        Binding("v", "values", "Step time / wait"),
        Binding("i", "idle", "Cells: GPU idle share / step time", show=False),
        Binding("g", "group", "Group the ranks by host", show=False),
        Binding("b", "bars_scope", "Bars: whole capture / this step", show=False),
        Binding("l", "late", "Go to the late rank's longest wait", show=False),
        Binding("1", "tab(0)", "Breakdown bars", show=False),
        Binding("2", "tab(1)", "The run's reading", show=False),
        Binding("3", "tab(2)", "Warnings", show=False),
        Binding("4", "tab(3)", "Collectives (read on demand)", show=False),
        Binding("5", "tab(4)", "Many ranks: spreads, outliers, top ranks", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, loaded: RunLoaded) -> None:
        super().__init__()
        self.loaded = loaded
        self.result = loaded.result
        self.run = loaded.result.run
        self.zones = loaded.zones
        self.table = RunTable(loaded.result)
        self.bars_step = False
        self.collectives_asked = False

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="ranks-header", markup=False)
        headline = run_headline(self.result.finding, self.table.busy_shares())
        yield HeadlineLine(headline, id="ranks-headline")
        yield HeatTable(self.table, id="heat")
        yield Static("", id="ranks-info", markup=False)
        warnings = [*self.run.warnings]
        many = self.table.is_many
        with TabbedContent(id="ranks-bottom", initial=self.first_tab()):
            if many:
                with TabPane("Spread [5]", id=BOTTOM_TABS[4]), VerticalScroll():
                    yield Static(
                        "\n".join(panel_lines(self.result)),
                        id="ranks-spread-text",
                        markup=False,
                    )
            with TabPane("Breakdown [1]", id=BOTTOM_TABS[0]):
                yield RankBars(self.run.ranks, id="rank-bars")
            with TabPane("Reading [2]", id=BOTTOM_TABS[1]), VerticalScroll():
                yield Static(self._reading_text(), markup=False)
            with (
                TabPane(f"Warnings ({len(warnings)}) [3]", id=BOTTOM_TABS[2]),
                VerticalScroll(),
            ):
                yield Static(self._warnings_text(), markup=False)
            with TabPane("Collectives [4]", id=BOTTOM_TABS[3]), VerticalScroll():
                yield Static(
                    COLLECTIVES_HINT, id="ranks-collectives-text", markup=False
                )
        yield KeyFooter()

    def first_tab(self) -> str:
        """The bottom tab shown first: the spreads of many ranks; the reading
        when no rank has device work (the bars would all read not observed)."""
        if self.table.is_many:
            return BOTTOM_TABS[4]
        if not any(row.summary.gpu_observed for row in self.run.ranks):
            return BOTTOM_TABS[1]
        return BOTTOM_TABS[0]

    def on_mount(self) -> None:
        heat = self.heat
        heat.focus()
        self._show_header()
        self.call_after_refresh(heat.go_to, None, None)

    @property
    def heat(self) -> HeatTable:
        """The heat table."""
        return self.query_one(HeatTable)

    def on_resize(self) -> None:
        self._show_header()

    def _show_header(self) -> None:
        self.query_one("#ranks-header", Static).update(self.header_text())

    def header_text(self) -> Text:
        """Which run, how many ranks and steps, what a cell shows and how to read it."""
        run = self.run
        width = max(self.size.width - 2, 40)
        first = Text(no_wrap=True, overflow="ellipsis")
        if getattr(self.app, "served", False):
            first.append(" served ", style="bold reverse")
            first.append(" ")
        first.append("run ", style="bold")
        first.append(
            fit_middle(printable(run.folder.name), max(width // 3, 12)), style="bold"
        )
        world = "" if run.world_size is None else f" (world size {run.world_size})"
        first.append(f"  {plural(len(run.ranks), 'rank')}{world}")
        first.append(f"  {plural(len(run.steps), 'step')} each")
        gpu = sum(1 for row in run.ranks if row.summary.gpu_observed)
        first.append(f"  GPU observed on {gpu}/{len(run.ranks)}")
        legend = Text(no_wrap=True, overflow="ellipsis")
        legend.append(f"{STRAGGLER_MARK} straggler", style="bold")
        legend.append("  vs step median:")
        for level, words in (
            (HeatLevel.FASTER, ">3% faster"),
            (HeatLevel.SLOWER, "≤10%"),
            (HeatLevel.SLOW, "≤25%"),
            (HeatLevel.SLOWEST, "more"),
        ):
            legend.append(" ")
            legend.append(f" {level.glyph} {words} ", style=_LEGEND_STYLE[level])
        heat = self.heat if self.is_mounted else None
        third = Text(no_wrap=True, overflow="ellipsis")
        shown = heat.shown if heat is not None else HeatValue.STEP_TIME
        unit = (
            "% of each step's device span, – none"
            if shown is HeatValue.IDLE
            else self.table.unit
        )
        third.append(f"cells: {shown} ({unit})", style="bold")
        if heat is not None:
            arrow = "▼" if heat.descending else "▲"
            third.append(f"  sorted by {heat.sort.label} {arrow}")
        third.append(f"  {self.table.columns_words()}")
        third.append(f"  zone {self.zone_words()}")
        third.append(f"  unit {printable(run.unit)}")
        return Text("\n").join([first, legend, third])

    def zone_words(self) -> str:
        """The data-zone names the ranks hold, and whose choice they are."""
        held = sorted({name for row in self.run.ranks for name in row.summary.zones})
        names = ", ".join(printable(name) for name in held) or "none found"
        return f"{names} ({'as asked' if self.zones else 'each rank default'})"

    def _reading_text(self) -> Text:
        text = finding_text(self.result.finding)
        if isinstance(self.result.finding.anchor, ShowStep):
            text.append("\n  l: go to its longest wait", style="italic")
        if self.run.limits:
            text.append("\n\nwhat these figures cannot show", style="bold")
            for limit in self.run.limits:
                text.append(f"\n  - {printable(limit)}")
        return text

    def _warnings_text(self) -> Text:
        if not self.run.warnings:
            return Text("No warnings: every rank found, one file each, one run.")
        text = Text()
        for warning in self.run.warnings:
            text.append(f"- {printable(warning)}\n")
        return text

    def key_sections(self) -> list[KeySection]:
        """The keys of this screen and of the timeline it opens."""
        run_keys = [
            binding
            for binding in MAIN_KEYS
            if isinstance(binding, Binding)
            and binding.action.split("(")[0] in RUN_ACTIONS
        ]
        return [
            ("Ranks screen", self.offered()),
            ("Heat table", HeatTable.BINDINGS),
            ("A rank's timeline (opened with Enter)", run_keys),
            ("Loading", RunLoadingScreen.BINDINGS),
            ("Everywhere", [Binding("ctrl+p", "", "Command palette")]),
        ]

    # -- the table's cursor -----------------------------------------------------

    def on_rank_cell_highlighted(self, message: RankCellHighlighted) -> None:
        heat = self.heat
        row = self.table.row_of_rank(message.rank)
        column = self.table.step_index(message.step) if message.step is not None else 0
        if row is not None:
            # One fixed line: no layout to redo on every key.
            self.query_one("#ranks-info", Static).update(
                self.table.cell_info(row, column or 0), layout=False
            )
        self.query_one(RankBars).show(
            heat.ranks_in_order(),
            message.rank,
            message.step if self.bars_step else None,
        )

    def on_rank_cell_chosen(self, message: RankCellChosen) -> None:
        self.open_rank(message.rank, message.step)

    def open_rank(
        self,
        rank: int,
        step: int | None,
        view: tuple[float, float] | None = None,
        *,
        zones: tuple[str, ...] | None = None,
    ) -> None:
        """Load a rank's trace; the app shows it at `step` (and `view`, relative
        to that step) when ready (`RankLoaded`)."""
        app = self.app
        row = self.run.row(rank)
        if row is None:
            app.notify(f"Rank {rank} was not loaded.", severity="warning")
            return
        place = RankPlace(self, rank, step, view)
        asked = self.zones if zones is None else zones
        app.push_screen(LoadingScreen(row.path, asked), partial(self._loaded, place))

    def _loaded(self, place: RankPlace, outcome: Any) -> None:
        app = self.app
        if isinstance(outcome, TraceLoaded):
            app.post_message(RankLoaded(outcome, place))
        elif isinstance(outcome, LoadFailed):
            app.push_screen(LoadErrorScreen(outcome.path, outcome.reason))
        elif isinstance(outcome, ZoneRefused):
            # The run's zone is held by other ranks, not this one: its own default.
            app.notify(
                f"Rank {place.rank} has no range of the run's data zone: it shows "
                "its own.",
                severity="warning",
            )
            self.open_rank(place.rank, place.step, place.view, zones=())

    def focus_cell(self, rank: int, step: int | None) -> None:
        """Put the table's cursor on a rank and step (coming back from a timeline)."""
        self.heat.go_to(rank, step)

    def ranks_in_order(self) -> list[int]:
        """The ranks as the table lists them now (r/R in a timeline walk this order)."""
        return self.heat.ranks_in_order()

    # -- actions --------------------------------------------------------------

    def action_sort(self, step: int) -> None:
        """Order the ranks by the next (or previous) key."""
        self.heat.sort_next(step)
        self._show_header()
        self.heat.go_to(None, None)

    def action_reverse(self) -> None:
        """Reverse the order."""
        heat = self.heat
        heat.set_sort(heat.sort, not heat.descending)
        self._show_header()

    def action_values(self) -> None:
        """Cells show step times, or waits in the collectives."""
        heat = self.heat
        wait = heat.shown is not HeatValue.WAIT
        heat.set_shown(HeatValue.WAIT if wait else HeatValue.STEP_TIME)
        self._show_header()

    def action_idle(self) -> None:
        """Cells show each rank's device idle share per step, or step times."""
        heat = self.heat
        idle = heat.shown is not HeatValue.IDLE
        heat.set_shown(HeatValue.IDLE if idle else HeatValue.STEP_TIME)
        self._show_header()

    def action_group(self) -> None:
        """Group the ranks by host (the host of the slowest rank first), or by median."""
        heat = self.heat
        if RankSort.HOST not in self.table.sort_keys:
            self.notify(
                "No host in the file names (tensorboard_trace_handler's "
                "{hostname}_{pid}.… names state it): not grouped.",
                markup=False,
            )
            return
        grouped = heat.sort is not RankSort.HOST
        heat.set_sort(RankSort.HOST if grouped else RankSort.MEDIAN)
        self._show_header()
        heat.go_to(None, None)

    def action_bars_scope(self) -> None:
        """Bars over the whole capture, or in the step under the cursor."""
        self.bars_step = not self.bars_step
        self.query_one(TabbedContent).active = BOTTOM_TABS[0]
        self.heat.go_to(None, None)

    def action_late(self) -> None:
        """Put the cursor on the late rank at the step of its longest wait."""
        finding = self.result.finding
        figures = finding.figures
        rank = getattr(figures, "rank", None)
        if not isinstance(finding.anchor, ShowStep) or rank is None:
            self.notify("No rank reaches the collectives late in this run.")
            return
        self.heat.go_to(rank, finding.anchor.number)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The spread tab's key only where it is (runs of many ranks), the idle
        shares' only where some rank has one."""
        if action == "tab" and parameters == (4,):
            return self.table.is_many
        if action == "idle":
            return self.table.has_idle
        return True

    def offered(self) -> list[BindingType]:
        """This screen's keys that do something on this run (what the help lists)."""
        return [
            binding
            for binding in self.BINDINGS
            if not isinstance(binding, Binding)
            or self.check_action(*_action_of(binding)) is not False
        ]

    def action_tab(self, index: int) -> None:
        """Show a bottom tab (the collectives are read the first time theirs is)."""
        self.query_one(TabbedContent).active = BOTTOM_TABS[index]

    def on_tabbed_content_tab_activated(
        self, event: TabbedContent.TabActivated
    ) -> None:
        if event.pane.id == BOTTOM_TABS[3] and not self.collectives_asked:
            self.collectives_asked = True
            self.query_one("#ranks-collectives-text", Static).update(
                Text("Reading every rank's collectives…", style="italic")
            )
            self.run_worker(
                partial(self._read_collectives, self.run.folder),
                thread=True,
                group="collectives",
                exit_on_error=False,
            )

    def _read_collectives(self, folder: Path) -> None:
        """In a thread: the run's collectives in words, posted (never a traceback)."""
        from tui.core.base.errors import TraceLoadError
        from tui.core.results.collectives import RunCollectivesResult
        from tui.core.runs.collectives_across import read_run_collectives
        from tui.report.collectives import run_collectives_text

        try:
            result = RunCollectivesResult(read_run_collectives(folder))
            text = run_collectives_text(result)
        except (TraceLoadError, OSError, ValueError) as problem:
            text = f"The collectives could not be read: {printable(str(problem))}"
        self.post_message(CollectivesRead(text))

    def on_collectives_read(self, message: CollectivesRead) -> None:
        self.query_one("#ranks-collectives-text", Static).update(Text(message.text))

    def action_help(self) -> None:
        """List every key."""
        self.app.push_screen(HelpScreen(self.key_sections()))
