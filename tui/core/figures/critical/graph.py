"""The critical-path graph of one window, built as HTA 0.5.0's CPGraph is.

Nodes are the start and the end of each CPU operator, runtime call and device
op in the window; edges carry time (an operator's or a kernel's stretch, the
delay from a launch to its kernel, the gap between two kernels of a stream)
or only order (consecutive top-level operators of a thread, a kernel that a
synchronising call waits for). DEFINITIONS.md §13 says which rows are in the
window and where steptrace departs from HTA.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.figures.critical.cuda_events import EventWaits, event_waits
from tui.core.figures.critical.frame import BoolArray, HtaFrame, Int64Array

ROOT = -1  # the call stack's root: no event
NO_EVENT = -2  # an edge attributed to no event (order only, or a launch delay)
STREAM_WAIT_EVENT = "Stream Wait Event"
EVENT_SYNC = "Event Sync"
STREAM_SYNC = "Stream Sync"
CONTEXT_SYNC = "Context Sync"


class EdgeKind(enum.IntEnum):
    """HTA's CPEdgeType."""

    OPERATOR = 0  # within an operator or a kernel: weighs its time
    DEPENDENCY = 1  # consecutive top-level operators of a thread: order only
    LAUNCH_DELAY = 2  # a launch's start to its kernel's start
    KERNEL_KERNEL = 3  # a stream's previous op end to the next start
    SYNC = 4  # the device op a call or another op waits for: order only


OPERATOR = int(EdgeKind.OPERATOR)


@dataclass
class Graph:
    """Nodes (an event's start or end) in time order, edges in insertion order."""

    node_event: list[int] = field(default_factory=list)
    node_ns: list[int] = field(default_factory=list)
    node_is_start: list[bool] = field(default_factory=list)
    start_node: dict[int, int] = field(default_factory=dict)
    end_node: dict[int, int] = field(default_factory=dict)
    # (src, dst) -> (kind, weight, attributed event); a second edge replaces the
    # first. Tuples of ints, which the garbage collector stops tracking.
    edges: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    succ: list[dict[int, None]] = field(default_factory=list)
    pred: list[dict[int, int]] = field(default_factory=list)  # src -> weight

    def add(self, src: int, dst: int, kind: EdgeKind, zero: bool = False) -> None:
        """An edge weighing dst - src, or nothing for order edges and `zero`."""
        order_only = kind in (EdgeKind.DEPENDENCY, EdgeKind.SYNC) or zero
        weight = 0 if order_only else self.node_ns[dst] - self.node_ns[src]
        key = (src, dst)
        attributed = self.edges[key][2] if key in self.edges else NO_EVENT
        self.edges[key] = (int(kind), weight, attributed)
        self.succ[src][dst] = None
        self.pred[dst][src] = weight

    def add_operator(self, src: int, dst: int, parent: int, zero: bool = False) -> None:
        """`add` an operator edge and `attribute` it, in one step (the walk's
        edges: one per operator start and end)."""
        is_start = self.node_is_start
        if is_start[src]:
            event = self.node_event[src]
        elif not is_start[dst]:
            event = self.node_event[dst]
        else:
            event = parent
        weight = 0 if zero else self.node_ns[dst] - self.node_ns[src]
        self.edges[(src, dst)] = (OPERATOR, weight, event)
        self.succ[src][dst] = None
        self.pred[dst][src] = weight

    def same_weights(self, other: Graph) -> bool:
        """Whether both graphs have as many nodes and the same edges, added in
        the same order with the same weights: their longest paths are the same."""
        # Each edge's weight is its destination's `pred` entry.
        return (
            len(self.node_ns) == len(other.node_ns)
            and list(self.edges) == list(other.edges)
            and self.pred == other.pred
        )

    def attribute(self, src: int, dst: int, parent: int) -> None:
        """HTA's _attribute_edge: the event an operator or gap edge's time belongs to."""
        kind, weight, _ = self.edges[(src, dst)]
        if kind == EdgeKind.KERNEL_KERNEL:
            event = self.node_event[src]
        elif kind != EdgeKind.OPERATOR:
            return
        elif self.node_is_start[src]:
            event = self.node_event[src]
        elif not self.node_is_start[dst]:
            event = self.node_event[dst]
        else:
            event = parent
        self.edges[(src, dst)] = (kind, weight, event)


