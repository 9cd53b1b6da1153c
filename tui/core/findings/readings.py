"""The method's readings, computed from a capture: figures, cost and a place to show, no words.

Each reading is a *possible* observation, never a proven cause, weighed by
what it costs per step (`weights`). When the capture lacks what a reading
needs (no GPU events, no steps, no data zone) it is NOT_OBSERVED with the
reason, instead of reporting zero. The wording lives on the report floor
(`report/findings.py`), so the app, the CLI and the report word them alike
and never branch on ids to find figures.
"""

from __future__ import annotations

import numpy as np

from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.collectives import CPU_COLLECTIVE
from tui.core.figures.shapes import operator_shape_split, shapes_in_trace
from tui.core.findings.copies import pageable_copy, repeated_copy
from tui.core.findings.critical import critical_path
from tui.core.findings.data_zone import idle_in_data_zone
from tui.core.findings.device import device_waits, host_bound, many_small_launches
from tui.core.findings.finding import (
    DominantFigures,
    Finding,
    Missing,
    MissingReason,
    ShowOperator,
    by_cost,
)
from tui.core.findings.syncs import host_sync
from tui.core.findings.tensor_cores import tensor_cores
from tui.core.findings.weights import DEFAULT_MIN_SHARE, DOMINANT_SHARE, Scale, scale_of


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


def compute_findings(
    analysis: Analysis, min_share: float = DEFAULT_MIN_SHARE
) -> list[Finding]:
    """Every reading of one capture, costliest first (`by_cost`)."""
    scale = scale_of(analysis, min_share)
    waits = device_waits(analysis) if analysis.trace.gpu_observed else None
    return by_cost(
        [
            idle_in_data_zone(analysis, scale),
            host_bound(analysis, scale, waits),
            repeated_copy(analysis, scale),
            pageable_copy(analysis, scale),
            many_small_launches(analysis, scale, waits),
            dominant_operator(analysis, scale),
            tensor_cores(analysis, scale),
            host_sync(analysis, scale),
            critical_path(analysis, scale),
        ]
    )
