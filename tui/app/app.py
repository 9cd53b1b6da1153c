"""The explorer's App: opens a trace through the loading screen, then the main screen.

Kept thin: the screens own their state; the app only routes a load outcome to
the right screen and offers every main-screen action in the command palette.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from tui.app import heap
from tui.app.messages import (
    LoadCancelled,
    LoadFailed,
    RunLoaded,
    TraceLoaded,
    ZoneRefused,
)
from tui.app.screens.comparison import ComparisonScreen
from tui.app.screens.comparison_data import CompareRequest
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.loading import LoadingScreen, LoadOutcome
from tui.app.screens.main import MainScreen
from tui.app.screens.ranks import RankLoaded, RanksScreen
from tui.app.screens.run_loading import (
    RunLoadingScreen,
    RunOutcome,
    prepare_worker_processes,
)
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable


class StepTraceApp(App[int]):
    """Explore one PyTorch profiler capture from the keyboard."""

    CSS_PATH = Path(__file__).parent / "steptrace.tcss"
    TITLE = "steptrace"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False),
    ]

    def __init__(
        self,
        path: str | Path,
        *,
        served: bool = False,
        allow_capture: bool = False,
        zones: tuple[str, ...] = (),
        rank_workers: int | None = None,
        rank_cluster: str | None = None,
        compare: CompareRequest | None = None,
        notices: tuple[str, ...] = (),
    ) -> None:
        """`path`: a trace, or a run folder (one trace per rank); `served`:
        running for a browser (`steptrace serve`), where launching a capture
        is off unless `allow_capture`; `zones`: the data zone named on the
        command line (`--zone`, for the first trace or run opened);
        `rank_workers`: ranks of a run read at once (None: cores and memory);
        `rank_cluster`: a Dask scheduler's address to read a run's ranks on;
        `compare`: the capture to compare the trace with once it is open
        (`steptrace diff A B` on a terminal); `notices`: lines shown once it
        starts (which window of a folder was opened)."""
        super().__init__()
        self.trace_path = Path(path)
        self.rank_workers = rank_workers
        self.rank_cluster = rank_cluster
        if self.trace_path.is_dir():
            prepare_worker_processes()
        self.served = served
        self.capture_allowed = allow_capture or not served
        self.zones = zones
        self.compare = compare
        self.notices = notices
        self.exit_lines: list[str] = []
        """Lines for stderr once the app has ended (why it exited 2)."""

    def on_mount(self) -> None:
        for notice in self.notices:
            self.notify(printable(notice), timeout=12, markup=False)
        if self.trace_path.is_dir():
            self.open_run(self.trace_path, self.zones)
        else:
            self.open_trace(self.trace_path, self.zones)

    def on_unmount(self) -> None:
        heap.release()

    def open_run(self, folder: Path, zones: tuple[str, ...] = ()) -> None:
        """Read a run folder's ranks; the ranks screen shows them when ready."""
        self.push_screen(
            RunLoadingScreen(folder, zones, self.rank_workers, self.rank_cluster),
            self._loaded,
        )

    def open_trace(self, path: Path, zones: tuple[str, ...] = ()) -> None:
        """Load a trace; the main screen replaces the current one when it is ready."""
        self.push_screen(LoadingScreen(path, zones), self._loaded)

    def _loaded(self, outcome: LoadOutcome | RunOutcome | None) -> None:
        if isinstance(outcome, RunLoaded):
            self.push_screen(RanksScreen(outcome))
            self.sub_title = outcome.path.name
        elif isinstance(outcome, TraceLoaded):
            for screen in self.screen_stack[1:]:
                if isinstance(screen, (MainScreen, LoadErrorScreen)):
                    self.pop_screen()
            main = MainScreen(outcome)
            self.push_screen(main)
            self.trace_path = outcome.path
            self.sub_title = outcome.path.name
            if self.compare is not None:
                request, self.compare = self.compare, None
                self.push_screen(ComparisonScreen(main.before(), request))
        elif isinstance(outcome, LoadFailed):
            self.push_screen(LoadErrorScreen(outcome.path, outcome.reason))
        elif isinstance(outcome, ZoneRefused):
            self.exit_lines = outcome.lines
            self.exit(return_code=2)
        elif isinstance(outcome, LoadCancelled) and len(self.screen_stack) <= 1:
            self.exit(return_code=130)

    def on_rank_loaded(self, message: RankLoaded) -> None:
        """A rank of a run is loaded: its main screen replaces the rank shown."""
        place = message.place
        while self.screen is not place.ranks and isinstance(
            self.screen, (MainScreen, LoadErrorScreen)
        ):
            self.pop_screen()
        self.push_screen(MainScreen(message.loaded, rank_place=place))
        self.sub_title = f"{message.loaded.path.name}, {place.label()}"

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        """The app's own commands plus every key of the main screen and its
        widgets that works now."""
        yield from super().get_system_commands(screen)
        if not isinstance(screen, MainScreen):
            return
        targets: list[tuple[Widget, str]] = [(screen, "")]
        for widget_type, where in (
            (Timeline, "timeline"),
            (OperatorTable, "operators"),
            (NotesPane, "notes"),
        ):
            targets += [(widget, where) for widget in screen.query(widget_type)]
        seen: set[str] = set()
        for target, where in targets:
            for binding in target.BINDINGS:
                if not isinstance(binding, Binding) or not binding.description:
                    continue
                if binding.action.startswith("app.") or binding.description in seen:
                    continue
                _, name, parameters = parse_action(binding.action)
                if target.check_action(name, parameters) is False:
                    continue  # offered only where it works (u on a rank of a run)
                seen.add(binding.description)
                yield SystemCommand(
                    binding.description,
                    f"key {binding.key}" + (f" ({where})" if where else ""),
                    partial(target.run_action, binding.action),
                )
