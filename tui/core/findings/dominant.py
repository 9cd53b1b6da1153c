"""One operator holds a large share of the window's self time.

Self time keeps the zones and steps from hiding the operators inside them;
the clock is the device's when operators launched device work, else the
host's. Its cost is that operator's self time per step; with recorded
shapes, the input shapes holding most of it say which call to time alone.
A collective's time holds the wait for its peers: it is named as one.

Only operators are read (`_ranges`): steps (`ProfilerStep#N`, whatever their
category), user annotations and Python frames are not, nor torch's own
ranges (`enumerate(DataLoader)#…`, `Optimizer.step#…`, which old profilers
wrote with category `Operator`), nor a name that launches no device work of
its own while its children do. A range that encloses a collective or a sync
waits (a range, or a name outside any operator namespace: a
`record_function("sync_grads")` an old profiler wrote as an operator, where
`aten::item` waiting on a sync stays an operator): it is named among
`waiting_ranges`, and the collective and late-rank readings weigh it. It claims its kernels' time (device clock) or its calls'
time (host clock).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.collectives import CPU_COLLECTIVE
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import operator_shape_split, shapes_in_trace
from tui.core.figures.sync_reading import SyncReading
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowOperator,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import DOMINANT_SHARE, Scale, scale_of
from tui.core.model.trace import Kind


@dataclass(frozen=True)
class DominantFigures(Figures):
    """The operator holding the largest share of self time.

    With recorded shapes: its input shapes holding most of its time, how
    many calls had them, their share of its time, how many shapes it had.
    """

    operator: str
    share: float
    self_ns: int
    total_ns: int
    calls: int
    unit: str  # "GPU" or "CPU": the clock the share is taken on
    steps: int = 0
    collective: bool = False
    """A collective: its time holds the wait for peers, not only compute."""
    shapes_recorded: bool = False
    input_shapes: str | None = None
    shape_calls: int | None = None
    shape_share: float | None = None
    shape_count: int | None = None
    waiting_ranges: tuple[str, ...] = ()
    """Ranges set aside because they enclose a collective or a sync (a wait)."""


def is_collective(name: str) -> bool:
    """A collective's operator (gloo, c10d, nccl): its time holds the wait for peers."""
    return CPU_COLLECTIVE.match(name) is not None


def dominant_operator(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """One operator holding a large share of the self time; its cost is that time per step."""
    scale = scale or scale_of(analysis)
    steps = analysis.window_steps
    start = steps[0].start_ns if steps else None
    end = steps[-1].end_ns if steps else None
    table = analysis.op_table(start, end)
    ranges, waiting = _ranges(analysis, table)
    keep = ~ranges
    if table.self_gpu_ns is not None and int(table.self_gpu_ns[keep].sum()) > 0:
        column, unit = table.self_gpu_ns, "GPU"
    else:
        column, unit = table.self_cpu_ns, "CPU"
    values = np.where(keep, column, 0)
    total = int(values.sum())
    if total <= 0:
        return Finding(
            FindingId.DOMINANT_OP,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_OPERATOR_TIME),
        )
    top = int(np.argmax(values))
    share = int(values[top]) / total
    name = table.names[top]
    per_event = analysis.self_gpu_ns if unit == "GPU" else analysis.self_cpu_ns
    split = operator_shape_split(analysis, name, per_event, start, end)
    status, weight = scale.weigh(
        share >= DOMINANT_SHARE, int(values[top]) / max(len(steps), 1)
    )
    set_aside = np.where(waiting, column, 0)
    waiting_ranges = tuple(
        table.names[index]
        for index in np.argsort(-set_aside, kind="stable")[:3].tolist()
        if set_aside[index] > 0
    )
    return Finding(
        FindingId.DOMINANT_OP,
        status,
        DominantFigures(
            name,
            share,
            int(values[top]),
            total,
            int(table.calls[top]),
            unit,
            steps=len(steps),
            collective=is_collective(name),
            shapes_recorded=shapes_in_trace(analysis.trace),
            input_shapes=None if split is None else str(split.shapes),
            shape_calls=None if split is None else split.calls,
            shape_share=None if split is None else split.share,
            shape_count=None if split is None else split.shape_count,
            waiting_ranges=waiting_ranges,
        ),
        ShowOperator(name),
        weight=weight,
        claim=_operator_claim(analysis, name, unit),
    )


