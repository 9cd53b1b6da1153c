"""What a finding is: its figures, where it points, what it lacks, what it weighs.

Types only, no computation: the readings (`readings.py`) fill them, the
report floor words them, the app and the CLI show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.core.base.vocab import (
    CollectiveSide,
    DataLoading,
    FindingId,
    FindingStatus,
    GapKind,
    HostMemory,
    SyncKind,
    Word,
)
from tui.core.findings.weights import Weight
from tui.core.model.observed import gpu_missing_reason
from tui.core.model.trace import Trace

if TYPE_CHECKING:
    from tui.core.figures.critical import BoundBy


class MissingReason(Word):
    """Why a reading cannot be made from this capture."""

    NO_DATA_ZONE = "no_data_zone"
    NO_GPU = "no_gpu"
    TOO_FEW_STEPS = "too_few_steps"
    NO_KERNELS = "no_kernels"
    NO_OPERATOR_TIME = "no_operator_time"
    ONE_RANK = "one_rank"
    NO_COLLECTIVES = "no_collectives"
    NO_TENSOR_CORES = "no_tensor_cores"
    NO_KERNEL_OPERATORS = "no_kernel_operators"
    NO_RUNTIME_CALLS = "no_runtime_calls"


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
    """Mark every event with this name on the timeline; select event `select` when given."""

    name: str
    select: int | None = None


@dataclass(frozen=True)
class ShowStep:
    """Fit a step."""

    number: int


@dataclass(frozen=True)
class ShowKernel:
    """Show the kernels of one name (in step `step` when given): the Kernels view's row."""

    name: str
    step: int | None = None


@dataclass(frozen=True)
class ShowSyncs:
    """Mark every host synchronisation (`figures/syncs.py`) on the timeline; select
    event `select`."""

    select: int


Anchor = ShowGap | ShowOperator | ShowEvents | ShowStep | ShowKernel | ShowSyncs


# -- figures of each reading ---------------------------------------------------


@dataclass(frozen=True)
class IdleFigures:
    """Device idle (or untraced time) inside the data zone."""

    kind: GapKind
    zones: tuple[str, ...]
    zone_ns: int
    idle_ns: int
    share: float
    gaps: int
    idle_ns_per_step: dict[str, int] = field(default_factory=dict)
    sizeable_gaps: int = 0
    """Gaps of at least `SLIVER_NS`: the ones worth listing."""
    sizeable_share: float = 0.0
    """Their share of the idle time; the slivers hold the rest."""
    loading: DataLoading | None = None
    """How the DataLoader ranges say the data is loaded (None: no such range)."""


@dataclass(frozen=True)
class RepeatedCopy:
    """One host-to-device copy issued in every window step, with its cost per step."""

    name: str
    bytes: int | None
    host_memory: HostMemory | None
    path: tuple[str, ...]
    count_per_step: float
    ns_per_step: float
    event: int  # its first occurrence in the window


@dataclass(frozen=True)
class PageableFigures:
    """Host-to-device copies from pageable memory in the window, per step (medians).

    `input_share` is the share of their time held by input copies (issued in
    a data zone, or after it before any other device work of the step: the
    batch); `name`, `event`, `bytes` describe the costliest group.
    """

    steps: int
    count_per_step: float
    bytes_per_step: int | None
    ns_per_step: float
    bytes_per_s: float | None
    input_share: float
    name: str
    event: int
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class CopyFigures:
    """Host-to-device copies of the same size from the same operator path in every step.

    `name`, `bytes` and `per_step` (copies per step) describe the costliest
    one, `copies` lists them all, costliest per step first.
    """

    steps: int
    distinct_copies: int
    repeated_copies: int
    input_copies: int = 0
    """Groups left out because they move the batch (input copies)."""
    name: str | None = None
    bytes: int | None = None
    per_step: int | None = None
    copies: tuple[RepeatedCopy, ...] = ()

    @property
    def ns_per_step(self) -> float | None:
        """Time per step of all repeated copies together (sum of their per-step medians)."""
        return sum(copy.ns_per_step for copy in self.copies) if self.copies else None


@dataclass(frozen=True)
class LaunchFigures:
    """How many kernels a step launches, how long they run, what launching costs.

    Shares are medians over the steps: the share of a step's device time
    (busy, a union) when a kernel under 10 µs runs, and the share of its wall
    time when a call that launched a kernel runs on the host (a union over
    threads). None when there are no steps or no device time.
    """

    kernels: int
    kernels_per_step: list[int]
    median_kernels_per_step: float
    median_kernel_ns: float
    steps: int
    short_kernels: int = 0
    short_share: float | None = None
    launch_share: float | None = None
    kernel: str | None = None  # the kernel name launched most often
    launch_ns_per_step: float | None = None
    """Host time of the launch calls per step (a union over threads)."""
    device_wait_ns_per_step: float | None = None
    """Per step, the busiest device's idle waiting on the host or between
    kernels (HTA's host wait and kernel wait, all its streams as one)."""
    graph_kernels: int = 0
    """Kernels replayed by a CUDA graph: not launches, left out."""


