"""Kernels per name: count, total, min / median / max — the GPU side of the operator table.

A kernel is a `kernel` event, or device work of another accelerator whose
category steptrace does not know (MTIA's `mtia_ccp_events`), except its
DMA requests, which are copies (HTA classes `dma…` names as memory too).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import group_counts, group_medians, median
from tui.core.base.intervals import Intervals
from tui.core.figures.kept import KeptArray, array_from, array_kept, msgpack_bytes
from tui.core.figures.launches import (
    LATE_START_NS,
    SHORT_KERNEL_NS,
    SLOW_LAUNCH_NS,
    GraphReplays,
    Launches,
    LaunchSummary,
)
from tui.core.model.nesting import sum_by_index
from tui.core.model.trace import Kind, Trace

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

# Device work of an unknown category named like this is a copy, not a kernel.
DMA_PREFIX = "dma"


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


def dma_name_ids(trace: Trace) -> npt.NDArray[np.int32]:
    """Ids of the names that read as DMA requests (copies of other accelerators)."""
    return np.array(
        [
            index
            for index, name in enumerate(trace.names)
            if name.startswith(DMA_PREFIX)
        ],
        dtype=np.int32,
    )


def kernel_mask(trace: Trace) -> BoolArray:
    """Kernels, and other accelerators' device work that is not a DMA request."""
    other = trace.kind == Kind.DEVICE_OTHER
    if other.any():
        other &= ~np.isin(trace.name_id, dma_name_ids(trace))
    mask: BoolArray = (trace.kind == Kind.KERNEL) | other
    return mask


def kernel_events(
    trace: Trace, start_ns: int | None = None, end_ns: int | None = None
) -> Int64Array:
    """Kernels starting inside [start, end) (default: all), in event order."""
    kernels = np.flatnonzero(kernel_mask(trace))
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
        ordered = durations[
            sorted_durations[duration_bounds[row] : duration_bounds[row + 1]]
        ]
        mins[row] = ordered[0]
        maxs[row] = ordered[-1]
        medians[row] = median(ordered)
    return KernelTable(
        names=[trace.names[int(unique_ids[index])] for index in order.tolist()],
        count=np.bincount(group, minlength=size).astype(np.int64),
        total_ns=sum_by_index(size, group.astype(np.int64), durations),
        min_ns=mins,
        median_ns=medians,
        max_ns=maxs,
        events=[kernels[by_row[bounds[row] : bounds[row + 1]]] for row in range(size)],
    )


@dataclass(frozen=True)
class KernelStats:
    """Kernels per name with their share of device busy time and their launch figures.

    Columns are aligned with `table`'s rows. `covered_ns[row]` is the time
    when some kernel of that name runs (the union of its intervals, inside
    the scope), so a name's share of busy time never counts concurrent
    kernels twice; shares of different names can overlap. Launch medians are
    NaN for a name none of whose kernels has a launch call of its own (known,
    not a graph replay); `graph_count` counts its graph replays and
    `graph_ids` the graphs that replayed it, where the trace records them.
    """

    table: KernelTable
    busy_ns: int
    covered_ns: Int64Array
    linked: Int64Array
    launch_median_ns: FloatArray
    delay_median_ns: FloatArray
    short_count: Int64Array
    slow_launches: Int64Array
    late_starts: Int64Array
    launches: LaunchSummary
    graph_count: Int64Array
    graph_ids: list[tuple[int, ...]]

    def __len__(self) -> int:
        return len(self.table)

    def busy_share(self, row: int) -> float | None:
        """The share of device busy time (0..1) when this kernel name runs; None without busy time."""
        if self.busy_ns <= 0:
            return None
        return int(self.covered_ns[row]) / self.busy_ns

    def order(self) -> Int64Array:
        """Rows by total time, largest first; ties in name order."""
        names = self.table.names
        by_name = np.array(
            sorted(range(len(names)), key=names.__getitem__), dtype=np.int64
        )
        return by_name[np.argsort(-self.table.total_ns[by_name], kind="stable")]


