"""The words of each reading: title, observation, hypothesis, next check.

Worded as possibilities, never as causes or promised speed-ups; figures come
from the finding, so every front end (app, CLI, report, notes) says the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text
from tui.core.base.vocab import CollectiveSide, FindingId, FindingStatus, GapKind
from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE
from tui.core.findings.readings import (
    CopyFigures,
    DominantFigures,
    Finding,
    IdleFigures,
    LateRankFigures,
    LaunchFigures,
    MissingReason,
)
from tui.report.kernel_names import kernel_label


@dataclass(frozen=True)
class FindingWords:
    """A finding as people read it."""

    title: str
    observation: str
    hypothesis: str
    next_check: str
    status_label: str


_TITLES = {
    FindingId.GPU_IDLE_DATA_ZONE: "GPU idle during the data zone",
    FindingId.REPEATED_COPY: "The same host-to-device copy repeated each step",
    FindingId.SMALL_LAUNCHES: "Many small launches per step",
    FindingId.DOMINANT_OP: "One operator dominates",
    FindingId.LATE_RANK: "One rank reaches the collectives late",
}
_HYPOTHESES = {
    FindingId.GPU_IDLE_DATA_ZONE: "the input pipeline may not keep up with the device",
    FindingId.REPEATED_COPY: "its placement or lifetime may be wrong",
    FindingId.SMALL_LAUNCHES: "the work may be fragmented into many small kernels",
    FindingId.DOMINANT_OP: "its input shapes or its algorithm may decide the step time",
    FindingId.LATE_RANK: "that rank's input or its compute may be slower",
}
_NEXT_CHECKS = {
    FindingId.GPU_IDLE_DATA_ZONE: (
        "run the same computation with batches prepared in advance and compare "
        "the step time"
    ),
    FindingId.REPEATED_COPY: (
        "move it to the device once, then check the output is unchanged"
    ),
    FindingId.SMALL_LAUNCHES: (
        "group the work (fusion, larger batches) and look at the whole cost"
    ),
    FindingId.DOMINANT_OP: (
        "time the same operator alone with the same inputs, then with others"
    ),
    FindingId.LATE_RANK: ("compare that rank's data zone and kernels with a peer's"),
}
_STATUS = {
    FindingStatus.POSSIBLE: "possible",
    FindingStatus.NOT_SEEN: "not seen",
    FindingStatus.NOT_OBSERVED: "not observed",
}


def words(finding: Finding) -> FindingWords:
    """Title, observation, hypothesis and next check of a finding."""
    title = _TITLES[finding.id]
    hypothesis = _HYPOTHESES[finding.id]
    figures = finding.figures
    if isinstance(figures, IdleFigures) and figures.kind is GapKind.CPU_WAIT:
        title = "CPU wait in the data zone (GPU not observed)"
        hypothesis = "the input pipeline may not keep up with the computation"
    if isinstance(figures, CopyFigures) and finding.observed:
        hypothesis = (
            "if this copy carries the same constant each time (not the batch), "
            + hypothesis
        )
    return FindingWords(
        title,
        observation(finding),
        hypothesis,
        _NEXT_CHECKS[finding.id],
        _STATUS[finding.status],
    )


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding in JSON: its id and status with its words (the report's and `ranks`')."""
    said = words(finding)
    return {
        "id": finding.id.value,
        "status": finding.status.value,
        "title": said.title,
        "observation": said.observation,
        "hypothesis": said.hypothesis,
        "next_check": said.next_check,
    }


def observation(finding: Finding) -> str:
    """What the capture shows for this reading, with its figures."""
    missing = finding.missing
    if missing is not None:
        return "not observed: " + _missing_text(missing.reason, missing.detail)
    figures = finding.figures
    if isinstance(figures, LateRankFigures):
        return _late_rank_text(figures, finding.observed)
    if isinstance(figures, IdleFigures):
        return _idle_text(figures, finding.observed)
    if isinstance(figures, CopyFigures):
        return _copy_text(figures, finding.observed)
    if isinstance(figures, LaunchFigures):
        return _launch_text(figures)
    if isinstance(figures, DominantFigures):
        return _dominant_text(figures)
    return ""


def _copy_text(figures: CopyFigures, observed: bool) -> str:
    if not observed or not figures.copies:
        return (
            "no host-to-device copy of the same size from the same operator in all "
            f"{figures.steps} steps ({figures.distinct_copies} distinct copies seen)"
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
            f"the same host-to-device copy in each of the {figures.steps} steps: {copy}"
        )
    return (
        f"{figures.repeated_copies} host-to-device copies of the same size from the"
        f" same operator in each of the {figures.steps} steps,"
        f" {duration_text(figures.ns_per_step)} per step in all; costliest: {copy}"
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
    if figures.kernel is not None:
        text += f"; most launched: {kernel_label(figures.kernel, 60)}"
    return text


def _percent(share: float) -> str:
    """A share as a percentage; small ones keep a decimal so they do not read 0%."""
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
    return text


def _idle_text(figures: IdleFigures, observed: bool) -> str:
    if figures.kind is GapKind.CPU_WAIT:
        return (
            f"the data zone waited {duration_text(figures.idle_ns)} of"
            f" {duration_text(figures.zone_ns)} ({figures.share:.0%}) with no thread"
            " running an operator inside it; GPU activity not observed"
        )
    text = (
        f"the device was idle {duration_text(figures.idle_ns)} of the"
        f" {duration_text(figures.zone_ns)} spent in the data zone"
        f" ({figures.share:.0%}), in {plural(figures.gaps, 'gap')}"
    )
    if not observed:
        text += "; the device was mostly busy while data was read"
    return text


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
    return "no operator time in the window"


def _late_rank_text(figures: LateRankFigures, observed: bool) -> str:
    side = " (CPU-side collectives only)" if figures.side is CollectiveSide.CPU else ""
    if not observed:
        return (
            "no rank reached the collectives last in most steps with a wait worth a"
            f" look (rank {figures.rank}: last in {figures.late_steps} of"
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
