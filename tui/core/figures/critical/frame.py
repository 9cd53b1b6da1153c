"""The rows a critical path reads, as HTA 0.5.0 loads them (DEFINITIONS.md §1, §13).

HTA's frame, kept so that the path's split can be checked against HTA's:
every event with a category (not `Trace`), its integer `stream` argument
(-1 without one), its times rounded inward to whole microseconds when the
file has fractions, the call and the device row sharing a correlation id
paired (HTA's `index_correlation`), and, with two or more `ProfilerStep`
names, device rows whose call is not in the file left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.figures.breakdown.rows import HTA_SYNC_NAMES, hta_times
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

NO_ROW = -1
# Categories of the CPU events that are nodes: HTA's operator-or-runtime query,
# the older profilers' names for the same, and MTIA's runtime, whose launch call
# HTA's launch query names (HTA fails on those traces: DEFINITIONS.md §13.2).
NODE_CATEGORIES = frozenset(
    {"cpu_op", "cuda_runtime", "cuda_driver", "Operator", "Runtime", "mtia_runtime"}
)
SYNC_CATEGORY = "cuda_sync"
# HTA's runtime launch calls (trace_symbol_table.get_runtime_launch_events_query).
LAUNCH_NAMES = frozenset(
    {
        "cudaLaunchKernel",
        "cudaLaunchKernelExC",
        "cuLaunchKernel",
        "cudaMemcpyAsync",
        "cudaMemsetAsync",
        "runFunction - job_prep_and_submit_for_execution",
        "hipLaunchKernel",
        "hipExtModuleLaunchKernel",
        "hipMemsetAsync",
        "hipMemcpyAsync",
        "hipMemcpyWithStream",
    }
)
# Calls whose last stretch is waiting on the device (HTA's BLOCKING_SYNC_CALLS).
BLOCKING_NAMES = frozenset(
    {
        "cudaDeviceSynchronize",
        "cudaStreamSynchronize",
        "cudaEventQuery",
        "cudaEventSynchronize",
        "cudaMemcpy",
        "cudaMemcpyAsync",
    }
)


def _names_mask(trace: Trace, wanted: frozenset[str]) -> BoolArray:
    ids = trace.name_ids_matching(set(wanted))
    return np.isin(trace.name_id, ids)


@dataclass(frozen=True)
class HtaFrame:
    """Per event of the trace (full-length columns): whether HTA keeps it, its
    stream, its times and its correlated partner."""

    trace: Trace
    kept: BoolArray
    stream: Int64Array
    start_ns: Int64Array
    end_ns: Int64Array
    partner: Int64Array  # the row sharing its correlation (call <-> device), NO_ROW
    linked: BoolArray  # HTA's "GPU kernel" rows: device rows and Event/Context Syncs

    @classmethod
    def of(cls, trace: Trace) -> HtaFrame:
        """HTA's frame of one trace (one rank)."""
        category_ok = np.array(
            [bool(category) and category != "Trace" for category in trace.categories]
            or [False],
            dtype=bool,
        )
        kept = category_ok[trace.category_id] & (trace.kind != Kind.TRACE_SPAN)
        stream = trace.stream_arg
        linked = ((stream >= 0) & (trace.correlation >= 0)) | _names_mask(
            trace, HTA_SYNC_NAMES
        )
        step_names = {
            trace.names[int(name)]
            for name in distinct(trace.name_id[kept]).tolist()
            if "ProfilerStep" in trace.names[int(name)]
        }
        if len(step_names) >= 2:
            calls = distinct(trace.correlation[kept & ~linked])
            kept = kept & (~linked | np.isin(trace.correlation, calls))
        everything = np.arange(trace.event_count, dtype=np.int64)
        start, end = hta_times(trace, everything)
        partner = _partners(trace.correlation, kept, linked)
        return cls(trace, kept, stream, start, end, partner, linked)

    @cached_property
    def duration_ns(self) -> Int64Array:
        """End minus start: 0 or negative for events HTA's rounding emptied."""
        return self.end_ns - self.start_ns

    @cached_property
    def node_category(self) -> BoolArray:
        """Events of the CPU categories that are graph nodes."""
        wanted = np.array(
            [category in NODE_CATEGORIES for category in self.trace.categories]
            or [False],
            dtype=bool,
        )
        return wanted[self.trace.category_id]

    @cached_property
    def sync_rows(self) -> BoolArray:
        """The device-side synchronisation rows (category cuda_sync)."""
        wanted = np.array(
            [category == SYNC_CATEGORY for category in self.trace.categories]
            or [False],
            dtype=bool,
        )
        return wanted[self.trace.category_id]

    @cached_property
    def blocking(self) -> BoolArray:
        """Calls that block the host until the device catches up."""
        return _names_mask(self.trace, BLOCKING_NAMES)

    @cached_property
    def launches(self) -> BoolArray:
        """Kept launch calls paired with a device row (HTA's runtime launch query)."""
        return self.kept & _names_mask(self.trace, LAUNCH_NAMES) & (self.partner >= 0)

    def name(self, event: int) -> str:
        """The event's name."""
        return self.trace.event_name(event)


def _partners(
    correlation: Int64Array, kept: BoolArray, linked: BoolArray
) -> Int64Array:
    """Each kept row's partner: the kept row on the other side with its correlation id."""
    partner = np.full(correlation.size, NO_ROW, dtype=np.int64)
    calls = np.flatnonzero(kept & ~linked & (correlation >= 0))
    devices = np.flatnonzero(kept & linked & (correlation >= 0))
    for side, other in ((calls, devices), (devices, calls)):
        if side.size == 0 or other.size == 0:
            continue
        order = other[np.argsort(correlation[other], kind="stable")]
        keys = correlation[order]
        position = np.searchsorted(keys, correlation[side], side="left")
        safe = np.minimum(position, keys.size - 1)
        found = keys[safe] == correlation[side]
        partner[side[found]] = order[safe[found]]
    return partner
