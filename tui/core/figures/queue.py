"""The launch queue: per stream, how many device ops the host has launched that
have not started yet, over time (HTA 0.5.0's queue length analysis).

As HTA's `TraceCounters` counts it (tests/fixtures/hta/DEFINITIONS.md §14):
a stream's queue grows by one at the *start* of the runtime call that
launched an op (`cudaLaunchKernel`, `cudaMemcpyAsync`…) and shrinks by one
when the op *starts* on the device, so a running kernel is no longer queued.
Only ops whose launch call is in the trace are counted (both their steps or
neither): a kernel without its call would only ever shrink the queue, the
negative values HTA's `negative_queue_length_values_check` trace guards
against. Each point of the series is one change; the statistics are HTA's
`describe()` of those points (not weighted by time), and beside them the
mean over time, the time at a full queue (HTA's time blocked on a full queue,
1024 ops, CUDA's launch queue per stream) and the longest drain: the most
time an op waited between its launch and its start, which is how long the
stream took to empty the queue ahead of it.

At equal times a launch counts before a start (HTA leaves that order to an
unstable sort). Two rule sets, as the breakdowns: HTA's (its launch call
names, streams by number, fractional microseconds rounded as HTA does) and
steptrace's (every launch that is not a graph replay, one stream per track,
at the nanosecond).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.vocab import BreakdownRules
from tui.core.figures.breakdown.rows import hta_times
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# HTA 0.5.0's launch calls (TraceSymbolTable.get_runtime_launch_events_query).
HTA_LAUNCH_CALLS = frozenset(
    {
        "cudaLaunchKernel",
        "cudaLaunchKernelExC",
        "cuLaunchKernel",
        "cudaMemcpyAsync",
        "cudaMemsetAsync",
        "runFunction - job_prep_and_submit_for_execution",
        "hipLaunchKernel",
        "hipExtModuleLaunchKernel",
        "hipMemcpyAsync",
        "hipMemsetAsync",
        "hipMemcpyWithStream",
    }
)
# HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM: a stream's launch queue is full at 1024.
FULL_QUEUE = 1024


@dataclass(frozen=True)
class QueueStats:
    """HTA's `describe()` of a stream's queue lengths, one value per change."""

    count: int
    mean: float
    std: float | None  # sample standard deviation; None for one point
    minimum: int
    p25: float
    p50: float
    p75: float
    maximum: int

    @classmethod
    def of(cls, lengths: Int64Array) -> QueueStats:
        """The statistics of some (non-empty) lengths, computed as pandas does."""
        count = int(lengths.size)
        mean = float(int(lengths.sum())) / count
        std = None
        if count > 1:
            spread = float(((lengths.astype(np.float64) - mean) ** 2).sum())
            std = float(np.sqrt(spread / (count - 1)))
        p25, p50, p75 = np.percentile(lengths, [25, 50, 75]).tolist()
        return cls(
            count=count,
            mean=mean,
            std=std,
            minimum=int(lengths.min()),
            p25=float(p25),
            p50=float(p50),
            p75=float(p75),
            maximum=int(lengths.max()),
        )


@dataclass(frozen=True)
class StreamQueue:
    """One stream's queue: its series of changes and what is read from it."""

    stream: int | str
    device: int | None
    track: int | None  # the timeline track holding its ops (None: several)
    ops: int  # device ops counted, each once in and once out
    time_ns: Int64Array  # each change, in order
    length: Int64Array  # the queue length from that change on
    stats: QueueStats
    mean_over_time: float | None  # the length weighted by time, first to last change
    full_ns: int  # time at or above the full queue
    drain_max_ns: int  # the longest wait from a launch to its op's start
    drain_mean_ns: float  # the mean of those waits

    @property
    def negative_points(self) -> int:
        """Changes below zero: an op started before its launch call did (clock skew)."""
        return int((self.length < 0).sum())


@dataclass(frozen=True)
class LaunchQueue:
    """Every stream's launch queue over the capture."""

    rules: BreakdownRules
    full_at: int
    streams: tuple[StreamQueue, ...]
    device_ops: int  # device ops in the capture, under the rules
    left_out: int  # of those, ops with no counted launch call (none, or a graph's)
    start_ns: int  # the first change over all streams (0 when none)
    end_ns: int  # the last change

    @property
    def counted(self) -> int:
        """Device ops counted in some stream's queue."""
        return sum(stream.ops for stream in self.streams)


