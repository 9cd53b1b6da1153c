"""Switching the main screen's data zone: the picker, the recomputation in a
worker (gaps, findings, the timeline's zone marks), and showing the result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import TabPane

from tui.app.dialogs.zone_picker import ZonePicker
from tui.app.messages import ZoneApplied
from tui.app.screens.bottom_tabs import FollowsAnalysis
from tui.app.widgets.header_line import HeaderLine
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis, ZoneChoice
from tui.core.figures.zones import ZoneCandidate
from tui.view import status

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def open_picker(screen: MainScreen) -> None:
    """List the ranges that can be the data zone; the one chosen is applied and remembered."""

    def chosen(names: tuple[str, ...] | None) -> None:
        if names is not None:
            apply(screen, names, remember=True)

    analysis = screen.analysis
    screen.app.push_screen(
        ZonePicker(candidates(screen, analysis), analysis.zone_choice), chosen
    )


def candidates(screen: MainScreen, analysis: Analysis) -> list[ZoneCandidate]:
    """The picker's lines for this analysis, computed once (a pass over the trace)."""
    known = screen.zone_candidates
    if known is None or known[0] is not analysis:
        known = screen.zone_candidates = (analysis, analysis.zone_candidates())
    return known[1]


def prefetch(screen: MainScreen) -> None:
    """Compute the picker's lines in a worker, so z opens at once."""
    analysis = screen.analysis
    screen.run_worker(
        lambda: candidates(screen, analysis),
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="zone-candidates",
    )


def apply(screen: MainScreen, names: tuple[str, ...], *, remember: bool) -> None:
    """Recompute what follows the zone off the UI; `applied` shows it."""
    screen.zone_to_remember = names if remember else None
    screen.show_info(Text("recomputing the data zone's gaps and findings…", "italic"))
    screen.run_worker(
        lambda: recompute(screen, names),
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="zone",
    )


def recompute(screen: MainScreen, names: tuple[str, ...]) -> None:
    """In a worker: the analysis with another zone, its findings and timeline marks."""
    from tui.core.findings.readings import compute_findings
    from tui.view.layout import ZoneView

    choice = ZoneChoice(names, ZoneSource.CHOSEN) if names else None
    analysis = screen.analysis.with_zones(choice)
    _ = analysis.zone_reading
    candidates(screen, analysis)
    findings = compute_findings(analysis)
    zone_view = ZoneView.build(screen.timeline.index, analysis)
    screen.post_message(ZoneApplied(analysis, zone_view, findings))


def applied(screen: MainScreen, message: ZoneApplied) -> None:
    """Every part of the screen follows the new zone at once."""
    screen.analysis = message.analysis
    screen.findings = message.findings
    if screen.marked.gap_index is not None:
        screen.timeline.selected_range = None  # an old zone's gap
    screen.marked.gap_index = None
    screen.timeline.set_zone(message.analysis, message.zone_view)
    screen.query_one(HeaderLine).set_analysis(message.analysis)
    for pane in screen.query(TabPane):
        for widget in pane.children:
            if isinstance(widget, FollowsAnalysis):
                widget.follow_analysis(message.analysis, message.findings)
    screen.show_info(status.zone_info(message.analysis))
    screen.refresh_bindings()
    if screen.zone_to_remember is not None:
        screen.notes.remember_zone(screen.zone_to_remember)
        screen.zone_to_remember = None
