"""Gather the profiler's memory events (`[memory]` instants, profile_memory=True) as columns.

torch writes one instant event per allocation or free, with its size
(`Bytes`, negative for a free), the allocator's totals after it (`Total
Allocated`, `Total Reserved`) and the device (`Device Type`, `Device Id`).
The loader keeps them as `Trace.memory`; batches and ranges of events are
gathered apart and merged in order, like the other columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np
import orjson

from tui.core.base.numbers import parse_us_to_ns
from tui.core.ingest.decode.document import RawEvent
from tui.core.model.trace import MemoryColumns

MEMORY_EVENT_NAME = "[memory]"
_FIELDS = (
    ("bytes", "Bytes", 0),
    ("total_allocated", "Total Allocated", -1),
    ("total_reserved", "Total Reserved", -1),
    ("device_type", "Device Type", -1),
    ("device_id", "Device Id", -1),
)
_NAMES = ("time_ns", *(name for name, _, _ in _FIELDS))


class _MemoryArgs(msgspec.Struct, gc=False):
    """The args of a `[memory]` event when they are what torch writes: integers
    (a field left out reads as its default; anything else is the slow path)."""

    bytes: int = msgspec.field(name="Bytes", default=0)
    total_allocated: int = msgspec.field(name="Total Allocated", default=-1)
    total_reserved: int = msgspec.field(name="Total Reserved", default=-1)
    device_type: int = msgspec.field(name="Device Type", default=-1)
    device_id: int = msgspec.field(name="Device Id", default=-1)


_BATCH = msgspec.json.Decoder(list[_MemoryArgs])
_LIMIT = 2**62


def _typed_batch(raws: list[msgspec.Raw]) -> dict[str, np.ndarray[Any, Any]] | None:
    """Every event's five fields decoded in one call and read into columns
    without a Python loop, or None when some event's args are not plain
    integers (a float, a string, a null, bad JSON: the slow path)."""
    joined = b"[" + b",".join(raw if len(raw) else b"{}" for raw in raws) + b"]"
    try:
        decoded = _BATCH.decode(joined)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    columns: dict[str, np.ndarray[Any, Any]] = {}
    for name, _, default in _FIELDS:
        try:
            column = np.fromiter(
                map(attrgetter(name), decoded), dtype=np.int64, count=len(decoded)
            )
        except OverflowError:
            return None
        far = (column >= _LIMIT) | (column <= -_LIMIT)
        columns[name] = np.where(far, default, column)
    return columns


def _integer(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    if not np.isfinite(value) or abs(value) >= 2**62:
        return default
    return int(value)


class MemoryCollector:
    """Columns of the `[memory]` events seen so far (absolute ns), in file order."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray[Any, Any]]] = {
            name: [] for name in _NAMES
        }

    def add(self, instants: Sequence[RawEvent]) -> None:
        """Keep the memory events among some instant events; others are ignored."""
        memory = [event for event in instants if event.name == MEMORY_EVENT_NAME]
        if not memory:
            return
        times, valid = parse_us_to_ns([event.ts for event in memory])
        keep = np.flatnonzero(valid).tolist()
        if not keep:
            return
        self.parts["time_ns"].append(times[keep])
        batch = _typed_batch([memory[index].args for index in keep])
        if batch is not None:
            for name, _, _ in _FIELDS:
                self.parts[name].append(batch[name])
            return
        values: dict[str, list[int]] = {name: [] for name, _, _ in _FIELDS}
        for index in keep:
            raw = memory[index].args
            try:
                args = orjson.loads(bytes(raw)) if len(raw) else {}
            except orjson.JSONDecodeError:
                args = {}
            if not isinstance(args, dict):
                args = {}
            for name, key, default in _FIELDS:
                values[name].append(_integer(args.get(key), default))
        for name, _, _ in _FIELDS:
            self.parts[name].append(np.array(values[name], dtype=np.int64))

    def export(self) -> dict[str, np.ndarray[Any, Any]]:
        """The columns gathered, for merging into another collector."""
        return {
            name: np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
            for name, arrays in self.parts.items()
        }

    def absorb(self, part: dict[str, np.ndarray[Any, Any]]) -> None:
        """Add the columns gathered from the events that follow."""
        if part and part["time_ns"].size:
            for name in _NAMES:
                self.parts[name].append(part[name])

    def finish(self, origin_ns: int) -> MemoryColumns:
        """The memory events in time order (ties in file order), times from `origin_ns`."""
        columns = self.export()
        order = np.argsort(columns["time_ns"], kind="stable")
        return MemoryColumns(
            time_ns=(columns["time_ns"][order] - origin_ns).astype(np.int64),
            bytes=columns["bytes"][order],
            total_allocated=columns["total_allocated"][order],
            total_reserved=columns["total_reserved"][order],
            device_type=columns["device_type"][order].astype(np.int16),
            device_id=columns["device_id"][order].astype(np.int16),
        )
