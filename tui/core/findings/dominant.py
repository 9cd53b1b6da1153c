"""One operator holds a large share of the window's self time.

Self time keeps the zones and steps from hiding the operators inside them;
the clock is the device's when operators launched device work, else the
host's. Its cost is that operator's self time per step; with recorded
shapes, the input shapes holding most of it say which call to time alone.
A collective's time holds the wait for its peers: it is named as one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.collectives import CPU_COLLECTIVE
from tui.core.figures.shapes import operator_shape_split, shapes_in_trace
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowOperator,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import DOMINANT_SHARE, Scale, scale_of


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
    # Steps contain everything; self time already keeps zones from hiding operators.
    keep = np.array([name != "ProfilerStep*" for name in table.names], dtype=bool)
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
        ),
        ShowOperator(name),
        weight=weight,
    )


RULE = FindingRule(
    FindingId.DOMINANT_OP, DominantFigures, (ShowOperator,), dominant_operator
)