@dataclass(frozen=True)
class FrameWide:
    """What every window of one frame reads from the whole frame, computed once:
    the queue lengths, the CUDA events' waits, the CPU rows by start and the
    Stream Wait Events (in every window, as HTA clips)."""

    queue: dict[int, int]
    waits: EventWaits
    cpu_rows: Int64Array  # kept CPU rows not emptied by rounding, by start
    cpu_starts: Int64Array
    stream_waits: Int64Array
    sync_names: Int64Array  # name ids of Event Sync and Context Sync

    @classmethod
    def of(cls, frame: HtaFrame) -> FrameWide:
        """Read once per frame: windows then cost what they hold, not the trace."""
        on_cpu = frame.kept & (frame.stream == -1) & (frame.duration_ns > 0)
        rows = np.flatnonzero(on_cpu).astype(np.int64)
        rows = rows[np.argsort(frame.start_ns[rows], kind="stable")]
        wait_ids = frame.trace.name_ids_matching({STREAM_WAIT_EVENT})
        stream_waits = np.flatnonzero(
            frame.kept & (frame.stream != -1) & np.isin(frame.trace.name_id, wait_ids)
        ).astype(np.int64)
        return cls(
            _queue_lengths(frame),
            event_waits(frame),
            rows,
            frame.start_ns[rows],
            stream_waits,
            frame.trace.name_ids_matching({EVENT_SYNC, CONTEXT_SYNC}).astype(np.int64),
        )


def build_graph(
    frame: HtaFrame,
    window: tuple[int, int],
    wide: FrameWide | None = None,
    leave_out: BoolArray | None = None,
) -> Graph:
    """The graph of the events in `window` (HTA's clipping of an annotation's
    range), without the events `leave_out` marks (HTA leaves none out)."""
    wide = wide or FrameWide.of(frame)
    events = _clipped(frame, window, wide)
    if leave_out is not None:
        events = events[~leave_out[events]]
    graph = _nodes(frame, events)
    _call_stacks(frame, events, graph)
    _device_ops(frame, events, graph, wide)
    return graph


def _clipped(frame: HtaFrame, window: tuple[int, int], wide: FrameWide) -> Int64Array:
    """CPU rows starting in the window (not emptied by rounding), and device rows
    whose launching call is one of them."""
    start, end = window
    first = int(np.searchsorted(wide.cpu_starts, start, side="left"))
    last = int(np.searchsorted(wide.cpu_starts, end, side="right"))
    cpu = wide.cpu_rows[first:last]
    targets = frame.partner[cpu[frame.partner[cpu] >= 0]]
    device = targets[frame.kept[targets] & (frame.stream[targets] != -1)]
    return distinct(np.concatenate([cpu, device, wide.stream_waits]))


def _nodes(frame: HtaFrame, events: Int64Array) -> Graph:
    """A start and an end node per operator, runtime call and correlated device row."""
    trace = frame.trace
    is_node = frame.node_category[events] | (
        (frame.stream[events] != -1) & (trace.correlation[events] >= 0)
    )
    chosen = events[is_node]
    stamps = np.concatenate([frame.start_ns[chosen], frame.end_ns[chosen]])
    order = np.argsort(stamps, kind="stable")
    count = chosen.size
    is_start = order < count
    node_event = chosen[order % count] if count else order
    nodes = np.arange(order.size)
    graph = Graph(
        node_event.tolist(),
        stamps[order].tolist(),
        is_start.tolist(),
        dict(zip(node_event[is_start].tolist(), nodes[is_start].tolist(), strict=True)),
        dict(
            zip(node_event[~is_start].tolist(), nodes[~is_start].tolist(), strict=True)
        ),
    )
    graph.succ = [{} for _ in range(order.size)]
    graph.pred = [{} for _ in range(order.size)]
    return graph