def _ranges(analysis: Analysis, table: OpTable) -> tuple[BoolArray, BoolArray]:
    """Per name of `table`: whether it is a range rather than an operator (a step,
    an annotation, a Python frame, a range whose children do its work), and
    whether such a range encloses a collective or a sync (it waits)."""
    trace = analysis.trace
    kinds = trace.kind
    by_name = np.zeros(len(trace.names), dtype=bool)
    annotation = (kinds == Kind.USER_ANNOTATION) | (kinds == Kind.PYTHON)
    by_name[trace.name_id[annotation]] = True
    waits = np.zeros(len(trace.names), dtype=bool)
    collective = np.array(
        [CPU_COLLECTIVE.match(name) is not None for name in trace.names], dtype=bool
    )
    blocking = np.flatnonzero(collective[trace.name_id] & analysis.on_cpu)
    syncs = SyncReading.of(analysis).columns.events
    above = analysis.parent[np.concatenate([blocking, syncs]).astype(np.int64)]
    while above.size:
        above = above[above >= 0]
        waits[trace.name_id[above]] = True
        above = analysis.parent[above]
    index = {name: i for i, name in enumerate(trace.names)}
    # A merged name (the steps' "ProfilerStep*") is in no event: read as none.
    ids = np.array([index.get(name, -1) for name in table.names], dtype=np.int64)
    by_name = np.append(by_name, False)
    waits = np.append(waits, False)
    collective = np.append(collective, False)
    step = np.array(
        [name.startswith("ProfilerStep") for name in table.names], dtype=bool
    )
    torch_range = np.array([_torch_range(name) for name in table.names], dtype=bool)
    ranges: BoolArray = step | by_name[ids] | torch_range
    if table.self_gpu_ns is not None and table.total_gpu_ns is not None:
        ranges |= (table.self_gpu_ns == 0) & (table.total_gpu_ns > 0)
    # Operators are namespaced (aten::item waits on a sync and is still one).
    named = np.array(["::" in name for name in table.names], dtype=bool)
    waiting: BoolArray = waits[ids] & ~step & ~collective[ids] & (ranges | ~named)
    return ranges | waiting, waiting


def _torch_range(name: str) -> bool:
    """torch's own `record_function` ranges, whatever category an old profiler gave
    them: `enumerate(DataLoader)#…`, `Optimizer.step#SGD.step`, the autograd
    engine's `evaluate_function` ranges."""
    return "#" in name or name.startswith("autograd::engine::evaluate_function")


def _operator_claim(analysis: Analysis, name: str, unit: str) -> Claim:
    """Its kernels' time on the device clock, its calls' time on the host's."""
    trace = analysis.trace
    named = trace.name_id == trace.names.index(name)
    if unit == "GPU":
        owner = analysis.gpu_owner
        launched = owner >= 0
        events = np.flatnonzero(launched)
        events = events[named[owner[events]]]
        space = ClaimSpace.DEVICE_WORK
    else:
        events = np.flatnonzero(named & analysis.on_cpu)
        space = ClaimSpace.HOST
    return Claim(
        Intervals.union_of(trace.start_ns[events], trace.end_ns[events]),
        space,
        CostBound.OPERATOR_TIME,
    )


BoolArray = npt.NDArray[np.bool_]

RULE = FindingRule(
    FindingId.DOMINANT_OP, DominantFigures, (ShowOperator,), dominant_operator
)
