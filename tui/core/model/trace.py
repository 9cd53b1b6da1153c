"""The in-memory model of a trace: events in sorted columns, tracks, flows.

Times are int64 nanoseconds relative to `Trace.origin_ns` (the earliest
event), so nothing is rounded. Events are sorted by (track, start, longest
first); each track's events are one contiguous slice.
"""

from __future__ import annotations

import enum
import itertools
import mmap
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.model.description import CaptureDescription

Int64Array = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
UInt8Array = npt.NDArray[np.uint8]
BoolArray = npt.NDArray[np.bool_]


class Kind(enum.IntEnum):
    """What an event is, from its category (both generations of names) and its track."""

    CPU_OTHER = 0
    CPU_OP = 1
    USER_ANNOTATION = 2
    PYTHON = 3
    RUNTIME = 4
    DRIVER = 5
    KERNEL = 6
    MEMCPY = 7
    MEMSET = 8
    GPU_ANNOTATION = 9
    SYNC = 10
    DEVICE_OTHER = 11
    TRACE_SPAN = 12
    DEVICE_RANGE = 13


# Kinds that are work on the device: their union is device busy time.
DEVICE_WORK_KINDS = (Kind.KERNEL, Kind.MEMCPY, Kind.MEMSET, Kind.DEVICE_OTHER)
# Kinds that torch's key_averages() sees as CPU function events.
CPU_FUNCTION_KINDS = (
    Kind.CPU_OTHER,
    Kind.CPU_OP,
    Kind.USER_ANNOTATION,
    Kind.PYTHON,
    Kind.RUNTIME,
    Kind.DRIVER,
)


class TrackKind(enum.IntEnum):
    """A CPU thread or a device stream (or a non-thread lane such as profiler spans)."""

    CPU = 0
    DEVICE = 1
    OTHER = 2


@dataclass(frozen=True)
class Track:
    """One CPU thread or one device stream on the timeline."""

    index: int
    pid: Any
    tid: Any
    kind: TrackKind
    name: str
    process_name: str
    device: int | None
    sort_key: tuple[Any, ...]

    @property
    def label(self) -> str:
        """A short label for the timeline's left column."""
        return self.name


@dataclass
class Flows:
    """Flow events (ac2g launch→kernel, fwdbwd), bound to the events they start and end at."""

    flow_id: Int64Array
    category_id: Int32Array
    source_event: Int64Array  # -1 when no event encloses the start
    target_event: Int64Array  # -1 when no event is at the end


@dataclass
class MemoryColumns:
    """The `[memory]` events of a profile_memory capture, in time order (ns from origin).

    `bytes` is what one allocation (> 0) or free (< 0) moved; the totals are
    the allocator's after it (-1 when not written); `device_type` is torch's
    c10 DeviceType (0 CPU, 1 CUDA…), `device_id` -1 for the CPU.
    """

    time_ns: Int64Array
    bytes: Int64Array
    total_allocated: Int64Array
    total_reserved: Int64Array
    device_type: npt.NDArray[np.int16]
    device_id: npt.NDArray[np.int16]

    COLUMNS = (
        "time_ns",
        "bytes",
        "total_allocated",
        "total_reserved",
        "device_type",
        "device_id",
    )

    @classmethod
    def empty(cls) -> MemoryColumns:
        """No memory event."""
        none = np.zeros(0, dtype=np.int64)
        small = np.zeros(0, dtype=np.int16)
        return cls(none, none, none, none, small, small)

    def __len__(self) -> int:
        return int(self.time_ns.size)


