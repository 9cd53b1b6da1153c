"""What the capture shows for each reading, with its figures: the observation.

The first line of a finding's words (`findings.words` adds the title,
hypothesis and next check); one function per kind of figures.
"""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text
from tui.core.base.vocab import CollectiveSide, DataLoading, FindingId, GapKind
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
from tui.report.kernel_names import kernel_label

BOUND_WORDS = {
    BoundBy.CPU: "CPU-bound",
    BoundBy.GPU_COMPUTE: "GPU-bound",
    BoundBy.GPU_COMMUNICATION: "communication-bound",
    BoundBy.KERNEL_KERNEL: "bound by gaps between kernels",
    BoundBy.LAUNCH: "launch-bound",
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


def _over_steps(steps: int) -> str:
    """Where a per-step figure was read: over N steps, or the whole capture."""
    return f"over {plural(steps, 'step')}" if steps else "in the capture (no steps)"


def _critical_text(figures: CriticalPathFigures) -> str:
    scope = _over_steps(figures.steps)
    shares = ", ".join(
        f"{kind.value} {share:.1f} %" for kind, share in figures.shares if share
    )
    text = (
        f"the critical path {scope} is {duration_text(figures.path_ns_per_step)}"
        f" per step ({shares}): the step is {BOUND_WORDS[figures.bound_by]};"
        f" its largest overhead is {figures.overhead.value},"
        f" {duration_text(figures.overhead_ns_per_step)} per step"
    )
    if figures.top is not None:
        text += f", most of it in {printable(figures.top)}"
    return text


def _sync_text(figures: SyncFigures) -> str:
    scope = _over_steps(figures.steps)
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
    scope = _over_steps(figures.steps)
    text = (
        f"of {duration_text(figures.kernel_ns)} of kernel time launched by"
        f" operators {scope}"
    )
    if figures.eligible_share <= 0:
        return (
            text + ", none was launched by a Tensor-Core-eligible operator"
            " (torch-tb-profiler's rules)"
        )
    on_tc = percent(figures.tensor_core_share) if figures.tensor_core_share else "none"
    text += (
        f", Tensor-Core-eligible operators launched"
        f" {percent(figures.eligible_share)} and {on_tc} ran on Tensor Cores"
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
        text += f"; {percent(figures.input_share)} of it moves the batch (input copies)"
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
        f" step; of its idle time, {percent(share)} waits for the host to issue"
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
            f"; kernels under 10 µs fill {percent(figures.short_share)} of a step's"
            " device time"
        )
    if figures.launch_share is not None:
        text += f", launch calls {percent(figures.launch_share)} of its host time"
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


def percent(share: float) -> str:
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
            f" in the data zone ({percent(figures.share)}) ran outside any traced"
            " operator (time not proven to be waiting); GPU activity not observed"
            + loading
        )
    text = (
        f"the device was idle {duration_text(figures.idle_ns)} of the"
        f" {duration_text(figures.zone_ns)} spent in the data zone"
        f" ({percent(figures.share)})"
    )
    if not seen:
        return text + "; the device stayed busy while data was read" + loading
    if figures.gaps and figures.sizeable_gaps < figures.gaps:
        slivers = figures.gaps - figures.sizeable_gaps
        text += (
            f"; {plural(figures.sizeable_gaps, 'gap')} of {duration_text(SLIVER_NS)}"
            f" or more hold {percent(figures.sizeable_share)} of it"
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
