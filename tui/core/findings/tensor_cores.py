"""Tensor Cores: operators that could run on them launched kernel time that did not.

The kernels and operators are read by torch-tb-profiler's rules
(`figures/tensor_cores.py`), over the kernels the window's steps issued.
The pattern is eligible operators' kernel time off Tensor Cores; its cost
is half that time per step: an upper bound of what mixed precision or TF32
could save at a 2x Tensor Core speed-up (`TENSOR_CORE_SPEEDUP`), since a
Tensor-Core kernel still takes time. It claims those kernels' time.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_events
from tui.core.figures.launches import issued_at, step_index
from tui.core.figures.tensor_cores import (
    tensor_core_kernels,
    tensor_core_use,
    without_tensor_cores,
)
from tui.core.findings.claims import (
    TENSOR_CORE_SPEEDUP,
    Claim,
    ClaimSpace,
    CostBound,
)
from tui.core.findings.device_waits import step_windows
from tui.core.findings.finding import (
    Figures,
    Finding,
    Missing,
    MissingReason,
    ShowOperator,
    gpu_not_observed,
)
from tui.core.findings.rule import FindingRule
from tui.core.findings.weights import Scale, scale_of


@dataclass(frozen=True)
class TensorCoreFigures(Figures):
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


def tensor_cores(analysis: Analysis, scale: Scale | None = None) -> Finding:
    """Eligible operators' kernel time off Tensor Cores, per window step."""
    scale = scale or scale_of(analysis)
    trace = analysis.trace
    if not trace.gpu_observed:
        return gpu_not_observed(FindingId.TENSOR_CORES, trace)
    kernels = tensor_core_kernels(trace, analysis.gpu_owner, analysis.parent)
    if kernels.events.size == 0:
        if kernel_events(trace).size:
            # Another accelerator's kernels (MTIA): not CUDA `kernel` events.
            return _missing(MissingReason.NO_TENSOR_CORES, "no CUDA kernel events")
        return _missing(MissingReason.NO_KERNELS)
    reason = without_tensor_cores(trace)
    if reason is not None:
        return _missing(MissingReason.NO_TENSOR_CORES, reason)
    steps = analysis.window_steps
    selected = None
    if steps:
        starts, ends = step_windows(analysis)
        at = issued_at(trace, kernels.events, analysis.launch_call, analysis.gpu_owner)
        selected = step_index(at, starts, ends) >= 0
    use = tensor_core_use(trace, kernels, selected)
    if use.kernel_ns <= 0:
        chosen = kernels.owner if selected is None else kernels.owner[selected]
        unlinked = int((chosen < 0).sum())
        detail = (
            f"{chosen.size - unlinked} launched outside any operator,"
            f" {unlinked} not tied to their launch"
        )
        return _missing(MissingReason.NO_KERNEL_OPERATORS, detail)
    per_step = max(len(steps), 1)
    off_tc = use.eligible_not_tensor_core_ns / per_step
    back = 1.0 - 1.0 / TENSOR_CORE_SPEEDUP
    status, weight = scale.weigh(use.eligible_not_tensor_core_ns > 0, off_tc * back)
    missed = kernels.eligible & ~kernels.on_tensor_cores
    if selected is not None:
        missed &= selected
    events = kernels.events[missed]
    claim = Claim(
        Intervals.union_of(trace.start_ns[events], trace.end_ns[events]),
        ClaimSpace.DEVICE_WORK,
        CostBound.TENSOR_CORE_SPEEDUP,
        scale=back,
    )
    return Finding(
        FindingId.TENSOR_CORES,
        status,
        TensorCoreFigures(
            steps=len(steps),
            kernels=use.kernels,
            kernel_ns=use.kernel_ns,
            eligible_share=float(use.eligible_share or 0.0),
            tensor_core_share=float(use.tensor_core_share or 0.0),
            eligible_off_tc_ns_per_step=off_tc,
            operator=use.operator,
            operator_ns_per_step=use.operator_ns / per_step,
        ),
        None if use.operator is None else ShowOperator(use.operator),
        weight=weight,
        claim=claim,
    )


def _missing(reason: MissingReason, detail: str = "") -> Finding:
    return Finding(
        FindingId.TENSOR_CORES,
        FindingStatus.NOT_OBSERVED,
        missing=Missing(reason, detail),
    )


RULE = FindingRule(
    FindingId.TENSOR_CORES, TensorCoreFigures, (ShowOperator,), tensor_cores
)
