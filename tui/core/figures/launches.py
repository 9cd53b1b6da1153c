"""How device work was launched: the CPU launch call's duration and the delay until the work starts.

A kernel, copy or set is launched by a runtime call (`cudaLaunchKernel`,
`cudaMemcpyAsync`, `hipLaunchKernel`, an MTIA `runFunction`…) found through
its correlation id (`Analysis.launch_call`). The launch delay is the time
from the end of that call to the start of the work; like HTA's
`get_cuda_kernel_launch_stats` it is never negative (a start before the
call's end is clock skew between host and device, read as 0). Work whose
launch call is not in the trace has no launch figures, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import median_or_none
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# HTA's get_cuda_kernel_launch_stats thresholds: a launch call over 50 µs is
# slow, a start over 100 µs after its call's end is late.
SLOW_LAUNCH_NS = 50_000
LATE_START_NS = 100_000
# Kernels shorter than this read as "short" (the launch costs as much as the work).
SHORT_KERNEL_NS = 10_000


@dataclass(frozen=True)
class Launches:
    """Launch columns for some device events, aligned with `events`.

    `call` is -1 where the launch call is unknown; `call_ns` and `delay_ns`
    are then -1 too and left out of every figure (`linked` says which count).
    """

    events: Int64Array
    call: Int64Array
    call_ns: Int64Array
    delay_ns: Int64Array

    @property
    def linked(self) -> BoolArray:
        """Which events have a known launch call."""
        return self.call >= 0

    @classmethod
    def of(cls, trace: Trace, launch_call: Int64Array, events: Int64Array) -> Launches:
        """The launch figures of `events`, from the launch call of each (`Analysis.launch_call`)."""
        call = launch_call[events]
        linked = call >= 0
        safe = np.where(linked, call, 0)
        call_ns = np.where(linked, trace.duration_ns[safe], -1)
        call_end = trace.start_ns[safe] + trace.duration_ns[safe]
        delay = np.maximum(trace.start_ns[events] - call_end, 0)
        return cls(
            events=events,
            call=call.astype(np.int64),
            call_ns=call_ns.astype(np.int64),
            delay_ns=np.where(linked, delay, -1).astype(np.int64),
        )


@dataclass(frozen=True)
class LaunchSummary:
    """Launch figures over a set of device events (HTA's launch statistics, in ns).

    Medians and sums are over the linked events only; None when none is linked.
    """

    events: int
    linked: int
    call_median_ns: float | None
    call_total_ns: int | None
    delay_median_ns: float | None
    delay_total_ns: int | None
    work_median_ns: float | None
    work_total_ns: int | None
    slow_calls: int
    late_starts: int
    short_work: int

    @classmethod
    def of(cls, trace: Trace, launches: Launches) -> LaunchSummary:
        """Summarise the launch columns of some events."""
        linked = launches.linked
        calls = launches.call_ns[linked]
        delays = launches.delay_ns[linked]
        work = trace.duration_ns[launches.events[linked]]
        any_linked = bool(linked.any())
        return cls(
            events=int(launches.events.size),
            linked=int(linked.sum()),
            call_median_ns=median_or_none(calls),
            call_total_ns=int(calls.sum()) if any_linked else None,
            delay_median_ns=median_or_none(delays),
            delay_total_ns=int(delays.sum()) if any_linked else None,
            work_median_ns=median_or_none(work),
            work_total_ns=int(work.sum()) if any_linked else None,
            slow_calls=int((calls > SLOW_LAUNCH_NS).sum()),
            late_starts=int((delays > LATE_START_NS).sum()),
            short_work=int((work < SHORT_KERNEL_NS).sum()),
        )


def issued_at(
    trace: Trace, events: Int64Array, launch_call: Int64Array, owner: Int64Array
) -> Int64Array:
    """When the host issued each device event: its launch call's start, else its
    operator's start, else (unlinked) its own start — the time a step is chosen by."""
    call = launch_call[events]
    op = owner[events]
    return np.where(
        call >= 0,
        trace.start_ns[np.maximum(call, 0)],
        np.where(op >= 0, trace.start_ns[np.maximum(op, 0)], trace.start_ns[events]),
    ).astype(np.int64)


def step_index(
    times: Int64Array, step_starts: Int64Array, step_ends: Int64Array
) -> Int64Array:
    """For each time, the index of the (sorted, disjoint) step holding it; -1 for none."""
    position = np.searchsorted(step_starts, times, side="right") - 1
    safe = np.maximum(position, 0)
    inside = (position >= 0) & (
        times < step_ends[safe] if step_ends.size else np.zeros(times.size, dtype=bool)
    )
    return np.where(inside, position, -1).astype(np.int64)
