"""The critical path read again where HTA's rules mislead: the adjusted reading.

HTA 0.5.0's reading (`path.py`) stays as HTA computes it, so that it can be
checked against HTA. Beside it, the adjusted reading builds the same window's
graph again with three corrections, applied in this order, each measured
against the reading before it (`Corrected`: how many ranges, edges or gaps,
and the path time that entered, left or changed class):

1. **annotations**: step ranges (`ProfilerStep#N`, whatever their category)
   and user annotations (`record_function` ranges: category
   `user_annotation`, or, in PyTorch <= 1.10 traces where every host range is
   an `Operator`, a range whose name is no operator's: no `ns::` namespace,
   not an autograd node `...Backward<N>`) are not nodes. Where HTA makes them
   nodes (old traces name every range `Operator`), a step range spans the
   whole step on its thread, the time between its operators becomes CPU time
   attributed to the step, and the host's chain outweighs the device's: a
   step "98 % CPU-bound" on a device busy 80 %, its top part `ProfilerStep#9`.
   Without them the thread's operators follow each other as top-level ones do
   in any trace (order only), as HTA itself reads traces whose step ranges
   are `user_annotation`s.
2. **autograd thread**: the backward pass runs on the autograd engine's own
   thread (the one running `autograd::engine::evaluate_function` ranges), and
   HTA joins no edge to it: its chain and the forward thread's are two
   separate paths, and the longest of them stands for the step. The adjusted
   graph orders each burst of backward work (top-level ranges with no forward
   operator starting between them) after the forward thread's last top-level
   operator ending before the burst, and the forward thread's next top-level
   operator after the burst's end (order edges, weighing nothing, as HTA's
   own between top-level operators).
3. **other streams**: HTA's kernel-kernel gap is the time between two ops of
   one stream. Where another stream of the same device, or a CUDA-graph
   replay (whose kernels share one launch and mostly are not nodes), runs in
   that gap the device is not idle: that part of the gap is device compute,
   only the rest stays a gap (`Analysis.busy_by_device`: the union of the
   device's work over all its streams).

Beside both readings: **coverage**, the path's share of the window (above 1
when device work launched in the window runs past its end), and
flags (`PathFlag`): the path covers less than `LOW_COVERAGE` of the window
(most of the step's time lies off any chain the graph sees), or it reads
`cpu_bound` while the device is busy more than `BUSY_DEVICE` of the window
(the reading contradicts the window's own figures). The adjusted path's top
parts name operators and device ops, never a step range.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.figures.critical.frame import BoolArray, HtaFrame, Int64Array
from tui.core.figures.critical.graph import (
    EdgeKind,
    FrameWide,
    Graph,
    build_graph,
)
from tui.core.figures.critical.path import (
    BoundBy,
    CriticalPath,
    longest_path,
    split_path,
)
from tui.core.model.trace import Trace

ANNOTATION_CATEGORIES = frozenset({"user_annotation", "gpu_user_annotation"})
OLD_OPERATOR_CATEGORY = "Operator"
OPERATOR_NAME = re.compile(r"\w::|Backward\d*$")
STEP_PREFIX = "ProfilerStep"
AUTOGRAD_RANGE = "autograd::engine::evaluate_function"
LOW_COVERAGE = 0.5
BUSY_DEVICE = 0.7

Busy = Mapping[int | None, Intervals]


class Correction(enum.Enum):
    """What the adjusted reading corrects in HTA's."""

    ANNOTATIONS = "annotations"  # step and user annotations are not CPU work
    AUTOGRAD_THREAD = "autograd_thread"  # the backward thread joined to the forward
    OTHER_STREAMS = "other_streams"  # gaps that other streams or graphs filled


class PathFlag(enum.Enum):
    """Why a reading of the path should not be taken at its word."""

    LOW_COVERAGE = "low_coverage"
    CPU_BOUND_ON_BUSY_DEVICE = "cpu_bound_on_busy_device"


@dataclass(frozen=True)
class Corrected:
    """One correction that changed the path: how many ranges left out, edges
    added or gaps filled, and how much path time entered, left or changed
    class (the larger of what the classes gained and what they lost)."""

    correction: Correction
    count: int
    moved_ns: int
    change_ns: tuple[tuple[BoundBy, int], ...]  # each class that changed, by how much


