"""Copies and sets on the device: direction, bytes, host memory, who issued each, per step.

Kineto names a copy after its direction and memories, `Memcpy HtoD (Pageable
-> Device)`, and writes its size in the args (`bytes`); a set is `Memset
(Device)`. Other accelerators' DMA requests (`dma_request`, MTIA) say their
direction and size in args (`direction`, `size`). A copy belongs to the step
in which the host issued it (its launch call's start), and to the operator
that issued it (`Analysis.gpu_owner`), named by its path of enclosing
operators and zones (steps left out, so the same code gives the same path in
every step). Copy time is always a union of intervals, never a sum.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import CopyDirection, HostMemory
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import dma_name_ids
from tui.core.figures.launches import issued_at, step_index
from tui.core.model.steps import STEP_NAME, Step
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
UInt8Array = npt.NDArray[np.uint8]

DIRECTIONS = list(CopyDirection)
HOST_MEMORIES = list(HostMemory)
NO_HOST = 255  # host_memory code of a copy with no host side (device→device, sets)

_MEMCPY = re.compile(r"^Memcpy ([HDAP])to([HDAP])\b(?: \((\w+) -> (\w+)\))?")
_DEVICE_SIDES = frozenset("DAP")  # device memory, CUDA arrays, peer devices
_DMA_DIRECTIONS = {
    "HOST_TO_DEVICE": CopyDirection.HOST_TO_DEVICE,
    "DEVICE_TO_HOST": CopyDirection.DEVICE_TO_HOST,
    "DEVICE_TO_DEVICE": CopyDirection.DEVICE_TO_DEVICE,
    "HOST_TO_HOST": CopyDirection.HOST_TO_HOST,
}
_HOST_MEMORY = {"Pageable": HostMemory.PAGEABLE, "Pinned": HostMemory.PINNED}


def parse_copy_name(name: str) -> tuple[CopyDirection, HostMemory | None]:
    """Direction and host memory from a Kineto copy or set name."""
    if name.startswith("Memset"):
        return CopyDirection.SET, None
    match = _MEMCPY.match(name)
    if match is None:
        return CopyDirection.OTHER, None
    source, target, source_memory, target_memory = match.groups()
    from_device, to_device = source in _DEVICE_SIDES, target in _DEVICE_SIDES
    if not from_device and to_device:
        return CopyDirection.HOST_TO_DEVICE, _HOST_MEMORY.get(
            source_memory or "", HostMemory.UNKNOWN
        )
    if from_device and not to_device:
        return CopyDirection.DEVICE_TO_HOST, _HOST_MEMORY.get(
            target_memory or "", HostMemory.UNKNOWN
        )
    if from_device:
        return CopyDirection.DEVICE_TO_DEVICE, None
    return CopyDirection.HOST_TO_HOST, None


def copy_event_mask(trace: Trace) -> npt.NDArray[np.bool_]:
    """Copies, sets, and other accelerators' DMA requests."""
    mask = (trace.kind == Kind.MEMCPY) | (trace.kind == Kind.MEMSET)
    other = trace.kind == Kind.DEVICE_OTHER
    if other.any():
        mask |= other & np.isin(trace.name_id, dma_name_ids(trace))
    result: npt.NDArray[np.bool_] = mask
    return result


# No copy moves more (256 TiB): a size past it is a bad value, and sums of
# many sizes stay inside int64.
MAX_COPY_BYTES = 2**48


