"""What the main screen opens over itself: the help (built once), the new-capture
dialog, the comparison with another capture, and the list of keys the help shows.

A served app (a browser's) launches no capture unless allowed to, and compares
only captures beside the open trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding

from tui.app.dialogs.capture import CaptureDialog
from tui.app.dialogs.compare_with import CompareWithDialog
from tui.app.dialogs.note_form import NoteForm
from tui.app.dialogs.scrub import ScrubDialog
from tui.app.dialogs.zone_picker import ZonePicker
from tui.app.screens import rank_switch
from tui.app.screens.details import DetailsScreen
from tui.app.screens.help import HelpScreen, KeySection, timeline_keys
from tui.app.screens.loading import LoadingScreen
from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.base.vocab import SortKey

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def key_sections(screen: MainScreen) -> list[KeySection]:
    """Every key of the explorer, by where it works."""
    return [
        ("Main screen", rank_switch.screen_keys(screen, screen.BINDINGS)),
        ("Timeline", timeline_keys(screen.BINDINGS, Timeline.BINDINGS)),
        ("Operator table", OperatorTable.BINDINGS),
        ("Kernels", KernelTable.BINDINGS),
        ("Copies", CopiesView.BINDINGS),
        ("Findings", FindingsPanel.BINDINGS),
        ("Notes", NotesPane.BINDINGS),
        ("Note form", NoteForm.BINDINGS),
        ("Data zone picker", ZonePicker.BINDINGS),
        ("Details", DetailsScreen.BINDINGS),
        ("Loading", LoadingScreen.BINDINGS),
        ("New capture", CaptureDialog.BINDINGS),
        ("Share (scrub a copy)", ScrubDialog.BINDINGS),
        ("Compare with (path)", CompareWithDialog.BINDINGS),
        ("Everywhere", [Binding("ctrl+p", "", "Command palette")]),
    ]


def show_help(screen: MainScreen) -> None:
    """List every key; the help holds nothing per use, so it is built once per
    screen and shown again."""
    from tui.view.memory_lane import memory_help

    app = screen.app
    if not app.is_screen_installed(screen.help_name):
        help_screen = HelpScreen(
            key_sections(screen), notes=[memory_help(screen.trace)]
        )
        app.install_screen(help_screen, screen.help_name)
    app.push_screen(screen.help_name)


def new_capture(screen: MainScreen) -> None:
    """Open the new-capture dialog; the capture opens when it ends."""
    app = screen.app
    if not getattr(app, "capture_allowed", True):
        screen.notify(
            "Captures are off in a served app: they run commands and write "
            "files on the server (steptrace serve --allow-capture turns them on).",
            severity="warning",
        )
        return

    def opened(path: Path | None) -> None:
        if path is not None:
            app.call_later(app.open_trace, path)  # type: ignore[attr-defined]

    app.push_screen(CaptureDialog(), opened)


def compare(screen: MainScreen) -> None:
    """Ask for another capture and compare the screen's (before) with it (after)."""
    from tui.app.screens.comparison import ComparisonScreen
    from tui.app.screens.comparison_data import CompareRequest

    app = screen.app

    def chosen(path: Path | None) -> None:
        if path is not None:
            request = CompareRequest(path, SortKey(screen.mode))
            app.push_screen(ComparisonScreen(screen, request))

    confined = bool(getattr(app, "served", False)) and not getattr(
        app, "capture_allowed", True
    )
    app.push_screen(CompareWithDialog(screen.path, confined=confined), chosen)
