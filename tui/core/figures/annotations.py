"""Annotations per window (a step): each name's time, nested occurrences counted once.

What the summary shows beside each step's data zone. The figures of every
step are a pure function of the columns, kept in the trace's cache entry
(`step_zones_bytes`) so a reopen does not find and count them again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tui.core.figures.kept import STEPS_ROOTS
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]

STEP_ZONES_ROOTS = ("figures/analysis.py", "figures/annotations.py", *STEPS_ROOTS)
"""The code of the annotations per step: the zone events and step bounds
`Analysis` gives, and `zones_in_windows`."""


class ZoneFigure:
    """A zone's time inside one step: nested occurrences of the same name count once."""

    __slots__ = ("count", "duration_ns", "name")

    def __init__(self, name: str, count: int, duration_ns: int) -> None:
        self.name = name
        self.count = count
        self.duration_ns = duration_ns

    def __repr__(self) -> str:
        return f"ZoneFigure({self.name!r}, {self.count}, {self.duration_ns})"


def zones_in_windows(
    trace: Trace,
    by_start: tuple[Int64Array, Int64Array],
    window_starts: Int64Array,
    window_ends: Int64Array,
) -> list[list[ZoneFigure]]:
    """The zones starting in each window [start, end), in one pass: per window,
    per name, in order of first start. `by_start`: the zone events sorted by
    start, and their starts."""
    events, starts = by_start
    first = np.searchsorted(starts, window_starts, side="left")
    last = np.searchsorted(starts, window_ends, side="left")
    counts = np.maximum(last - first, 0)
    figures: list[list[ZoneFigure]] = [[] for _ in range(window_starts.size)]
    total = int(counts.sum())
    if total == 0:
        return figures
    # One row per (window, zone occurrence starting in it).
    step_of = np.repeat(np.arange(window_starts.size, dtype=np.int64), counts)
    position = np.arange(total, dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts - first, counts
    )
    member = events[position]
    name = _canonical_names(trace.names)[trace.name_id[member]]
    order = np.lexsort((position, name, step_of))
    step_of, position, name, member = (
        step_of[order],
        position[order],
        name[order],
        member[order],
    )
    head = np.ones(total, dtype=bool)
    head[1:] = (step_of[1:] != step_of[:-1]) | (name[1:] != name[:-1])
    heads = np.flatnonzero(head)
    group = np.cumsum(head) - 1
    member_starts = np.asarray(trace.start_ns[member], dtype=np.int64)
    member_ends = member_starts + trace.duration_ns[member]
    # Union per group, members in start order: the part of each beyond
    # the furthest end of those before it in its group.
    levels, rank = np.unique(member_ends, return_inverse=True)
    stride = np.int64(levels.size)
    reach = np.maximum.accumulate(group * stride + rank.reshape(-1)) % stride
    before = np.full(total, np.iinfo(np.int64).min, dtype=np.int64)
    before[1:] = np.where(head[1:], before[1:], levels[reach[:-1]])
    beyond = np.maximum(member_ends - np.maximum(member_starts, before), 0)
    union = np.add.reduceat(beyond, heads)
    sizes = np.diff(np.append(heads, total))
    shown = np.lexsort((position[heads], step_of[heads]))
    names = trace.names
    for index in shown.tolist():
        head_row = int(heads[index])
        figures[int(step_of[head_row])].append(
            ZoneFigure(names[int(name[head_row])], int(sizes[index]), int(union[index]))
        )
    return figures


def step_zones_bytes(figures: list[list[ZoneFigure]]) -> bytes:
    """The figures of every step as MessagePack (kept in the column cache)."""
    import msgspec

    return msgspec.msgpack.encode(
        [
            [(figure.name, figure.count, figure.duration_ns) for figure in step]
            for step in figures
        ]
    )


def step_zones_from(data: bytes) -> list[list[ZoneFigure]]:
    """The figures `step_zones_bytes` wrote; ValueError when they do not read as such."""
    import msgspec

    steps = msgspec.msgpack.decode(data, type=list[list[tuple[str, int, int]]])
    return [[ZoneFigure(*figure) for figure in step] for step in steps]


def _canonical_names(names: Sequence[str]) -> Int64Array:
    """For each name id, the first id spelling the same name (names group by their text)."""
    first: dict[str, int] = {}
    return np.array(
        [first.setdefault(name, index) for index, name in enumerate(names)] or [0],
        dtype=np.int64,
    )