@dataclass(frozen=True)
class AdjustedPath:
    """The adjusted reading of one window, with coverage and flags for it and
    for HTA's reading of the same window."""

    path: CriticalPath
    corrected: tuple[Corrected, ...]
    window_ns: int
    device_busy_share: float | None  # the busiest device's, None without one
    coverage: float | None
    flags: tuple[PathFlag, ...]
    hta_coverage: float | None
    hta_flags: tuple[PathFlag, ...]


def annotation_rows(frame: HtaFrame) -> BoolArray:
    """Step ranges and user annotations (see the module's definition)."""
    trace = frame.trace
    by_name = np.array(
        [name.startswith(STEP_PREFIX) for name in trace.names] or [False], dtype=bool
    )
    not_operator = np.array(
        [OPERATOR_NAME.search(name) is None for name in trace.names] or [False],
        dtype=bool,
    )
    annotation_category = np.array(
        [category in ANNOTATION_CATEGORIES for category in trace.categories] or [False],
        dtype=bool,
    )
    old_operator = np.array(
        [category == OLD_OPERATOR_CATEGORY for category in trace.categories] or [False],
        dtype=bool,
    )
    rows: BoolArray = (
        by_name[trace.name_id]
        | annotation_category[trace.category_id]
        | (old_operator[trace.category_id] & not_operator[trace.name_id])
    )
    return rows & (frame.stream < 0)


def disturbing(frame: HtaFrame, annotations: BoolArray) -> Int64Array:
    """The starts, sorted, of the annotations whose leaving out can change a
    window's graph: those that are nodes, and those starting or ending inside
    a node of their thread (they parent its operators, or cross them). The
    others (a step range, a range around operators) change nothing: a window
    where none starts reads HTA's graph again."""
    trace = frame.trace
    rows = np.flatnonzero(annotations & frame.kept)
    nodes = np.flatnonzero(
        frame.kept & frame.node_category & (frame.stream < 0) & (frame.duration_ns > 0)
    )
    chosen = rows[frame.node_category[rows]]
    others = rows[~frame.node_category[rows]]
    inside: list[Int64Array] = [chosen]
    for track in distinct(trace.track[others]).tolist():
        mine = others[trace.track[others] == track]
        held = nodes[trace.track[nodes] == track]
        busy = Intervals.union_of(frame.start_ns[held], frame.end_ns[held])
        last = np.maximum(frame.end_ns[mine] - 1, frame.start_ns[mine])
        crossing = busy.contains(frame.start_ns[mine]) | busy.contains(last)
        inside.append(mine[crossing])
    return np.sort(frame.start_ns[np.concatenate(inside)]).astype(np.int64)


def device_busy(trace: Trace) -> dict[int | None, Intervals]:
    """Each device's work over all its streams (as `Analysis.busy_by_device`)."""
    work = np.flatnonzero(trace.device_work_mask)
    device = np.array(
        [trace.tracks[int(track)].device for track in trace.track[work].tolist()],
        dtype=object,
    )
    return {
        value: Intervals.union_of(
            trace.start_ns[work[device == value]], trace.end_ns[work[device == value]]
        )
        for value in set(device.tolist())
    }