def kernel_stats(
    trace: Trace,
    kernels: Int64Array,
    launch_call: Int64Array,
    busy: Intervals,
    scope: tuple[int, int] | None = None,
    graphs: GraphReplays | None = None,
) -> KernelStats:
    """Per kernel name: the table, the share of `busy` (clipped to `scope`) and launch figures.

    `graphs`: the trace's graph replays (`Analysis.graph_replays`), computed
    here when not given.
    """
    table = kernel_table(trace, kernels)
    size = len(table)
    if scope is not None:
        busy = busy.clip(*scope)
    members = (
        np.concatenate(table.events) if size else np.zeros(0, dtype=np.int64)
    ).astype(np.int64)
    group = np.repeat(np.arange(size, dtype=np.int64), table.count)
    covered = np.zeros(size, dtype=np.int64)
    for row, events in enumerate(table.events):
        starts = trace.start_ns[events]
        union = Intervals.union_of(starts, starts + trace.duration_ns[events])
        covered[row] = (union if scope is None else union.clip(*scope)).total_ns
    if graphs is None:
        graphs = GraphReplays.of(trace, launch_call)
    launches = Launches.of(trace, launch_call, members, graphs.work)
    linked = launches.linked
    return KernelStats(
        table=table,
        busy_ns=busy.total_ns,
        covered_ns=covered,
        linked=group_counts(size, group, linked),
        launch_median_ns=group_medians(size, group, launches.call_ns, linked),
        delay_median_ns=group_medians(size, group, launches.delay_ns, linked),
        short_count=group_counts(
            size, group, trace.duration_ns[members] < SHORT_KERNEL_NS
        ),
        slow_launches=group_counts(
            size, group, linked & (launches.call_ns > SLOW_LAUNCH_NS)
        ),
        late_starts=group_counts(
            size, group, linked & (launches.delay_ns > LATE_START_NS)
        ),
        launches=LaunchSummary.of(trace, launches),
        graph_count=group_counts(size, group, launches.graph),
        graph_ids=_graph_ids_per_row(size, group, graphs.ids[members]),
    )


_KeptStats = tuple[
    list[str],
    tuple[KeptArray, KeptArray, KeptArray, KeptArray, KeptArray, KeptArray],
    int,
    tuple[
        KeptArray,
        KeptArray,
        KeptArray,
        KeptArray,
        KeptArray,
        KeptArray,
        KeptArray,
        KeptArray,
    ],
    LaunchSummary,
    list[tuple[int, ...]],
]


def kernel_stats_bytes(stats: KernelStats) -> bytes:
    """The stats as MessagePack, columns as raw bytes (kept in the column cache:
    the whole trace's take a quarter of a second on a big one)."""
    table = stats.table
    members = np.concatenate(table.events) if table.events else np.zeros(0, np.int64)
    return msgpack_bytes(
        (
            table.names,
            tuple(
                map(
                    array_kept,
                    (
                        table.count,
                        table.total_ns,
                        table.min_ns,
                        table.median_ns,
                        table.max_ns,
                        members,
                    ),
                )
            ),
            stats.busy_ns,
            tuple(
                map(
                    array_kept,
                    (
                        stats.covered_ns,
                        stats.linked,
                        stats.launch_median_ns,
                        stats.delay_median_ns,
                        stats.short_count,
                        stats.slow_launches,
                        stats.late_starts,
                        stats.graph_count,
                    ),
                )
            ),
            stats.launches,
            stats.graph_ids,
        )
    )


def kernel_stats_from(data: bytes) -> KernelStats:
    """The stats `kernel_stats_bytes` wrote; ValueError when they do not read as such."""
    import msgspec

    names, table_columns, busy_ns, columns, launches, graph_ids = (
        msgspec.msgpack.decode(data, type=_KeptStats)
    )
    count, total, mins, medians, maxs, members = map(array_from, table_columns)
    covered, linked, launch, delay, short, slow, late, graph = map(array_from, columns)
    table = (count, total, mins, medians, maxs)
    rows = (*table, covered, linked, launch, delay, short, slow, late, graph)
    if any(row.size != len(names) for row in rows) or len(graph_ids) != len(names):
        raise ValueError("kernel columns of different lengths")
    if int(count.sum()) != members.size:
        raise ValueError("kernel counts that do not add up to the kernels")
    events = np.split(members, np.cumsum(count)[:-1]) if names else []
    return KernelStats(
        table=KernelTable(names, *table, events),
        busy_ns=busy_ns,
        covered_ns=covered,
        linked=linked,
        launch_median_ns=launch,
        delay_median_ns=delay,
        short_count=short,
        slow_launches=slow,
        late_starts=late,
        launches=launches,
        graph_count=graph,
        graph_ids=graph_ids,
    )


