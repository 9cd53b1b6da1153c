"""The method's readings, computed from a capture: figures and a place to show, no words.

Each reading is a *possible* observation, never a proven cause. When the
capture lacks what a reading needs (no GPU events, no steps, no data zone) it
is NOT_OBSERVED with the reason, instead of reporting zero. The wording lives
in `findings_text`, so the app, the CLI and the report word them alike and
never branch on ids to find figures.
"""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass, field

import numpy as np

from tui.core.analysis import Analysis
from tui.core.model import Kind
from tui.core.results.observed import gpu_missing_reason
from tui.core.steps import Step
from tui.core.vocab import FindingId, FindingStatus, GapKind

# A data zone where the device idles for at least this share of it is worth a look.
IDLE_SHARE_WORTH_A_LOOK = 0.10
# Kernel counts and durations under which launches read as "many small".
MANY_KERNELS_PER_STEP = 50
SMALL_KERNEL_NS = 20_000
# An operator holding at least this share of the time reads as dominating.
DOMINANT_SHARE = 0.30


class MissingReason(str, enum.Enum):
    """Why a reading cannot be made from this capture."""

    NO_DATA_ZONE = "no_data_zone"
    NO_GPU = "no_gpu"
    TOO_FEW_STEPS = "too_few_steps"
    NO_KERNELS = "no_kernels"
    NO_OPERATOR_TIME = "no_operator_time"


@dataclass(frozen=True)
class Missing:
    """What the capture lacks for a reading, with the detail the capture gives."""

    reason: MissingReason
    detail: str = ""


# -- where a finding points ----------------------------------------------------


@dataclass(frozen=True)
class ShowGap:
    """Select a gap of the data zone (its index in `Analysis.gaps`)."""

    index: int


@dataclass(frozen=True)
class ShowOperator:
    """Select an operator in the operator table."""

    name: str


@dataclass(frozen=True)
class ShowEvents:
    """Mark every event with this name on the timeline."""

    name: str


@dataclass(frozen=True)
class ShowStep:
    """Fit a step."""

    number: int


Anchor = ShowGap | ShowOperator | ShowEvents | ShowStep


# -- figures of each reading ---------------------------------------------------


@dataclass(frozen=True)
class IdleFigures:
    """Device idle (or CPU wait) inside the data zone."""

    kind: GapKind
    zones: tuple[str, ...]
    zone_ns: int
    idle_ns: int
    share: float
    gaps: int
    idle_ns_per_step: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CopyFigures:
    """Host-to-device copies of the same name and size found in every step."""

    steps: int
    distinct_copies: int
    repeated_copies: int
    name: str | None = None
    bytes: int | None = None
    per_step: int | None = None


@dataclass(frozen=True)
class LaunchFigures:
    """How many kernels a step launches and how long they run."""

    kernels: int
    kernels_per_step: list[int]
    median_kernels_per_step: float
    median_kernel_ns: float
    steps: int


@dataclass(frozen=True)
class DominantFigures:
    """The operator holding the largest share of self time."""

    operator: str
    share: float
    self_ns: int
    total_ns: int
    calls: int
    unit: str  # "GPU" or "CPU": the clock the share is taken on


Figures = IdleFigures | CopyFigures | LaunchFigures | DominantFigures


@dataclass(frozen=True)
class Finding:
    """A reading: possible, not seen, or not observed (with what is missing)."""

    id: FindingId
    status: FindingStatus
    figures: Figures | None = None
    anchor: Anchor | None = None
    missing: Missing | None = None

    @property
    def observed(self) -> bool:
        """Whether the reading is a possible observation worth a check."""
        return self.status is FindingStatus.POSSIBLE


def _status(worth_a_look: bool) -> FindingStatus:
    return FindingStatus.POSSIBLE if worth_a_look else FindingStatus.NOT_SEEN


def _no_gpu(finding_id: FindingId, analysis: Analysis) -> Finding:
    return Finding(
        finding_id,
        FindingStatus.NOT_OBSERVED,
        missing=Missing(MissingReason.NO_GPU, gpu_missing_reason(analysis.trace) or ""),
    )