def adjusted_path(
    frame: HtaFrame,
    wide: FrameWide,
    window: tuple[int, int],
    hta: CriticalPath,
    busy: Busy,
    annotations: BoolArray,
    hta_graph: tuple[Graph, list[int]],
    changes: bool = True,
) -> AdjustedPath:
    """The three corrections of `hta`, the window's HTA path (PathRefused when
    the corrected graph has a cycle). `hta_graph`: HTA's graph of the window
    and its path's nodes, taken (and changed) in place of a graph without the
    annotations where leaving them out `changes` nothing (`disturbing`); its
    path is kept where leaving them out changes no edge's place or weight (an
    annotation inside an operator parents the operators it holds: only what
    their gaps are attributed to changes)."""
    readings: list[tuple[Correction, int, CriticalPath]] = []
    graph, nodes = hta_graph
    if changes:
        hta_edges = graph
        graph = build_graph(frame, window, wide, annotations)
        if not graph.same_weights(hta_edges):
            nodes = longest_path(graph)
    left_out = _annotations_in(frame, annotations, window)
    plain = split_path(frame, graph, nodes, window)
    readings.append((Correction.ANNOTATIONS, left_out, plain))
    joined = join_autograd(frame, graph)
    if joined:
        nodes = longest_path(graph)
        plain = split_path(frame, graph, nodes, window)
    readings.append((Correction.AUTOGRAD_THREAD, joined, plain))
    fills = _gap_fills(frame, graph, nodes, busy)
    filled = split_path(
        frame, graph, nodes, window, lambda src, dst: fills.get((src, dst), 0)
    )
    gaps = sum(1 for part in fills.values() if part > 0)
    readings.append((Correction.OTHER_STREAMS, gaps, filled))
    corrected: list[Corrected] = []
    before = hta
    for correction, count, after in readings:
        change = _change(before, after)
        if count and change:
            gained = sum(ns for _, ns in change if ns > 0)
            lost = -sum(ns for _, ns in change if ns < 0)
            corrected.append(Corrected(correction, count, max(gained, lost), change))
        before = after
    window_ns = window[1] - window[0]
    shares = [
        intervals.covered_ns(*window) / window_ns
        for intervals in busy.values()
        if window_ns > 0
    ]
    busy_share = max(shares) if shares else None
    return AdjustedPath(
        path=filled,
        corrected=tuple(corrected),
        window_ns=window_ns,
        device_busy_share=busy_share,
        coverage=coverage(filled, window_ns),
        flags=path_flags(filled, window_ns, busy_share),
        hta_coverage=coverage(hta, window_ns),
        hta_flags=path_flags(hta, window_ns, busy_share),
    )


def coverage(path: CriticalPath, window_ns: int) -> float | None:
    """The path's share of the window (None for an empty window)."""
    return path.path_ns / window_ns if window_ns > 0 else None


def path_flags(
    path: CriticalPath, window_ns: int, busy_share: float | None
) -> tuple[PathFlag, ...]:
    """Low coverage; cpu_bound on a device busy most of the window."""
    flags = []
    share = coverage(path, window_ns)
    if share is not None and share < LOW_COVERAGE:
        flags.append(PathFlag.LOW_COVERAGE)
    if (
        path.dominant() is BoundBy.CPU
        and busy_share is not None
        and busy_share > BUSY_DEVICE
    ):
        flags.append(PathFlag.CPU_BOUND_ON_BUSY_DEVICE)
    return tuple(flags)


def _change(
    before: CriticalPath, after: CriticalPath
) -> tuple[tuple[BoundBy, int], ...]:
    old, new = dict(before.bound_ns), dict(after.bound_ns)
    return tuple(
        (kind, new[kind] - old[kind]) for kind in BoundBy if new[kind] != old[kind]
    )


def _annotations_in(
    frame: HtaFrame, annotations: BoolArray, window: tuple[int, int]
) -> int:
    """Node ranges the correction leaves out that start in the window."""
    start = frame.start_ns
    return int(
        (
            annotations
            & frame.kept
            & frame.node_category
            & (frame.duration_ns > 0)
            & (start >= window[0])
            & (start <= window[1])
        ).sum()
    )


def _roots(frame: HtaFrame, events: Int64Array) -> Int64Array:
    """The top-level events of one thread, by start (nested ones left out)."""
    start, end = frame.start_ns[events], frame.end_ns[events]
    order = np.lexsort((start - end, start))
    # The latest end of the events before each one: a root starts at or after it.
    reach = np.maximum.accumulate(end[order])
    before = np.concatenate([[np.iinfo(np.int64).min], reach[:-1]])
    return events[order[start[order] >= before]].astype(np.int64)


