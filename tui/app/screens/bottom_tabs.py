"""The tabs of the main screen's bottom pane, in one list: adding a view is adding a tab here.

Each tab names its pane, its title and how to build its widget from what the
main screen shows (`TabInputs`); `BottomTabs` composes them in order, brings
one forward, says which filters (F) and selects in them what an anchor points
at; the screen binds 1, 2, 3… to them. A tab widget that shows figures of the
data zone implements `follow_analysis`, and follows whenever the zone changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.rows_view import SortableRows
from tui.core.base.vocab import SortKey
from tui.core.figures.analysis import Analysis, OpTable
from tui.core.findings.finding import Finding


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
        lambda shown: FindingsPanel(
            shown.findings, analysis=shown.analysis, id="findings"
        ),
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


class BottomPane(TabbedContent):
    """Textual's tabbed pane, not drawn again when the tab in front changes: its
    own lines do not show it (its tabs and panes follow), and a repaint drew
    all 39 of them on each tab key."""

    active: reactive[str] = reactive("", init=False, repaint=False)


class BottomTabs:
    """The main screen's bottom pane: its tabs, the one in front, what they select."""

    def __init__(self, host: Screen[Any]) -> None:
        """`host`: the screen the pane is composed in."""
        self.host = host

    def compose(self, shown: TabInputs) -> ComposeResult:
        """The tabbed pane, its tabs built from `shown`."""
        with BottomPane(id="bottom"):
            for number, tab in enumerate(TABS, start=1):
                with TabPane(f"{tab.title} [{number}]", id=tab.pane_id):
                    yield tab.make(shown)

    def show(self, pane_id: str) -> Widget:
        """Bring a tab forward; its widget."""
        self.host.query_one(TabbedContent).active = pane_id
        return self.host.query_one(f"#{pane_id}", TabPane).children[0]

    def filter_target(self) -> Any:
        """The table F filters: the tab in front when it filters, else the operators."""
        active = self.host.query_one(TabbedContent).active
        if active:
            widget = self.host.query_one(f"#{active}", TabPane).children[0]
            if isinstance(widget, Filterable):
                return widget
        return self.host.query_one(OperatorTable)

    def sortable_target(self) -> SortableRows[Any]:
        """The table o, O and r sort from anywhere: the tab in front when it
        sorts, else the operators (brought forward)."""
        active = self.host.query_one(TabbedContent).active
        if active:
            widget = self.host.query_one(f"#{active}", TabPane).children[0]
            if isinstance(widget, SortableRows):
                return widget
        self.show("tab-ops")
        return self.host.query_one(OperatorTable)

    def follow_analysis(self, analysis: Analysis, findings: list[Finding]) -> None:
        """Every tab that shows figures of the data zone follows another one."""
        for pane in self.host.query(TabPane):
            for widget in pane.children:
                if isinstance(widget, FollowsAnalysis):
                    widget.follow_analysis(analysis, findings)

    def select_operator(self, name: str, *, focus: bool = False) -> None:
        """Show the operators, the cursor on `name` (`focus`: and focus them)."""
        self.show("tab-ops")
        ops = self.host.query_one(OperatorTable)
        ops.select_name(name)
        if focus:
            self.host.set_focus(ops)

    def select_copy(self, event: int) -> None:
        """Show the copies, the cursor on the line of the copy `event`."""
        copies = self.show("tab-copies")
        if isinstance(copies, CopiesView):
            copies.select_copy(event)

    def select_kernel(self, name: str) -> None:
        """Show the kernels, the cursor on `name`."""
        kernels = self.show("tab-kernels")
        if isinstance(kernels, KernelTable):
            kernels.select_name(name)

    def select_finding(self, index: int) -> None:
        """Show the findings, the cursor on the `index`-th."""
        panel = self.show("tab-findings")
        if isinstance(panel, FindingsPanel):
            panel.highlighted = index
