"""The words of each reading: title, observation, hypothesis, next check, cost.

The observation (what the capture shows, with its figures) is worded in
`observations`; this module adds the rest and the CLI's findings output.

Worded as possibilities, never as causes or promised speed-ups; figures come
from the finding, so every front end (app, CLI, report, notes) says the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, us
from tui.core.base.vocab import (
    DataLoading,
    FindingId,
    FindingStatus,
    GapKind,
)
from tui.core.figures.critical import BoundBy
from tui.core.findings.finding import (
    CopyFigures,
    CriticalPathFigures,
    DominantFigures,
    Finding,
    IdleFigures,
)
from tui.core.results.findings import FindingsResult, finding_data
from tui.report.observations import BOUND_WORDS, observation, percent
from tui.report.text import fill


@dataclass(frozen=True)
class FindingWords:
    """A finding as people read it."""

    title: str
    observation: str
    hypothesis: str
    next_check: str
    status_label: str
    cost: str
    """What it plausibly costs per step against the median step ("" when not weighed)."""


_TITLES = {
    FindingId.GPU_IDLE_DATA_ZONE: "GPU idle during the data zone",
    FindingId.REPEATED_COPY: "The same host-to-device copy repeated each step",
    FindingId.PAGEABLE_COPY: "Host-to-device copies from pageable memory",
    FindingId.HOST_BOUND: "The device waits on the host",
    FindingId.SMALL_LAUNCHES: "Many small launches per step",
    FindingId.DOMINANT_OP: "One operator dominates",
    FindingId.TENSOR_CORES: "Tensor-Core-eligible kernels off Tensor Cores",
    FindingId.LATE_RANK: "One rank reaches the collectives late",
    FindingId.HOST_SYNC: "The host waits on the device (synchronisations)",
    FindingId.CRITICAL_PATH: "What bounds the step (critical path)",
}
_HYPOTHESES = {
    FindingId.GPU_IDLE_DATA_ZONE: "the input pipeline may not keep up with the device",
    FindingId.REPEATED_COPY: "its placement or lifetime may be wrong",
    FindingId.PAGEABLE_COPY: (
        "these copies may hold the host: from pageable memory the driver stages"
        " each one and the host waits until it is done"
    ),
    FindingId.HOST_BOUND: (
        "the host (Python, operator dispatch, input) may not issue work as fast as"
        " the device runs it"
    ),
    FindingId.SMALL_LAUNCHES: "the work may be fragmented into many small kernels",
    FindingId.DOMINANT_OP: "its input shapes or its algorithm may decide the step time",
    FindingId.TENSOR_CORES: (
        "these matrix products and convolutions may run in full FP32, where lower"
        " precision (FP16, BF16, TF32) may run them on Tensor Cores"
    ),
    FindingId.LATE_RANK: "that rank's input or its compute may be slower",
    FindingId.HOST_SYNC: (
        "these synchronisations may hold the step: the host waits until the"
        " device's queue is drained, then the device may idle until the host"
        " launches work again"
    ),
    FindingId.CRITICAL_PATH: (
        "overhead on the step's longest chain of dependent work may hold it"
    ),
}
_NEXT_CHECKS = {
    FindingId.GPU_IDLE_DATA_ZONE: (
        "run the same computation with batches prepared in advance and compare "
        "the step time"
    ),
    FindingId.REPEATED_COPY: (
        "move it to the device once, then check the output is unchanged"
    ),
    FindingId.PAGEABLE_COPY: (
        "pin the host memory (DataLoader pin_memory=True) and copy with"
        " non_blocking=True, then compare the step time"
    ),
    FindingId.HOST_BOUND: (
        "look at the host's operators inside the device's gaps, then try less host"
        " work per step (torch.compile, CUDA graphs, a larger batch) and compare"
    ),
    FindingId.SMALL_LAUNCHES: (
        "group the work (torch.compile fusion, CUDA graphs, larger batches) and"
        " compare the step time"
    ),
    FindingId.DOMINANT_OP: (
        "time the same operator alone with the same inputs, then with others"
    ),
    FindingId.TENSOR_CORES: (
        "run the same steps under mixed precision (torch.autocast) or with TF32"
        " (torch.backends.cuda.matmul.allow_tf32 = True), then compare the step"
        " time and the results"
    ),
    FindingId.LATE_RANK: ("compare that rank's data zone and kernels with a peer's"),
    FindingId.HOST_SYNC: (
        "remove the .item()/sync or move it off the step's critical path, e.g."
        " log metrics every N steps, then compare the step time"
        " (steptrace syncs lists each sync with its operator)"
    ),
    FindingId.CRITICAL_PATH: (
        "read the step's critical path (steptrace critical TRACE --step N) and"
        " compare the step time after shortening its largest overhead"
    ),
}
# The critical path's words by its largest overhead class: hypothesis, next check.
_CRITICAL_WORDS = {
    BoundBy.CPU: (
        "the host's operators on the critical path may hold the step: the device"
        " waits for the work they issue",
        "read the operators on the path (steptrace critical TRACE --step N), cut"
        " host work there (torch.compile, fewer synchronisations, a larger"
        " batch) and compare the step time",
    ),
    BoundBy.LAUNCH: (
        "kernels on the critical path may wait between their launch call and"
        " their start: launching, not computing, may hold the step",
        "group the launches on the path (CUDA graphs, torch.compile fusion) and"
        " compare the step time (steptrace critical TRACE --step N lists them)",
    ),
    BoundBy.KERNEL_KERNEL: (
        "gaps between consecutive kernels of a stream on the critical path may"
        " hold the step",
        "read what the stream waits for between those kernels (steptrace"
        " critical TRACE --step N, steptrace queue TRACE), fuse them or capture"
        " them in a CUDA graph, and compare the step time",
    ),
}
_STATUS = {
    FindingStatus.LIKELY: "likely",
    FindingStatus.POSSIBLE: "possible",
    FindingStatus.MINOR: "minor",
    FindingStatus.NOT_SEEN: "not seen",
    FindingStatus.NOT_OBSERVED: "not observed",
}
_LOADING_CHECKS = {
    DataLoading.MAIN_THREAD: (
        "the batches are loaded on the main thread (DataLoader num_workers=0): load"
        " them in worker processes (num_workers > 0, pin_memory=True) and compare"
        " the step time"
    ),
    DataLoading.WORKERS: (
        "the batches come from worker processes: try more workers or a larger"
        " prefetch_factor (with pin_memory=True) and compare the step time"
    ),
}


def words(finding: Finding) -> FindingWords:
    """Title, observation, hypothesis and next check of a finding."""
    title = _TITLES[finding.id]
    hypothesis = _HYPOTHESES[finding.id]
    next_check = _NEXT_CHECKS[finding.id]
    figures = finding.figures
    if isinstance(figures, IdleFigures):
        if figures.kind is GapKind.UNTRACED:
            title = "Untraced time in the data zone (GPU not observed)"
            hypothesis = "the input pipeline may not keep up with the computation"
        if figures.loading is not None:
            next_check = _LOADING_CHECKS[figures.loading]
    if isinstance(figures, CopyFigures) and finding.seen:
        hypothesis = (
            "if this copy carries the same constant each time (not the batch), "
            + hypothesis
        )
    if isinstance(figures, CriticalPathFigures):
        title = f"The step is {BOUND_WORDS[figures.bound_by]} (critical path)"
        hypothesis, next_check = _CRITICAL_WORDS.get(
            figures.overhead, (hypothesis, next_check)
        )
    if isinstance(figures, DominantFigures) and figures.collective:
        title = "One collective dominates"
        hypothesis = (
            "a collective's time holds the wait for the slowest rank, not only the"
            " transfer"
        )
        next_check = (
            "read the ranks' arrival at it: steptrace ranks RUN_FOLDER (one trace"
            " per rank)"
        )
    return FindingWords(
        title,
        observation(finding),
        hypothesis,
        next_check,
        _STATUS[finding.status],
        cost_text(finding),
    )


def cost_text(finding: Finding) -> str:
    """Its cost per step and share of the median step; "" when it is not weighed."""
    cost = finding.cost_ns_per_step
    if cost is None or finding.weight is None:
        return ""
    share = finding.share_of_step
    text = f"about {duration_text(cost)} per step"
    if share is not None:
        text += (
            f", {percent(share)} of the median step"
            f" ({duration_text(finding.weight.median_step_ns)})"
        )
    return text


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding in JSON: its data with its words (`findings`, `report` and `ranks`)."""
    said = words(finding)
    data = finding_data(finding)
    return {
        "id": data.pop("id"),
        "status": data.pop("status"),
        "title": said.title,
        "cost_us_per_step": data.pop("cost_us_per_step"),
        "share_of_step_pct": data.pop("share_of_step_pct"),
        "observation": said.observation,
        "hypothesis": said.hypothesis,
        "next_check": said.next_check,
        **data,
    }