def _graph_ids_per_row(
    size: int, group: Int64Array, ids: Int64Array
) -> list[tuple[int, ...]]:
    """The distinct graph ids (> 0) of each row's kernels, ascending."""
    rows: list[tuple[int, ...]] = [() for _ in range(size)]
    known = ids > 0
    if not known.any():
        return rows
    pairs = np.unique(np.stack([group[known], ids[known]]), axis=1)
    for row, graph_id in pairs.T.tolist():
        rows[row] = (*rows[row], graph_id)
    return rows


# -- names people read ---------------------------------------------------------

# `fn(args)::{lambda(...)#1}::operator()() const::{lambda()#2}…`: a lambda inside fn.
# It starts where a word does: from inside one it could only match as it does
# from the word's start (found first), and trying every suffix of every word
# of a long signature took 15 times as long.
_TEMPLATE = r"<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>"  # up to three levels of <…>
_LAMBDA_CHAIN = re.compile(
    r"(?<!\w)(\w+(?:" + _TEMPLATE + r")?)(?:\([^()]*\))?(?:\s*const)?"
    r"(?:::(?:\{lambda\([^()]*\)#\d+\}|operator\(\)\([^()]*\)(?:\s*const)?))+"
)
_ANONYMOUS = re.compile(r"\(anonymous namespace\)::")
_QUALIFIER = re.compile(r"\b(?:[A-Za-z_]\w*::)+(?=[A-Za-z_~])")
_CAST = re.compile(r"\((?:[A-Za-z_]\w*)\)(-?\d+)")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=4096)
def readable_kernel_name(name: str) -> str:
    """A demangled kernel name as people read it: no return type, no parameter
    list, no namespaces, lambdas named after the function holding them.

    `void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>,
    at::detail::Array<char*, 1> >(int, …)` reads
    `vectorized_elementwise_kernel<4, FillFunctor<int>, Array<char*, 1>>`.
    Names that are not C++ signatures (`volta_sgemm_64x64_nt`, Triton's) are kept.
    """
    text = name.strip()
    if text.startswith("void "):
        text = text[5:]
    text = _ANONYMOUS.sub("", text)
    text = _strip_parameters(text)
    # The chain needs `::{lambda(` or `::operator()(`: without either the
    # regex (slow on long template names) cannot match.
    lambdas = "::{lambda(" in text or "::operator()(" in text
    for _ in range(
        4 if lambdas else 0
    ):  # lambdas in templates of functions holding lambdas
        shorter = _LAMBDA_CHAIN.sub(r"\1{lambda}", text)
        if shorter == text:
            break
        text = shorter
    text = _QUALIFIER.sub("", text)
    text = _CAST.sub(r"\1", text)
    text = _SPACES.sub(" ", text).replace("> >", ">>").replace("> >", ">>")
    return text or name


def short_kernel_name(name: str) -> str:
    """The readable name with its template arguments folded: `vectorized_elementwise_kernel<…>`."""
    text = readable_kernel_name(name)
    folded: list[str] = []
    depth = 0
    for char in text:
        if char == "<":
            if depth == 0:
                folded.append("<…")
            depth += 1
        elif char == ">" and depth > 0:
            depth -= 1
            if depth == 0:
                folded.append(">")
        elif depth == 0:
            folded.append(char)
    return "".join(folded) if depth == 0 else text


def _strip_parameters(text: str) -> str:
    """Drop the trailing parameter list `(…)` outside every template bracket."""
    if not text.endswith(")"):
        return text
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                head = text[:index]
                # Only a parameter list when the head is a name or a template.
                if head and (head[-1].isalnum() or head[-1] in "_>"):
                    return head.rstrip()
                return text
    return text
