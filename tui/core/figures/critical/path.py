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

from tui.core.figures.critical.frame import HtaFrame
from tui.core.figures.critical.graph import NO_EVENT, ROOT, EdgeKind, Graph

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
    indegree = [len(graph.pred[node]) for node in range(count)]
    generation = [node for node in range(count) if indegree[node] == 0]
    order: list[int] = []
    while generation:
        order.extend(generation)
        following: list[int] = []
        for node in generation:
            for child in graph.succ[node]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    following.append(child)
        generation = following
    if len(order) != count:
        raise PathRefused("the graph has a cycle")
    best: dict[int, tuple[int, int]] = {}
    for node in order:
        choice = (0, node)
        first = True
        for before in graph.pred[node]:
            length = best[before][0] + max(graph.edges[(before, node)][1], 0)
            if first or length > choice[0]:
                choice, first = (length, before), False
        best[node] = choice if choice[0] >= 0 else (0, node)
    node = max(best, key=lambda key: best[key][0])
    path: list[int] = []
    previous = None
    while previous != node:
        path.append(node)
        previous, node = node, best[node][1]
    path.reverse()
    return path


def _bound_by(frame: HtaFrame, kind: int, event: int) -> BoundBy | None:
    if kind == EdgeKind.KERNEL_KERNEL:
        return BoundBy.KERNEL_KERNEL
    if kind == EdgeKind.LAUNCH_DELAY:
        return BoundBy.LAUNCH
    if kind != EdgeKind.OPERATOR:
        return None
    if event in (ROOT, NO_EVENT) or frame.stream[event] < 0:
        return BoundBy.CPU
    if NCCL_KERNEL.match(frame.name(event)):
        return BoundBy.GPU_COMMUNICATION
    return BoundBy.GPU_COMPUTE


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
    for src, dst in pairwise(nodes):
        kind, weight, event = graph.edges[(src, dst)]
        bound = _bound_by(frame, kind, event)
        path_ns += weight
        if bound is None:
            continue
        if fill is not None and bound is BoundBy.KERNEL_KERNEL:
            filled = min(max(fill(src, dst), 0), weight)
            totals[BoundBy.GPU_COMPUTE] += filled
            weight -= filled
        totals[bound] += weight
        named = graph.node_event[dst] if kind == EdgeKind.LAUNCH_DELAY else event
        if named >= 0:
            key = (frame.name(named), bound)
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