def _size(value: Any) -> int:
    """A copy's size in bytes, -1 (unknown) when absent, negative, not finite or past MAX_COPY_BYTES."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return -1
    if not 0 <= value <= MAX_COPY_BYTES:  # NaN fails too
        return -1
    return int(value)


@dataclass(frozen=True)
class CopyColumns:
    """One entry per copy or set, in start order; codes index DIRECTIONS / HOST_MEMORIES.

    `bytes` is -1 when the trace does not say; `issuer` (the CPU operator)
    and `path` are -1 when the copy is tied to none; `step` is the index in
    `Analysis.steps` of the step that issued it, -1 outside every step.
    """

    events: Int64Array
    start_ns: Int64Array
    direction: UInt8Array
    host_memory: UInt8Array
    bytes: Int64Array
    issuer: Int64Array
    step: Int64Array
    path: Int64Array
    paths: list[tuple[str, ...]]

    def __len__(self) -> int:
        return int(self.events.size)

    @classmethod
    def of(cls, analysis: Analysis) -> CopyColumns:
        """Every copy of an analysed trace, read once per analysis (`Analysis.memo`)."""
        return analysis.memo(copy_columns)


def copy_columns(analysis: Analysis) -> CopyColumns:
    """Read every copy of an analysed trace."""
    trace = analysis.trace
    events = np.flatnonzero(copy_event_mask(trace)).astype(np.int64)
    events = events[np.argsort(trace.start_ns[events], kind="stable")]
    count = events.size
    direction = np.zeros(count, dtype=np.uint8)
    host = np.full(count, NO_HOST, dtype=np.uint8)
    size = np.full(count, -1, dtype=np.int64)
    parsed: dict[int, tuple[CopyDirection, HostMemory | None]] = {}
    for position, event in enumerate(events.tolist()):
        args = trace.event_args(event)
        name_id = int(trace.name_id[event])
        if trace.kind[event] == Kind.DEVICE_OTHER:
            raw = args.get("direction")
            way = _DMA_DIRECTIONS.get(str(raw), CopyDirection.OTHER)
            memory = None  # a DMA request does not say pageable or pinned
            size[position] = _size(args.get("size", args.get("bytes")))
        else:
            if name_id not in parsed:
                parsed[name_id] = parse_copy_name(trace.names[name_id])
            way, memory = parsed[name_id]
            size[position] = _size(args.get("bytes"))
        direction[position] = DIRECTIONS.index(way)
        if way in (CopyDirection.HOST_TO_DEVICE, CopyDirection.DEVICE_TO_HOST):
            host[position] = HOST_MEMORIES.index(memory or HostMemory.UNKNOWN)
    issuer = analysis.gpu_owner[events]
    steps = analysis.steps
    step = step_index(
        issued_at(trace, events, analysis.launch_call, analysis.gpu_owner),
        np.array([item.start_ns for item in steps], dtype=np.int64),
        np.array([item.end_ns for item in steps], dtype=np.int64),
    )
    path, paths = _operator_paths(trace, analysis.parent, issuer)
    return CopyColumns(
        events,
        trace.start_ns[events],
        direction,
        host,
        size,
        issuer,
        step,
        path,
        paths,
    )


def _operator_paths(
    trace: Trace, parent: Int64Array, issuer: Int64Array
) -> tuple[Int64Array, list[tuple[str, ...]]]:
    """Each issuer's chain of enclosing events (root first, steps left out), interned."""
    index_of: dict[tuple[str, ...], int] = {}
    by_issuer: dict[int, int] = {}
    path = np.full(issuer.size, -1, dtype=np.int64)
    for position, op in enumerate(issuer.tolist()):
        if op < 0:
            continue
        if op not in by_issuer:
            chain: list[str] = []
            current = op
            while current >= 0:
                name = trace.event_name(current)
                if STEP_NAME.match(name) is None:
                    chain.append(name)
                current = int(parent[current])
            key = tuple(reversed(chain))
            by_issuer[op] = index_of.setdefault(key, len(index_of))
        path[position] = by_issuer[op]
    paths: list[tuple[str, ...]] = [()] * len(index_of)
    for key, index in index_of.items():
        paths[index] = key
    return path, paths


# -- what people read: totals, per step, repeated copies ---------------------------


@dataclass(frozen=True)
class CopyTotals:
    """Copies of one direction: how many, how much, for how long (a union)."""

    direction: CopyDirection
    count: int
    bytes: int
    unknown_size: int
    time_ns: int
    pageable: int
    pinned: int


def union_per_group(
    starts: Int64Array, ends: Int64Array, group: Int64Array, groups: int
) -> Int64Array:
    """The length of the union of each group's intervals (`group[i]` in `[0, groups)`), all
    groups at once: each group is moved to a stretch of time of its own, so one union
    keeps them apart, and each stretch's coverage is its group's length."""
    lengths = np.zeros(groups, dtype=np.int64)
    if starts.size == 0 or groups == 0:
        return lengths
    low = int(starts.min())
    stretch = max(int(ends.max()) - low, 0) + 1
    if groups * stretch >= 2**62:  # too far apart to share one time line
        for index in range(groups):
            mine = group == index
            lengths[index] = Intervals.union_of(starts[mine], ends[mine]).total_ns
        return lengths
    offset = group.astype(np.int64) * stretch - low
    moved = Intervals.union_of(starts + offset, ends + offset)
    windows = np.arange(groups, dtype=np.int64) * stretch
    return moved.covered_in(windows, windows + stretch)


