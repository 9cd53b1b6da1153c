"""What the main screen opens over itself: the help (built once), the dialogs
built before their first use (`build_ahead`), the new-capture
dialog, the comparison with another capture, the load warnings, and the list of
keys the help shows.

A served app (a browser's) launches no capture unless allowed to, and compares
only captures beside the open trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType

from tui.app.dialogs.capture import CaptureDialog
from tui.app.dialogs.compare_with import CompareWithDialog
from tui.app.dialogs.note_form import NoteDraft, NoteForm
from tui.app.dialogs.scrub import ScrubDialog
from tui.app.dialogs.zone_picker import ZonePicker
from tui.app.screens import rank_switch
from tui.app.screens.details import DetailsScreen
from tui.app.screens.figures import FiguresScreen
from tui.app.screens.help import HelpScreen, KeySection, timeline_keys
from tui.app.screens.kept_dialogs import KeptDialogs
from tui.app.screens.loading import LoadingScreen
from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline
from tui.core.base.textsafe import printable
from tui.core.base.vocab import SortKey
from tui.core.figures.zones import ZoneChoice
from tui.core.model.trace import Trace
from tui.notes.model import Status

if TYPE_CHECKING:
    from tui.app.screens.comparison import Before


def key_sections(main_keys: Sequence[BindingType], on_a_run: bool) -> list[KeySection]:
    """Every key of the explorer, by where it works (`main_keys`: the main
    screen's; `on_a_run`: it shows a rank of a run)."""
    return [
        ("Main screen", rank_switch.screen_keys(main_keys, on_a_run)),
        (
            "Timeline (w s a d x Q from any pane: it takes the focus back)",
            timeline_keys(main_keys, Timeline.BINDINGS),
        ),
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


def _help(sections: list[KeySection], trace: Trace) -> HelpScreen:
    from tui.view.memory_lane import memory_help

    return HelpScreen(sections, notes=[memory_help(trace)])


def show_help(dialogs: KeptDialogs, sections: list[KeySection], trace: Trace) -> None:
    """List every key; the help holds nothing per use: built once, shown again."""
    help_screen = dialogs.get(HelpScreen, lambda: _help(sections, trace))
    dialogs.host.app.push_screen(help_screen)


def build_ahead(
    dialogs: KeptDialogs, sections: list[KeySection], trace: Trace, zone: ZoneChoice
) -> None:
    """Build the help, the zone picker and the note form before their first use."""
    dialogs.build_ahead(
        (HelpScreen, lambda: _help(sections, trace)),
        (ZonePicker, lambda: ZonePicker([], zone)),
        (NoteForm, lambda: NoteForm("", NoteDraft("", "", "", Status.OPEN))),
    )


def show_warnings(app: App[Any], warnings: list[str]) -> None:
    """List the warnings reading the capture gave, one paragraph each."""
    listed = Text()
    for number, warning in enumerate(warnings):
        if number:
            listed.append("\n\n")
        listed.append("- ")
        listed.append(printable(warning))
    app.push_screen(FiguresScreen("Load warnings (as steptrace summary says)", listed))


def new_capture(app: App[Any]) -> None:
    """Open the new-capture dialog; the capture opens when it ends."""
    if not getattr(app, "capture_allowed", True):
        app.notify(
            "Captures are off in a served app: they run commands and write "
            "files on the server (steptrace serve --allow-capture turns them on).",
            severity="warning",
        )
        return

    def opened(path: Path | None) -> None:
        if path is not None:
            app.call_later(app.open_trace, path)  # type: ignore[attr-defined]

    app.push_screen(CaptureDialog(), opened)


def compare(app: App[Any], before: Before, sort: SortKey) -> None:
    """Ask for another capture and compare `before` with it (after), its
    operators sorted by `sort`."""
    from tui.app.screens.comparison import ComparisonScreen
    from tui.app.screens.comparison_data import CompareRequest

    def chosen(path: Path | None) -> None:
        if path is not None:
            request = CompareRequest(path, sort)
            app.push_screen(ComparisonScreen(before, request))

    confined = bool(getattr(app, "served", False)) and not getattr(
        app, "capture_allowed", True
    )
    app.push_screen(CompareWithDialog(before.path, confined=confined), chosen)
