"""How device work was launched: the CPU launch call's duration and the delay until the work starts.

A kernel, copy or set is launched by a runtime call (`cudaLaunchKernel`,
`cudaMemcpyAsync`, `hipLaunchKernel`, an MTIA `runFunction`…) found through
its correlation id (`Analysis.launch_call`). The launch delay is the time
from the end of that call to the start of the work; like HTA's
`get_cuda_kernel_launch_stats` it is never negative (a start before the
call's end is clock skew between host and device, read as 0). Work whose
launch call is not in the trace has no launch figures, never 0.

Work replayed by a CUDA graph (`cudaGraphLaunch`: one call, many kernels
sharing its correlation) has no launch of its own: the graph call's
duration and the delay to each node are not what launching that kernel
cost, so, as HTA's launch statistics (which match only cudaLaunchKernel,
cudaMemcpyAsync and the like), graph replays are left out of them and
counted apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.grouped import median_or_none
from tui.core.figures.kept import kept_value
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# HTA's get_cuda_kernel_launch_stats thresholds: a launch call over 50 µs is
# slow, a start over 100 µs after its call's end is late.
SLOW_LAUNCH_NS = 50_000
LATE_START_NS = 100_000
# Kernels shorter than this read as "short" (the launch costs as much as the work).
SHORT_KERNEL_NS = 10_000

# Runtime and driver calls that replay a CUDA (or HIP) graph, as Kineto and
# roctracer name them (CUPTI's cbid names without their `_v10000` suffix).
_GRAPH_LAUNCH = re.compile(r"(?:cuda|cu|hip)GraphLaunch(?:_ptsz|_spt)?")
# Kineto built with CUDA >= 12 writes the graph in device events' args
# (libkineto `getGraphNodeMetadata`); 0 for work no graph launched.
_GRAPH_ID = re.compile(rb'"graph id"\s*:\s*([1-9][0-9]*)')
GRAPH_ID_KEY = "graph id"


def is_graph_launch(name: str) -> bool:
    """Whether a runtime/driver call of this name replays a graph."""
    return _GRAPH_LAUNCH.fullmatch(name) is not None


def graph_ids(trace: Trace) -> Int64Array:
    """For each event, the id of the graph that replayed it (`graph id` in its
    args, above 0); -1 for the rest and for traces that do not record it.

    The args are searched as bytes (one pass over them, no decoding) and only
    the events found are decoded, so a trace without graphs pays one scan.
    """
    ids = np.full(trace.event_count, -1, dtype=np.int64)
    if trace.args_blob.find(b'"graph id"') < 0:  # a search far faster than the regex
        return ids
    found = [match.start() for match in _GRAPH_ID.finditer(trace.args_blob)]
    if not found:
        return ids
    order = np.argsort(trace.args_begin, kind="stable")
    begins = trace.args_begin[order]
    position = np.searchsorted(begins, np.array(found, dtype=np.int64), "right") - 1
    candidates = distinct(order[position[position >= 0]])
    work = trace.device_work_mask
    for event in candidates.tolist():
        if not work[event]:
            continue
        value = trace.event_args(event).get(GRAPH_ID_KEY)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            ids[event] = value
    return ids


@dataclass(frozen=True)
class GraphReplays:
    """Per trace event: device work replayed by a graph (`work`), and the id
    of that graph where the trace records one (`ids`, -1 elsewhere)."""

    work: BoolArray
    ids: Int64Array

    @classmethod
    def of(cls, trace: Trace, launch_call: Int64Array) -> GraphReplays:
        """Work launched by a graph launch call (`Analysis.launch_call`), or
        carrying a graph id (its launch call may be missing from the trace)."""
        graph_names = np.array(
            [index for index, name in enumerate(trace.names) if is_graph_launch(name)],
            dtype=np.int32,
        )
        linked = launch_call >= 0
        by_call = linked & np.isin(
            trace.name_id[np.where(linked, launch_call, 0)], graph_names
        )
        ids = kept_value(
            trace,
            "graph_ids",
            ("figures/launches.py",),
            lambda: graph_ids(trace),
            _sparse_ids,
            partial(_full_ids, trace.event_count),
        )
        work: BoolArray = trace.device_work_mask & (by_call | (ids > 0))
        return cls(work, ids)


def _sparse_ids(ids: Int64Array) -> bytes:
    """The events with a graph id and their ids (a scan of every args to find)."""
    import msgspec

    events = np.flatnonzero(ids >= 0)
    return msgspec.msgpack.encode([events.tolist(), ids[events].tolist()])


def _full_ids(count: int, data: bytes) -> Int64Array:
    import msgspec

    events, values = msgspec.msgpack.decode(data, type=tuple[list[int], list[int]])
    ids = np.full(count, -1, dtype=np.int64)
    ids[np.array(events, dtype=np.int64)] = np.array(values, dtype=np.int64)
    return ids


def graph_work(trace: Trace, launch_call: Int64Array) -> BoolArray:
    """Per trace event: device work replayed by a graph (see `GraphReplays`)."""
    return GraphReplays.of(trace, launch_call).work


@dataclass(frozen=True)
class Launches:
    """Launch columns for some device events, aligned with `events`.

    `call` is -1 where the launch call is unknown; `graph` marks work replayed
    by a graph (its call is the graph launch). `call_ns` and `delay_ns` are
    -1 for both and left out of every figure (`linked` says which count).
    """

    events: Int64Array
    call: Int64Array
    call_ns: Int64Array
    delay_ns: Int64Array
    graph: BoolArray

    @property
    def linked(self) -> BoolArray:
        """Which events have a launch call of their own (known, not a graph replay)."""
        return (self.call >= 0) & ~self.graph

    @classmethod
    def of(
        cls,
        trace: Trace,
        launch_call: Int64Array,
        events: Int64Array,
        graph: BoolArray | None = None,
    ) -> Launches:
        """The launch figures of `events`, from the launch call of each
        (`Analysis.launch_call`); `graph`: per trace event, work replayed by a
        graph (`Analysis.graph_work`; computed here when not given)."""
        if graph is None:
            graph = graph_work(trace, launch_call)
        call = launch_call[events]
        replayed = graph[events]
        linked = (call >= 0) & ~replayed
        safe = np.where(linked, call, 0)
        call_ns = np.where(linked, trace.duration_ns[safe], -1)
        call_end = trace.start_ns[safe] + trace.duration_ns[safe]
        delay = np.maximum(trace.start_ns[events] - call_end, 0)
        return cls(
            events=events,
            call=call.astype(np.int64),
            call_ns=call_ns.astype(np.int64),
            delay_ns=np.where(linked, delay, -1).astype(np.int64),
            graph=replayed.astype(np.bool_),
        )


@dataclass(frozen=True)
class LaunchSummary:
    """Launch figures over a set of device events (HTA's launch statistics, in ns).

    Medians and sums are over the linked events only (graph replays are not:
    `graph_replays` counts them); None when none is linked.
    """

    events: int
    linked: int
    graph_replays: int
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
            graph_replays=int(launches.graph.sum()),
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