def _totals_by(
    trace: Trace, columns: CopyColumns, key: Int64Array, keys: int
) -> list[list[CopyTotals]]:
    """For each key in `[0, keys)`, the totals per direction of the copies holding it
    (`key` -1: counted in none), in DIRECTIONS order, all keys at once."""
    kept = np.flatnonzero(key >= 0)
    width = len(DIRECTIONS)
    cell = key[kept] * width + columns.direction[kept].astype(np.int64)
    cells = keys * width
    sizes = columns.bytes[kept]
    host = columns.host_memory[kept]
    count = np.bincount(cell, minlength=cells)
    known = np.zeros(cells, dtype=np.int64)
    np.add.at(known, cell[sizes >= 0], sizes[sizes >= 0])
    unknown = np.bincount(cell[sizes < 0], minlength=cells)
    pageable_code = HOST_MEMORIES.index(HostMemory.PAGEABLE)
    pinned_code = HOST_MEMORIES.index(HostMemory.PINNED)
    pageable = np.bincount(cell[host == pageable_code], minlength=cells)
    pinned = np.bincount(cell[host == pinned_code], minlength=cells)
    events = columns.events[kept]
    time = union_per_group(trace.start_ns[events], trace.end_ns[events], cell, cells)
    rows: list[list[CopyTotals]] = [[] for _ in range(keys)]
    for index in np.flatnonzero(count).tolist():
        rows[index // width].append(
            CopyTotals(
                direction=DIRECTIONS[index % width],
                count=int(count[index]),
                bytes=int(known[index]),
                unknown_size=int(unknown[index]),
                time_ns=int(time[index]),
                pageable=int(pageable[index]),
                pinned=int(pinned[index]),
            )
        )
    return rows


def copy_totals(
    trace: Trace, columns: CopyColumns, chosen: npt.NDArray[np.bool_] | None = None
) -> list[CopyTotals]:
    """Totals per direction present among the chosen copies (all by default), in DIRECTIONS order."""
    keep = np.ones(len(columns), dtype=bool) if chosen is None else chosen
    return _totals_by(trace, columns, np.where(keep, 0, -1).astype(np.int64), 1)[0]


def step_copy_totals(
    trace: Trace, columns: CopyColumns, steps: int
) -> list[list[CopyTotals]]:
    """`copy_totals` of the copies issued in each of `steps` steps, all steps at once."""
    return _totals_by(trace, columns, columns.step, steps)


@dataclass(frozen=True)
class CopyGroup:
    """Copies of one direction, memory and size issued by one operator path.

    `per_step_count[i]` / `per_step_ns[i]` are for the i-th window step
    (`per_step_ns` a union of the group's copies issued in that step).
    """

    direction: CopyDirection
    host_memory: HostMemory | None
    bytes: int | None
    path: tuple[str, ...]
    name: str
    positions: Int64Array
    time_ns: int
    per_step_count: Int64Array
    per_step_ns: Int64Array

    @property
    def count(self) -> int:
        """How many copies the group holds."""
        return int(self.positions.size)

    @property
    def operator(self) -> str | None:
        """The operator that issued them (the innermost of the path)."""
        return self.path[-1] if self.path else None

    @property
    def repeated(self) -> bool:
        """Issued in every one of two or more window steps."""
        return self.per_step_count.size >= 2 and bool((self.per_step_count > 0).all())

    @property
    def median_count_per_step(self) -> float:
        """Copies per window step (median)."""
        return float(statistics.median(self.per_step_count.tolist() or [0]))

    @property
    def median_ns_per_step(self) -> float:
        """Time per window step (median of each step's union)."""
        return float(statistics.median(self.per_step_ns.tolist() or [0]))


