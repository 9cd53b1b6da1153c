"""Switching the main screen's data zone: the picker, the recomputation in a
worker (gaps, findings, the timeline's zone marks), and what to remember.

A part the screen owns: it runs its workers on its host screen, which hands
the answer (`ZoneApplied`) back to `applied` and shows it everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.screen import Screen

from tui.app.dialogs.zone_picker import ZonePicker
from tui.app.screens.kept_dialogs import KeptDialogs
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import ZoneCandidate
from tui.core.findings.finding import Finding
from tui.view.layout import ZoneView
from tui.view.status import StatusLine
from tui.view.timeline_index import TimelineIndex


@dataclass
class ZoneApplied(Message):
    """A worker recomputed everything that follows the data zone."""

    analysis: Analysis
    zone_view: ZoneView
    findings: list[Finding]


class ZoneSwitch:
    """The data zone of one main screen: its picker's lines, its recomputation."""

    def __init__(
        self,
        host: Screen[Any],
        index: TimelineIndex,
        say: Callable[[Text | StatusLine], None],
        dialogs: KeptDialogs,
    ) -> None:
        """`index`: the timeline's rows, for the new zone's marks; `say`: puts
        words on the host's status line; `dialogs`: where the picker is kept."""
        self.host = host
        self.dialogs = dialogs
        self.index = index
        self.say = say
        self.to_remember: tuple[str, ...] | None = None
        """A zone chosen in the picker, kept in the notes once applied."""
        self._candidates: tuple[Analysis, list[ZoneCandidate]] | None = None
        """The zone picker's lines and the analysis they were read for."""

    def open_picker(self, analysis: Analysis) -> None:
        """List the ranges that can be the data zone; the one chosen is applied
        and remembered."""

        def chosen(names: tuple[str, ...] | None) -> None:
            if names is not None:
                self.apply(analysis, names, remember=True)

        candidates, current = self.candidates(analysis), analysis.zone_choice
        picker = self.dialogs.get(ZonePicker, lambda: ZonePicker(candidates, current))
        picker.show_zone(candidates, current)
        self.host.app.push_screen(picker, chosen)

    def candidates(self, analysis: Analysis) -> list[ZoneCandidate]:
        """The picker's lines for this analysis, computed once (a pass over the trace)."""
        known = self._candidates
        if known is None or known[0] is not analysis:
            known = self._candidates = (analysis, analysis.zone_candidates())
        return known[1]

    def prefetch(self, analysis: Analysis) -> None:
        """Compute the picker's lines in a worker, so z opens at once."""
        self.host.run_worker(
            lambda: self.candidates(analysis),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="zone-candidates",
        )

    def apply(
        self, analysis: Analysis, names: tuple[str, ...], *, remember: bool
    ) -> None:
        """Recompute what follows the zone `names` off the UI; the host shows it."""
        self.to_remember = names if remember else None
        self.say(Text("recomputing the data zone's gaps and findings…", "italic"))
        self.host.run_worker(
            lambda: self.recompute(analysis, names),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="zone",
        )

    def recompute(self, analysis: Analysis, names: tuple[str, ...]) -> None:
        """In a worker: the analysis with another zone, its findings and timeline marks."""
        from tui.core.opening.capture import rezone

        rezoned = rezone(analysis, names)
        self.candidates(rezoned.analysis)
        zone_view = ZoneView.build(self.index, rezoned.analysis)
        self.host.post_message(
            ZoneApplied(rezoned.analysis, zone_view, rezoned.findings)
        )

    def applied(self) -> tuple[str, ...] | None:
        """The zone shown now was applied: the names to keep in the notes, if any."""
        names, self.to_remember = self.to_remember, None
        return names
