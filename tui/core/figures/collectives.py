"""When a rank reaches its collectives in each step, and how long it spends in them.

A collective is a communication kernel (`kernel_types`, where an NCCL wait
happens: on the device) or, on a rank whose capture has none, a CPU op named
`gloo:*`, `c10d::*` or `nccl:*` (where a gloo wait happens: on the CPU, often
on a communication thread). A GPU collective belongs to the step its
launching call starts in; a CPU one to the step it starts in. Arrival is
measured from the rank's own step start, so clocks of different hosts never
meet; time in collectives is the union of their intervals, so nested and
concurrent ones count once. A CPU collective counts only within its step: a
gloo thread can close its range after the step's thread has moved on (seen
at several ms on a busy host), and time past the step is not the step's.
Kernels run behind the CPU by design, so a GPU collective counts whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import CollectiveSide
from tui.core.figures.kernel_types import communication_mask
from tui.core.model.steps import Step
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CPU_COLLECTIVE = re.compile(r"^(?:gloo:|c10d::|nccl:)")


@dataclass(frozen=True)
class StepCollectives:
    """A rank's collectives in one step: arrival from its step start, time in them, count."""

    arrival_ns: int | None
    busy_ns: int
    count: int


@dataclass(frozen=True)
class Collectives:
    """A rank's collective events: which side they were seen on, their intervals and owners' times."""

    side: CollectiveSide | None
    starts: Int64Array
    ends: Int64Array
    anchors: Int64Array  # when each was issued (launch call start, or its own start)

    def in_steps(self, steps: Sequence[Step]) -> list[StepCollectives]:
        """Arrival and time in collectives for each step."""
        order = np.argsort(self.anchors, kind="stable")
        anchors = self.anchors[order]
        starts = self.starts[order]
        ends = self.ends[order]
        result = []
        for step in steps:
            first = int(np.searchsorted(anchors, step.start_ns, side="left"))
            last = int(np.searchsorted(anchors, step.end_ns, side="left"))
            if last <= first:
                result.append(StepCollectives(None, 0, 0))
                continue
            step_ends = ends[first:last]
            if self.side is CollectiveSide.CPU:
                step_ends = np.minimum(step_ends, step.end_ns)
            union = Intervals.union_of(starts[first:last], step_ends)
            arrival = int(starts[first:last].min()) - step.start_ns
            result.append(StepCollectives(arrival, union.total_ns, last - first))
        return result


def cpu_collective_mask(trace: Trace, on_cpu: BoolArray) -> BoolArray:
    """CPU ops of collective libraries (`gloo:*`, `c10d::*`, `nccl:*`)."""
    ids = np.array(
        [index for index, name in enumerate(trace.names) if CPU_COLLECTIVE.match(name)]
        or [-1],
        dtype=np.int32,
    )
    mask: BoolArray = on_cpu & np.isin(trace.name_id, ids)
    return mask


def find_collectives(
    trace: Trace, on_cpu: BoolArray, launch_call: Int64Array
) -> Collectives:
    """The rank's collectives: communication kernels if it has any, else CPU collective ops."""
    kernels = np.flatnonzero(communication_mask(trace)).astype(np.int64)
    if kernels.size:
        starts = trace.start_ns[kernels]
        call = launch_call[kernels]
        anchors = np.where(call >= 0, trace.start_ns[np.maximum(call, 0)], starts)
        return Collectives(
            CollectiveSide.GPU,
            starts,
            starts + trace.duration_ns[kernels],
            anchors.astype(np.int64),
        )
    ops = np.flatnonzero(cpu_collective_mask(trace, on_cpu)).astype(np.int64)
    starts = trace.start_ns[ops]
    return Collectives(
        CollectiveSide.CPU if ops.size else None,
        starts,
        starts + trace.duration_ns[ops],
        starts,
    )
