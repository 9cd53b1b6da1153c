"""Messages the explorer's widgets, screens and workers post to each other.

Kept in one module so every widget can import them without importing another
widget, and so a worker thread only ever posts one of these small dataclasses.
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
    from tui.app.screens.comparison_data import Comparison
    from tui.core.figures.analysis import Analysis, OpTable
    from tui.core.figures.shapes import ShapeOpTable
    from tui.core.findings.readings import Finding
    from tui.core.ingest.load import LoadProgress
    from tui.core.model.trace import Trace
    from tui.core.results.copies import CopiesResult
    from tui.core.results.kernels import KernelsResult
    from tui.core.results.ranks import RanksResult
    from tui.notes import Note, NotesStore
    from tui.scrub import CheckReport, ScrubReport
    from tui.view.copy_rows import CopyLine
    from tui.view.kernel_rows import KernelRows
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
class NotesUpdated(Message):
    """A notes job ran (edit, save, hash): the notes now, and what to tell."""

    notes: list[Note]
    notice: str | None = None
    error: str | None = None


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
class KernelsRead(Message):
    """A worker read the capture's kernels (the Kernels tab's figures) and built
    the tab's rows (None: no kernel figures)."""

    result: KernelsResult
    rows: KernelRows | None = None


@dataclass
class CopiesRead(Message):
    """A worker read the capture's copies (the Copies tab's figures) and built
    the tab's lines."""

    result: CopiesResult
    lines: list[CopyLine] = field(default_factory=list)


@dataclass
class ShapesRead(Message):
    """A worker grouped a scope's operators by input shape (`table` None: no
    shapes recorded); `span` is the scope it was asked for (None: the window)."""

    table: ShapeOpTable | None
    span: tuple[int, int] | None


@dataclass
class StepChosen(Message):
    """A step was chosen in the steps strip (index into Analysis.steps)."""

    index: int


@dataclass
class CaptureOutput(Message):
    """A line of output from a running capture subprocess."""

    line: str


@dataclass
class CaptureFinished(Message):
    """A capture subprocess ended; path is set when it produced a trace."""

    returncode: int
    path: Path | None


@dataclass
class ScrubChecked(Message):
    """A scrub check finished: what in the trace identifies people or places."""

    report: CheckReport


@dataclass
class ScrubWritten(Message):
    """A scrubbed copy was written: what it replaced, removed or kept."""

    report: ScrubReport


@dataclass
class ScrubFailed(Message):
    """A scrub check or write failed with a one-line reason (stage: check or write)."""

    stage: str
    reason: str


@dataclass
class ComparisonReady(Message):
    """A comparison worker loaded the other capture and compared both."""

    comparison: Comparison


@dataclass
class ComparisonFailed(Message):
    """A comparison worker could not load or compare (one line each)."""

    lines: list[str]


@dataclass
class RunProgressed(Message):
    """A run's reading moved on: ranks finished, and what those in flight are doing."""

    finished: int
    total: int
    loading: list[str]

    def can_replace(self, message: Message) -> bool:
        """Each carries the whole state: only the newest is worth drawing."""
        return isinstance(message, RunProgressed)


@dataclass
class RunLoaded(Message):
    """A run folder was read: its ranks side by side (`zones`: asked on the command line)."""

    path: Path
    result: RanksResult
    zones: tuple[str, ...] = ()


@dataclass
class RankCellHighlighted(Message):
    """The heat table's cursor is on this rank and step number."""

    rank: int
    step: int | None

    def can_replace(self, message: Message) -> bool:
        """Only the latest cell matters while keys repeat."""
        return isinstance(message, RankCellHighlighted)


@dataclass
class RankCellChosen(Message):
    """Enter on a heat table cell: open this rank's timeline at this step."""

    rank: int
    step: int | None
