"""Data zones and their gaps: device idle (or untraced time) inside the zone, per step.

The zone time of a step is the union of that step's data-zone intervals over
all threads. A GPU-idle gap is a maximal interval of that union in which one
device runs nothing (no kernel, copy or set on any of its streams). Without
GPU events, an untraced gap is a maximal interval of that union in which no
thread that has the zone open runs a child of it: time outside any traced
operator, Python work as much as waiting, so it is never called a wait. So,
by construction, the gaps of one device never overlap and never add up to more
than the zone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat

import numpy as np
import numpy.typing as npt

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import GapKind, ZoneSource
from tui.core.model.masks import kinds_in, names_in
from tui.core.model.nesting import sum_by_index
from tui.core.model.steps import Step, step_name_ids
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

DEFAULT_DATA_ZONE = "lecture_batch_cpu"
DATALOADER_PREFIX = "enumerate(DataLoader)#"
DATALOADER_GROUP = "enumerate(DataLoader)#…"
"""Stands for every `enumerate(DataLoader)#…` range in a zone choice."""
# Kinds of CPU events that can be a data zone: annotations, operators, python ranges.
ZONE_KINDS = (Kind.USER_ANNOTATION, Kind.CPU_OP, Kind.CPU_OTHER, Kind.PYTHON)


def zone_group(name: str) -> str:
    """The name a zone choice uses for an event name (DataLoader ranges are one group)."""
    return DATALOADER_GROUP if name.startswith(DATALOADER_PREFIX) else name


@dataclass(frozen=True)
class ZoneChoice:
    """Which ranges are the data zone, and where that choice came from."""

    names: tuple[str, ...]
    source: ZoneSource

    def name_ids(self, trace: Trace) -> npt.NDArray[np.int32]:
        """Ids of the trace's names this choice selects, ascending ([-1]: none).

        A DataLoader range answers to its group only, not to its own name."""
        wanted = set(self.names)
        loader = trace.name_ids_starting(DATALOADER_PREFIX)
        ids = trace.name_ids_matching(wanted)
        ids = ids[~np.isin(ids, loader)]
        if DATALOADER_GROUP in wanted:  # np.union1d would import numpy.ma (17 ms)
            ids = distinct(np.concatenate([ids, loader]))
        return ids.astype(np.int32) if ids.size else np.array([-1], dtype=np.int32)

    def label(self) -> str:
        """The names, as the header shows them."""
        return ", ".join(self.names) if self.names else "none"


def zone_event_mask(trace: Trace, on_cpu: BoolArray) -> BoolArray:
    """Events that could be a data zone: CPU-thread annotations, operators, python ranges (no steps)."""
    return on_cpu & kinds_in(trace, ZONE_KINDS) & ~names_in(trace, step_name_ids(trace))


def default_zone_choice(trace: Trace, present: Iterable[str]) -> ZoneChoice:
    """The capture's own data zone, `lecture_batch_cpu` and PyTorch's DataLoader ranges.

    All that are present count; the source names the first of them found in
    that order. With none present the choice is empty (source NONE).
    """
    names_present = present if isinstance(present, (set, frozenset)) else set(present)

    def is_present(name: str) -> bool:
        """Whether some present name's group is `name` (no set of groups is built:
        a million distinct names made that a second's work)."""
        if name == DATALOADER_GROUP:
            return any(map(str.startswith, names_present, repeat(DATALOADER_PREFIX)))
        return name in names_present and not name.startswith(DATALOADER_PREFIX)

    ordered: list[tuple[str, ZoneSource]] = []
    described = trace.capture.data_zone
    if described:
        ordered.append((described, ZoneSource.DESCRIPTION))
    ordered.append((DEFAULT_DATA_ZONE, ZoneSource.DEFAULT))
    ordered.append((DATALOADER_GROUP, ZoneSource.DATALOADER))
    names: list[str] = []
    source = ZoneSource.NONE
    for name, origin in ordered:
        if name not in names and is_present(name):
            names.append(name)
            if source is ZoneSource.NONE:
                source = origin
    return ZoneChoice(tuple(names), source)


@dataclass(frozen=True)
class Gap:
    """A maximal idle interval inside a data zone, within one step (or outside any step)."""

    zone: str
    step: int | None
    start_ns: int
    duration_ns: int
    kind: GapKind
    device: int | None
    zone_event: int

    @property
    def end_ns(self) -> int:
        """When the gap ends."""
        return self.start_ns + self.duration_ns


@dataclass(frozen=True)
class ZoneShare:
    """One chosen zone name in one step: its occurrences that reach into the
    step, and its time there (their union over threads, cut at the step's edges)."""

    name: str
    count: int
    duration_ns: int


