"""Memory of a profile_memory capture: peak allocated per device and step, and per
operator the bytes torch's key_averages() reports.

The allocator's total after each `[memory]` event (`Total Allocated`) is a
step function per device; its peak over a window counts the level the window
starts at. PyTorch 1.9 wrote no total, only each event's `Bytes`: the level
is then rebuilt as their running sum from the capture's start (what was
allocated before it is unseen; a free of such memory raises the starting
level to the least that keeps every level at 0 or more), and says so
(`AllocatedSource`); with neither, the level is unknown. Per operator, torch gives every CPU event the bytes of the memory
events whose time lies in its interval, ends included, on any thread
(`cpu_memory_usage`, and `device_memory_usage` for CUDA, HIP, XPU and
PrivateUse1 devices); self is that minus its children's, and rows sum them
per name. Memory events inside no event form torch's `[memory]` row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.vocab import AllocatedSource
from tui.core.figures.analysis import Analysis
from tui.core.figures.optable import group_name
from tui.core.model.nesting import participants, sum_by_index
from tui.core.model.trace import MemoryColumns, Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# torch's c10::DeviceType values that key_averages counts as CPU or device memory.
CPU_TYPES = (0, 2, 5)  # CPU, MKLDNN, IDEEP
DEVICE_TYPES = (1, 6, 12, 20)  # CUDA, HIP, XPU, PrivateUse1
_TYPE_NAMES = {1: "cuda", 6: "hip", 12: "xpu", 13: "mps", 19: "mtia", 20: "privateuse1"}
MEMORY_ROW = "[memory]"


def device_label(device_type: int, device_id: int) -> str:
    """`cpu`, `cuda:0`… as torch spells devices."""
    if device_type in CPU_TYPES:
        return "cpu"
    name = _TYPE_NAMES.get(device_type, f"device{device_type}")
    return name if device_id < 0 else f"{name}:{device_id}"


@dataclass(frozen=True)
class DeviceMemory:
    """One device's memory events, in time order: when, and the bytes allocated
    after each (-1 where unknown), read from `source` (None: no level known)."""

    label: str
    time_ns: Int64Array
    allocated: Int64Array
    source: AllocatedSource | None = AllocatedSource.TOTAL_ALLOCATED

    def peak(
        self, start_ns: int | None = None, end_ns: int | None = None
    ) -> int | None:
        """The highest total allocated during [start, end), counting the level it starts
        at; None when no total is known there."""
        times, totals = self.time_ns, self.allocated
        first = 0 if start_ns is None else int(np.searchsorted(times, start_ns, "left"))
        last = (
            times.size
            if end_ns is None
            else int(np.searchsorted(times, end_ns, "left"))
        )
        known = totals[first:last]
        known = known[known >= 0]
        candidates = [int(known.max())] if known.size else []
        if first > 0 and totals[first - 1] >= 0:
            candidates.append(int(totals[first - 1]))
        return max(candidates) if candidates else None


def devices_of(memory: MemoryColumns) -> list[DeviceMemory]:
    """Each device's events, CPU first, then by device type and index."""
    keys = sorted(
        {
            (int(t), int(i))
            for t, i in zip(
                memory.device_type.tolist(), memory.device_id.tolist(), strict=True
            )
        },
        key=lambda key: (key[0] not in CPU_TYPES, key),
    )
    by_label: dict[str, BoolArray] = {}
    for device_type, device_id in keys:
        label = device_label(device_type, device_id)
        mine = (memory.device_type == device_type) & (memory.device_id == device_id)
        by_label[label] = by_label[label] | mine if label in by_label else mine
    return [
        _device_memory(label, memory.time_ns[mask], memory, mask)
        for label, mask in by_label.items()
    ]


def _device_memory(
    label: str, times: Int64Array, memory: MemoryColumns, mine: BoolArray
) -> DeviceMemory:
    """The allocator's totals where written, else the running sum of Bytes."""
    totals = memory.total_allocated[mine]
    if (totals >= 0).any():
        return DeviceMemory(label, times, totals, AllocatedSource.TOTAL_ALLOCATED)
    moved = memory.bytes[mine]
    if not moved.any():
        unknown = np.full(times.size, -1, dtype=np.int64)
        return DeviceMemory(label, times, unknown, None)
    running = np.cumsum(moved, dtype=np.int64)
    floor = max(0, -int(running.min()))
    return DeviceMemory(label, times, running + floor, AllocatedSource.RUNNING_SUM)


@dataclass(frozen=True)
class MemoryOpTable:
    """Per operator name, allocated bytes as key_averages() reports them.

    CPU columns are `self_cpu_memory_usage` / `cpu_memory_usage`; device
    columns `self_device_memory_usage` / `device_memory_usage`.
    """

    names: list[str]
    calls: Int64Array
    self_cpu: Int64Array
    total_cpu: Int64Array
    self_device: Int64Array
    total_device: Int64Array

    def __len__(self) -> int:
        return len(self.names)

    def order(self) -> Int64Array:
        """Rows that moved memory, the most allocated (CPU or device, in total) first."""
        moved = (self.self_cpu != 0) | (self.total_cpu != 0)
        moved |= (self.self_device != 0) | (self.total_device != 0)
        rows = np.flatnonzero(moved)
        size = np.maximum(np.abs(self.total_cpu), np.abs(self.total_device))[rows]
        names = [self.names[row] for row in rows.tolist()]
        by_name = np.array(
            sorted(range(rows.size), key=names.__getitem__), dtype=np.int64
        )
        ranked = by_name[np.argsort(-size[by_name], kind="stable")]
        return rows[ranked].astype(np.int64)


