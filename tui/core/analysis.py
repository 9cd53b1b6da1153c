"""Figures computed from a trace: steps, zones, operator table, device busy, gaps.

Definitions follow torch's own profiler (`key_averages()`): an event's
children are the events on the same thread that lie inside it; self time is
its duration minus its direct children's; GPU self time of an operator is the
time of the device work it launched, GPU total adds its descendants'. Device
busy time is the union of device intervals, never a sum.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.model import CPU_FUNCTION_KINDS, DEVICE_WORK_KINDS, Kind, Trace, TrackKind

Int64Array = npt.NDArray[np.int64]

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
# Step numbers beyond 18 digits are not steps torch wrote (and do not fit in int64).
STEP_NAME = re.compile(r"^ProfilerStep#(-?\d{1,18})$")
DEFAULT_DATA_ZONE = "lecture_batch_cpu"
DATALOADER_PREFIX = "enumerate(DataLoader)#"
_OWNER_KINDS = (Kind.CPU_OP, Kind.USER_ANNOTATION, Kind.CPU_OTHER, Kind.PYTHON)


def group_name(name: str) -> str:
    """The operator-table row an event belongs to; steps group as torch does (`ProfilerStep*`)."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


@dataclass(frozen=True)
class Step:
    """One profiler step (`ProfilerStep#N`)."""

    number: int
    event: int
    start_ns: int
    duration_ns: int
    phase: str  # "active" (in the recorded window) or "startup"

    @property
    def end_ns(self) -> int:
        """When the step ends."""
        return self.start_ns + self.duration_ns


@dataclass(frozen=True)
class ZoneFigure:
    """A zone's time inside one step: nested occurrences of the same name count once."""

    name: str
    count: int
    duration_ns: int


@dataclass(frozen=True)
class Gap:
    """Device-idle time inside a data zone (or the zone's CPU wait without GPU events)."""

    zone: str
    step: int | None
    start_ns: int
    duration_ns: int
    kind: str  # "gpu_idle" | "cpu_wait"
    device: int | None
    zone_event: int


@dataclass
class OpTable:
    """Per-name aggregates in the order of `names`; GPU columns are None when not observed."""

    names: list[str]
    calls: Int64Array
    self_cpu_ns: Int64Array
    total_cpu_ns: Int64Array
    self_gpu_ns: Int64Array | None
    total_gpu_ns: Int64Array | None

    def __len__(self) -> int:
        return len(self.names)

    def order(self, sort: str = "total", device: str = "cpu") -> Int64Array:
        """Row order for a sort key (self|total|calls|name) on cpu or gpu, largest first."""
        if sort == "name":
            return np.array(
                sorted(range(len(self.names)), key=self.names.__getitem__),
                dtype=np.int64,
            )
        if sort == "calls":
            column = self.calls
        elif (
            device == "gpu"
            and self.self_gpu_ns is not None
            and self.total_gpu_ns is not None
        ):
            column = self.self_gpu_ns if sort == "self" else self.total_gpu_ns
        else:
            column = self.self_cpu_ns if sort == "self" else self.total_cpu_ns
        # Stable: ties keep name order so outputs are deterministic.
        by_name = np.array(
            sorted(range(len(self.names)), key=self.names.__getitem__), dtype=np.int64
        )
        return by_name[np.argsort(-column[by_name], kind="stable")]


