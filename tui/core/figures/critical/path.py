"""The longest path through the critical-path graph and what bounds its time.

The path is found as networkx's dag_longest_path finds it for HTA (the same
topological order, the same choice among equal predecessors), and its edges
are classed by HTA's bound_by: an operator's time is `cpu_bound`, a kernel's
`gpu_compute_bound` (`gpu_communication_bound` for NCCL kernels), the gap
between two kernels of a stream `gpu_kernel_kernel_overhead` and the delay
from a launch to its kernel `gpu_kernel_launch_overhead`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from tui.core.figures.critical.frame import HtaFrame
from tui.core.figures.critical.graph import EdgeKind, Graph

# HTA's is_comm_kernel (hta/utils/utils.py).
NCCL_KERNEL = re.compile(r"^nccl.*Kernel")
TOP_PARTS = 5


class BoundBy(enum.Enum):
    """What holds a stretch of the critical path (HTA 0.5.0's names)."""

    CPU = "cpu_bound"
    GPU_COMPUTE = "gpu_compute_bound"
    GPU_COMMUNICATION = "gpu_communication_bound"
    KERNEL_KERNEL = "gpu_kernel_kernel_overhead"
    LAUNCH = "gpu_kernel_launch_overhead"


@dataclass(frozen=True)
class PathPart:
    """An event's time on the path, with what kind of time it is."""

    name: str
    bound_by: BoundBy
    ns: int


@dataclass(frozen=True)
class CriticalPath:
    """The critical path of one window: its time, its split, where it goes."""

    start_ns: int
    end_ns: int
    path_ns: int
    bound_ns: tuple[tuple[BoundBy, int], ...]  # every class, in BoundBy's order
    top: tuple[PathPart, ...]
    events: tuple[int, ...]  # the events whose start or end lie on the path

    def share(self, bound_by: BoundBy) -> float | None:
        """The class's percentage of the path time (None for an empty path)."""
        if self.path_ns == 0:
            return None
        return dict(self.bound_ns)[bound_by] * 100.0 / self.path_ns

    def dominant(self) -> BoundBy | None:
        """The class holding most of the path."""
        if self.path_ns <= 0:
            return None
        return max(self.bound_ns, key=lambda pair: pair[1])[0]


class PathRefused(Exception):
    """The graph has a cycle or a synchronisation within one stream (HTA refuses it too)."""


def longest_path(graph: Graph) -> list[int]:
    """Nodes of the longest path (dag_longest_path's choices among equals)."""
    count = len(graph.node_ns)
    if count == 0:
        return []
    succ, pred = graph.succ, graph.pred
    indegree = [len(before) for before in pred]
    generation = [node for node in range(count) if indegree[node] == 0]
    order: list[int] = []
    while generation:
        order.extend(generation)
        following: list[int] = []
        for node in generation:
            for child in succ[node]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    following.append(child)
        generation = following
    if len(order) != count:
        raise PathRefused("the graph has a cycle")
    # Each node's longest path ending in it and the node before it there (the
    # first predecessor reaching the longest, itself for none); weights below
    # zero count as zero, so no length is negative.
    length = [0] * count
    previous = list(range(count))
    for node in order:
        best, chosen = -1, node
        for before, weight in pred[node].items():
            reach = length[before] + (weight if weight > 0 else 0)
            if reach > best:
                best, chosen = reach, before
        if best > 0:
            length[node] = best
        previous[node] = chosen
    longest = max(length)
    node = next(node for node in order if length[node] == longest)
    path = [node]
    while previous[node] != node:
        node = previous[node]
        path.append(node)
    path.reverse()
    return path


def _bounds(
    frame: HtaFrame, values: list[tuple[int, int, int]]
) -> list[BoundBy | None]:
    """HTA's bound_by of each edge (`[kind, weight, event]`): an operator edge's
    by its event (CPU without one), the delays by their kind, None for order."""
    events = np.array([event for _, _, event in values], dtype=np.int64)
    on_device = np.zeros(events.size, dtype=bool)
    real = events >= 0
    on_device[real] = frame.stream[events[real]] >= 0
    communication = np.zeros(events.size, dtype=bool)
    for position, name in zip(
        np.flatnonzero(on_device).tolist(),
        _names(frame, events[on_device].tolist()),
        strict=True,
    ):
        communication[position] = NCCL_KERNEL.match(name or "") is not None
    bounds: list[BoundBy | None] = []
    for (kind, _, _), device, nccl in zip(
        values, on_device.tolist(), communication.tolist(), strict=True
    ):
        if kind == EdgeKind.KERNEL_KERNEL:
            bounds.append(BoundBy.KERNEL_KERNEL)
        elif kind == EdgeKind.LAUNCH_DELAY:
            bounds.append(BoundBy.LAUNCH)
        elif kind != EdgeKind.OPERATOR:
            bounds.append(None)
        elif not device:
            bounds.append(BoundBy.CPU)
        else:
            bounds.append(BoundBy.GPU_COMMUNICATION if nccl else BoundBy.GPU_COMPUTE)
    return bounds


def _names(frame: HtaFrame, events: list[int]) -> list[str | None]:
    """Each event's name (None for no event: ROOT, NO_EVENT)."""
    trace = frame.trace
    rows = np.array(events, dtype=np.int64)
    ids = np.full(rows.size, -1, dtype=np.int64)
    ids[rows >= 0] = trace.name_id[rows[rows >= 0]]
    names = trace.names
    return [None if index < 0 else names[index] for index in ids.tolist()]


# The part of a kernel-kernel gap (from its earlier op's end node to its later
# op's start node) during which other device work ran.
GapFill = Callable[[int, int], int]


def summarise(frame: HtaFrame, graph: Graph, window: tuple[int, int]) -> CriticalPath:
    """The path's time, split by what bounds it, and the events holding most of it."""
    return split_path(frame, graph, longest_path(graph), window)


def split_path(
    frame: HtaFrame,
    graph: Graph,
    nodes: list[int],
    window: tuple[int, int],
    fill: GapFill | None = None,
) -> CriticalPath:
    """The split of the path through `nodes`; with `fill`, the part of each
    kernel-kernel gap that other device work filled is compute time, not a gap."""
    totals = dict.fromkeys(BoundBy, 0)
    parts: dict[tuple[str, BoundBy], int] = {}
    path_ns = 0
    pairs = list(pairwise(nodes))
    values = [graph.edges[pair] for pair in pairs]
    bounds = _bounds(frame, values)
    node_event = graph.node_event
    named = [
        node_event[dst] if kind == EdgeKind.LAUNCH_DELAY else event
        for (_, dst), (kind, _, event) in zip(pairs, values, strict=True)
    ]
    names = _names(frame, named)
    for (src, dst), (_, weight, _), bound, name in zip(
        pairs, values, bounds, names, strict=True
    ):
        path_ns += weight
        if bound is None:
            continue
        if fill is not None and bound is BoundBy.KERNEL_KERNEL:
            filled = min(max(fill(src, dst), 0), weight)
            totals[BoundBy.GPU_COMPUTE] += filled
            weight -= filled
        totals[bound] += weight
        if name is not None:
            key = (name, bound)
            parts[key] = parts.get(key, 0) + weight
    top = sorted(parts.items(), key=lambda item: (-item[1], item[0][0]))[:TOP_PARTS]
    return CriticalPath(
        window[0],
        window[1],
        path_ns,
        tuple(totals.items()),
        tuple(PathPart(name, bound, ns) for (name, bound), ns in top if ns > 0),
        tuple(sorted({graph.node_event[node] for node in nodes})),
    )
