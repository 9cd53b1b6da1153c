"""CPU time, GPU work and waiting in the window, kept apart: three figures, never added.

Each is a union of intervals (`Intervals`) inside the window's steps, so
nested or concurrent activity counts once and no figure exceeds the step
time it is a share of:

* CPU time — when some CPU thread runs an operator or a runtime/driver call
  (annotations such as zones and the steps themselves are labels, not work);
* GPU work — when some device runs a kernel, copy or set (None: not observed);
* waiting — the data zone's gaps: device idle, or the zone's untraced time
  (no thread runs a traced operator; not proven to be waiting) when the
  capture holds no GPU events (None when it holds no data zone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import median
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import GapKind
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import step_name_ids
from tui.core.model.trace import Kind

Int64Array = npt.NDArray[np.int64]

# Events that are CPU work (not labels): operators, runtime and driver calls.
CPU_WORK_KINDS = (Kind.CPU_OP, Kind.RUNTIME, Kind.DRIVER)


def cpu_busy(analysis: Analysis) -> Intervals:
    """When some CPU thread runs an operator or a runtime/driver call."""
    trace = analysis.trace
    mask = (
        analysis.on_cpu
        & np.isin(trace.kind, np.array(CPU_WORK_KINDS, dtype=np.uint8))
        & ~np.isin(trace.name_id, step_name_ids(trace))
    )
    events = np.flatnonzero(mask)
    starts = trace.start_ns[events]
    return Intervals.union_of(starts, starts + trace.duration_ns[events])


@dataclass(frozen=True)
class TimeSplit:
    """Per window step: its time, CPU time, GPU work, data zone and waiting (ns)."""

    step_numbers: tuple[int, ...]
    step_ns: Int64Array
    cpu_ns: Int64Array
    gpu_ns: Int64Array | None
    zone_ns: Int64Array
    wait_ns: Int64Array | None
    wait_kind: GapKind

    @classmethod
    def of(cls, analysis: Analysis) -> TimeSplit:
        """Split the active window of an analysed capture."""
        steps = analysis.active_steps
        starts = np.array([step.start_ns for step in steps], dtype=np.int64)
        ends = np.array([step.end_ns for step in steps], dtype=np.int64)
        reading = analysis.zone_reading
        gpu = (
            analysis.busy_all_devices.covered_in(starts, ends)
            if analysis.trace.gpu_observed
            else None
        )
        return cls(
            tuple(step.number for step in steps),
            ends - starts,
            cpu_busy(analysis).covered_in(starts, ends),
            gpu,
            reading.zone.covered_in(starts, ends),
            reading.gap_union.covered_in(starts, ends) if reading.found else None,
            reading.kind,
        )

    @property
    def window_ns(self) -> int:
        """The window's time: its steps are disjoint, so a sum."""
        return int(self.step_ns.sum())

    @staticmethod
    def total(values: Int64Array | None) -> int | None:
        """A per-step column's sum over the window (None stays None)."""
        return None if values is None else int(values.sum())

    def share(self, values: Int64Array | None) -> float | None:
        """A per-step column's part of the window's time (None: not observed or no window)."""
        window = self.window_ns
        if values is None or window <= 0:
            return None
        return int(values.sum()) / window

    @staticmethod
    def median(values: Int64Array | None) -> float | None:
        """A per-step column's median (None: not observed or no step)."""
        if values is None or values.size == 0:
            return None
        return median(values)