def _call_stacks(frame: HtaFrame, events: Int64Array, graph: Graph) -> None:
    """Each CPU thread's operators in call-stack order (HTA's depth-first walk)."""
    trace = frame.trace
    tracks = trace.track[events]
    for track in distinct(tracks).tolist():
        mine = events[tracks == track]
        if not np.all(frame.stream[mine] < 0):
            continue  # a device stream, or a thread HTA cannot place
        _walk(graph, _marks(frame, mine), set(mine[frame.blocking[mine]].tolist()))


def _marks(frame: HtaFrame, events: Int64Array) -> list[tuple[int, int]]:
    """One thread's starts and ends in HTA's CallStackGraph order, each as
    (1 for a start or 0 for an end, event): ends before starts at one time,
    starts longest first, then by event; then an end (of ROOT) for each range
    the stack still holds at the last mark."""
    start = frame.start_ns[events]
    duration = np.maximum(frame.end_ns[events] - start, 0)
    stamps = np.concatenate([start, start + duration])
    is_start = np.concatenate(
        [np.ones(events.size, dtype=np.int64), np.zeros(events.size, dtype=np.int64)]
    )
    lengths = np.concatenate([-duration, duration])
    ties = np.concatenate([events, -events])
    order = np.lexsort((ties, lengths, is_start, stamps))
    # The stack's height after each mark, were an end on an empty stack not
    # ignored; the last height less its lowest below zero is what stays open.
    height = np.cumsum(2 * is_start[order] - 1)
    still_open = int(height[-1]) - min(int(height.min()), 0) if height.size else 0
    marks = list(
        zip(
            is_start[order].tolist(),
            np.concatenate([events, events])[order].tolist(),
            strict=True,
        )
    )
    return marks + [(0, ROOT)] * still_open


def _walk(graph: Graph, marks: list[tuple[int, int]], blocking: set[int]) -> None:
    """HTA's enter/exit callbacks, depth first over the call-stack tree.

    The tree nests each start under the range on top of the stack; an end
    pops the top (whichever range it is; `_marks` closes those still open). Its depth-first walk, children in start order, enters
    and exits the ranges in the order they are pushed and popped, so the
    walk follows the marks (a range's parent is the one below it on the
    stack)."""
    start_node, end_node = graph.start_node, graph.end_node
    add_operator = graph.add_operator
    last_node: int | None = None
    last_top: int | None = None
    depth = 0
    last_parent = ROOT
    stack: list[int] = []
    for opening, event in marks:
        if opening:
            up = stack[-1] if stack else ROOT
            stack.append(event)
        elif stack:
            event = stack.pop()
            up = stack[-1] if stack else ROOT
        else:
            continue
        start = start_node.get(event)
        end = end_node.get(event)
        if start is None or end is None:
            continue
        if opening:
            if depth == 0 and last_top is not None:
                graph.add(last_top, start, EdgeKind.DEPENDENCY)
            depth += 1
            if last_node is not None:
                add_operator(last_node, start, last_parent)
            last_node = start
            last_parent = up
            continue
        depth -= 1
        if last_node is not None:
            add_operator(last_node, end, last_parent, event in blocking)
        if depth == 0:
            last_node = None
            last_top = end
        else:
            last_node = end
            last_parent = up


def _queue_lengths(frame: HtaFrame) -> dict[int, int]:
    """Per launch and device op of the whole frame, its stream's queue length after
    it (HTA's TraceCounters: +1 at a launch, -1 at its op's start)."""
    launches = np.flatnonzero(frame.launches)
    ops = frame.partner[launches]
    keep = frame.kept[ops] & (frame.stream[ops] != -1)
    launches, ops = launches[keep], ops[keep]
    rows = np.concatenate([launches, ops])
    stamps = np.concatenate([frame.start_ns[launches], frame.start_ns[ops]])
    steps = np.concatenate([np.ones(launches.size), -np.ones(ops.size)]).astype(
        np.int64
    )
    streams = np.concatenate([frame.stream[ops], frame.stream[ops]])
    order = np.lexsort((stamps, streams))
    lengths: dict[int, int] = {}
    current: dict[int, int] = {}
    for row, step, stream in zip(
        rows[order].tolist(),
        steps[order].tolist(),
        streams[order].tolist(),
        strict=True,
    ):
        current[stream] = current.get(stream, 0) + step
        lengths[row] = current[stream]
    return lengths