@dataclass
class Analysis:
    """Lazily computed figures over one trace; each is computed once."""

    trace: Trace
    extra_zones: tuple[str, ...] = ()
    _busy_cache: dict[int | None, tuple[Int64Array, Int64Array]] = field(
        default_factory=dict
    )

    # -- steps and zones -------------------------------------------------

    @cached_property
    def steps(self) -> list[Step]:
        """Profiler steps in time order, on the thread that has the most of them."""
        trace = self.trace
        step_ids = {
            index: int(m.group(1))
            for index, name in enumerate(trace.names)
            if (m := STEP_NAME.match(name))
        }
        if not step_ids:
            return []
        on_cpu = self._cpu_event_mask
        candidates = np.flatnonzero(
            on_cpu & np.isin(trace.name_id, np.array(list(step_ids), dtype=np.int32))
        )
        if candidates.size == 0:
            return []
        tracks, counts = np.unique(trace.track[candidates], return_counts=True)
        main_track = tracks[np.argmax(counts)]
        candidates = candidates[trace.track[candidates] == main_track]
        active: set[int] | None = None
        description = trace.description or {}
        if isinstance(description.get("active_steps"), list):
            active = {
                value for value in description["active_steps"] if isinstance(value, int)
            }
        steps = []
        for event in candidates.tolist():
            number = step_ids[int(trace.name_id[event])]
            phase = "active" if active is None or number in active else "startup"
            steps.append(
                Step(
                    number,
                    event,
                    int(trace.start_ns[event]),
                    int(trace.duration_ns[event]),
                    phase,
                )
            )
        steps.sort(key=lambda step: step.start_ns)
        return steps

    @property
    def active_steps(self) -> list[Step]:
        """The steps of the recorded window."""
        return [step for step in self.steps if step.phase == "active"]

    @cached_property
    def _cpu_event_mask(self) -> npt.NDArray[np.bool_]:
        trace = self.trace
        cpu_tracks = np.array(
            [track.kind == TrackKind.CPU for track in trace.tracks] or [False],
            dtype=bool,
        )
        return cpu_tracks[trace.track] if trace.track.size else np.zeros(0, dtype=bool)

    @cached_property
    def zone_events(self) -> Int64Array:
        """record_function ranges on CPU threads, other than the steps themselves."""
        trace = self.trace
        step_names = np.array(
            [i for i, n in enumerate(trace.names) if STEP_NAME.match(n)] or [-1],
            dtype=np.int32,
        )
        mask = (
            self._cpu_event_mask
            & (trace.kind == Kind.USER_ANNOTATION)
            & ~np.isin(trace.name_id, step_names)
        )
        return np.flatnonzero(mask).astype(np.int64)

    def zones_in(self, start_ns: int, end_ns: int) -> list[ZoneFigure]:
        """Zones starting inside [start, end), per name, nested occurrences counted once."""
        trace = self.trace
        events, starts = self._zones_by_start
        first = int(np.searchsorted(starts, start_ns, side="left"))
        last = int(np.searchsorted(starts, end_ns, side="left"))
        inside = events[first:last]
        by_name: dict[str, list[int]] = {}
        for event in inside.tolist():
            by_name.setdefault(trace.event_name(event), []).append(event)
        figures = []
        for name, members in by_name.items():
            member_array = np.array(members, dtype=np.int64)
            union = union_length(
                trace.start_ns[member_array],
                trace.start_ns[member_array] + trace.duration_ns[member_array],
            )
            figures.append(ZoneFigure(name, len(members), union))
        figures.sort(key=lambda figure: trace.start_ns[by_name[figure.name][0]])
        return figures

    @cached_property
    def _zones_by_start(self) -> tuple[Int64Array, Int64Array]:
        events = self.zone_events
        order = np.argsort(self.trace.start_ns[events], kind="stable")
        events = events[order]
        return events, self.trace.start_ns[events]

    # -- nesting and the operator table ----------------------------------

    @cached_property
    def _participants(self) -> npt.NDArray[np.bool_]:
        trace = self.trace
        filtered = trace.name_ids_matching(set(FILTERED_NAMES))
        return (
            self._cpu_event_mask
            & np.isin(trace.kind, np.array(CPU_FUNCTION_KINDS, dtype=np.uint8))
            & ~np.isin(trace.name_id, filtered)
        )

    @cached_property
    def parent(self) -> Int64Array:
        """Each event's parent on its thread (torch's rule), -1 for roots and non-participants."""
        trace = self.trace
        parent = np.full(trace.event_count, -1, dtype=np.int64)
        participants = self._participants
        ends = trace.start_ns + trace.duration_ns
        for track in trace.tracks:
            if track.kind != TrackKind.CPU:
                continue
            span = trace.track_slice(track.index)
            indices = np.flatnonzero(participants[span]) + span.start
            if indices.size == 0:
                continue
            _nest(
                indices.tolist(),
                trace.start_ns[indices].tolist(),
                ends[indices].tolist(),
                parent,
            )
        return parent

    @cached_property
    def depth(self) -> npt.NDArray[np.int32]:
        """Nesting depth on the thread (0 for roots)."""
        # Pointer jumping: log2(depth) passes, so deep recursion stays cheap.
        ancestor = self.parent.copy()
        depth = (ancestor >= 0).astype(np.int64)
        linked = np.flatnonzero(ancestor >= 0)
        while linked.size:
            jump_to = ancestor[linked]
            depth[linked] += depth[jump_to]
            ancestor[linked] = ancestor[jump_to]
            linked = linked[ancestor[linked] >= 0]
        return depth.astype(np.int32)

    @cached_property
    def self_cpu_ns(self) -> Int64Array:
        """Duration minus direct children's durations (participants only; others: their duration)."""
        trace = self.trace
        parent = self.parent
        child = np.flatnonzero(parent >= 0)
        children_sum = sum_by_index(
            trace.event_count, parent[child], trace.duration_ns[child]
        )
        return trace.duration_ns - children_sum

    @cached_property
    def gpu_owner(self) -> Int64Array:
        """For each device-work event, the CPU event that launched it (-1 when unknown)."""
        trace = self.trace
        owner = np.full(trace.event_count, -1, dtype=np.int64)
        device_events = np.flatnonzero(
            np.isin(trace.kind, np.array(DEVICE_WORK_KINDS, dtype=np.uint8))
        )
        if device_events.size == 0:
            return owner
        participants = self._participants
        # 1. External id: the op (or annotation) whose id the launch carried.
        candidates = np.flatnonzero(
            participants
            & np.isin(trace.kind, np.array(_OWNER_KINDS, dtype=np.uint8))
            & (trace.external_id >= 0)
        )
        # Prefer ops over annotations when both carry the same id.
        preference = np.where(trace.kind[candidates] == Kind.CPU_OP, 0, 1)
        order = np.lexsort((preference, trace.external_id[candidates]))
        candidates = candidates[order]
        keys = trace.external_id[candidates]
        wanted = trace.external_id[device_events]
        position = np.searchsorted(keys, wanted, side="left")
        safe = np.minimum(position, max(keys.size - 1, 0))
        found = (keys.size > 0) & (wanted >= 0) & (position < keys.size)
        found &= keys[safe] == wanted if keys.size else found
        owner[device_events[found]] = candidates[safe[found]]
        # 2. Correlation: the runtime call that launched it, then its enclosing op.
        missing = device_events[~found]
        if missing.size:
            runtimes = np.flatnonzero(
                participants
                & np.isin(
                    trace.kind, np.array((Kind.RUNTIME, Kind.DRIVER), dtype=np.uint8)
                )
                & (trace.correlation >= 0)
            )
            runtime_order = np.argsort(trace.correlation[runtimes], kind="stable")
            runtimes = runtimes[runtime_order]
            runtime_keys = trace.correlation[runtimes]
            wanted = trace.correlation[missing]
            position = np.searchsorted(runtime_keys, wanted)
            safe = np.minimum(position, max(runtime_keys.size - 1, 0))
            hit = (
                (runtime_keys.size > 0) & (wanted >= 0) & (position < runtime_keys.size)
            )
            if runtime_keys.size:
                hit &= runtime_keys[safe] == wanted
            launching = runtimes[safe[hit]]
            enclosing = self.parent[launching]
            owner[missing[hit]] = np.where(enclosing >= 0, enclosing, launching)
        return owner

    @cached_property
    def unlinked_device_events(self) -> int:
        """Device work we could not tie to a CPU event (counted in no operator)."""
        trace = self.trace
        device = np.isin(trace.kind, np.array(DEVICE_WORK_KINDS, dtype=np.uint8))
        return int((device & (self.gpu_owner < 0)).sum())

    @cached_property
    def self_gpu_ns(self) -> Int64Array:
        """Device time launched directly by each CPU event."""
        trace = self.trace
        owner = self.gpu_owner
        linked = np.flatnonzero(owner >= 0)
        return sum_by_index(trace.event_count, owner[linked], trace.duration_ns[linked])

    @cached_property
    def total_gpu_ns(self) -> Int64Array:
        """Device time launched by each CPU event and its descendants."""
        total = self.self_gpu_ns.copy()
        parent = self.parent
        children = np.flatnonzero(parent >= 0)
        if children.size == 0:
            return total
        # Deepest first, one pass per level over that level's events only.
        child_depth = self.depth[children]
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

    def op_table(
        self, start_ns: int | None = None, end_ns: int | None = None
    ) -> OpTable:
        """torch's key_averages() per name, for events starting in [start, end) (default: all)."""
        trace = self.trace
        events = np.flatnonzero(self._participants)
        if start_ns is not None:
            events = events[trace.start_ns[events] >= start_ns]
        if end_ns is not None:
            events = events[trace.start_ns[events] < end_ns]
        group_of_name: dict[str, int] = {}
        name_to_group = np.array(
            [
                group_of_name.setdefault(group_name(name), len(group_of_name))
                for name in trace.names
            ]
            or [0],
            dtype=np.int64,
        )
        groups = (
            name_to_group[trace.name_id[events]]
            if events.size
            else np.zeros(0, np.int64)
        )
        size = len(group_of_name)
        present = np.bincount(groups, minlength=size) > 0

        def per_group(values: Int64Array) -> Int64Array:
            return sum_by_index(size, groups, values[events])[present]

        names_in_order = [""] * size
        for name, group in group_of_name.items():
            names_in_order[group] = name
        gpu = trace.gpu_observed
        return OpTable(
            names=[
                name
                for name, keep in zip(names_in_order, present.tolist(), strict=False)
                if keep
            ],
            calls=np.bincount(groups, minlength=size)[present].astype(np.int64),
            self_cpu_ns=per_group(self.self_cpu_ns),
            total_cpu_ns=per_group(trace.duration_ns),
            self_gpu_ns=per_group(self.self_gpu_ns) if gpu else None,
            total_gpu_ns=per_group(self.total_gpu_ns) if gpu else None,
        )

    # -- device busy and gaps --------------------------------------------

    @cached_property
    def devices(self) -> list[int | None]:
        """Devices that ran work, in order."""
        trace = self.trace
        work = np.isin(trace.kind, np.array(DEVICE_WORK_KINDS, dtype=np.uint8))
        seen = sorted(
            {trace.tracks[t].device for t in np.unique(trace.track[work]).tolist()},
            key=lambda d: (d is None, d or 0),
        )
        return seen

    def busy_intervals(
        self, device: int | None = None, all_devices: bool = False
    ) -> tuple[Int64Array, Int64Array]:
        """Merged [start, end) intervals when the device runs any kernel, copy or set."""
        key = -1 if all_devices else device
        cached = self._busy_cache.get(key)
        if cached is not None:
            return cached
        trace = self.trace
        work = np.isin(trace.kind, np.array(DEVICE_WORK_KINDS, dtype=np.uint8))
        if not all_devices:
            track_device = np.array(
                [track.device == device for track in trace.tracks] or [False],
                dtype=bool,
            )
            work &= track_device[trace.track]
        events = np.flatnonzero(work)
        merged = merge_intervals(
            trace.start_ns[events], trace.start_ns[events] + trace.duration_ns[events]
        )
        self._busy_cache[key] = merged
        return merged

    def device_busy_ns(
        self,
        start_ns: int | None = None,
        end_ns: int | None = None,
        device: int | None = None,
    ) -> int | None:
        """Union of device work inside [start, end) on one device (all devices when None); None if not observed."""
        if not self.trace.gpu_observed:
            return None
        starts, ends = self.busy_intervals(device, all_devices=device is None)
        lower = 0 if start_ns is None else start_ns
        upper = (int(ends.max()) if ends.size else 0) if end_ns is None else end_ns
        return _covered(starts, ends, lower, upper)

    def data_zone_names(self) -> set[str]:
        """The zones whose gaps we highlight: the default, the description's, and --zone names."""
        names = {DEFAULT_DATA_ZONE, *self.extra_zones}
        description = self.trace.description or {}
        zones = description.get("zones")
        if isinstance(zones, dict) and isinstance(zones.get("data"), str):
            names.add(zones["data"])
        return names

    @cached_property
    def data_zone_events(self) -> Int64Array:
        """Occurrences of data zones, including PyTorch's own enumerate(DataLoader)#… ranges."""
        trace = self.trace
        wanted = self.data_zone_names()
        ids = np.array(
            [
                i
                for i, name in enumerate(trace.names)
                if name in wanted or name.startswith(DATALOADER_PREFIX)
            ]
            or [-1],
            dtype=np.int32,
        )
        events = np.flatnonzero(
            self._cpu_event_mask
            & np.isin(
                trace.kind,
                np.array(
                    (Kind.USER_ANNOTATION, Kind.CPU_OP, Kind.CPU_OTHER, Kind.PYTHON),
                    dtype=np.uint8,
                ),
            )
            & np.isin(trace.name_id, ids)
        )
        return events.astype(np.int64)

    @cached_property
    def _step_bounds(self) -> tuple[Int64Array, Int64Array, list[int]]:
        steps = self.steps
        return (
            np.array([step.start_ns for step in steps], dtype=np.int64),
            np.array([step.end_ns for step in steps], dtype=np.int64),
            [step.number for step in steps],
        )

    def step_of(self, time_ns: int) -> int | None:
        """The number of the step containing a time, if any."""
        starts, ends, numbers = self._step_bounds
        position = int(np.searchsorted(starts, time_ns, side="right")) - 1
        if position >= 0 and time_ns < ends[position]:
            return numbers[position]
        return None

    @cached_property
    def gaps(self) -> list[Gap]:
        """Device-idle intervals inside data zones; CPU wait per zone when no GPU was observed."""
        trace = self.trace
        events = self.data_zone_events
        if events.size == 0:
            return []
        # Nested data zones count once: keep only outermost occurrences per thread.
        outer = _outermost(
            trace.start_ns[events],
            trace.start_ns[events] + trace.duration_ns[events],
            trace.track[events],
        )
        zones = events[outer]
        gaps: list[Gap] = []
        if not trace.gpu_observed:
            wait = self._cpu_wait(zones, set(events.tolist()))
            for zone, waited in zip(zones.tolist(), wait.tolist(), strict=False):
                start = int(trace.start_ns[zone])
                gaps.append(
                    Gap(
                        trace.event_name(zone),
                        self.step_of(start),
                        start,
                        int(waited),
                        "cpu_wait",
                        None,
                        zone,
                    )
                )
            return gaps
        # Zones on several threads may overlap in time: merge them first.
        zone_starts = trace.start_ns[zones]
        zone_ends = zone_starts + trace.duration_ns[zones]
        for device in self.devices:
            busy_starts, busy_ends = self.busy_intervals(device)
            for zone, zone_start, zone_end in zip(
                zones.tolist(), zone_starts.tolist(), zone_ends.tolist(), strict=False
            ):
                for idle_start, idle_end in _idle_within(
                    busy_starts, busy_ends, zone_start, zone_end
                ):
                    gaps.append(
                        Gap(
                            trace.event_name(zone),
                            self.step_of(idle_start),
                            idle_start,
                            idle_end - idle_start,
                            "gpu_idle",
                            device,
                            zone,
                        )
                    )
        gaps.sort(key=lambda gap: (gap.start_ns, gap.device or 0))
        return gaps

    def _cpu_wait(self, zones: Int64Array, zone_set: set[int]) -> Int64Array:
        """Self time of each zone, where nested data zones' own self time also counts as wait."""
        parent = self.parent
        self_time = self.self_cpu_ns
        wait = self_time[zones].copy()
        position = {zone: i for i, zone in enumerate(zones.tolist())}
        nested = [event for event in zone_set if event not in position]
        for event in nested:
            ancestor = int(parent[event])
            while ancestor >= 0 and ancestor not in position:
                ancestor = int(parent[ancestor])
            if ancestor >= 0:
                wait[position[ancestor]] += self_time[event]
        return wait

    @cached_property
    def total_zone_ns(self) -> int:
        """Time in data zones, in the unit of the gaps it is compared with.

        Device idle is one timeline, so zones on several threads are merged
        (the union). CPU wait is per thread, so each thread's zones count
        (nested ones once): the wait can then never exceed the zone time.
        """
        trace = self.trace
        events = self.data_zone_events
        starts = trace.start_ns[events]
        ends = starts + trace.duration_ns[events]
        if trace.gpu_observed:
            return union_length(starts, ends)
        total = 0
        for track in np.unique(trace.track[events]).tolist():
            on_track = trace.track[events] == track
            total += union_length(starts[on_track], ends[on_track])
        return total