def findings_text(result: FindingsResult) -> str:
    """`steptrace findings`: each reading, costliest first, with its cost and words."""
    step = (
        f"median step {duration_text(result.median_step_ns)} over"
        f" {plural(result.steps, 'window step')}"
        if result.steps
        else f"no steps: the capture ({duration_text(result.median_step_ns)}) is"
        " weighed as one step"
    )
    lines = [
        f"findings, costliest first ({step}; minor under"
        f" {percent(result.min_share)} of it)"
    ]
    for finding in result.findings:
        said = words(finding)
        lines += fill(f"{said.title} — {said.status_label}", "- ", "  ")
        if said.cost:
            lines += fill(said.cost, "    cost: ", "      ")
        lines += fill(printable(said.observation), "    ", "    ")
        if finding.observed:
            lines += fill(said.hypothesis, "    hypothesis: ", "      ")
            lines += fill(said.next_check, "    next check: ", "      ")
    return "\n".join(lines)


def findings_json(result: FindingsResult) -> dict[str, Any]:
    """`steptrace findings --json`: the median step, the floor, each finding costliest first."""
    return {
        "median_step_us": us(result.median_step_ns),
        "steps": result.steps,
        "min_share_pct": 100.0 * result.min_share,
        "findings": [finding_json(finding) for finding in result.findings],
    }
