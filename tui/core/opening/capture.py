"""Opening a capture: read it, choose its data zone, compute what its first screen shows.

The CLI's commands and the loading screen open a capture through
`open_capture`; `steptrace diff` opens a pair through `open_pair`, the
comparison screen the second capture beside the open one (`open_beside`).
The loading screen then asks `for_screen` for the figures the main screen
shows at once, and the zone switch `rezone`s an open analysis. Each runs in
the caller's thread (the app's workers), with the loader's progress callback
and cancel event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.core.base.vocab import CacheUse, LoadPhase, ZoneSource
from tui.core.figures.analysis import Analysis, ZoneChoice
from tui.core.figures.optable import OpTable
from tui.core.ingest import load
from tui.core.ingest.load import LoadProgress
from tui.core.model.trace import Trace
from tui.core.opening.zones import (
    ZoneRefusal,
    ZonesChosen,
    resolve_pair_zones,
    resolve_zones,
)

if TYPE_CHECKING:  # findings are read by the app, not by a command's result
    from tui.core.findings.finding import Finding

LoadCallback = Callable[[LoadProgress], None]

# Figures the main screen reads at once, computed while the loading screen shows.
FIRST_FIGURES = ("steps", "gaps", "self_cpu_ns", "self_gpu_ns")


@dataclass(frozen=True)
class ScreenFigures:
    """What the main screen shows at once, beside the analysis."""

    findings: list[Finding] | None
    """None when left for after the screen shows (a big capture)."""
    op_table: OpTable


@dataclass(frozen=True)
class OpenedCapture:
    """A capture read, with its data zone chosen."""

    path: Path
    trace: Trace
    zones: ZonesChosen

    @property
    def analysis(self) -> Analysis:
        """The analysis on the chosen data zone."""
        return self.zones.analysis

    def for_screen(self, *, findings: bool) -> ScreenFigures:
        """The figures the main screen shows at once (the findings only when
        `findings`), computed now so the screen's first frame reads cached values."""
        from tui.core.findings import readings

        analysis = self.analysis
        for figure in FIRST_FIGURES:
            getattr(analysis, figure)
        read = readings.compute_findings(analysis) if findings else None
        return ScreenFigures(read, analysis.op_table())


def open_capture(
    path: str | Path,
    *,
    asked: Sequence[str] = (),
    remembered: Sequence[str] = (),
    progress: LoadCallback | None = None,
    cancel: threading.Event | None = None,
    workers: int | None = None,
    max_memory: int | None = None,
) -> OpenedCapture | ZoneRefusal:
    """Read a capture (through the column cache) and choose its data zone:
    `asked` (refused when a name occurs nowhere), else `remembered`, else its own.

    TraceLoadError for an unreadable file or one whose events would need more
    than `max_memory`, core LoadCancelled when `cancel` is set; `progress`
    hears the loader's phases, then the analysing one.
    """
    trace = _read(path, progress, cancel, workers, max_memory)
    resolved = resolve_zones(trace, asked, remembered)
    if isinstance(resolved, ZoneRefusal):
        return resolved
    return OpenedCapture(Path(path), trace, resolved)


@dataclass(frozen=True)
class OpenedPair:
    """Two captures to compare, on the same zone names when some were asked for."""

    before: Analysis
    after: Analysis


def open_beside(
    before: Analysis,
    path: str | Path,
    *,
    asked: Sequence[str] = (),
    progress: LoadCallback | None = None,
    cancel: threading.Event | None = None,
    workers: int | None = None,
) -> OpenedPair | ZoneRefusal:
    """Read the capture at `path` to compare `before` with; the zone `asked` is
    refused when a name occurs in neither. Errors as `open_capture`'s."""
    trace = _read(path, progress, cancel, workers)
    resolved = resolve_pair_zones(before, Analysis(trace), asked)
    if isinstance(resolved, ZoneRefusal):
        return resolved
    return OpenedPair(*resolved)


def open_pair(
    before: str | Path,
    after: str | Path,
    *,
    asked: Sequence[str] = (),
    progress: LoadCallback | None = None,
    workers: int | None = None,
) -> OpenedPair | ZoneRefusal:
    """Read two captures to compare, as `open_beside` reads the second."""
    trace = _read(before, progress, None, workers)
    return open_beside(
        Analysis(trace), after, asked=asked, progress=progress, workers=workers
    )


def _read(
    path: str | Path,
    progress: LoadCallback | None,
    cancel: threading.Event | None,
    workers: int | None,
    max_memory: int | None = None,
) -> Trace:
    trace = load.load_trace(
        path,
        progress=progress,
        cancel=cancel,
        cache=CacheUse.AUTO,
        workers=workers,
        max_memory=max_memory,
    )
    if progress is not None:
        size = trace.file_size
        detail = f"{trace.event_count:,} events"
        progress(LoadProgress(LoadPhase.ANALYSING, size, size, detail=detail))
    return trace


@dataclass(frozen=True)
class Rezoned:
    """An open capture's analysis on another data zone, and its findings."""

    analysis: Analysis
    findings: list[Finding]


def rezone(analysis: Analysis, names: Sequence[str]) -> Rezoned:
    """`analysis` on the zone chosen among its names (none: the default one),
    with what follows the zone computed: its reading and the findings."""
    from tui.core.findings import readings

    choice = ZoneChoice(tuple(names), ZoneSource.CHOSEN) if names else None
    other = analysis.with_zones(choice)
    _ = other.zone_reading
    return Rezoned(other, readings.compute_findings(other))
