"""The loading screen: a progress bar while a worker reads the trace; Esc cancels."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from tui.app.messages import (
    LoadCancelled,
    LoadFailed,
    LoadProgressed,
    TraceLoaded,
    ZoneRefused,
)
from tui.app.widgets.key_footer import KeyFooter
from tui.core.base.textsafe import printable
from tui.core.base.vocab import LoadPhase
from tui.core.ingest.load import LoadProgress
from tui.report.progress import load_status

LoadOutcome = TraceLoaded | LoadFailed | LoadCancelled | ZoneRefused


class LoadingScreen(Screen[LoadOutcome]):
    """Reads, decodes and analyses a trace off the UI thread; dismisses with the outcome."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel loading"),
    ]

    def __init__(self, path: Path, zones: tuple[str, ...] = ()) -> None:
        """`zones`: data-zone names asked for on the command line (`--zone`)."""
        super().__init__()
        self.path = path
        self.zones = zones
        self.cancel_event = threading.Event()

    def compose(self) -> ComposeResult:
        with Vertical(id="loading-box"):
            yield Static(
                Text.assemble(("Loading ", "bold"), printable(str(self.path))),
                id="loading-title",
                markup=False,
            )
            yield ProgressBar(total=None, show_eta=False, id="loading-bar")
            yield Static("starting", id="loading-phase", markup=False)
            yield Static(
                Text("Esc cancels", style="italic"), id="loading-hint", markup=False
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        """Load, analyse and index in a thread; only posts messages back. Every
        failure becomes a one-line reason on the load-error screen."""
        from tui.core.base.errors import LoadCancelled as CoreCancelled
        from tui.core.base.errors import TraceLoadError

        try:
            self.post_message(self._outcome())
        except CoreCancelled:
            self.post_message(LoadCancelled(self.path))
        except TraceLoadError as error:
            self.post_message(LoadFailed(self.path, str(error)))
        except MemoryError:
            self.post_message(
                LoadFailed(self.path, "not enough memory to load this trace")
            )
        except Exception as error:  # any other failure must still leave this screen
            self.post_message(
                LoadFailed(
                    self.path,
                    f"unexpected {type(error).__name__} while loading: {error} "
                    "(a steptrace bug: please report it)",
                )
            )

    def _outcome(self) -> TraceLoaded | ZoneRefused:
        """Everything the main screen shows at once, computed here, off the UI."""
        from tui.app.screens.findings_later import after_the_screen
        from tui.core.base.errors import LoadCancelled as CoreCancelled
        from tui.core.opening.capture import open_capture
        from tui.core.opening.zones import ZoneRefusal
        from tui.report.refusals import forgotten_zone_notice, zone_refusal_lines
        from tui.view.layout import ZoneView
        from tui.view.timeline_index import TimelineIndex

        store, problem = self._open_notes()
        remembered = store.zone.names if store is not None and store.zone else ()
        opened = open_capture(
            self.path,
            asked=self.zones,
            remembered=remembered,
            progress=self._progress,
            cancel=self.cancel_event,
        )
        if isinstance(opened, ZoneRefusal):
            lines = zone_refusal_lines(opened)
            return ZoneRefused(self.path, [f"steptrace: {line}" for line in lines])
        trace, analysis = opened.trace, opened.analysis
        notice = forgotten_zone_notice(opened.zones)
        shown = opened.for_screen(findings=not after_the_screen(trace))
        self._phase(LoadPhase.INDEXING, trace.file_size, "the timeline")
        index = TimelineIndex.build(trace, analysis, self.cancel_event.is_set)
        zone_view = ZoneView.build(index, analysis)
        if self.cancel_event.is_set():
            raise CoreCancelled()
        return TraceLoaded(
            self.path,
            trace,
            analysis,
            shown.findings,
            shown.op_table,
            index,
            zone_view,
            store,
            problem,
            [notice] if notice else [],
        )

    def _open_notes(self) -> tuple[Any, str | None]:
        """The capture's notes store (reading the sidecar is I/O: done here), or why not."""
        from tui.notes import NotesError, NotesStore

        try:
            return NotesStore.open(self.path), None
        except (NotesError, OSError) as error:
            return None, str(error)

    def _phase(self, phase: LoadPhase, size: int, detail: str) -> None:
        self.post_message(
            LoadProgressed(LoadProgress(phase, size, size, detail=detail))
        )

    def _progress(self, progress: LoadProgress) -> None:
        self.post_message(LoadProgressed(progress))

    def on_load_progressed(self, message: LoadProgressed) -> None:
        """Bytes fill the first half of the bar, the build phases the second."""
        progress = message.progress
        bar = self.query_one(ProgressBar)
        phase = self.query_one("#loading-phase", Static)
        phase.update(load_status(progress))
        if progress.phase.counts_bytes:
            share = (
                progress.bytes_read / progress.bytes_total
                if progress.bytes_total
                else 0
            )
            bar.update(total=100, progress=50 * share)
            return
        index = progress.phase.position
        within = (
            progress.events_done / progress.events_total
            if progress.events_total
            else 0.0
        )
        bar.update(
            total=100,
            progress=50 + 50 * (index + within) / (LoadPhase.build_steps() + 1),
        )

    def on_trace_loaded(self, message: TraceLoaded) -> None:
        self.dismiss(message)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.dismiss(message)

    def on_load_cancelled(self, message: LoadCancelled) -> None:
        self.dismiss(message)

    def on_zone_refused(self, message: ZoneRefused) -> None:
        self.dismiss(message)

    def action_cancel(self) -> None:
        """Ask the worker to stop; it answers with LoadCancelled."""
        self.cancel_event.set()
        self.query_one("#loading-phase", Static).update("cancelling…")