def memory_op_table(analysis: Analysis) -> MemoryOpTable:
    """key_averages()'s memory columns over the whole trace."""
    trace = analysis.trace
    memory = trace.memory
    events = np.flatnonzero(participants(trace, analysis.on_cpu))
    cpu_bytes = np.where(np.isin(memory.device_type, CPU_TYPES), memory.bytes, 0)
    device_bytes = np.where(np.isin(memory.device_type, DEVICE_TYPES), memory.bytes, 0)
    starts = trace.start_ns[events]
    ends = starts + trace.duration_ns[events]
    first = np.searchsorted(memory.time_ns, starts, side="left")
    last = np.searchsorted(memory.time_ns, ends, side="right")
    covered = _covered_records(memory.time_ns.size, first, last)
    totals = []
    for column in (cpu_bytes, device_bytes):
        prefix = np.concatenate(([0], np.cumsum(column, dtype=np.int64)))
        per_event = np.zeros(trace.event_count, dtype=np.int64)
        per_event[events] = prefix[last] - prefix[first]
        totals.append(per_event)
    cpu_total, device_total = totals
    parent = analysis.parent
    children = np.flatnonzero(parent >= 0)

    def self_of(total: Int64Array) -> Int64Array:
        return total - sum_by_index(
            trace.event_count, parent[children], total[children]
        )

    cpu_self, device_self = self_of(cpu_total), self_of(device_total)
    # Python frames nest (their bytes leave their callers' self) but are no rows.
    events = events[~analysis.python_frames[events]]
    group_of: dict[str, int] = {}
    name_group = np.array(
        [group_of.setdefault(group_name(name), len(group_of)) for name in trace.names]
        or [0],
        dtype=np.int64,
    )
    groups = name_group[trace.name_id[events]] if events.size else np.zeros(0, np.int64)
    names = list(group_of)
    size = len(names)

    def per_group(values: Int64Array) -> Int64Array:
        return sum_by_index(size, groups, values[events])

    calls = np.bincount(groups, minlength=size).astype(np.int64)
    present = calls > 0
    table = MemoryOpTable(
        names=[
            name for name, keep in zip(names, present.tolist(), strict=True) if keep
        ],
        calls=calls[present],
        self_cpu=per_group(cpu_self)[present],
        total_cpu=per_group(cpu_total)[present],
        self_device=per_group(device_self)[present],
        total_device=per_group(device_total)[present],
    )
    return _with_unattributed(table, ~covered, cpu_bytes, device_bytes)


def _covered_records(count: int, first: Int64Array, last: Int64Array) -> BoolArray:
    """Which memory events lie inside at least one event's interval."""
    marks = np.zeros(count + 1, dtype=np.int64)
    np.add.at(marks, first, 1)
    np.add.at(marks, last, -1)
    return np.cumsum(marks)[:count] > 0


def _with_unattributed(
    table: MemoryOpTable,
    alone: BoolArray,
    cpu_bytes: Int64Array,
    device_bytes: Int64Array,
) -> MemoryOpTable:
    """Add torch's `[memory]` row: memory events inside no event, each its own call."""
    count = int(alone.sum())
    if count == 0:
        return table
    cpu, device = int(cpu_bytes[alone].sum()), int(device_bytes[alone].sum())

    def plus(column: Int64Array, value: int) -> Int64Array:
        return np.append(column, np.int64(value))

    return MemoryOpTable(
        names=[*table.names, MEMORY_ROW],
        calls=plus(table.calls, count),
        self_cpu=plus(table.self_cpu, cpu),
        total_cpu=plus(table.total_cpu, cpu),
        self_device=plus(table.self_device, device),
        total_device=plus(table.total_device, device),
    )


@dataclass(frozen=True)
class MemoryReading:
    """Peaks per device over the window and per step, and the per-operator table."""

    devices: list[DeviceMemory]
    window: tuple[int, int] | None
    window_steps: int
    steps: list[
        tuple[int, str, dict[str, int | None]]
    ]  # (number, phase, peak per device)
    ops: MemoryOpTable

    @property
    def peak(self) -> dict[str, int | None]:
        """Peak allocated per device over the window (the whole trace without steps)."""
        start, end = self.window or (None, None)
        return {device.label: device.peak(start, end) for device in self.devices}

    @property
    def has_device_memory(self) -> bool:
        """Whether any memory event was on a device (not the CPU)."""
        return any(device.label != "cpu" for device in self.devices)

    @classmethod
    def of(cls, analysis: Analysis) -> MemoryReading | None:
        """The memory reading, None when the capture holds no memory event."""
        trace: Trace = analysis.trace
        if len(trace.memory) == 0:
            return None
        devices = devices_of(trace.memory)
        window_steps = analysis.window_steps
        window = (
            (window_steps[0].start_ns, window_steps[-1].end_ns)
            if window_steps
            else None
        )
        steps = [
            (
                step.number,
                step.phase.value,
                {
                    device.label: device.peak(step.start_ns, step.end_ns)
                    for device in devices
                },
            )
            for step in analysis.steps
        ]
        return cls(devices, window, len(window_steps), steps, memory_op_table(analysis))
