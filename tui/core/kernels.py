"""Kernels per name: count, total, min / median / max — the GPU side of the operator table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.model import Kind, Trace
from tui.core.nesting import sum_by_index

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class KernelTable:
    """One row per kernel name, in first-seen order; `events` lists each row's kernels by start."""

    names: list[str]
    count: Int64Array
    total_ns: Int64Array
    min_ns: Int64Array
    median_ns: FloatArray
    max_ns: Int64Array
    events: list[Int64Array]

    def __len__(self) -> int:
        return len(self.names)

    def row_of(self, name: str) -> int | None:
        """The row of a kernel name, if present."""
        try:
            return self.names.index(name)
        except ValueError:
            return None


def kernel_events(
    trace: Trace, start_ns: int | None = None, end_ns: int | None = None
) -> Int64Array:
    """Kernels starting inside [start, end) (default: all), in event order."""
    kernels = np.flatnonzero(trace.kind == Kind.KERNEL)
    if start_ns is not None:
        kernels = kernels[trace.start_ns[kernels] >= start_ns]
    if end_ns is not None:
        kernels = kernels[trace.start_ns[kernels] < end_ns]
    return kernels.astype(np.int64)


def kernel_table(trace: Trace, kernels: Int64Array) -> KernelTable:
    """Aggregate the given kernel events per name."""
    if kernels.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return KernelTable([], empty, empty, empty, np.zeros(0), empty, [])
    name_ids = trace.name_id[kernels]
    unique_ids, first_seen, group = np.unique(
        name_ids, return_index=True, return_inverse=True
    )
    # Rows in first-seen order, so equal inputs give equal tables.
    order = np.argsort(first_seen, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group = rank[group]
    size = unique_ids.size
    durations = trace.duration_ns[kernels]
    by_row = np.lexsort((trace.start_ns[kernels], group))
    bounds = np.searchsorted(group[by_row], np.arange(size + 1))
    sorted_durations = np.lexsort((durations, group))
    duration_bounds = np.searchsorted(group[sorted_durations], np.arange(size + 1))
    mins = np.empty(size, dtype=np.int64)
    maxs = np.empty(size, dtype=np.int64)
    medians = np.empty(size, dtype=np.float64)
    for row in range(size):
        ordered = durations[sorted_durations[duration_bounds[row] : duration_bounds[row + 1]]]
        mins[row] = ordered[0]
        maxs[row] = ordered[-1]
        medians[row] = float(np.median(ordered))
    return KernelTable(
        names=[trace.names[int(unique_ids[index])] for index in order.tolist()],
        count=np.bincount(group, minlength=size).astype(np.int64),
        total_ns=sum_by_index(size, group.astype(np.int64), durations),
        min_ns=mins,
        median_ns=medians,
        max_ns=maxs,
        events=[
            kernels[by_row[bounds[row] : bounds[row + 1]]] for row in range(size)
        ],
    )