@dataclass(frozen=True)
class StepZone:
    """One step's zone time and gap time (None when the step holds no zone)."""

    step: int
    zone_ns: int
    gap_ns: int | None
    shares: tuple[ZoneShare, ...] = ()
    """Each chosen name found in the step, in the choice's order: the zones column."""


@dataclass(frozen=True)
class GapColumns:
    """The gaps of a zone reading as columns, in time order (then by device):
    what a kept reading holds, and what its `Gap`s are built from."""

    start_ns: Int64Array
    duration_ns: Int64Array
    device: Int64Array
    """Each gap's device, as its position among the reading's `gap_intervals`."""
    step: Int64Array
    """Each gap's step, as its position among the reading's `steps` (-1: none)."""
    zone_event: Int64Array

    @classmethod
    def empty(cls) -> GapColumns:
        """No gap."""
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none, none, none, none)


@dataclass
class ZoneReading:
    """The data zone of a capture and its gaps: what `gaps`, the summary, findings and the timeline share."""

    trace: Trace = field(repr=False, compare=False)
    choice: ZoneChoice
    kind: GapKind
    zone: Intervals
    zone_events: Int64Array
    gap_columns_of: Callable[[], GapColumns] = field(repr=False, compare=False)
    """Finds the gaps when first asked (tens of thousands on a big capture, which
    the summary never reads)."""
    gap_intervals: dict[int | None, Intervals] = field(default_factory=dict)
    """Gap intervals per device (the key None: unknown device, or the untraced time)."""
    gap_union: Intervals = field(default_factory=Intervals.empty)
    """Where some device idles (or no traced operator runs): what the zones row shows."""
    steps: list[StepZone] = field(default_factory=list)

    @cached_property
    def gap_columns(self) -> GapColumns:
        """The gaps as columns, in time order (then by device)."""
        return self.gap_columns_of()

    @cached_property
    def gaps(self) -> list[Gap]:
        """The gaps, in time order (then by device)."""
        return self.gaps_at(np.arange(self.gap_columns.start_ns.size))

    def gaps_at(self, positions: Int64Array) -> list[Gap]:
        """The gaps at these positions of `gap_columns` (a list shown needs no
        `Gap` for each of tens of thousands of slivers)."""
        if "gaps" in self.__dict__:  # already made: the same ones
            return [self.gaps[position] for position in positions.tolist()]
        columns, trace, kind = self.gap_columns, self.trace, self.kind
        names, devices = trace.names, list(self.gap_intervals)
        # Position -1 (outside every step) reads the None appended last.
        numbers: list[int | None] = [figure.step for figure in self.steps]
        numbers.append(None)
        owners = columns.zone_event[positions]
        return [
            Gap(names[name], numbers[step], start, length, kind, devices[at], owner)
            for name, step, start, length, at, owner in zip(
                trace.name_id[owners].tolist(),
                columns.step[positions].tolist(),
                columns.start_ns[positions].tolist(),
                columns.duration_ns[positions].tolist(),
                columns.device[positions].tolist(),
                owners.tolist(),
                strict=True,
            )
        ]

    @property
    def found(self) -> bool:
        """Whether any data zone occurs in the capture."""
        return bool(self.zone_events.size)

    @property
    def total_zone_ns(self) -> int:
        """Time in data zones: the union over threads."""
        return self.zone.total_ns

    @property
    def total_gap_ns(self) -> int:
        """Time in data zones when some device idles (or no traced operator runs): never above the zone."""
        return self.gap_union.total_ns

    def step_zone(self, number: int) -> StepZone | None:
        """The figures of one step."""
        return self._by_step.get(number)

    @cached_property
    def _by_step(self) -> dict[int, StepZone]:
        return {figure.step: figure for figure in self.steps}


@dataclass(frozen=True)
class ZoneSummary:
    """The data zone in use and its totals; gap None when the capture holds no data zone."""

    kind: GapKind
    names: tuple[str, ...]
    source: ZoneSource
    total_zone_ns: int
    total_gap_ns: int | None

    @classmethod
    def of(cls, reading: ZoneReading) -> ZoneSummary:
        """The names and totals of a zone reading."""
        return cls(
            reading.kind,
            reading.choice.names,
            reading.choice.source,
            reading.total_zone_ns,
            reading.total_gap_ns if reading.found else None,
        )


