"""Who is inside whom on a CPU thread, and the self/total times that follow (torch's rules).

An event's children are the events of its thread that lie inside it, found
by torch's `_populate_cpu_children` rule; self time is the duration minus the
direct children's durations. GPU self time of an event is the time of the
device work it launched (by `External id`, else by correlation through the
runtime call); GPU total adds its descendants'.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.model.masks import kinds_in, names_in
from tui.core.model.trace import (
    CPU_FUNCTION_KINDS,
    DEVICE_WORK_KINDS,
    Kind,
    Trace,
    TrackKind,
)

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Names torch's key_averages() leaves out (torch.autograd.profiler_util._filter_name).
FILTERED_NAMES = frozenset(
    {
        "[memory]",
        "[OutOfMemory]",
        "profiler::_record_function_enter",
        "profiler::_record_function_enter_new",
        "profiler::_record_function_exit",
        "aten::is_leaf",
        "aten::output_nr",
        "aten::_version",
    }
)
# Kinds that may own device work through an External id.
_OWNER_KINDS = (Kind.CPU_OP, Kind.USER_ANNOTATION, Kind.CPU_OTHER, Kind.PYTHON)
# Sums at or past this are shown saturated rather than wrapped (2**62 ns is 146 years).
SATURATED_NS = np.int64(2**62)
# Sums of integers whose magnitudes add up to less than this are exact in float64.
_EXACT_FLOAT_SUM = float(2**52)


def cpu_track_mask(trace: Trace) -> BoolArray:
    """Events on CPU threads."""
    cpu_tracks = np.array(
        [track.kind == TrackKind.CPU for track in trace.tracks] or [False], dtype=bool
    )
    return cpu_tracks[trace.track] if trace.track.size else np.zeros(0, dtype=bool)


def participants(trace: Trace, on_cpu: BoolArray) -> BoolArray:
    """Events torch's key_averages() counts: CPU function events, minus its filtered names."""
    filtered = trace.name_ids_matching(set(FILTERED_NAMES))
    return on_cpu & kinds_in(trace, CPU_FUNCTION_KINDS) & ~names_in(trace, filtered)


def parents(trace: Trace, taking_part: BoolArray) -> Int64Array:
    """Each event's parent on its thread, -1 for roots and non-participants."""
    parent = np.full(trace.event_count, -1, dtype=np.int64)
    for track in trace.tracks:
        if track.kind != TrackKind.CPU:
            continue
        span = trace.track_slice(track.index)
        indices = np.flatnonzero(taking_part[span]) + span.start
        if indices.size == 0:
            continue
        starts = np.asarray(trace.start_ns[indices], dtype=np.int64)
        ends = starts + trace.duration_ns[indices]
        local = thread_parents(starts, ends)
        parent[indices] = np.where(local >= 0, indices[np.maximum(local, 0)], -1)
    return parent


