"""The tabs of the main screen's bottom pane, in one list: adding a view is adding a tab here.

Each tab names its pane, its title and how to build its widget from the main
screen; the screen composes them in order and binds 1, 2, 3… to them. A tab
widget that shows figures of the data zone implements `follow_analysis`, and
the screen calls it whenever the zone changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.widget import Widget

from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.core.figures.analysis import Analysis
from tui.core.findings.readings import Finding

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


@runtime_checkable
class FollowsAnalysis(Protocol):
    """A tab widget whose content depends on the data zone."""

    def follow_analysis(self, analysis: Analysis, findings: list[Finding]) -> None:
        """Show the figures of another analysis (another data zone)."""


@runtime_checkable
class Filterable(Protocol):
    """A tab widget that F filters by what is typed (operators, kernels, copies)."""

    filter_text: str

    def set_filter(self, text: str) -> None:
        """Keep only the rows matching `text` (empty: all)."""


@dataclass(frozen=True)
class BottomTab:
    """One tab: its pane id, its title, and the widget it shows (focused by its key)."""

    pane_id: str
    title: str
    make: Callable[[MainScreen], Widget]


TABS: list[BottomTab] = [
    BottomTab(
        "tab-ops",
        "Operators",
        lambda screen: OperatorTable(
            screen.window_table, mode=screen.mode, analysis=screen.analysis, id="ops"
        ),
    ),
    BottomTab(
        "tab-findings",
        "Findings",
        lambda screen: FindingsPanel(screen.findings, id="findings"),
    ),
    BottomTab("tab-notes", "Notes", lambda screen: NotesPane(id="notes")),
    BottomTab(
        "tab-kernels",
        "Kernels",
        lambda screen: KernelTable(screen.analysis, id="kernels"),
    ),
    BottomTab(
        "tab-copies",
        "Copies",
        lambda screen: CopiesView(screen.analysis, id="copies"),
    ),
]