def read_zone(
    trace: Trace,
    choice: ZoneChoice,
    candidates: BoolArray,
    steps: Sequence[Step],
    busy_by_device: dict[int | None, Intervals],
    parent_of: Callable[[], Int64Array],
) -> ZoneReading:
    """Compute the zone, its gaps per device (or its untraced time) and per-step figures.

    `parent_of` gives the nesting, read only for untraced time (without GPU
    work): half a second on a big trace that a capture with device work
    never needs here."""
    zone_events = np.flatnonzero(
        candidates & names_in(trace, choice.name_ids(trace))
    ).astype(np.int64)
    starts = trace.start_ns[zone_events]
    ends = starts + trace.duration_ns[zone_events]
    zone = Intervals.union_of(starts, ends)
    step_starts = np.array([step.start_ns for step in steps], dtype=np.int64)
    step_ends = np.array([step.end_ns for step in steps], dtype=np.int64)
    gpu = trace.gpu_observed
    kind = GapKind.GPU_IDLE if gpu else GapKind.UNTRACED
    idle_by_device: dict[int | None, Intervals] = {}
    if gpu:
        for device, busy in busy_by_device.items():
            idle_by_device[device] = zone.subtract(_overlapping(busy, zone))
        union = Intervals.union_all(list(idle_by_device.values()))
    else:
        union = zone.subtract(_work_inside_zones(trace, zone_events, parent_of()))
        idle_by_device[None] = union

    def gap_columns() -> GapColumns:
        return _gap_columns(
            idle_by_device,
            _covering_event(zone_events, starts, ends),
            (step_starts, step_ends),
        )

    zone_per_step = zone.covered_in(step_starts, step_ends)
    gap_per_step = union.covered_in(step_starts, step_ends)
    shares = _shares_per_step(
        trace, choice, zone_events, (starts, ends), (step_starts, step_ends)
    )
    step_figures = [
        StepZone(step.number, int(zone_ns), int(gap_ns) if zone_ns > 0 else None, share)
        for step, zone_ns, gap_ns, share in zip(
            steps, zone_per_step.tolist(), gap_per_step.tolist(), shares, strict=True
        )
    ]
    return ZoneReading(
        trace,
        choice,
        kind,
        zone,
        zone_events,
        gap_columns,
        idle_by_device,
        union,
        step_figures,
    )


def _gap_columns(
    idle_by_device: dict[int | None, Intervals],
    owner_of: _Cover,
    steps: tuple[Int64Array, Int64Array],
) -> GapColumns:
    """Each device's idle time in the zone cut at step bounds, one gap a piece,
    with the zone occurrence holding it, in time order (then by device)."""
    step_starts, step_ends = steps
    cuts = np.concatenate([step_starts, step_ends])
    parts: list[tuple[Int64Array, ...]] = []
    for position, (device, idle) in enumerate(idle_by_device.items()):
        pieces = idle.split_at(cuts)
        if not pieces:
            continue
        parts.append(
            (
                pieces.starts,
                pieces.lengths,
                np.full(len(pieces), position, dtype=np.int64),
                np.full(len(pieces), -1 if device is None else device, dtype=np.int64),
                pieces.assign(step_starts, step_ends),
                owner_of(pieces.starts),
            )
        )
    if not parts:
        return GapColumns.empty()
    starts, lengths, devices, device_keys, step_index, owners = (
        np.concatenate(column).astype(np.int64) for column in zip(*parts, strict=True)
    )
    order = np.lexsort((device_keys, starts))  # stable: ties keep the devices' order
    return GapColumns(
        starts[order], lengths[order], devices[order], step_index[order], owners[order]
    )


def _shares_per_step(
    trace: Trace,
    choice: ZoneChoice,
    zone_events: Int64Array,
    occurrences: tuple[Int64Array, Int64Array],
    steps: tuple[Int64Array, Int64Array],
) -> list[tuple[ZoneShare, ...]]:
    """Per step, each chosen name's occurrences reaching into it and its time there."""
    starts, ends = occurrences
    step_starts, step_ends = steps
    name_ids, of_event = np.unique(trace.name_id[zone_events], return_inverse=True)
    group_names = [zone_group(trace.names[name_id]) for name_id in name_ids.tolist()]
    groups = np.array(group_names, dtype=object)[of_event.reshape(-1)]
    columns: list[tuple[str, Int64Array, Int64Array]] = []
    for name in choice.names:
        mine = groups == name
        if not mine.any():
            continue
        own_starts, own_ends = starts[mine], ends[mine]
        time = Intervals.union_of(own_starts, own_ends).covered_in(
            step_starts, step_ends
        )
        # Occurrences that start before the step ends, less those over by its
        # start (these started before it too): those reaching into the step.
        count = np.searchsorted(np.sort(own_starts), step_ends, side="left")
        count -= np.searchsorted(np.sort(own_ends), step_starts, side="right")
        columns.append((name, count, time))
    return [
        tuple(
            ZoneShare(name, int(count[index]), int(time[index]))
            for name, count, time in columns
            if time[index] > 0 or count[index] > 0
        )
        for index in range(step_starts.size)
    ]