def thread_parents(starts: Int64Array, ends: Int64Array) -> Int64Array:
    """torch's `_populate_cpu_children` on one thread's events, sorted by (start, -end).

    Vectorised: where the events nest (no two overlap without one holding
    the other) torch's stack rule gives each event the innermost one holding
    it, found from nesting depths. Stretches of the thread where two events
    overlap partly (rare) take torch's loop itself, so the result is the
    rule's in every case. Returns positions into the arrays, -1 for roots.
    """
    count = starts.size
    parent = np.full(count, -1, dtype=np.int64)
    if count < 2:
        return parent
    position = np.arange(count, dtype=np.int64)
    timed = ends > starts
    # An event with a duration closes before any event starting at its end
    # opens; closes at one time come innermost (latest opened) first. An
    # instant closes right after it opens.
    timed_at = np.flatnonzero(timed)
    close_order = timed_at[::-1][np.argsort(ends[timed_at][::-1], kind="stable")]
    opens_before_close = np.searchsorted(starts, ends[close_order], side="left")
    closes_before_open = np.cumsum(np.bincount(opens_before_close, minlength=count + 1))
    instants_before = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(~timed, out=instants_before[1:])
    depth = position + 1 - closes_before_open[:count] - instants_before[:count]
    # Each close must meet the depth its event opened at: else two events
    # overlap partly there, and torch's loop decides that stretch.
    depth_at_close = (
        opens_before_close
        - instants_before[opens_before_close]
        - np.arange(close_order.size)
    )
    crossing = close_order[depth_at_close != depth[close_order]]
    # The innermost open event: the last one opened before, one level up
    # (the event just before, when the depth went up by one).
    deeper = np.zeros(count, dtype=bool)
    np.equal(depth[1:], depth[:-1] + 1, out=deeper[1:])
    parent[deeper] = position[deeper] - 1
    level_order = np.argsort(
        depth.astype(np.uint16) if depth.max() < 2**16 else depth, kind="stable"
    )
    stride = np.int64(count + 1)
    keys = depth[level_order] * stride + level_order
    look = np.flatnonzero(~deeper & (depth > 1))
    found = np.searchsorted(keys, (depth[look] - 1) * stride + look, side="left") - 1
    safe = np.maximum(found, 0)
    nested = (found >= 0) & (keys[safe] // stride == depth[look] - 1)
    parent[look[nested]] = level_order[safe[nested]]
    if crossing.size:
        _nest_partly_overlapping(starts, ends, depth, crossing, parent)
    return parent


def _nest_partly_overlapping(
    starts: Int64Array,
    ends: Int64Array,
    depth: Int64Array,
    crossing: Int64Array,
    parent: Int64Array,
) -> None:
    """torch's loop over each stretch (between moments nothing is open) that holds a partial overlap."""
    stretch = np.cumsum(depth == 1) - 1
    bad = distinct(stretch[crossing])
    heads = np.flatnonzero(depth == 1)
    bounds = np.append(heads, starts.size)
    for index in bad.tolist():
        begin, end = int(bounds[index]), int(bounds[index + 1])
        local = np.full(end - begin, -1, dtype=np.int64)
        _nest(
            list(range(end - begin)),
            starts[begin:end].tolist(),
            ends[begin:end].tolist(),
            local,
        )
        parent[begin:end] = np.where(local >= 0, local + begin, -1)


def _nest(
    indices: list[int], starts: list[int], ends: list[int], parent: Int64Array
) -> None:
    """torch's `_populate_cpu_children`: events sorted by (start, -end), one stack per thread."""
    stack_index: list[int] = []
    stack_end: list[int] = []
    for index, start, end in zip(indices, starts, ends, strict=False):
        while stack_end:
            parent_end = stack_end[-1]
            if start >= parent_end or end > parent_end:
                stack_end.pop()
                stack_index.pop()
            else:
                parent[index] = stack_index[-1]
                break
        stack_index.append(index)
        stack_end.append(end)


def depths(parent: Int64Array) -> npt.NDArray[np.int32]:
    """Nesting depth (0 for roots), by pointer jumping: log2(depth) passes."""
    ancestor = parent.copy()
    depth = (ancestor >= 0).astype(np.int64)
    linked = np.flatnonzero(ancestor >= 0)
    while linked.size:
        jump_to = ancestor[linked]
        depth[linked] += depth[jump_to]
        ancestor[linked] = ancestor[jump_to]
        linked = linked[ancestor[linked] >= 0]
    return depth.astype(np.int32)


def self_times(durations: Int64Array, parent: Int64Array) -> Int64Array:
    """Duration minus the direct children's durations."""
    child = np.flatnonzero(parent >= 0)
    children_sum = sum_by_index(durations.size, parent[child], durations[child])
    return durations - children_sum


def gpu_owners(trace: Trace, taking_part: BoolArray, parent: Int64Array) -> Int64Array:
    """For each device-work event, the CPU event that launched it (-1 when unknown)."""
    owner = np.full(trace.event_count, -1, dtype=np.int64)
    device_events = np.flatnonzero(kinds_in(trace, DEVICE_WORK_KINDS))
    if device_events.size == 0:
        return owner
    # 1. External id: the op (or annotation) whose id the launch carried.
    candidates = np.flatnonzero(
        taking_part & kinds_in(trace, _OWNER_KINDS) & (trace.external_id >= 0)
    )
    # Prefer ops over annotations when both carry the same id.
    preference = np.where(trace.kind[candidates] == Kind.CPU_OP, 0, 1)
    order = np.lexsort((preference, trace.external_id[candidates]))
    candidates = candidates[order]
    found, position = _lookup(
        trace.external_id[candidates], trace.external_id[device_events]
    )
    owner[device_events[found]] = candidates[position[found]]
    # 2. Correlation: the runtime call that launched it, then its enclosing op.
    missing = device_events[~found]
    if missing.size:
        runtimes = np.flatnonzero(
            taking_part
            & kinds_in(trace, (Kind.RUNTIME, Kind.DRIVER))
            & (trace.correlation >= 0)
        )
        runtimes = runtimes[np.argsort(trace.correlation[runtimes], kind="stable")]
        hit, position = _lookup(trace.correlation[runtimes], trace.correlation[missing])
        launching = runtimes[position[hit]]
        enclosing = parent[launching]
        owner[missing[hit]] = np.where(enclosing >= 0, enclosing, launching)
    return owner


def tied_device_work(trace: Trace, taking_part: BoolArray) -> BoolArray:
    """Device work tied to a CPU event by `gpu_owners` (no nesting needed to know which)."""
    no_parents = np.full(trace.event_count, -1, dtype=np.int64)
    return gpu_owners(trace, taking_part, no_parents) >= 0


def launch_calls(trace: Trace, taking_part: BoolArray) -> Int64Array:
    """For each device-work event, the runtime/driver call that launched it (-1 when unknown)."""
    launch = np.full(trace.event_count, -1, dtype=np.int64)
    device_events = np.flatnonzero(kinds_in(trace, DEVICE_WORK_KINDS))
    if device_events.size == 0:
        return launch
    runtimes = np.flatnonzero(
        taking_part
        & kinds_in(trace, (Kind.RUNTIME, Kind.DRIVER))
        & (trace.correlation >= 0)
    )
    runtimes = runtimes[np.argsort(trace.correlation[runtimes], kind="stable")]
    hit, position = _lookup(
        trace.correlation[runtimes], trace.correlation[device_events]
    )
    launch[device_events[hit]] = runtimes[position[hit]]
    return launch


def _lookup(
    sorted_keys: Int64Array, wanted: Int64Array
) -> tuple[BoolArray, Int64Array]:
    """Where each wanted key (>= 0) sits in `sorted_keys`: (found, position)."""
    if sorted_keys.size == 0:
        return np.zeros(wanted.size, dtype=bool), np.zeros(wanted.size, dtype=np.int64)
    position = np.searchsorted(sorted_keys, wanted, side="left")
    safe = np.minimum(position, sorted_keys.size - 1)
    found = (
        (wanted >= 0) & (position < sorted_keys.size) & (sorted_keys[safe] == wanted)
    )
    return found, safe.astype(np.int64)


def total_gpu_times(
    self_gpu: Int64Array, parent: Int64Array, depth: npt.NDArray[np.int32]
) -> Int64Array:
    """Device time launched by each CPU event and its descendants."""
    total = self_gpu.copy()
    children = np.flatnonzero(parent >= 0)
    if children.size == 0:
        return total
    # Deepest first, one pass per level over that level's events only.
    child_depth = depth[children]
    order = np.argsort(-child_depth, kind="stable")
    children = children[order]
    boundaries = np.flatnonzero(np.diff(child_depth[order])) + 1
    levels = np.split(children, boundaries)
    # The largest possible total is the sum of everything: check overflow once.
    if float(np.abs(total.astype(np.float64)).sum()) < float(SATURATED_NS):
        for level in levels:
            np.add.at(total, parent[level], total[level])
        return total
    for level in levels:
        targets, positions = np.unique(parent[level], return_inverse=True)
        added = sum_by_index(targets.size, positions.astype(np.int64), total[level])
        total[targets] = np.minimum(
            total[targets].astype(np.float64) + added, float(SATURATED_NS)
        ).astype(np.int64)
    return total


def sum_by_index(size: int, index: Int64Array, values: Int64Array) -> Int64Array:
    """Exact int64 sums of `values` per `index`, saturating at SATURATED_NS instead of wrapping."""
    sums = np.zeros(size, dtype=np.int64)
    if index.size == 0:
        return sums
    weights = values.astype(np.float64)
    approximate = np.bincount(index, weights=weights, minlength=size)
    if float(np.abs(weights).sum()) < _EXACT_FLOAT_SUM:
        # Every partial sum is an integer below 2**53: float64 holds it exactly.
        return approximate.astype(np.int64)
    risky = np.abs(approximate) >= float(SATURATED_NS) / 2
    if not risky.any():
        np.add.at(sums, index, values)
        return sums
    safe_values = np.where(risky[index], 0, values)
    np.add.at(sums, index, safe_values)
    sums[risky] = np.where(approximate[risky] > 0, SATURATED_NS, -SATURATED_NS)
    return sums
