"""The queue lane: beside a device stream, its launch queue over time (the
ops launched and not yet started, HTA's queue length), one cell a column.

The queue is a step function (`tui.core.figures.queue`); a cell shows the
longest queue inside it, counting the length the cell starts at, in eighths
of the stream's longest queue (a fixed scale: zooming never rescales it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.figures.queue import LaunchQueue, StreamQueue, longest_between
from tui.view.cells import Viewport
from tui.view.lanes import Int64Array
from tui.view.memory_lane import LEVEL_GLYPHS


@dataclass(frozen=True)
class QueueLane:
    """One stream's queue, drawn under its track."""

    queue: StreamQueue

    @property
    def label(self) -> str:
        """`queue ≤946`: what a full block stands for."""
        return f"queue ≤{self.queue.stats.maximum}"

    def cells(self, view: Viewport) -> Int64Array:
        """Each cell's longest queue: the length the cell starts at and every
        change inside it (0 before the first change)."""
        return longest_between(self.queue.time_ns, self.queue.length, view.edges())

    def glyphs(self, view: Viewport) -> str:
        """Block glyphs in eighths of the stream's longest queue; blank when empty."""
        top = self.queue.stats.maximum
        longest = self.cells(view)
        if top <= 0:
            return " " * longest.size
        levels = np.ceil(np.maximum(longest, 0) * (len(LEVEL_GLYPHS) / top))
        chars = np.array([" ", *LEVEL_GLYPHS])
        return "".join(chars[np.clip(levels.astype(np.int64), 0, 8)].tolist())


def queue_lanes(queue: LaunchQueue) -> dict[int, QueueLane]:
    """The lane of each track holding one stream's queue."""
    return {
        stream.track: QueueLane(stream)
        for stream in queue.streams
        if stream.track is not None
    }
