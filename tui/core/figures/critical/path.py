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

from tui.core.base.distinct import distinct
from tui.core.figures.critical.frame import HtaFrame, Int64Array
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


# Each class's index in BoundBy's order: the split counts by index.
CLASSES = tuple(BoundBy)
CPU, COMPUTE, COMMUNICATION, KERNEL_KERNEL, LAUNCH = (
    CLASSES.index(kind)
    for kind in (
        BoundBy.CPU,
        BoundBy.GPU_COMPUTE,
        BoundBy.GPU_COMMUNICATION,
        BoundBy.KERNEL_KERNEL,
        BoundBy.LAUNCH,
    )
)
ORDER_ONLY = -1


def _bounds(frame: HtaFrame, kinds: Int64Array, events: Int64Array) -> Int64Array:
    """HTA's bound_by of each edge (its kind, its attributed event), as its
    index in CLASSES: an operator edge's by its event (CPU without one), the
    delays by their kind, ORDER_ONLY for the others."""
    trace = frame.trace
    on_device = np.zeros(events.size, dtype=bool)
    real = events >= 0
    on_device[real] = frame.stream[events[real]] >= 0
    device_names = trace.name_id[events[on_device]]
    nccl_names = [
        name
        for name in distinct(device_names).tolist()
        if NCCL_KERNEL.match(trace.names[name])
    ]
    nccl = np.zeros(events.size, dtype=bool)
    nccl[on_device] = np.isin(device_names, nccl_names)
    operator = np.where(on_device, np.where(nccl, COMMUNICATION, COMPUTE), CPU)
    codes = np.where(kinds == EdgeKind.OPERATOR, operator, ORDER_ONLY)
    codes[kinds == EdgeKind.KERNEL_KERNEL] = KERNEL_KERNEL
    codes[kinds == EdgeKind.LAUNCH_DELAY] = LAUNCH
    return codes


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
    totals = [0] * len(CLASSES)
    parts: dict[tuple[str, int], int] = {}
    path_ns = 0
    pairs = list(pairwise(nodes))
    values = [graph.edges[pair] for pair in pairs]
    kinds = np.array([kind for kind, _, _ in values], dtype=np.int64)
    events = np.array([event for _, _, event in values], dtype=np.int64)
    # A launch delay's time is its kernel's: the event of the node it ends at.
    node_event = graph.node_event
    launched = np.array([node_event[dst] for _, dst in pairs], dtype=np.int64)
    named = np.where(kinds == EdgeKind.LAUNCH_DELAY, launched, events)
    for (src, dst), (_, weight, _), code, name in zip(
        pairs,
        values,
        _bounds(frame, kinds, events).tolist(),
        _names(frame, named.tolist()),
        strict=True,
    ):
        path_ns += weight
        if code == ORDER_ONLY:
            continue
        if fill is not None and code == KERNEL_KERNEL:
            filled = min(max(fill(src, dst), 0), weight)
            totals[COMPUTE] += filled
            weight -= filled
        totals[code] += weight
        if name is not None:
            key = (name, code)
            parts[key] = parts.get(key, 0) + weight
    top = sorted(parts.items(), key=lambda item: (-item[1], item[0][0]))[:TOP_PARTS]
    return CriticalPath(
        window[0],
        window[1],
        path_ns,
        tuple(zip(CLASSES, totals, strict=True)),
        tuple(PathPart(name, CLASSES[code], ns) for (name, code), ns in top if ns > 0),
        tuple(sorted({graph.node_event[node] for node in nodes})),
    )
