"""The tabs of the main screen's bottom pane, in one list: adding a view is adding a tab here.

Each tab names its pane, its title and how to build its widget from what the
main screen shows (`TabInputs`); the screen composes them in order and binds 1, 2, 3… to them. A tab
widget that shows figures of the data zone implements `follow_analysis`, and
the screen calls it whenever the zone changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from textual.widget import Widget

from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.core.base.vocab import SortKey
from tui.core.figures.analysis import Analysis, OpTable
from tui.core.findings.readings import Finding


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
class TabInputs:
    """What the tabs' widgets are built from: the main screen's analysis, its
    operators over the window, their order, and the findings (None: coming)."""

    analysis: Analysis
    window_table: OpTable
    mode: SortKey
    findings: list[Finding] | None


@dataclass(frozen=True)
class BottomTab:
    """One tab: its pane id, its title, and the widget it shows (focused by its key)."""

    pane_id: str
    title: str
    make: Callable[[TabInputs], Widget]


TABS: list[BottomTab] = [
    BottomTab(
        "tab-ops",
        "Operators",
        lambda shown: OperatorTable(
            shown.window_table, mode=shown.mode, analysis=shown.analysis, id="ops"
        ),
    ),
    BottomTab(
        "tab-findings",
        "Findings",
        lambda shown: FindingsPanel(shown.findings, id="findings"),
    ),
    BottomTab("tab-notes", "Notes", lambda shown: NotesPane(id="notes")),
    BottomTab(
        "tab-kernels",
        "Kernels",
        lambda shown: KernelTable(shown.analysis, id="kernels"),
    ),
    BottomTab(
        "tab-copies",
        "Copies",
        lambda shown: CopiesView(shown.analysis, id="copies"),
    ),
]
