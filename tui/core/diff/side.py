"""One capture reduced to what a diff compares: a small summary, computed once per capture.

`CaptureSide.of(analysis)` holds aggregates only (step times, operator and
kernel tables, data-zone totals, the description), so a diff of two sides is
cheap, and a run of many ranks can summarise each rank where it is and diff
the summaries.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

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
from tui.core.model.description import CaptureDescription
from tui.core.model.observed import gpu_missing_reason


@dataclass(frozen=True)
class ZoneFigures:
    """A capture's data zone: totals over the trace, and each window step's zone and gap."""

    summary: ZoneSummary
    steps: tuple[StepZone, ...]
    names_present: frozenset[str]
    default_names: tuple[str, ...]
    """The data zone this capture would read on its own (description, default, DataLoader)."""

    @classmethod
    def of(cls, analysis: Analysis) -> ZoneFigures:
        """The zone figures of an analysed capture (its zone choice as it is)."""
        reading = analysis.zone_reading
        window = [reading.step_zone(step.number) for step in analysis.active_steps]
        return cls(
            ZoneSummary.of(reading),
            tuple(figure for figure in window if figure is not None),
            analysis.zone_names_present,
            default_zone_choice(analysis.trace, analysis.zone_names_present).names,
        )

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
        return cls(
            str(trace.path),
            trace.capture,
            trace.gpu_observed,
            gpu_missing_reason(trace),
            StepFigures.of(analysis),
            shape_op_table(analysis)
            if by_shape and shapes_in_trace(trace)
            else analysis.op_table(),
            kernels,
            ZoneFigures.of(analysis),
        )