# Sums at or past this are shown saturated rather than wrapped (2**62 ns is 146 years).
SATURATED_NS = np.int64(2**62)


def sum_by_index(size: int, index: Int64Array, values: Int64Array) -> Int64Array:
    """Exact int64 sums of `values` per `index`, saturating at SATURATED_NS instead of wrapping."""
    sums = np.zeros(size, dtype=np.int64)
    if index.size == 0:
        return sums
    approximate = np.bincount(index, weights=values.astype(np.float64), minlength=size)
    risky = np.abs(approximate) >= float(SATURATED_NS) / 2
    if not risky.any():
        np.add.at(sums, index, values)
        return sums
    safe_values = np.where(risky[index], 0, values)
    np.add.at(sums, index, safe_values)
    sums[risky] = np.where(approximate[risky] > 0, SATURATED_NS, -SATURATED_NS)
    return sums


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


def merge_intervals(
    starts: Int64Array, ends: Int64Array
) -> tuple[Int64Array, Int64Array]:
    """Union of intervals as sorted, disjoint [start, end) pairs."""
    if starts.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(starts, kind="stable")
    starts = starts[order]
    ends = ends[order]
    running_end = np.maximum.accumulate(ends)
    new_block = np.ones(starts.size, dtype=bool)
    new_block[1:] = starts[1:] > running_end[:-1]
    block_id = np.cumsum(new_block) - 1
    block_starts = starts[new_block]
    block_ends = np.zeros(block_starts.size, dtype=np.int64)
    np.maximum.at(block_ends, block_id, running_end)
    return block_starts, block_ends


