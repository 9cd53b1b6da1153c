"""The words of each reading: title, observation, hypothesis, next check.

Worded as possibilities, never as causes or promised speed-ups; figures come
from the finding, so every front end (app, CLI, report, notes) says the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text, us
from tui.core.base.vocab import (
    CollectiveSide,
    DataLoading,
    FindingId,
    FindingStatus,
    GapKind,
)
from tui.core.figures.critical import BoundBy
from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE
from tui.core.findings.finding import (
    CopyFigures,
    CriticalPathFigures,
    DominantFigures,
    Finding,
    HostBoundFigures,
    IdleFigures,
    LateRankFigures,
    LaunchFigures,
    MissingReason,
    PageableFigures,
    SyncFigures,
    TensorCoreFigures,
)
from tui.core.findings.weights import SLIVER_NS
from tui.core.results.findings import FindingsResult, finding_data
from tui.report.kernel_names import kernel_label
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
_BOUND_WORDS = {
    BoundBy.CPU: "CPU-bound",
    BoundBy.GPU_COMPUTE: "GPU-bound",
    BoundBy.GPU_COMMUNICATION: "communication-bound",
    BoundBy.KERNEL_KERNEL: "bound by gaps between kernels",
    BoundBy.LAUNCH: "launch-bound",
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
        title = f"The step is {_BOUND_WORDS[figures.bound_by]} (critical path)"
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
            f", {_percent(share)} of the median step"
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
        f" {_percent(result.min_share)} of it)"
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


def observation(finding: Finding) -> str:
    """What the capture shows for this reading, with its figures."""
    missing = finding.missing
    if missing is not None:
        return "not observed: " + _missing_text(missing.reason, missing.detail)
    figures = finding.figures
    if isinstance(figures, LateRankFigures):
        return _late_rank_text(figures, finding.seen)
    if isinstance(figures, IdleFigures):
        return _idle_text(figures, finding.seen)
    if isinstance(figures, CopyFigures):
        return _copy_text(figures, finding.seen)
    if isinstance(figures, PageableFigures):
        return _pageable_text(figures)
    if isinstance(figures, HostBoundFigures):
        return _host_bound_text(figures)
    if isinstance(figures, LaunchFigures):
        return _launch_text(figures)
    if isinstance(figures, DominantFigures):
        return _dominant_text(figures)
    if isinstance(figures, TensorCoreFigures):
        return _tensor_core_text(figures)
    if isinstance(figures, SyncFigures):
        return _sync_text(figures)
    if isinstance(figures, CriticalPathFigures):
        return _critical_text(figures)
    if finding.id is FindingId.HOST_SYNC:
        return "no host synchronisation in the window"
    return ""


def _critical_text(figures: CriticalPathFigures) -> str:
    scope = (
        f"over {plural(figures.steps, 'step')}"
        if figures.steps
        else "in the capture (no steps)"
    )
    shares = ", ".join(
        f"{kind.value} {share:.1f} %" for kind, share in figures.shares if share
    )
    text = (
        f"the critical path {scope} is {duration_text(figures.path_ns_per_step)}"
        f" per step ({shares}): the step is {_BOUND_WORDS[figures.bound_by]};"
        f" its largest overhead is {figures.overhead.value},"
        f" {duration_text(figures.overhead_ns_per_step)} per step"
    )
    if figures.top is not None:
        text += f", most of it in {printable(figures.top)}"
    return text


def _sync_text(figures: SyncFigures) -> str:
    scope = (
        f"over {plural(figures.steps, 'step')}"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"{plural(figures.syncs, 'host synchronisation')} {scope}"
        f" ({figures.syncs_per_step:.3g} per step):"
        f" the host waited {duration_text(figures.blocked_ns_per_step)} per step,"
        " then the device idled"
        f" {duration_text(figures.idle_after_ns_per_step)} per step before its"
        f" next work; the costliest is a {printable(figures.name)}"
        f" ({figures.kind.value})"
    )
    if figures.operator is not None:
        text += (
            f"; {printable(figures.operator)}'s syncs cost"
            f" {duration_text(figures.operator_ns_per_step)} per step"
        )
    return text


def _tensor_core_text(figures: TensorCoreFigures) -> str:
    scope = (
        f"over {plural(figures.steps, 'step')}"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"of {duration_text(figures.kernel_ns)} of kernel time launched by"
        f" operators {scope}"
    )
    if figures.eligible_share <= 0:
        return (
            text + ", none was launched by a Tensor-Core-eligible operator"
            " (torch-tb-profiler's rules)"
        )
    on_tc = _percent(figures.tensor_core_share) if figures.tensor_core_share else "none"
    text += (
        f", Tensor-Core-eligible operators launched"
        f" {_percent(figures.eligible_share)} and {on_tc} ran on Tensor Cores"
        " (torch-tb-profiler's rules)"
    )
    if figures.eligible_off_tc_ns_per_step <= 0:
        return text + "; every eligible operator's kernel ran on Tensor Cores"
    text += (
        "; eligible operators' kernels off Tensor Cores take"
        f" {duration_text(figures.eligible_off_tc_ns_per_step)} per step"
    )
    if figures.operator is not None:
        text += (
            f", {duration_text(figures.operator_ns_per_step)} of it under"
            f" {printable(figures.operator)}"
        )
    return text


def _copy_text(figures: CopyFigures, seen: bool) -> str:
    inputs = (
        f"; {plural(figures.input_copies, 'input copy', 'input copies')} (the batch,"
        " issued in or right after the data zone) left out"
        if figures.input_copies
        else ""
    )
    if not seen or not figures.copies:
        return (
            "no host-to-device copy of the same size from the same operator in all "
            f"{figures.steps} steps ({figures.distinct_copies} distinct copies"
            f" seen){inputs}"
        )
    first = figures.copies[0]
    size = "unknown size" if first.bytes is None else size_text(first.bytes)
    memory = "" if first.host_memory is None else f", {first.host_memory.value}"
    issuer = printable(" > ".join(first.path[-2:])) if first.path else "no operator"
    copy = (
        f"{size}{memory} from {issuer}, ×{first.count_per_step:g}"
        f" and {duration_text(first.ns_per_step)} per step"
    )
    if figures.repeated_copies == 1:
        return (
            f"the same host-to-device copy in each of the {figures.steps} steps:"
            f" {copy}{inputs}"
        )
    return (
        f"{figures.repeated_copies} host-to-device copies of the same size from the"
        f" same operator in each of the {figures.steps} steps,"
        f" {duration_text(figures.ns_per_step)} per step in all; costliest:"
        f" {copy}{inputs}"
    )


def _pageable_text(figures: PageableFigures) -> str:
    moved = (
        "copies of unknown size from pageable host memory"
        if figures.bytes_per_step is None
        else f"{size_text(figures.bytes_per_step)} copied from pageable host memory"
    )
    rate = (
        ""
        if figures.bytes_per_s is None
        else f" at {figures.bytes_per_s / 1e9:.1f} GB/s"
    )
    scope = (
        f"per step (over {plural(figures.steps, 'step')})"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"{moved} {scope}{rate},"
        f" {duration_text(figures.ns_per_step)} of device time per step in"
        f" {figures.count_per_step:g} cop{'y' if figures.count_per_step == 1 else 'ies'}"
    )
    if figures.input_share >= 0.5:
        text += (
            f"; {_percent(figures.input_share)} of it moves the batch (input copies)"
        )
    issuer = printable(" > ".join(figures.path[-2:])) if figures.path else ""
    if issuer:
        text += f"; costliest from {issuer}"
    return text


def _device_name(device: int | str) -> str:
    """`GPU 0` for a device id, the label as it is otherwise."""
    return f"GPU {device}" if isinstance(device, int) else printable(str(device))


def _host_bound_text(figures: HostBoundFigures) -> str:
    idle = figures.host_wait_ns + figures.kernel_wait_ns + figures.other_ns
    share = figures.host_wait_ns / idle if idle > 0 else 0.0
    return (
        f"{_device_name(figures.device)} is busy"
        f" {duration_text(figures.busy_ns)} of a {duration_text(figures.step_ns)}"
        f" step; of its idle time, {_percent(share)} waits for the host to issue"
        f" work ({duration_text(figures.host_wait_ns)} per step), against"
        f" {duration_text(figures.kernel_wait_ns)} between kernels and"
        f" {duration_text(figures.other_ns)} other"
        + (
            f"; {duration_text(figures.host_wait_in_zone_ns)} of that wait falls in"
            " the data zone (weighed with the data zone, not here)"
            if figures.host_wait_in_zone_ns > 0
            else ""
        )
    )


def _launch_text(figures: LaunchFigures) -> str:
    scope = (
        f"per step (median of {figures.steps})"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"{figures.median_kernels_per_step:.0f} kernels {scope}, median kernel"
        f" duration {duration_text(figures.median_kernel_ns)}"
    )
    if figures.short_share is not None:
        text += (
            f"; kernels under 10 µs fill {_percent(figures.short_share)} of a step's"
            " device time"
        )
    if figures.launch_share is not None:
        text += f", launch calls {_percent(figures.launch_share)} of its host time"
    if figures.launch_ns_per_step is not None:
        text += (
            f"; launch calls take {duration_text(figures.launch_ns_per_step)} of host"
            " time per step"
        )
        if figures.device_wait_ns_per_step is not None:
            text += (
                ", while the device waits on the host or between kernels"
                f" {duration_text(figures.device_wait_ns_per_step)}"
            )
    if figures.graph_kernels:
        text += f" ({plural(figures.graph_kernels, 'CUDA-graph kernel')} left out)"
    if figures.kernel is not None:
        text += f"; most launched: {kernel_label(figures.kernel, 60)}"
    return text


def _percent(share: float) -> str:
    """A share as a percentage; small ones keep decimals so they do not read 0%."""
    if share < 0.01:
        return f"{share:.2%}"
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"


def _dominant_text(figures: DominantFigures) -> str:
    text = (
        f"{printable(figures.operator)} holds {figures.share:.0%} of the self"
        f" {figures.unit} time of operators ({duration_text(figures.self_ns)} of"
        f" {duration_text(figures.total_ns)}, {plural(figures.calls, 'call')})"
    )
    if figures.input_shapes is not None and figures.shape_share is not None:
        others = (figures.shape_count or 1) - 1
        rest = (
            "its only shapes"
            if others == 0
            else f"{others} other shape{'' if others == 1 else 's'}"
        )
        text += (
            f"; input shapes {printable(figures.input_shapes)} in"
            f" {plural(figures.shape_calls or 0, 'call')} hold"
            f" {figures.shape_share:.0%} of it"
            f" ({rest})"
        )
    elif not figures.shapes_recorded:
        text += "; input shapes not recorded (record_shapes was off)"
    if figures.collective:
        text += "; a collective: its time holds the wait for the other ranks"
    return text


def _idle_text(figures: IdleFigures, seen: bool) -> str:
    loading = _LOADING_WORDS.get(figures.loading, "") if figures.loading else ""
    if figures.kind is GapKind.UNTRACED:
        return (
            f"{duration_text(figures.idle_ns)} of the {duration_text(figures.zone_ns)}"
            f" in the data zone ({_percent(figures.share)}) ran outside any traced"
            " operator (time not proven to be waiting); GPU activity not observed"
            + loading
        )
    text = (
        f"the device was idle {duration_text(figures.idle_ns)} of the"
        f" {duration_text(figures.zone_ns)} spent in the data zone"
        f" ({_percent(figures.share)})"
    )
    if not seen:
        return text + "; the device stayed busy while data was read" + loading
    if figures.gaps and figures.sizeable_gaps < figures.gaps:
        slivers = figures.gaps - figures.sizeable_gaps
        text += (
            f"; {plural(figures.sizeable_gaps, 'gap')} of {duration_text(SLIVER_NS)}"
            f" or more hold {_percent(figures.sizeable_share)} of it"
            f" ({plural(slivers, 'sliver')} the rest)"
        )
    else:
        text += f", in {plural(figures.gaps, 'gap')}"
    return text + loading


_LOADING_WORDS = {
    DataLoading.MAIN_THREAD: "; the DataLoader loads on the main thread (num_workers=0)",
    DataLoading.WORKERS: "; the DataLoader loads in worker processes",
}


def _missing_text(reason: MissingReason, detail: str) -> str:
    if reason is MissingReason.NO_DATA_ZONE:
        looked_for = detail or f"{DEFAULT_DATA_ZONE}, {DATALOADER_GROUP}"
        return (
            f"the capture has no data zone ({looked_for}) to look inside; "
            "choose one with z or --zone NAME"
        )
    if reason is MissingReason.NO_GPU:
        return f"no GPU events in the capture ({detail or 'unknown reason'})"
    if reason is MissingReason.TOO_FEW_STEPS:
        return (
            "the capture needs at least two steps to see a copy repeat"
            f" (it has {detail or 'fewer'})"
        )
    if reason is MissingReason.ONE_RANK:
        return "a run of one rank: no other rank to wait for it"
    if reason is MissingReason.NO_COLLECTIVES:
        return (
            "no collective (communication kernel, gloo, c10d or nccl op) in the steps"
            " every rank recorded"
        )
    if reason is MissingReason.NO_KERNELS:
        return "the capture has device work but no kernels"
    if reason is MissingReason.NO_TENSOR_CORES:
        return f"Tensor Cores cannot be read on this capture ({detail})"
    if reason is MissingReason.NO_RUNTIME_CALLS:
        return (
            "the capture holds no runtime call (cuda_runtime) nor cuda_sync event:"
            " a host wait cannot be seen"
        )
    if reason is MissingReason.NO_KERNEL_OPERATORS:
        return (
            "no kernel in the window was launched by an operator (cpu_op)"
            f" ({detail or 'none tied to one'})"
        )
    return "no operator time in the window"


def _late_rank_text(figures: LateRankFigures, observed: bool) -> str:
    side = " (CPU-side collectives only)" if figures.side is CollectiveSide.CPU else ""
    if not observed:
        return (
            "no rank reached the collectives last in most steps"
            f" (rank {figures.rank}: last in {figures.late_steps} of"
            f" {figures.steps} steps, median wait"
            f" {duration_text(figures.median_wait_ns)}){side}"
        )
    share = (
        figures.median_wait_ns / figures.median_step_ns
        if figures.median_step_ns > 0
        else 0.0
    )
    text = (
        f"rank {figures.rank} reached the collectives last in {figures.late_steps} of"
        f" {figures.steps} steps; the other ranks waited a median"
        f" {duration_text(figures.median_wait_ns)} in them ({share:.0%} of a"
        f" {duration_text(figures.median_step_ns)} step){side}"
    )
    if figures.peer is not None:
        for label, mine, theirs in (
            ("its data zone took", figures.zone_ns, figures.peer_zone_ns),
            ("its compute took", figures.compute_ns, figures.peer_compute_ns),
        ):
            if mine is not None and theirs is not None:
                text += (
                    f"; {label} {duration_text(mine)} per step against"
                    f" {duration_text(theirs)} on rank {figures.peer}"
                )
    return text
