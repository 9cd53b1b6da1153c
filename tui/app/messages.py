"""The explorer's app-wide messages: those more than one screen or widget
posts or handles (the timeline's events, seen by the main and comparison
screens; the loading outcomes the app routes; the rows of both operator
tables; the marks and status words of the bottom tabs).

A message of one widget, dialog or screen lives beside it (toolong, posting).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from rich.text import Text
from textual.message import Message

if TYPE_CHECKING:
    from tui.core.figures.analysis import Analysis, OpTable
    from tui.core.findings.finding import Finding
    from tui.core.ingest.load import LoadProgress
    from tui.core.model.trace import Trace
    from tui.core.results.ranks import RanksResult
    from tui.notes import NotesStore
    from tui.view.layout import ZoneView
    from tui.view.timeline_index import TimelineIndex


@dataclass
class EventSelected(Message):
    """The timeline's selected event changed (None clears it)."""

    event: int | None


@dataclass
class EventActivated(Message):
    """Enter on an event: the app opens its details."""

    event: int


@dataclass
class ViewChanged(Message):
    """The timeline's visible time range changed."""

    start_ns: int
    end_ns: int

    def can_replace(self, message: Message) -> bool:
        """Only the latest range matters while keys repeat."""
        return isinstance(message, ViewChanged)


@dataclass
class LoadProgressed(Message):
    """A loading worker read more of the trace file."""

    progress: LoadProgress

    def can_replace(self, message: Message) -> bool:
        """Only the newest progress is worth drawing."""
        return isinstance(message, LoadProgressed)


@dataclass
class TraceLoaded(Message):
    """A loading worker finished: the trace, its analysis, the timeline's index
    and the notes store are ready (`notices`: lines to tell the user)."""

    path: Path
    trace: Trace
    analysis: Analysis
    findings: list[Finding] | None
    """None on a big capture: the main screen computes them once it shows."""
    op_table: OpTable
    index: TimelineIndex
    zone_view: ZoneView
    notes: NotesStore | None = None
    notes_problem: str | None = None
    notices: list[str] = field(default_factory=list)


@dataclass
class ZoneRefused(Message):
    """A zone named on the command line occurs nowhere in the trace (one line each)."""

    path: Path
    lines: list[str]


@dataclass
class LoadFailed(Message):
    """A loading worker failed with a one-line reason."""

    path: Path
    reason: str


@dataclass
class LoadCancelled(Message):
    """A loading worker stopped because the user cancelled."""

    path: Path


@dataclass
class OperatorSelected(Message):
    """A row of the operator table was highlighted; `events`: the calls of a row
    by input shape (None: every event of the operator's name)."""

    name: str
    row: int
    events: npt.NDArray[np.int64] | None = None


@dataclass
class OperatorActivated(Message):
    """Enter on an operator row."""

    name: str
    row: int


@dataclass
class MarkEvents(Message):
    """Mark these events on the timeline and visit the first (a kernel's
    occurrences, a group of copies); `label` names them on the status line."""

    events: npt.NDArray[np.int64]
    label: str


@dataclass
class StatusText(Message):
    """Words for the status line from a bottom tab (the row under its cursor)."""

    text: Text


@dataclass
class RunLoaded(Message):
    """A run folder was read: its ranks side by side (`zones`: asked on the command line)."""

    path: Path
    result: RanksResult
    zones: tuple[str, ...] = ()