@dataclass(frozen=True)
class QueueInput:
    """The counted ops: when each was launched and started, and its stream."""

    call_ns: Int64Array
    start_ns: Int64Array
    stream: Int64Array  # index into `streams`
    streams: tuple[int | str, ...]
    devices: tuple[int | None, ...]
    tracks: tuple[int | None, ...]
    device_ops: int


def stream_queues(
    call_ns: Int64Array,
    start_ns: Int64Array,
    stream: Int64Array,
) -> list[tuple[Int64Array, Int64Array, Int64Array]]:
    """Per stream index (0 to max), its (time, length, op waits) series.

    One op: +1 at `call_ns`, -1 at `start_ns`, on `stream`. Sorted by time,
    a launch before a start at the same time; the length is the running sum.
    """
    count = int(stream.max()) + 1 if stream.size else 0
    times = np.concatenate([call_ns, start_ns]).astype(np.int64)
    step = np.concatenate(
        [np.ones(call_ns.size, np.int64), -np.ones(start_ns.size, np.int64)]
    )
    keys = np.concatenate([stream, stream]).astype(np.int64)
    order = np.lexsort((-step, times, keys))
    times, step, keys = times[order], step[order], keys[order]
    running = np.cumsum(step)
    bounds = np.searchsorted(keys, np.arange(count + 1), side="left")
    waits = np.maximum(start_ns - call_ns, 0).astype(np.int64)
    out: list[tuple[Int64Array, Int64Array, Int64Array]] = []
    for index in range(count):
        low, high = int(bounds[index]), int(bounds[index + 1])
        before = running[low - 1] if low > 0 else 0
        out.append(
            (times[low:high], running[low:high] - before, waits[stream == index])
        )
    return out


def time_at_or_above(time_ns: Int64Array, length: Int64Array, limit: int) -> int:
    """How long a series stays at `limit` or above (HTA's time blocked on a
    full queue: each change holds until the next; the last one, no time)."""
    held = np.diff(time_ns)
    return int(held[length[:-1] >= limit].sum())


def _stream_queue(
    ops: QueueInput,
    index: int,
    series: tuple[Int64Array, Int64Array, Int64Array],
    full_at: int,
) -> StreamQueue:
    time_ns, length, waits = series
    held = np.diff(time_ns)
    span = int(time_ns[-1] - time_ns[0])
    weighted = int((length[:-1] * held).sum())
    return StreamQueue(
        stream=ops.streams[index],
        device=ops.devices[index],
        track=ops.tracks[index],
        ops=int(waits.size),
        time_ns=time_ns,
        length=length,
        stats=QueueStats.of(length),
        mean_over_time=weighted / span if span > 0 else None,
        full_ns=time_at_or_above(time_ns, length, full_at),
        drain_max_ns=int(waits.max()),
        drain_mean_ns=float(int(waits.sum())) / waits.size,
    )


def launch_queue(
    trace: Trace,
    launch_call: Int64Array,
    graph_work: BoolArray,
    rules: BreakdownRules = BreakdownRules.STEPTRACE,
    full_at: int = FULL_QUEUE,
) -> LaunchQueue:
    """Every stream's launch queue under `rules` (`Analysis.launch_call` and
    `Analysis.graph_work` give the first two columns)."""
    ops = queue_input(trace, launch_call, graph_work, rules)
    series = stream_queues(ops.call_ns, ops.start_ns, ops.stream)
    streams = tuple(
        _stream_queue(ops, index, one, full_at)
        for index, one in enumerate(series)
        if one[0].size
    )
    times = [stream.time_ns for stream in streams]
    return LaunchQueue(
        rules=rules,
        full_at=full_at,
        streams=streams,
        device_ops=ops.device_ops,
        left_out=ops.device_ops - int(ops.start_ns.size),
        start_ns=min((int(t[0]) for t in times), default=0),
        end_ns=max((int(t[-1]) for t in times), default=0),
    )


def queue_input(
    trace: Trace,
    launch_call: Int64Array,
    graph_work: BoolArray,
    rules: BreakdownRules = BreakdownRules.STEPTRACE,
) -> QueueInput:
    """The ops a launch queue counts under `rules`, with their times and streams."""
    if rules is BreakdownRules.HTA:
        return _hta_ops(trace)
    return _steptrace_ops(trace, launch_call, graph_work)