def join_autograd(frame: HtaFrame, graph: Graph) -> int:
    """Order each burst of the autograd thread's work between the forward
    threads' operators (see the module); the number of edges added."""
    trace = frame.trace
    started = np.fromiter(graph.start_node, dtype=np.int64, count=len(graph.start_node))
    events = started[np.isin(started, np.fromiter(graph.end_node, dtype=np.int64))]
    if events.size == 0:
        return 0
    events = events[(frame.stream[events] < 0) & frame.node_category[events]]
    tracks = trace.track[events]
    backward_ids = [
        index
        for index, name in enumerate(trace.names)
        if name.startswith(AUTOGRAD_RANGE)
    ]
    is_backward = np.isin(trace.name_id[events], backward_ids)
    backward_tracks = distinct(tracks[is_backward]).tolist()
    backward_set = set(backward_tracks)
    added = 0
    for track in backward_tracks:
        pid = trace.tracks[track].pid
        forward_tracks = [
            other
            for other in distinct(tracks).tolist()
            if trace.tracks[other].pid == pid
            and other != track
            and other not in backward_set
        ]
        forward_events = events[np.isin(tracks, forward_tracks)]
        forward = np.concatenate(
            [
                _roots(frame, forward_events[trace.track[forward_events] == other])
                for other in distinct(trace.track[forward_events]).tolist()
            ]
            or [np.zeros(0, dtype=np.int64)]
        )
        if forward.size == 0:
            continue
        backward = _roots(frame, events[tracks == track])
        added += _join_bursts(frame, graph, forward, backward)
    return added


def _join_bursts(
    frame: HtaFrame, graph: Graph, forward: Int64Array, backward: Int64Array
) -> int:
    """The edges into and out of each burst of `backward` roots."""
    forward = forward[np.argsort(frame.start_ns[forward], kind="stable")]
    forward_starts = frame.start_ns[forward]
    by_end = forward[np.argsort(frame.end_ns[forward], kind="stable")]
    forward_ends = frame.end_ns[by_end]
    bursts: list[list[int]] = []
    reach = np.iinfo(np.int64).min
    for event in backward.tolist():
        start = int(frame.start_ns[event])
        between = np.searchsorted(forward_starts, start, side="left") - np.searchsorted(
            forward_starts, reach, side="left"
        )
        if not bursts or between > 0:
            bursts.append([])
        bursts[-1].append(event)
        reach = max(reach, int(frame.end_ns[event]))
    added = 0
    for burst in bursts:
        first = burst[0]
        last = max(burst, key=lambda event: int(frame.end_ns[event]))
        before = int(np.searchsorted(forward_ends, frame.start_ns[first], side="right"))
        if before:
            graph.add(
                graph.end_node[int(by_end[before - 1])],
                graph.start_node[first],
                EdgeKind.DEPENDENCY,
            )
            added += 1
        after = int(np.searchsorted(forward_starts, frame.end_ns[last], side="left"))
        if after < forward.size:
            graph.add(
                graph.end_node[last],
                graph.start_node[int(forward[after])],
                EdgeKind.DEPENDENCY,
            )
            added += 1
    return added


def _gap_fills(
    frame: HtaFrame, graph: Graph, nodes: list[int], busy: Busy
) -> dict[tuple[int, int], int]:
    """Each kernel-kernel gap on the path through `nodes`, and the other device
    work inside it: the device's busy time between the earlier op's end and the
    later op's start (their own times, not HTA's rounded ones, so the two ops
    themselves never count)."""
    trace = frame.trace
    gaps = [
        (src, dst)
        for src, dst in pairwise(nodes)
        if graph.edges[(src, dst)][0] == EdgeKind.KERNEL_KERNEL
    ]
    if not gaps:
        return {}
    before = np.array([graph.node_event[src] for src, _ in gaps], dtype=np.int64)
    after = np.array([graph.node_event[dst] for _, dst in gaps], dtype=np.int64)
    low = np.maximum(
        np.array([graph.node_ns[src] for src, _ in gaps], dtype=np.int64),
        trace.end_ns[before],
    )
    high = np.minimum(
        np.array([graph.node_ns[dst] for _, dst in gaps], dtype=np.int64),
        trace.start_ns[after],
    )
    device = np.array(
        [trace.tracks[track].device for track in trace.track[before].tolist()],
        dtype=object,
    )
    filled = np.zeros(len(gaps), dtype=np.int64)
    for value, intervals in busy.items():
        mine = np.flatnonzero(device == value)
        if mine.size:
            filled[mine] = intervals.covered_in(low[mine], high[mine])
    return dict(zip(gaps, filled.tolist(), strict=True))