def idle_in_data_zone(analysis: Analysis) -> Finding:
    """Device idle (or CPU wait) while the data zone runs."""
    reading = analysis.zone_reading
    zones = reading.choice.names
    if not reading.found:
        return Finding(
            FindingId.GPU_IDLE_DATA_ZONE,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_DATA_ZONE, ", ".join(zones)),
        )
    zone_ns = reading.total_zone_ns
    idle_ns = reading.total_gap_ns
    share = idle_ns / zone_ns if zone_ns else 0.0
    per_step: dict[str, int] = {}
    for gap in reading.gaps:
        key = "outside steps" if gap.step is None else str(gap.step)
        per_step[key] = per_step.get(key, 0) + gap.duration_ns
    gaps = analysis.gaps
    biggest = max(range(len(gaps)), key=lambda i: gaps[i].duration_ns, default=None)
    return Finding(
        FindingId.GPU_IDLE_DATA_ZONE,
        _status(share >= IDLE_SHARE_WORTH_A_LOOK),
        IdleFigures(reading.kind, zones, zone_ns, idle_ns, share, len(gaps), per_step),
        ShowGap(biggest) if biggest is not None else None,
    )


def repeated_copy(analysis: Analysis) -> Finding:
    """The same host-to-device copy (same name and bytes) in every step."""
    trace = analysis.trace
    if not trace.gpu_observed:
        return _no_gpu(FindingId.REPEATED_COPY, analysis)
    steps = analysis.window_steps
    if len(steps) < 2:
        return Finding(
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_OBSERVED,
            CopyFigures(len(steps), 0, 0),
            missing=Missing(MissingReason.TOO_FEW_STEPS, str(len(steps))),
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
            FindingId.REPEATED_COPY,
            FindingStatus.NOT_SEEN,
            CopyFigures(len(steps), len(seen), 0),
        )
    repeated.sort(key=lambda item: -item[0][1])
    (name, size), counts = repeated[0]
    return Finding(
        FindingId.REPEATED_COPY,
        FindingStatus.POSSIBLE,
        CopyFigures(
            len(steps),
            len(seen),
            len(repeated),
            name,
            size if size >= 0 else None,
            min(counts.values()),
        ),
        ShowEvents(name),
    )


def many_small_launches(analysis: Analysis) -> Finding:
    """Many short kernels per step."""
    trace = analysis.trace
    if not trace.gpu_observed:
        return _no_gpu(FindingId.SMALL_LAUNCHES, analysis)
    kernels = np.flatnonzero(trace.kind == Kind.KERNEL)
    if kernels.size == 0:
        return Finding(
            FindingId.SMALL_LAUNCHES,
            FindingStatus.NOT_OBSERVED,
            missing=Missing(MissingReason.NO_KERNELS),
        )
    median_ns = float(np.median(trace.duration_ns[kernels]))
    steps: list[Step] = analysis.window_steps
    owner = analysis.gpu_owner[kernels]
    launched_at = np.where(
        owner >= 0, trace.start_ns[np.maximum(owner, 0)], trace.start_ns[kernels]
    )
    launched_at = np.sort(launched_at)
    if steps:
        starts = np.array([step.start_ns for step in steps], dtype=np.int64)
        ends = np.array([step.end_ns for step in steps], dtype=np.int64)
        counts = (
            np.searchsorted(launched_at, ends, side="left")
            - np.searchsorted(launched_at, starts, side="left")
        ).tolist()
    else:
        counts = [int(kernels.size)]
    per_step = float(statistics.median(counts))
    biggest_step = ShowStep(steps[int(np.argmax(counts))].number) if steps else None
    return Finding(
        FindingId.SMALL_LAUNCHES,
        _status(per_step >= MANY_KERNELS_PER_STEP and median_ns < SMALL_KERNEL_NS),
        LaunchFigures(int(kernels.size), counts, per_step, median_ns, len(steps)),
        biggest_step,
    )


def dominant_operator(analysis: Analysis) -> Finding:
    """One operator holding a large share of the self time."""
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
    return Finding(
        FindingId.DOMINANT_OP,
        _status(share >= DOMINANT_SHARE),
        DominantFigures(
            name, share, int(values[top]), total, int(table.calls[top]), unit
        ),
        ShowOperator(name),
    )


def compute_findings(analysis: Analysis) -> list[Finding]:
    """The readings in the method's order."""
    return [
        idle_in_data_zone(analysis),
        repeated_copy(analysis),
        many_small_launches(analysis),
        dominant_operator(analysis),
    ]