@dataclass(frozen=True)
class HostBoundFigures:
    """Per step (medians): how long the device is busy, and why it idles.

    Idle causes are HTA's, read on the device busiest over the window, all
    its streams as one: host wait (the launch came after the device went
    idle), kernel wait (a gap under 30 µs), other.
    """

    steps: int
    step_ns: float
    busy_ns: float
    host_wait_ns: float
    host_wait_in_zone_ns: float
    """The part of the host wait inside the data zone (weighed there, not here)."""
    kernel_wait_ns: float
    other_ns: float
    device: int | str


@dataclass(frozen=True)
class DominantFigures:
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


@dataclass(frozen=True)
class LateRankFigures:
    """The rank that reaches the collectives last in the most steps, and a peer to compare.

    `median_wait_ns` is the other ranks' median wait in the steps it was
    last; zone and compute figures are medians per step (None when unknown).
    """

    rank: int
    late_steps: int
    steps: int
    median_wait_ns: float
    median_step_ns: float
    peer: int | None
    side: CollectiveSide
    """Where its collectives were seen: communication kernels or CPU ops."""
    zone_ns: float | None = None
    peer_zone_ns: float | None = None
    compute_ns: float | None = None
    peer_compute_ns: float | None = None


@dataclass(frozen=True)
class TensorCoreFigures:
    """The window's kernel time launched by operators and its use of Tensor Cores
    (torch-tb-profiler's rules: `figures/tensor_cores.py`).

    `eligible_share` is the share of that time launched by Tensor-Core-eligible
    operators, `tensor_core_share` the share that ran on Tensor Cores; per step,
    the eligible operators' kernel time that did not, and the operator holding
    the most of it.
    """

    steps: int
    kernels: int
    kernel_ns: int
    eligible_share: float
    tensor_core_share: float
    eligible_off_tc_ns_per_step: float
    operator: str | None = None
    operator_ns_per_step: float = 0.0


@dataclass(frozen=True)
class SyncFigures:
    """The host's synchronisations in the window, per step (`figures/syncs.py`).

    `name`, `event` and `kind` describe the costliest sync (blocked + idle
    after); `operator` the causing operator holding the most of that cost
    (None when none encloses a sync), `operator_ns_per_step` its cost.
    """

    steps: int
    syncs: int
    syncs_per_step: float
    blocked_ns_per_step: float
    idle_after_ns_per_step: float
    name: str
    event: int
    kind: SyncKind
    operator: str | None = None
    operator_ns_per_step: float = 0.0


@dataclass(frozen=True)
class CriticalPathFigures:
    """The window steps' critical paths (HTA's, `figures/critical`), per step.

    `bound_by` is the class holding most of the paths, `overhead` the largest
    class that is not the device's own work (operators, gaps between kernels,
    launch delays), `top` the event holding most of that overhead; `shares`
    each class's percentage of the paths' time.
    """

    steps: int
    path_ns_per_step: float
    bound_by: BoundBy
    overhead: BoundBy
    overhead_ns_per_step: float
    shares: tuple[tuple[BoundBy, float], ...]
    top: str | None = None


Figures = (
    IdleFigures
    | CopyFigures
    | PageableFigures
    | LaunchFigures
    | HostBoundFigures
    | DominantFigures
    | TensorCoreFigures
    | LateRankFigures
    | SyncFigures
    | CriticalPathFigures
)


@dataclass(frozen=True)
class Finding:
    """A reading weighed by its cost, not seen, or not observed (with what is missing)."""

    id: FindingId
    status: FindingStatus
    figures: Figures | None = None
    anchor: Anchor | None = None
    missing: Missing | None = None
    weight: Weight | None = None

    @property
    def observed(self) -> bool:
        """Whether the reading is worth a check (likely or possible; not minor)."""
        return self.status in (FindingStatus.LIKELY, FindingStatus.POSSIBLE)

    @property
    def seen(self) -> bool:
        """Whether the pattern is in the capture, whatever it weighs."""
        return self.status in SEEN

    @property
    def cost_ns_per_step(self) -> float | None:
        """What it plausibly holds per step (None when not seen or not weighed)."""
        return self.weight.cost_ns_per_step if self.weight and self.seen else None

    @property
    def share_of_step(self) -> float | None:
        """Its cost against the median step (None when not seen or not weighed)."""
        return self.weight.share if self.weight and self.seen else None


SEEN = (FindingStatus.LIKELY, FindingStatus.POSSIBLE, FindingStatus.MINOR)


def by_cost(findings: list[Finding]) -> list[Finding]:
    """Seen findings first, costliest first; then not seen, then not observed (stable)."""
    rank = {status: index for index, status in enumerate(FindingStatus)}

    def key(finding: Finding) -> tuple[int, float, int]:
        seen = finding.seen
        cost = finding.cost_ns_per_step if seen else None
        return (0 if seen else 1, -(cost or 0.0), rank[finding.status])

    return sorted(findings, key=key)


def gpu_not_observed(finding_id: FindingId, trace: Trace) -> Finding:
    """A device reading on a capture without device events: not observed, with why."""
    return Finding(
        finding_id,
        FindingStatus.NOT_OBSERVED,
        missing=Missing(MissingReason.NO_GPU, gpu_missing_reason(trace) or ""),
    )