@dataclass
class Trace:
    """A loaded trace: columns of complete events plus what the file told us."""

    path: Path
    origin_ns: int
    names: list[str]
    categories: list[str]
    tracks: list[Track]
    # Per-event columns, sorted by (track, start, -duration).
    start_ns: Int64Array
    duration_ns: Int64Array
    track: Int32Array
    name_id: Int32Array
    category_id: Int32Array
    kind: UInt8Array
    correlation: Int64Array  # -1 when absent
    external_id: Int64Array  # -1 when absent
    stream_arg: Int64Array  # the `stream` arg (HTA's device op mark), -1 when absent
    args_begin: Int64Array  # args of event i: args_blob[args_begin[i]:args_end[i]]
    args_end: Int64Array
    args_blob: (
        bytes | bytearray | mmap.mmap
    )  # memory-mapped when reopened from the cache
    track_start: Int64Array  # events of track t are track_start[t]:track_start[t+1]
    flows: Flows
    description: dict[str, Any] | None
    metadata: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    file_size: int = 0
    compressed: bool = False
    instant_count: int = 0
    counter_count: int = 0
    memory: MemoryColumns = field(default_factory=MemoryColumns.empty)
    cut_off: bool = field(default=False, init=False)
    """The file ends mid-event (cut off, or still being written): what came
    after the last complete event is unknown. Set by the loader."""

    @cached_property
    def end_ns(self) -> Int64Array:
        """End of each event (computed once: the columns never change)."""
        return self.start_ns + self.duration_ns

    @property
    def event_count(self) -> int:
        """Number of complete events held."""
        return int(self.start_ns.size)

    @cached_property
    def span_ns(self) -> int:
        """From the earliest start to the latest end (a pass over every event:
        computed once, as the timeline and each `f` ask for it)."""
        if self.start_ns.size == 0:
            return 0
        return int((self.start_ns + self.duration_ns).max())

    @cached_property
    def capture(self) -> CaptureDescription:
        """The capture description, typed (its `present` is False when there is none)."""
        return CaptureDescription.parse(self.description)

    @cached_property
    def device_work_mask(self) -> BoolArray:
        """Events that are work on a device (kernels, copies, sets, unknown device work)."""
        return np.isin(self.kind, np.array(DEVICE_WORK_KINDS, dtype=np.uint8))

    @cached_property
    def gpu_observed(self) -> bool:
        """Whether the capture holds any device work at all."""
        return bool(self.device_work_mask.any())

    def event_name(self, event: int) -> str:
        """The (untrusted) name of an event."""
        return self.names[int(self.name_id[event])]

    def event_category(self, event: int) -> str:
        """The category string of an event as written in the file."""
        return self.categories[int(self.category_id[event])]

    def event_args(self, event: int) -> dict[str, Any]:
        """Decode one event's args on demand; {} when absent or unreadable."""
        begin = int(self.args_begin[event])
        end = int(self.args_end[event])
        if end <= begin:
            return {}
        text = self.args_blob[begin:end]
        try:
            import orjson

            value = orjson.loads(text)
        except ValueError:
            import json

            try:
                value = json.loads(text.decode("utf-8", errors="replace"), strict=False)
            except ValueError:
                return {}
        return value if isinstance(value, dict) else {}

    def track_slice(self, track_index: int) -> slice:
        """The events of one track, in start order."""
        return slice(
            int(self.track_start[track_index]), int(self.track_start[track_index + 1])
        )

    def name_ids_matching(self, wanted: set[str]) -> npt.NDArray[np.int32]:
        """Ids of the names in `wanted` that occur in the trace, ascending."""
        lookup = self._id_of_name
        if lookup is None:
            return np.array(
                [index for index, name in enumerate(self.names) if name in wanted],
                dtype=np.int32,
            )
        return np.array(
            sorted(lookup[name] for name in wanted if name in lookup), dtype=np.int32
        )

    def name_ids_starting(self, prefix: str) -> npt.NDArray[np.int32]:
        """Ids of the names that start with `prefix`, ascending.

        Steps, DataLoader ranges and the step split each ask for a prefix, some
        several times per figure: one C-level pass per prefix, kept (a trace
        of a million distinct names spent seconds in Python passes)."""
        found = self._ids_by_prefix.get(prefix)
        if found is None:
            starts = np.fromiter(
                map(str.startswith, self.names, itertools.repeat(prefix)),
                dtype=bool,
                count=len(self.names),
            )
            found = np.flatnonzero(starts).astype(np.int32)
            self._ids_by_prefix[prefix] = found
        return found

    @cached_property
    def _id_of_name(self) -> dict[str, int] | None:
        """Each name's id; None when two ids share a name (a non-string name
        written as the text of a string one), where only a pass finds all."""
        lookup = dict(zip(self.names, range(len(self.names)), strict=True))
        return lookup if len(lookup) == len(self.names) else None

    @cached_property
    def _ids_by_prefix(self) -> dict[str, npt.NDArray[np.int32]]:
        return {}
