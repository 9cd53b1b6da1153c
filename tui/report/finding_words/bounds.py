"""How a finding's cost was bounded, in one line (`core/findings/claims.py`).

Costs are disjoint: each says what its claim is, how much of it is already
counted by other findings (those walked before it: `core/findings/ranking.py`),
and whether the step's cap cut it.
"""

from __future__ import annotations

from tui.core.base.units import duration_text
from tui.core.findings.claims import Bounded, CostBound
from tui.report.finding_words.registry import text_of

_HOW = {
    CostBound.DEVICE_IDLE_IN_ZONE: "device idle in the data zone per step",
    CostBound.UNTRACED_IN_ZONE: "untraced time in the data zone per step",
    CostBound.HOST_WAIT_OUTSIDE_ZONE: (
        "the device's wait for the host outside the data zone per step"
    ),
    CostBound.LAUNCH_WAITS: (
        "the launch calls' host time, at most the device's waits on the host"
        " and between kernels"
    ),
    CostBound.IDLE_AFTER_SYNCS: (
        "the device idle after each sync until new work arrives (not the host's wait)"
    ),
    CostBound.COPY_TIME: "the copies' device time per step",
    CostBound.OPERATOR_TIME: "the operator's self time per step",
    CostBound.TENSOR_CORE_SPEEDUP: (
        "upper bound: eligible kernels' time at a 2x Tensor Core speed-up"
    ),
    CostBound.DEVICE_IDLE: (
        "upper bound: the step's device idle (shortening the host's chain"
        " gives back at most that)"
    ),
    CostBound.DEVICE_BUSY: (
        "upper bound: the device's busy time, less the parts other findings name"
    ),
    CostBound.COMPILE_TIME: "torch.compile's compile time in the window per step",
}

# Below this, time counted elsewhere or cut by the cap is not worth a word.
_WORTH_NS = 1_000.0


def bound_text(bound: Bounded) -> str:
    """One line: what bounds the cost, what other findings count of it, the cap."""
    text = _HOW[bound.how] if bound.how is not None else "its own figures"
    if bound.held_ns_per_step >= _WORTH_NS:
        holders = ", ".join(
            text_of(holder).wording.title.lower() for holder in bound.held_by
        )
        text += f"; {duration_text(bound.held_ns_per_step)} of it already counted" + (
            f" under {holders}" if holders else " elsewhere"
        )
    elif bound.how is not None:
        text += ", none of it counted by another finding"
    if bound.capped_ns_per_step >= _WORTH_NS:
        text += (
            f"; cut by {duration_text(bound.capped_ns_per_step)} so that the"
            " costs together stay within the median step"
        )
    return text