def _group_ids(columns: CopyColumns) -> tuple[Int64Array, int]:
    """Each copy's group by (direction, host memory, bytes, operator path), groups
    numbered in the order their first copy comes."""
    count = len(columns)
    if count == 0:
        return np.zeros(0, dtype=np.int64), 0
    fields = (
        columns.path,
        columns.bytes,
        columns.host_memory.astype(np.int64),
        columns.direction.astype(np.int64),
    )
    order = np.lexsort(fields)  # stable: a group's copies stay in position order
    head = np.zeros(count, dtype=bool)
    head[0] = True
    for values in fields:
        ordered = values[order]
        head[1:] |= ordered[1:] != ordered[:-1]
    by_key = np.cumsum(head) - 1
    firsts = order[head]  # each group's first copy, groups in key order
    renumber = np.empty(firsts.size, dtype=np.int64)
    renumber[np.argsort(firsts, kind="stable")] = np.arange(firsts.size)
    group = np.empty(count, dtype=np.int64)
    group[order] = renumber[by_key]
    return group, int(firsts.size)


def copy_groups(
    trace: Trace, columns: CopyColumns, window: list[Step], all_steps: list[Step]
) -> list[CopyGroup]:
    """Copies grouped by (direction, host memory, bytes, operator path), largest time first."""
    rank_of = {step.event: rank for rank, step in enumerate(window)}
    window_rank = np.array(
        [rank_of.get(step.event, -1) for step in all_steps] + [-1], dtype=np.int64
    )
    group, count = _group_ids(columns)
    if count == 0:
        return []
    events = columns.events
    starts, ends = trace.start_ns[events], trace.end_ns[events]
    time = union_per_group(starts, ends, group, count)
    steps = len(window)
    rank = window_rank[columns.step]  # -1 (outside every step) reads the last: -1
    in_window = rank >= 0
    cell = group[in_window] * steps + rank[in_window]
    per_count = np.bincount(cell, minlength=count * steps).reshape(count, steps)
    per_ns = union_per_group(
        starts[in_window], ends[in_window], cell, count * steps
    ).reshape(count, steps)
    members = np.argsort(group, kind="stable")
    bounds = np.cumsum(np.bincount(group, minlength=count))
    groups = []
    for index, positions in enumerate(np.split(members, bounds[:-1])):
        first = int(positions[0])
        size = int(columns.bytes[first])
        memory = int(columns.host_memory[first])
        path = int(columns.path[first])
        groups.append(
            CopyGroup(
                direction=DIRECTIONS[int(columns.direction[first])],
                host_memory=None if memory == NO_HOST else HOST_MEMORIES[memory],
                bytes=None if size < 0 else size,
                path=columns.paths[path] if path >= 0 else (),
                name=trace.event_name(int(events[first])),
                positions=positions.astype(np.int64),
                time_ns=int(time[index]),
                per_step_count=per_count[index].astype(np.int64),
                per_step_ns=per_ns[index],
            )
        )
    groups.sort(key=lambda group: (-group.time_ns, -group.count, group.name))
    return groups


@dataclass(frozen=True)
class CopyReading:
    """Everything known about a capture's copies: columns, totals, per step, groups."""

    columns: CopyColumns
    totals: list[CopyTotals]
    steps: list[Step]
    step_totals: list[list[CopyTotals]]
    window: list[Step]
    groups: list[CopyGroup]

    @classmethod
    def of(cls, analysis: Analysis) -> CopyReading:
        """The copies of an analysed trace, read once per analysis (`Analysis.memo`)."""
        return analysis.memo(copy_reading)

    @property
    def repeated(self) -> list[CopyGroup]:
        """Copies (not sets) of the same direction and size from the same operator
        path in every window step: the candidate "constant re-sent each step"."""
        return [
            group
            for group in self.groups
            if group.repeated and group.direction is not CopyDirection.SET
        ]

    def first_in_window(self, group: CopyGroup) -> int:
        """The position (in `columns`) of the group's first copy issued in the window, else its first."""
        positions = group.positions
        in_window = {step.event for step in self.window}
        window_step = np.array(
            [step.event in in_window for step in self.steps] + [False], dtype=bool
        )
        hits = np.flatnonzero(window_step[self.columns.step[positions]])
        return int(positions[hits[0]] if hits.size else positions[0])


def copy_reading(analysis: Analysis) -> CopyReading:
    """Read the copies of an analysed trace."""
    trace = analysis.trace
    columns = CopyColumns.of(analysis)
    steps = analysis.steps
    window = analysis.window_steps
    return CopyReading(
        columns=columns,
        totals=copy_totals(trace, columns),
        steps=steps,
        step_totals=step_copy_totals(trace, columns, len(steps)),
        window=window,
        groups=copy_groups(trace, columns, window, steps),
    )