def _device_ops(
    frame: HtaFrame, events: Int64Array, graph: Graph, wide: FrameWide
) -> None:
    """Kernels, copies and syncs: their own edges, launch or kernel-kernel delays,
    and the synchronisation edges (HTA's _construct_graph_from_kernels)."""
    trace = frame.trace
    sync_ids = wide.sync_names
    chosen = events[
        ((frame.stream[events] != -1) | np.isin(trace.name_id[events], sync_ids))
        & (trace.correlation[events] >= 0)
    ]
    is_sync = frame.sync_rows[chosen]
    sort_by = np.where(is_sync, frame.end_ns[chosen], frame.start_ns[chosen])
    chosen = chosen[np.argsort(sort_by, kind="stable")]
    queue, waits = wide.queue, wide.waits
    last: dict[int, int] = {}  # stream -> end node of its last op
    held: dict[int, int] = {}  # op -> the op it must follow (a Stream Wait Event)
    calls = frame.partner[chosen]
    call_starts = np.where(calls >= 0, frame.start_ns[calls], 0)
    for event, stream, call, syncing, call_start in zip(
        chosen.tolist(),
        frame.stream[chosen].tolist(),
        calls.tolist(),
        frame.sync_rows[chosen].tolist(),
        call_starts.tolist(),
        strict=True,
    ):
        if syncing:
            _sync(frame, graph, event, stream, call, last, waits, held)
            continue
        start, end = graph.start_node[event], graph.end_node[event]
        graph.add_operator(start, end, ROOT)
        waited = graph.end_node.get(held.pop(event, ROOT))
        if waited is not None:
            graph.add(waited, start, EdgeKind.SYNC)
        waited_ns = graph.node_ns[waited] if waited is not None else None
        previous = last.get(stream)
        call_ns = call_start if call >= 0 else None
        launched_alone = (
            queue.get(call) == 1
            and queue.get(event) == 0
            and call_ns is not None
            and (previous is None or graph.node_ns[previous] < call_ns)
            and (waited_ns is None or waited_ns < call_ns)
        )
        if launched_alone and call in graph.start_node:
            graph.add(graph.start_node[call], start, EdgeKind.LAUNCH_DELAY)
        elif previous is not None and (
            waited_ns is None or waited_ns < graph.node_ns[previous]
        ):
            graph.add(previous, start, EdgeKind.KERNEL_KERNEL)
            graph.attribute(previous, start, ROOT)
        last[stream] = end


def _sync(
    frame: HtaFrame,
    graph: Graph,
    event: int,
    stream: int,
    call: int,
    last: dict[int, int],
    waits: EventWaits,
    held: dict[int, int],
) -> None:
    """A stream or context sync: the host call ends after the stream's (every
    stream's) last op; an event sync after the op its event recorded; a stream
    wait holds the next op its thread launches to the stream."""
    name = frame.name(event)
    if name in (EVENT_SYNC, STREAM_WAIT_EVENT):
        source = waits.source.get(event)
        if source is None:
            return
        if name == STREAM_WAIT_EVENT:
            target = waits.next_op.get(call)
            if target is not None:
                held[target] = source
            return
        source_end = graph.end_node.get(source)
        host_end = graph.end_node.get(call)
        if source_end is not None and host_end is not None:
            graph.add(source_end, host_end, EdgeKind.SYNC)
        return
    if name == CONTEXT_SYNC:
        waited = list(last.values())
    elif name == STREAM_SYNC:
        waited = [last[stream]] if stream in last else []
    else:
        return
    host_end = graph.end_node.get(call)
    if host_end is None:
        return
    for node in waited:
        graph.add(node, host_end, EdgeKind.SYNC)
