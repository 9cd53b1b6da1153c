"""The four readings of the method, computed from a capture.

Each reading is a *possible* observation with its hypothesis and next check,
never a proven cause or a promised speed-up. When the capture lacks what a
reading needs (no GPU events, no steps, no data zone) the reading says
"not observed" and why, instead of reporting zero.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tui.core.analysis import Analysis, Step, union_length
from tui.core.model import Kind
from tui.core.report import format_duration_ns, gpu_missing_reason

# A data zone where the device idles for at least this share of it is worth a look.
IDLE_SHARE_WORTH_A_LOOK = 0.10
# Kernel counts and durations under which launches read as "many small".
MANY_KERNELS_PER_STEP = 50
SMALL_KERNEL_NS = 20_000
# An operator holding at least this share of the time reads as dominating.
DOMINANT_SHARE = 0.30


@dataclass(frozen=True)
class Finding:
    """A possible observation, what it may mean, and the experiment that checks it."""

    id: str
    title: str
    observation: str
    evidence: dict[str, Any] = field(default_factory=dict)
    hypothesis: str = ""
    next_check: str = ""
    observed: bool = False


def _window(analysis: Analysis) -> list[Step]:
    """Active steps, or every step when the description marks none active."""
    return analysis.active_steps or analysis.steps


def gpu_idle_in_data_zone(analysis: Analysis) -> Finding:
    """GPU idle while the data zone runs: the input pipeline may not keep up."""
    trace = analysis.trace
    title = "GPU idle during the data zone"
    hypothesis = "the input pipeline may not keep up with the device"
    next_check = (
        "run the same computation with batches prepared in advance and compare "
        "the step time"
    )
    zones = sorted(analysis.data_zone_names())
    if analysis.data_zone_events.size == 0:
        return Finding(
            "gpu_idle_data_zone",
            title,
            "not observed: the capture has no data zone ("
            + ", ".join(zones)
            + " or enumerate(DataLoader)#…) to look inside",
            {"zones": zones},
            hypothesis,
            next_check,
            False,
        )
    zone_ns = analysis.total_zone_ns
    if not trace.gpu_observed:
        # Without GPU events the gap is the zone's CPU wait, and is named so.
        wait = sum(gap.duration_ns for gap in analysis.gaps)
        share = wait / zone_ns if zone_ns else 0.0
        return Finding(
            "gpu_idle_data_zone",
            "CPU wait in the data zone (GPU not observed)",
            f"the data zone waited {format_duration_ns(wait)} of"
            f" {format_duration_ns(zone_ns)} ({share:.0%}) in its own time, outside"
            " any operator; GPU activity not observed: "
            + (gpu_missing_reason(trace) or "no GPU events"),
            {
                "zones": zones,
                "zone_ns": zone_ns,
                "cpu_wait_ns": wait,
                "cpu_wait_share": share,
            },
            "the input pipeline may not keep up with the computation",
            next_check,
            share >= IDLE_SHARE_WORTH_A_LOOK,
        )
    gaps = analysis.gaps
    starts = np.array([gap.start_ns for gap in gaps], dtype=np.int64)
    ends = starts + np.array([gap.duration_ns for gap in gaps], dtype=np.int64)
    idle = union_length(starts, ends)
    share = idle / zone_ns if zone_ns else 0.0
    per_step: dict[str, int] = {}
    for gap in gaps:
        key = "outside steps" if gap.step is None else str(gap.step)
        per_step[key] = per_step.get(key, 0) + gap.duration_ns
    observed = share >= IDLE_SHARE_WORTH_A_LOOK
    observation = (
        f"the device was idle {format_duration_ns(idle)} of the "
        f"{format_duration_ns(zone_ns)} spent in data zones ({share:.0%}), "
        f"in {len(gaps)} gap(s)"
    )
    if not observed:
        observation += "; the device was mostly busy while data was read"
    return Finding(
        "gpu_idle_data_zone",
        title,
        observation,
        {
            "zones": zones,
            "zone_ns": zone_ns,
            "idle_ns": idle,
            "idle_share": share,
            "gaps": len(gaps),
            "idle_ns_per_step": per_step,
        },
        hypothesis,
        next_check,
        observed,
    )


def repeated_copy(analysis: Analysis) -> Finding:
    """The same host-to-device copy (same name and bytes) in every step."""
    trace = analysis.trace
    title = "The same host-to-device copy repeated each step"
    hypothesis = "its placement or lifetime may be wrong"
    next_check = "move it to the device once, then check the output is unchanged"
    steps = _window(analysis)
    if not trace.gpu_observed:
        return Finding(
            "repeated_copy",
            title,
            "not observed: no GPU events in the capture ("
            + (gpu_missing_reason(trace) or "unknown reason")
            + ")",
            {},
            hypothesis,
            next_check,
            False,
        )
    if len(steps) < 2:
        return Finding(
            "repeated_copy",
            title,
            "not observed: the capture needs at least two steps to see a copy repeat"
            f" (it has {len(steps)})",
            {"steps": len(steps)},
            hypothesis,
            next_check,
            False,
        )
    copies = np.flatnonzero(trace.kind == Kind.MEMCPY)
    owner = analysis.gpu_owner
    step_starts = np.array([step.start_ns for step in steps], dtype=np.int64)
    step_ends = np.array([step.end_ns for step in steps], dtype=np.int64)
    seen: dict[tuple[str, int], dict[int, int]] = {}
    for event in copies.tolist():
        name = trace.event_name(event)
        if "HtoD" not in name and "Host -> Device" not in name:
            continue
        launch = int(owner[event])
        at = int(trace.start_ns[launch if launch >= 0 else event])
        step = int(np.searchsorted(step_starts, at, side="right")) - 1
        if step < 0 or at >= step_ends[step]:
            continue
        raw_bytes = trace.event_args(event).get("bytes")
        size = int(raw_bytes) if isinstance(raw_bytes, (int, float)) else -1
        per_step = seen.setdefault((name, size), {})
        per_step[step] = per_step.get(step, 0) + 1
    repeated = [
        (key, counts) for key, counts in seen.items() if len(counts) == len(steps)
    ]
    if not repeated:
        return Finding(
            "repeated_copy",
            title,
            f"no host-to-device copy with the same name and size in all {len(steps)}"
            f" steps ({len(seen)} distinct copies seen)",
            {"steps": len(steps), "distinct_copies": len(seen)},
            hypothesis,
            next_check,
            False,
        )
    repeated.sort(key=lambda item: -item[0][1])
    (name, size), counts = repeated[0]
    return Finding(
        "repeated_copy",
        title,
        f"{len(repeated)} host-to-device cop{'y' if len(repeated) == 1 else 'ies'}"
        f" of the same size in each of the {len(steps)} steps; largest:"
        f" {size if size >= 0 else 'unknown'} bytes",
        {
            "steps": len(steps),
            "repeated_copies": len(repeated),
            "name": name,
            "bytes": size,
            "per_step": min(counts.values()),
        },
        "if this copy carries the same constant each time (not the batch), "
        + hypothesis,
        next_check,
        True,
    )


def many_small_launches(analysis: Analysis) -> Finding:
    """Many short kernels per step: the work may be fragmented."""
    trace = analysis.trace
    title = "Many small launches per step"
    hypothesis = "the work may be fragmented into many small kernels"
    next_check = "group the work (fusion, larger batches) and look at the whole cost"
    if not trace.gpu_observed:
        return Finding(
            "small_launches",
            title,
            "not observed: no GPU events in the capture ("
            + (gpu_missing_reason(trace) or "unknown reason")
            + ")",
            {},
            hypothesis,
            next_check,
            False,
        )
    kernels = np.flatnonzero(trace.kind == Kind.KERNEL)
    if kernels.size == 0:
        return Finding(
            "small_launches",
            title,
            "not observed: the capture has device work but no kernels",
            {},
            hypothesis,
            next_check,
            False,
        )
    median_ns = float(np.median(trace.duration_ns[kernels]))
    steps = _window(analysis)
    owner = analysis.gpu_owner[kernels]
    launched_at = np.where(
        owner >= 0, trace.start_ns[np.maximum(owner, 0)], trace.start_ns[kernels]
    )
    if steps:
        counts = [
            int(((launched_at >= step.start_ns) & (launched_at < step.end_ns)).sum())
            for step in steps
        ]
    else:
        counts = [int(kernels.size)]
    per_step = float(statistics.median(counts))
    observed = per_step >= MANY_KERNELS_PER_STEP and median_ns < SMALL_KERNEL_NS
    scope = (
        f"per step (median of {len(steps)})" if steps else "in the capture (no steps)"
    )
    return Finding(
        "small_launches",
        title,
        f"{per_step:.0f} kernels {scope}, median kernel duration"
        f" {format_duration_ns(median_ns)}",
        {
            "kernels_per_step": counts,
            "median_kernels_per_step": per_step,
            "median_kernel_ns": median_ns,
            "kernels": int(kernels.size),
        },
        hypothesis,
        next_check,
        observed,
    )


def dominant_operator(analysis: Analysis) -> Finding:
    """One operator holding a large share of the time."""
    title = "One operator dominates"
    hypothesis = "its input shapes or its algorithm may decide the step time"
    next_check = "time the same operator alone with the same inputs, then with others"
    steps = _window(analysis)
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
            "dominant_op",
            title,
            "not observed: no operator time in the window",
            {},
            hypothesis,
            next_check,
            False,
        )
    top = int(np.argmax(values))
    share = int(values[top]) / total
    name = table.names[top]
    return Finding(
        "dominant_op",
        title,
        f"{name} holds {share:.0%} of the self {unit} time of operators"
        f" ({format_duration_ns(int(values[top]))} of {format_duration_ns(total)},"
        f" {int(table.calls[top])} calls)",
        {
            "operator": name,
            "share": share,
            "self_ns": int(values[top]),
            "total_ns": total,
            "calls": int(table.calls[top]),
            "unit": unit,
        },
        hypothesis,
        next_check,
        share >= DOMINANT_SHARE,
    )


def compute_findings(analysis: Analysis) -> list[Finding]:
    """The four readings in the method's order."""
    return [
        gpu_idle_in_data_zone(analysis),
        repeated_copy(analysis),
        many_small_launches(analysis),
        dominant_operator(analysis),
    ]
