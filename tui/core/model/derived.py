"""Per-event columns derived from a trace (nesting, launches, self/total times), cached beside its columns.

Each column is computed once per trace; when the trace came from (or went
to) the column cache, it is kept in the cache entry too, under a version
hashed from the code that computes it, so the next process reads it back
instead of computing it again, and a change of that code is a miss.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cached_property
from types import ModuleType
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.model import nesting
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Column = TypeVar("Column", bound=np.ndarray[Any, Any])


class DerivedColumns:
    """The nesting and launch columns of one trace, each computed (or read back) once."""

    def __init__(self, trace: Trace, on_cpu: Callable[[], BoolArray]) -> None:
        self.trace = trace
        self._on_cpu = on_cpu

    def _column(self, name: str, compute: Callable[[], Column]) -> Column:
        cache = _column_cache()
        if cache is None:
            return compute()
        kept = cache.load_derived(self.trace, name)
        if kept is not None and kept.shape == (self.trace.event_count,):
            return cast("Column", kept)
        value = compute()
        cache.save_derived(self.trace, name, value)
        return value

    def busy(self, device: int | None) -> Intervals:
        """When a device runs any kernel, copy or set: the union over its streams."""
        trace = self.trace
        cache = _column_cache()
        name = f"busy.{'none' if device is None else device}"
        kept = None if cache is None else cache.load_derived(trace, name)
        if kept is not None and kept.ndim == 2 and kept.shape[0] == 2:
            return Intervals(kept[0], kept[1])
        on_device = np.array(
            [track.device == device for track in trace.tracks] or [False], dtype=bool
        )
        events = np.flatnonzero(trace.device_work_mask & on_device[trace.track])
        starts = trace.start_ns[events]
        busy = Intervals.union_of(starts, starts + trace.duration_ns[events])
        if cache is not None:
            cache.save_derived(trace, name, np.stack([busy.starts, busy.ends]))
        return busy

    @cached_property
    def participants(self) -> BoolArray:
        """Events torch's key_averages() counts."""
        return nesting.participants(self.trace, self._on_cpu())

    @cached_property
    def parent(self) -> Int64Array:
        """Each event's parent on its thread (torch's rule), -1 for roots and non-participants."""
        return self._column(
            "parent", lambda: nesting.parents(self.trace, self.participants)
        )

    @cached_property
    def depth(self) -> npt.NDArray[np.int32]:
        """Nesting depth on the thread (0 for roots)."""
        return self._column("depth", lambda: nesting.depths(self.parent))

    @cached_property
    def self_cpu_ns(self) -> Int64Array:
        """Duration minus direct children's durations."""
        return self._column(
            "self_cpu_ns",
            lambda: nesting.self_times(self.trace.duration_ns, self.parent),
        )

    @cached_property
    def gpu_owner(self) -> Int64Array:
        """For each device-work event, the CPU event that launched it (-1 when unknown)."""
        return self._column(
            "gpu_owner",
            lambda: nesting.gpu_owners(self.trace, self.participants, self.parent),
        )

    @cached_property
    def unlinked_device_events(self) -> int:
        """Device work tied to no CPU event (without computing the nesting when not at hand)."""
        cache = _column_cache()
        name = "unlinked_device_events"
        kept = None if cache is None else cache.load_derived(self.trace, name)
        if kept is not None and kept.shape == (1,):
            return int(kept[0])
        work = self.trace.device_work_mask
        if "gpu_owner" in self.__dict__ or self._kept("gpu_owner"):
            count = int((work & (self.gpu_owner < 0)).sum())
        else:
            tied = nesting.tied_device_work(self.trace, self.participants)
            count = int((work & ~tied).sum())
        if cache is not None:
            cache.save_derived(self.trace, name, np.array([count], dtype=np.int64))
        return count

    def _kept(self, name: str) -> bool:
        cache = _column_cache()
        return cache is not None and cache.load_derived(self.trace, name) is not None

    @cached_property
    def launch_call(self) -> Int64Array:
        """For each device-work event, the runtime call that launched it (-1 when unknown)."""
        return self._column(
            "launch_call", lambda: nesting.launch_calls(self.trace, self.participants)
        )

    @cached_property
    def self_gpu_ns(self) -> Int64Array:
        """Device time launched directly by each CPU event."""

        def compute() -> Int64Array:
            owner = self.gpu_owner
            linked = np.flatnonzero(owner >= 0)
            return nesting.sum_by_index(
                self.trace.event_count, owner[linked], self.trace.duration_ns[linked]
            )

        return self._column("self_gpu_ns", compute)

    @cached_property
    def total_gpu_ns(self) -> Int64Array:
        """Device time launched by each CPU event and its descendants."""
        return self._column(
            "total_gpu_ns",
            lambda: nesting.total_gpu_times(self.self_gpu_ns, self.parent, self.depth),
        )


def _column_cache() -> ModuleType | None:
    """The column cache module when this process uses it (only it can tie a trace to an entry).

    A process that never imported it holds no cached trace, and does not
    pay for importing it (hashing) to learn that.
    """
    return sys.modules.get("tui.core.ingest.cache")
