"""One capture reduced to what a diff compares: a small summary, computed once per capture.

`CaptureSide.of(analysis)` holds aggregates only (step times, operator and
kernel tables over the whole trace and summed over the kept steps, data-zone
totals, the description, the facts the trace records about where it ran), so a
diff of two sides is
cheap, and a run of many ranks can summarise each rank where it is and diff
the summaries.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.diff.facts import TraceFacts
from tui.core.diff.steps import StepFigures
from tui.core.diff.tables import KernelTotals
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_events, kernel_table
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import shape_op_table, shapes_in_trace
from tui.core.figures.zones import (
    StepZone,
    ZoneSummary,
    default_zone_choice,
)
from tui.core.findings.finding import Finding
from tui.core.findings.readings import compute_findings
from tui.core.model.description import CaptureDescription
from tui.core.model.observed import gpu_missing_reason

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ZoneFigures:
    """A capture's data zone: totals over the trace, and each window step's zone and gap."""

    summary: ZoneSummary
    steps: tuple[StepZone, ...]
    names_present: frozenset[str]
    default_names: tuple[str, ...]
    """The data zone this capture would read on its own (description, default, DataLoader)."""
    kept: frozenset[int] = frozenset()
    """The window steps the per-step means read (warm-up and outliers set aside)."""

    @classmethod
    def of(cls, analysis: Analysis, kept: tuple[int, ...] = ()) -> ZoneFigures:
        """The zone figures of an analysed capture (its zone choice as it is)."""
        reading = analysis.zone_reading
        window = [reading.step_zone(step.number) for step in analysis.active_steps]
        return cls(
            ZoneSummary.of(reading),
            tuple(figure for figure in window if figure is not None),
            analysis.zone_names_present,
            default_zone_choice(analysis.trace, analysis.zone_names_present).names,
            frozenset(kept),
        )

    @property
    def _kept_figures(self) -> list[StepZone]:
        return [figure for figure in self.steps if figure.step in self.kept]

    @property
    def mean_kept_zone_ns(self) -> float | None:
        """Mean zone time per kept step; None without kept steps."""
        values = [figure.zone_ns for figure in self._kept_figures]
        return float(statistics.fmean(values)) if values else None

    @property
    def mean_kept_gap_ns(self) -> float | None:
        """Mean gap time per kept step; None when the zone is not found."""
        if not self.found:
            return None
        values = [figure.gap_ns or 0 for figure in self._kept_figures]
        return float(statistics.fmean(values)) if values else None

    @property
    def found(self) -> bool:
        """Whether the data zone occurs in the capture."""
        return self.summary.total_gap_ns is not None

    @property
    def median_zone_ns(self) -> float | None:
        """Median zone time per window step; None without window steps."""
        values = [figure.zone_ns for figure in self.steps]
        return float(statistics.median(values)) if values else None

    @property
    def median_gap_ns(self) -> float | None:
        """Median gap time per window step; None when no step holds the zone."""
        if not self.found:
            return None
        values = [figure.gap_ns or 0 for figure in self.steps]
        return float(statistics.median(values)) if values else None


@dataclass(frozen=True)
class CaptureSide:
    """Everything a diff reads of one capture."""

    path: str
    capture: CaptureDescription
    gpu_observed: bool
    gpu_missing_reason: str | None
    steps: StepFigures
    ops: OpTable
    kernels: KernelTotals | None
    zone: ZoneFigures
    facts: TraceFacts
    ops_kept: OpTable
    """Operators by name, summed over the kept steps (divide by `kept_count` for a mean)."""
    kernels_kept: KernelTotals | None
    """Kernels starting in the kept steps, summed (None: no GPU events)."""
    findings: tuple[Finding, ...] = ()
    """The capture's readings, whose per-step costs say what moved."""

    @property
    def kept_count(self) -> int:
        """How many steps the per-step figures average over."""
        return len(self.steps.kept.kept)

    @classmethod
    def of(cls, analysis: Analysis, *, by_shape: bool = False) -> CaptureSide:
        """Summarise an analysed capture: whole-trace operators and kernels, window steps, zone.

        `by_shape` keys operator rows by name and input shapes (as
        key_averages(group_by_input_shape=True)) when the trace recorded them.
        """
        trace = analysis.trace
        kernels = (
            KernelTotals.of(kernel_table(trace, kernel_events(trace)))
            if trace.gpu_observed
            else None
        )
        steps = StepFigures.of(analysis)
        kept = set(steps.kept.kept)
        spans = [
            (step.start_ns, step.end_ns)
            for step in analysis.active_steps
            if step.number in kept
        ]
        kernels_kept = None
        if trace.gpu_observed:
            every = kernel_events(trace)
            kernels_kept = KernelTotals.of(
                kernel_table(trace, every[_inside(trace.start_ns[every], spans)])
            )
        return cls(
            str(trace.path),
            trace.capture,
            trace.gpu_observed,
            gpu_missing_reason(trace),
            steps,
            shape_op_table(analysis)
            if by_shape and shapes_in_trace(trace)
            else analysis.op_table(),
            kernels,
            ZoneFigures.of(analysis, steps.kept.kept),
            TraceFacts.of(trace, tuple(step.number for step in analysis.window_steps)),
            analysis.op_table_in(spans),
            kernels_kept,
            tuple(compute_findings(analysis)),
        )


def _inside(starts: npt.NDArray[np.int64], spans: list[tuple[int, int]]) -> BoolArray:
    """Which of `starts` fall in one of `spans` (disjoint [start, end), in time order)."""
    if not spans:
        return np.zeros(starts.size, dtype=np.bool_)
    lows = np.array([start for start, _ in spans], dtype=np.int64)
    highs = np.array([end for _, end in spans], dtype=np.int64)
    index = np.searchsorted(lows, starts, side="right") - 1
    return (index >= 0) & (starts < highs[np.maximum(index, 0)])
