"""What a finding is: its figures, where it points, what it lacks, what it weighs.

Types only, no computation: each finding's module declares its own figures
(extending `Figures`) and its rule (`rule.py`, listed once in `registry.py`);
the report floor words them, the app and the CLI show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.core.base.vocab import FindingId, FindingStatus, Word
from tui.core.findings.claims import Bounded, Claim
from tui.core.findings.weights import Weight
from tui.core.model.observed import gpu_missing_reason
from tui.core.model.trace import Trace


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
class Show:
    """Where a finding points; each kind below extends it (the app shows each kind)."""


@dataclass(frozen=True)
class ShowGap(Show):
    """Select a gap of the data zone (its index in `Analysis.gaps`)."""

    index: int


@dataclass(frozen=True)
class ShowOperator(Show):
    """Select an operator in the operator table."""

    name: str


@dataclass(frozen=True)
class ShowEvents(Show):
    """Mark every event with this name on the timeline; select event `select` when given."""

    name: str
    select: int | None = None


@dataclass(frozen=True)
class ShowStep(Show):
    """Fit a step."""

    number: int


@dataclass(frozen=True)
class ShowKernel(Show):
    """Show the kernels of one name (in step `step` when given): the Kernels view's row."""

    name: str
    step: int | None = None


@dataclass(frozen=True)
class ShowSyncs(Show):
    """Mark every host synchronisation (`figures/syncs.py`) on the timeline; select
    event `select`."""

    select: int


Anchor = ShowGap | ShowOperator | ShowEvents | ShowStep | ShowKernel | ShowSyncs


# -- what a reading measured --------------------------------------------------


@dataclass(frozen=True)
class Figures:
    """A reading's figures: each finding's own dataclass (in its module) extends it."""


@dataclass(frozen=True)
class Finding:
    """A reading weighed by its cost, not seen, or not observed (with what is missing)."""

    id: FindingId
    status: FindingStatus
    figures: Figures | None = None
    anchor: Anchor | None = None
    missing: Missing | None = None
    weight: Weight | None = None
    claim: Claim | None = field(default=None, compare=False, repr=False)
    """The time it could give back (`claims.py`); ranking makes costs disjoint by it."""
    bound: Bounded | None = None
    """How its cost was bounded once ranked (`ranking.py`); None before."""

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


def kernels_not_observed(finding_id: FindingId) -> Finding:
    """A kernel reading on a capture whose device events hold no kernel: not
    observed, with why."""
    return Finding(
        finding_id,
        FindingStatus.NOT_OBSERVED,
        missing=Missing(MissingReason.NO_KERNELS),
    )
