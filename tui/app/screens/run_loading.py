"""The run loading screen: the ranks of a folder read in worker processes, with progress per rank.

The reading is `tui.core.runs` (discover, the memory-bounded process pool,
across): here a thread worker drives it and posts progress; Esc (or
leaving the screen, or the app) sets the cancel event, on which the pool
ends every worker process before the worker reports the cancel.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from tui.app.messages import LoadCancelled, LoadFailed, RunLoaded, ZoneRefused
from tui.app.widgets.key_footer import KeyFooter
from tui.core.base.textsafe import printable
from tui.core.base.vocab import RankEnd
from tui.report.progress import rank_phase

RunOutcome = RunLoaded | LoadFailed | LoadCancelled | ZoneRefused
# Ranks in flight listed on the screen (the others are counted).
SHOWN_IN_FLIGHT = 6


@dataclass
class RunProgressed(Message):
    """A run's reading moved on: ranks finished, and what those in flight are doing."""

    finished: int
    total: int
    loading: list[str]

    def can_replace(self, message: Message) -> bool:
        """Each carries the whole state: only the newest is worth drawing."""
        return isinstance(message, RunProgressed)


def prepare_worker_processes() -> None:
    """Start multiprocessing's resource tracker while stderr is still the real one.

    Spawning a worker starts the tracker on first use, handing it stderr's
    file descriptor; inside the app, Textual's stand-in for stderr has none
    (-1), and the spawn would fail. Call before the app runs.
    """
    from multiprocessing import resource_tracker

    with contextlib.suppress(OSError, ValueError):
        resource_tracker.ensure_running()


class RankBoard:
    """The state of a run's reading, fed by the pool's per-rank progress (in the worker)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.finished = 0
        self.failed: list[str] = []
        self.loading: dict[str, str] = {}

    def update(self, progress: Any) -> None:
        """Take one `RankProgress`."""
        name = printable(Path(progress.path).name)
        self.finished = progress.finished
        self.total = progress.total
        if isinstance(progress.phase, RankEnd):
            self.loading.pop(name, None)
            if progress.phase is RankEnd.FAILED:
                self.failed.append(name)
            return
        self.loading[name] = rank_phase(progress)

    def lines(self) -> list[str]:
        """One line per rank in flight (a few), then how many more and how many failed."""
        items = list(self.loading.items())
        lines = [f"{name}: {phase}" for name, phase in items[:SHOWN_IN_FLIGHT]]
        if len(items) > SHOWN_IN_FLIGHT:
            lines.append(f"… and {len(items) - SHOWN_IN_FLIGHT} more")
        if self.failed:
            lines.append(f"{len(self.failed)} rank(s) could not be read")
        return lines


class RunLoadingScreen(Screen[RunOutcome]):
    """Reads a run folder off the UI thread; dismisses with the outcome."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel loading"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self,
        folder: Path,
        zones: tuple[str, ...] = (),
        workers: int | None = None,
        cluster: str | None = None,
    ) -> None:
        """`zones`: data-zone names asked for (`--zone`); `workers`: ranks read at
        once (None: as many as cores and memory allow; 1: in this process);
        `cluster`: a Dask scheduler's address to read the ranks on instead."""
        super().__init__()
        self.folder = folder
        self.zones = zones
        self.rank_workers = workers
        self.cluster = cluster
        self.cancel_event = threading.Event()

    def compose(self) -> ComposeResult:
        with Vertical(id="run-loading-box"):
            yield Static(
                Text.assemble(
                    ("Reading the run ", "bold"), printable(str(self.folder))
                ),
                id="run-loading-title",
                markup=False,
            )
            yield ProgressBar(total=None, show_eta=False, id="run-loading-bar")
            yield Static("finding the ranks", id="run-loading-phase", markup=False)
            yield Static("", id="run-loading-ranks", markup=False)
            where = (
                "each rank is read in its own process (through the column cache)"
                if self.cluster is None
                else f"each rank is read on the Dask cluster at {printable(self.cluster)}"
            )
            yield Static(Text(f"{where}; Esc cancels", style="italic"), markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.read()

    def on_unmount(self) -> None:
        """Leaving the screen (or the app) stops the reading and its processes."""
        self.cancel_event.set()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def read(self) -> None:
        """Discover, summarise and read the ranks across; only posts messages back."""
        from tui.core.base.errors import LoadCancelled as CoreCancelled
        from tui.core.base.errors import TraceLoadError

        try:
            self.post_message(self._outcome())
        except CoreCancelled:
            self.post_message(LoadCancelled(self.folder))
        except TraceLoadError as error:
            self.post_message(LoadFailed(self.folder, str(error)))
        except MemoryError:
            self.post_message(LoadFailed(self.folder, "not enough memory to read it"))
        except Exception as error:  # any other failure must still leave this screen
            self.post_message(
                LoadFailed(
                    self.folder,
                    f"unexpected {type(error).__name__} while reading the run: "
                    f"{error} (a steptrace bug: please report it)",
                )
            )

    def _outcome(self) -> RunOutcome:
        from tui.core.opening.run import open_run
        from tui.core.opening.zones import ZoneRefusal
        from tui.core.results.ranks import RanksResult
        from tui.report.refusals import zone_refusal_lines

        board = RankBoard(0)

        def discovered(layout: Any) -> None:
            board.total = len(layout.files)
            self.post_message(RunProgressed(0, board.total, []))

        def progress(step: Any) -> None:
            board.update(step)
            self.post_message(RunProgressed(board.finished, board.total, board.lines()))

        opened = open_run(
            self.folder,
            asked=self.zones,
            workers=self.rank_workers,
            progress=progress,
            cancel=self.cancel_event,
            discovered=discovered,
            cluster=self.cluster,
        )
        if isinstance(opened, ZoneRefusal):
            lines = zone_refusal_lines(opened)
            return ZoneRefused(self.folder, [f"steptrace: {line}" for line in lines])
        return RunLoaded(self.folder, RanksResult.of(opened), self.zones)

    def on_run_progressed(self, message: RunProgressed) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=max(message.total, 1), progress=message.finished)
        self.query_one("#run-loading-phase", Static).update(
            f"{message.finished} of {message.total} rank(s) read"
        )
        self.query_one("#run-loading-ranks", Static).update("\n".join(message.loading))

    def _finish(self, outcome: RunOutcome) -> None:
        """Leave with the outcome; the help, if open over this screen, goes first
        (dismissing pops whichever screen is on top)."""
        app = self.app
        while app.screen is not self and self in app.screen_stack:
            app.pop_screen()
        self.dismiss(outcome)

    def on_run_loaded(self, message: RunLoaded) -> None:
        self._finish(message)

    def on_load_failed(self, message: LoadFailed) -> None:
        self._finish(message)

    def on_load_cancelled(self, message: LoadCancelled) -> None:
        self._finish(message)

    def on_zone_refused(self, message: ZoneRefused) -> None:
        self._finish(message)

    def action_help(self) -> None:
        """What this screen does and its keys."""
        from tui.app.screens.help import HelpScreen

        self.app.push_screen(HelpScreen([("Reading a run", self.BINDINGS)]))

    def action_cancel(self) -> None:
        """Ask the reading to stop; its worker processes end, then it answers."""
        self.cancel_event.set()
        self.query_one("#run-loading-phase", Static).update("cancelling…")