def union_length(starts: Int64Array, ends: Int64Array) -> int:
    merged_starts, merged_ends = merge_intervals(starts, ends)
    return int((merged_ends - merged_starts).sum())


def _covered(starts: Int64Array, ends: Int64Array, lower: int, upper: int) -> int:
    """How much of [lower, upper) the disjoint sorted intervals cover."""
    if upper <= lower or starts.size == 0:
        return 0
    first = int(np.searchsorted(ends, lower, side="right"))
    last = int(np.searchsorted(starts, upper, side="left"))
    starts, ends = starts[first:last], ends[first:last]
    clipped_starts = np.clip(starts, lower, upper)
    clipped_ends = np.clip(ends, lower, upper)
    return int(np.maximum(clipped_ends - clipped_starts, 0).sum())


def _idle_within(
    busy_starts: Int64Array, busy_ends: Int64Array, lower: int, upper: int
) -> list[tuple[int, int]]:
    """The parts of [lower, upper) not covered by the disjoint sorted busy intervals."""
    if upper <= lower:
        return []
    first = int(np.searchsorted(busy_ends, lower, side="right"))
    last = int(np.searchsorted(busy_starts, upper, side="left"))
    idle: list[tuple[int, int]] = []
    cursor = lower
    for busy_start, busy_end in zip(
        busy_starts[first:last].tolist(), busy_ends[first:last].tolist(), strict=False
    ):
        if busy_start > cursor:
            idle.append((cursor, min(busy_start, upper)))
        cursor = max(cursor, busy_end)
        if cursor >= upper:
            break
    if cursor < upper:
        idle.append((cursor, upper))
    return idle


def _outermost(
    starts: Int64Array, ends: Int64Array, tracks: npt.NDArray[np.int32]
) -> npt.NDArray[np.bool_]:
    """Which intervals are not inside another one of the same thread."""
    keep = np.ones(starts.size, dtype=bool)
    order = np.lexsort((-(ends - starts), starts, tracks))
    last_track = None
    current_end = -1
    for position in order.tolist():
        if tracks[position] != last_track:
            last_track = tracks[position]
            current_end = -1
        if ends[position] <= current_end:
            keep[position] = False
        else:
            current_end = max(current_end, int(ends[position]))
    return keep


def step_stats(durations_ns: list[int]) -> dict[str, Any] | None:
    """Median, min and max of step durations (ns); None without steps."""
    if not durations_ns:
        return None
    return {
        "count": len(durations_ns),
        "median_ns": statistics.median(durations_ns),
        "min_ns": min(durations_ns),
        "max_ns": max(durations_ns),
    }
