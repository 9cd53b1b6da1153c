"""The memory lane: allocated bytes of one device over time, one cell a column.

The allocated bytes after each `[memory]` event (the allocator's total, or
the running sum of Bytes) are a step function (see `tui.core.figures.memory`); a cell shows its peak inside the cell, counting the level
the cell starts at, exactly as `DeviceMemory.peak` reads a step. Peaks come
from a max tree built once per device, so a cell costs two binary searches and
a walk up the tree: drawing costs the width times log n, whatever the view holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.base.vocab import AllocatedSource
from tui.core.figures.memory import DeviceMemory, devices_of
from tui.core.model.trace import Trace
from tui.view.cells import Viewport
from tui.view.lanes import Int64Array

LEVEL_GLYPHS = "▁▂▃▄▅▆▇█"
"""Eighths of the peak in view: the lane reads without colour."""
UNKNOWN = -1


@dataclass(frozen=True)
class MemoryCells:
    """Per cell the peak allocated (-1: no level known there), the highest of
    them (the scale), and how many tree nodes were read (the cost)."""

    peaks: Int64Array
    peak: int
    examined: int

    def glyphs(self) -> str:
        """Block glyphs in eighths of the highest peak; blank where nothing is allocated or known."""
        if self.peak <= 0:
            return " " * self.peaks.size
        levels = np.ceil(self.peaks * (len(LEVEL_GLYPHS) / self.peak)).astype(np.int64)
        chars = np.array([" ", *LEVEL_GLYPHS])
        return "".join(chars[np.clip(levels, 0, len(LEVEL_GLYPHS))].tolist())


@dataclass(frozen=True)
class MemoryLane:
    """One device's allocated bytes, indexed for per-cell peaks."""

    device: DeviceMemory
    tree: Int64Array
    """tree[leaves + i] is the i-th total (-1 unknown); tree[i] the max of its two children."""
    leaves: int

    @property
    def label(self) -> str:
        """The device as torch spells it: `cpu`, `cuda:0`."""
        return self.device.label

    @classmethod
    def build(cls, device: DeviceMemory) -> MemoryLane:
        """Index one device's totals once (O(n))."""
        count = int(device.allocated.size)
        leaves = 1
        while leaves < max(count, 1):
            leaves *= 2
        tree = np.full(2 * leaves, UNKNOWN, dtype=np.int64)
        tree[leaves : leaves + count] = np.maximum(device.allocated, UNKNOWN)
        width = leaves
        while width > 1:
            half = width // 2
            tree[half:width] = np.maximum(
                tree[width : 2 * width : 2], tree[width + 1 : 2 * width : 2]
            )
            width = half
        return cls(device, tree, leaves)

    def cells(self, view: Viewport) -> MemoryCells:
        """Each cell's peak allocated: the highest total of the memory events in
        the cell and of the level it starts at (the last total before it)."""
        times = self.device.time_ns
        edges = view.edges()
        first = np.searchsorted(times, edges[:-1], side="left")
        stop = np.searchsorted(times, edges[1:], side="left")
        # The level a cell starts at is the total of the event just before it.
        low = np.maximum(first - 1, 0) + self.leaves
        high = stop + self.leaves
        peaks = np.full(view.width, UNKNOWN, dtype=np.int64)
        examined = 0
        tree = self.tree
        while True:
            active = low < high
            if not active.any():
                break
            take_low = active & ((low & 1) == 1)
            if take_low.any():
                peaks[take_low] = np.maximum(peaks[take_low], tree[low[take_low]])
                examined += int(take_low.sum())
            low = low + take_low
            take_high = active & ((high & 1) == 1)
            if take_high.any():
                high = high - take_high
                peaks[take_high] = np.maximum(peaks[take_high], tree[high[take_high]])
                examined += int(take_high.sum())
            low >>= 1
            high >>= 1
        known = peaks[peaks >= 0]
        return MemoryCells(peaks, int(known.max()) if known.size else 0, examined)


def memory_lanes(trace: Trace) -> list[MemoryLane]:
    """One lane per device whose allocated level is known or rebuilt (none
    without profile_memory): a device with no level draws no row at 0 bytes."""
    if len(trace.memory) == 0:
        return []
    return [
        MemoryLane.build(device)
        for device in devices_of(trace.memory)
        if device.source is not None
    ]


def memory_help(trace: Trace) -> str:
    """What the help says about memory lanes for this capture: how to read them, or why none."""
    if len(trace.memory):
        devices = devices_of(trace.memory)
        sources = {device.source for device in devices}
        said = (
            "Memory: an 'alloc DEVICE' row per device shows the allocated bytes "
            "(the allocator's Total Allocated), each cell its peak, in eighths of "
            "the peak in view that the row's label gives; a selected step's peaks "
            "are on the status line."
        )
        if AllocatedSource.RUNNING_SUM in sources:
            said += (
                " This trace has no Total Allocated (PyTorch 1.9 wrote none): the "
                "bytes are rebuilt from the running sum of Bytes since the capture "
                "began (memory allocated before it is not seen)."
            )
        unknown = [device.label for device in devices if device.source is None]
        if unknown:
            said += (
                f" No row for {', '.join(unknown)}: its [memory] events carry "
                "neither Total Allocated nor Bytes."
            )
        return said
    return (
        "Memory: no allocated-bytes lane, because this capture holds no [memory] "
        "events. Capture with profile_memory=True (steptrace capture "
        "--profile-memory) to see them: tracking every allocation adds cost."
    )