def _overlapping(busy: Intervals, zone: Intervals) -> Intervals:
    """The intervals of `busy` that overlap `zone`: all that subtracting it from the zone needs."""
    if not busy or not zone:
        return Intervals.empty()
    first = np.searchsorted(busy.ends, zone.starts, side="right")
    last = np.searchsorted(busy.starts, zone.ends, side="left")
    counts = np.maximum(last - first, 0)
    total = int(counts.sum())
    offsets = np.repeat(first - (np.cumsum(counts) - counts), counts)
    touching = np.zeros(busy.starts.size, dtype=bool)
    touching[np.arange(total, dtype=np.int64) + offsets] = True
    if touching.all():
        return busy
    return Intervals(busy.starts[touching], busy.ends[touching])


def _work_inside_zones(
    trace: Trace, zone_events: Int64Array, parent: Int64Array
) -> Intervals:
    """Where a thread with the zone open runs a child of it (nested zones are not work)."""
    if zone_events.size == 0:
        return Intervals.empty()
    is_zone = np.zeros(trace.event_count, dtype=bool)
    is_zone[zone_events] = True
    has_parent = parent >= 0
    children = np.flatnonzero(
        has_parent & ~is_zone & is_zone[np.where(has_parent, parent, 0)]
    )
    starts = trace.start_ns[children]
    return Intervals.union_of(starts, starts + trace.duration_ns[children])


def _covering_event(events: Int64Array, starts: Int64Array, ends: Int64Array) -> _Cover:
    """A lookup: for times inside the zone, the zone occurrence that holds them."""
    order = np.argsort(starts, kind="stable")
    return _Cover(events[order], starts[order], ends[order])


@dataclass(frozen=True)
class _Cover:
    events: Int64Array
    starts: Int64Array
    ends: Int64Array

    def __call__(self, times: Int64Array) -> Int64Array:
        """The occurrence reaching furthest among those started by each time (it holds the time)."""
        if self.events.size == 0:
            return np.full(times.size, -1, dtype=np.int64)
        running = np.maximum.accumulate(self.ends)
        positions = np.arange(self.ends.size)
        reach = np.maximum.accumulate(np.where(self.ends >= running, positions, 0))
        at = np.searchsorted(self.starts, times, side="right") - 1
        return self.events[reach[np.maximum(at, 0)]]


@dataclass(frozen=True)
class ZoneCandidate:
    """A range the user can pick as the data zone."""

    name: str
    calls: int
    total_ns: int
    kind: str


def zone_candidates(
    trace: Trace, candidates: BoolArray, choice: ZoneChoice
) -> list[ZoneCandidate]:
    """Every name that can be a data zone, with calls and total time, the chosen ones first.

    DataLoader ranges are one candidate; total time is a sum of durations
    (torch's total), so recursive ranges count each call.
    """
    events = np.flatnonzero(candidates)
    if events.size == 0:
        return []
    groups: dict[str, int] = {}
    group_of_name = np.array(
        [groups.setdefault(zone_group(name), len(groups)) for name in trace.names]
        or [0],
        dtype=np.int64,
    )
    group = group_of_name[trace.name_id[events]]
    calls = np.bincount(group, minlength=len(groups))
    total = sum_by_index(len(groups), group, trace.duration_ns[events])
    kind_of_group: dict[int, str] = {}
    first_event = np.full(len(groups), -1, dtype=np.int64)
    first_event[group[::-1]] = events[::-1]
    names = [""] * len(groups)
    for name, index in groups.items():
        names[index] = name
    result = []
    for index in np.flatnonzero(calls).tolist():
        kind = Kind(int(trace.kind[first_event[index]]))
        kind_of_group[index] = _KIND_LABELS.get(kind, "operator")
        result.append(
            ZoneCandidate(
                names[index], int(calls[index]), int(total[index]), kind_of_group[index]
            )
        )
    chosen = set(choice.names)
    result.sort(key=lambda item: (item.name not in chosen, -item.total_ns, item.name))
    return result


_KIND_LABELS = {
    Kind.USER_ANNOTATION: "annotation",
    Kind.CPU_OP: "operator",
    Kind.CPU_OTHER: "operator",
    Kind.PYTHON: "python",
}