def _steptrace_ops(
    trace: Trace, launch_call: Int64Array, graph_work: BoolArray
) -> QueueInput:
    """Device work with a launch call of its own, one stream per track, exact."""
    work = trace.device_work_mask
    events = np.flatnonzero(work & (launch_call >= 0) & ~graph_work).astype(np.int64)
    tracks, stream = np.unique(trace.track[events], return_inverse=True)
    devices = {trace.tracks[int(track)].device for track in tracks.tolist()}
    labels: list[int | str] = []
    for track in tracks.tolist():
        info = trace.tracks[int(track)]
        tid = info.tid if isinstance(info.tid, int) else str(info.tid)
        labels.append(tid if len(devices) == 1 else f"{info.device}:{tid}")
    return QueueInput(
        call_ns=trace.start_ns[launch_call[events]],
        start_ns=trace.start_ns[events],
        stream=stream.reshape(-1).astype(np.int64),
        streams=tuple(labels),
        devices=tuple(trace.tracks[int(t)].device for t in tracks.tolist()),
        tracks=tuple(int(track) for track in tracks.tolist()),
        device_ops=int(work.sum()),
    )


def _hta_ops(trace: Trace) -> QueueInput:
    """HTA's rows: ops carrying a stream argument whose correlation a call of
    HTA's launch names shares, by stream number, rounded as HTA rounds."""
    stream = trace.stream_arg
    on_stream = stream != -1
    launch_names = trace.name_ids_matching(set(HTA_LAUNCH_CALLS))
    is_call = np.isin(trace.name_id, launch_names) & (trace.correlation >= 0)
    calls = np.flatnonzero(is_call)
    calls = calls[np.argsort(trace.correlation[calls], kind="stable")]
    keys = trace.correlation[calls]
    candidates = np.flatnonzero(on_stream & (trace.correlation >= 0))
    if keys.size:
        position = np.searchsorted(keys, trace.correlation[candidates], side="left")
        safe = np.minimum(position, keys.size - 1)
        found = keys[safe] == trace.correlation[candidates]
    else:
        safe = np.zeros(candidates.size, dtype=np.int64)
        found = np.zeros(candidates.size, dtype=bool)
    events = candidates[found].astype(np.int64)
    call_ns, _ = hta_times(trace, calls[safe[found]].astype(np.int64))
    start_ns, _ = hta_times(trace, events)
    numbers, index = np.unique(stream[events], return_inverse=True)
    devices: list[int | None] = []
    tracks: list[int | None] = []
    for number in numbers.tolist():
        held = distinct(trace.track[events[stream[events] == number]]).tolist()
        on = {trace.tracks[int(track)].device for track in held}
        devices.append(next(iter(on)) if len(on) == 1 else None)
        tracks.append(int(held[0]) if len(held) == 1 else None)
    return QueueInput(
        call_ns=call_ns,
        start_ns=start_ns,
        stream=index.reshape(-1).astype(np.int64),
        streams=tuple(int(number) for number in numbers.tolist()),
        devices=tuple(devices),
        tracks=tuple(tracks),
        device_ops=int((on_stream & trace.device_work_mask).sum()),
    )


def slice_edges(start_ns: int, end_ns: int, width: int) -> Int64Array:
    """`width` equal slices of [start_ns, end_ns], the last one closed (a
    sparkline's columns): their starts, then one past the end."""
    span = max(end_ns - start_ns, 1)
    edges = start_ns + (np.arange(width + 1, dtype=np.int64) * span) // max(width, 1)
    edges[-1] = end_ns + 1
    return edges


def longest_between(
    time_ns: Int64Array, length: Int64Array, edges: Int64Array
) -> Int64Array:
    """The longest queue in each slice [edges[i], edges[i+1]): the length in
    effect when the slice begins (0 before the first change) and every change
    inside it."""
    before = np.searchsorted(time_ns, edges[:-1], side="right") - 1
    longest = np.where(before >= 0, length[np.maximum(before, 0)], 0).astype(np.int64)
    low = np.searchsorted(time_ns, edges[:-1], side="left")
    high = np.searchsorted(time_ns, edges[1:], side="left")
    filled = np.flatnonzero(high > low)
    if filled.size:
        inside = np.maximum.reduceat(length[: high[filled[-1]]], low[filled])
        longest[filled] = np.maximum(longest[filled], inside)
    return longest
