"""Which steps represent the code, and the rank test a one-capture verdict may rest on.

The rule that sets steps aside (documented in docs/diff.md, `steptrace diff`),
only ever for a reason. A step anywhere in the window holding more compile
range time than the median of the other steps (torch.compile compiling or
recompiling there, `stalls.py`) is set aside: it lasts what the compile lasts.
Then the window's first or last step, when its extra time (over the median of
the other steps kept, by more than 10 % of it) sits, at least half of it, in
something the other steps lack: a runtime stall (allocation, synchronisation,
lazy module loading), a compilation range, or untraced time on the step's
thread. No step is set aside by its duration alone: fences on a handful of
steps would drop the quickest step as readily as a stalled one.

Every step set aside is listed with its duration and why; the verdict reads the
kept steps only. The rank test is Mann–Whitney U, two-sided, computed exactly
(the distribution of U counted, no table, no scipy) while n₁·n₂ ≤ 10 000, and by
the normal approximation beyond.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from tui.core.base.units import duration_text
from tui.core.diff.stalls import COMPILATION, STALL, UNTRACED, StepExtra

# The edge step's extra time must pass this share of the others' median step.
EDGE_EXTRA_SHARE = 0.1
# At least this share of the extra time sits in what the other steps lack.
LACKED_SHARE = 0.5
EXACT_LIMIT = 10_000
EXACT_NAME = "Mann-Whitney U (exact, two-sided)"
NORMAL_NAME = "Mann-Whitney U (normal approximation, two-sided)"
# How a reason starts, by the kind of time the step holds and the others lack.
REASON_HEADS = {
    STALL: "runtime stall",
    COMPILATION: "compilation",
    UNTRACED: "untraced time",
}


@dataclass(frozen=True)
class SetAside:
    """A window step left out of the verdict, with its duration and why."""

    step: int
    duration_ns: int
    why: str


@dataclass(frozen=True)
class KeptSteps:
    """The window steps a verdict reads, and those set aside."""

    kept: tuple[int, ...]
    durations_ns: tuple[int, ...]
    set_aside: tuple[SetAside, ...]


def _ms(value: float) -> str:
    return duration_text(value)


def _edge_reason(
    index: int,
    others: list[int],
    durations_ns: tuple[int, ...],
    extras: tuple[StepExtra, ...],
) -> str | None:
    """Why the step at `index` (first or last) is set aside, or None to keep it."""
    rest = statistics.median(durations_ns[other] for other in others)
    extra = durations_ns[index] - rest
    if extra <= EDGE_EXTRA_SHARE * rest:
        return None
    lacked = extras[index].any_ns - statistics.median(
        extras[other].any_ns for other in others
    )
    if lacked < LACKED_SHARE * extra:
        return None
    excess = {
        kind: ns - statistics.median(extras[other].by_kind()[kind] for other in others)
        for kind, ns in extras[index].by_kind().items()
    }
    kind = max(excess, key=lambda name: excess[name])
    what = kind
    if kind == STALL and extras[index].stall_names:
        what = f"{kind} ({', '.join(extras[index].stall_names[:3])})"
    where = "first" if index == 0 else "last"
    return (
        f"{REASON_HEADS[kind]}: the window's {where} step is {_ms(extra)} above the "
        f"median of the others ({_ms(rest)}), {_ms(lacked)} of it in {what} "
        "that the other steps lack"
    )


def _compiling_reason(
    index: int, numbers: tuple[int, ...], extras: tuple[StepExtra, ...]
) -> str | None:
    """Why the step at `index` is set aside for the compile ranges it holds
    past the other steps' median, or None to keep it."""
    compile_ns = extras[index].compile_ns
    rest = statistics.median(
        extra.compile_ns for other, extra in enumerate(extras) if other != index
    )
    if compile_ns <= rest:
        return None
    others = (
        f"the other steps a median of {_ms(rest)}"
        if rest
        else "which the other steps lack"
    )
    return (
        f"{REASON_HEADS[COMPILATION]}: step {numbers[index]} holds {_ms(compile_ns)}"
        f" of torch.compile compile ranges, {others}"
    )


def kept_steps(
    numbers: tuple[int, ...],
    durations_ns: tuple[int, ...],
    extras: tuple[StepExtra, ...] = (),
) -> KeptSteps:
    """Apply the rule of this module's docstring to one side's window steps.

    `extras` are the steps' stall, compilation and untraced times (in step
    order); without them, every step is kept.
    """
    count = len(numbers)
    aside: dict[int, str] = {}
    if count >= 2 and len(extras) == count:
        for index in range(count):
            compiling = _compiling_reason(index, numbers, extras)
            if compiling is not None:
                aside[index] = compiling
    if count >= 3 and len(extras) == count:
        for index in (0, count - 1):
            if index in aside:
                continue
            others = [
                other for other in range(count) if other != index and other not in aside
            ]
            if not others:
                continue
            why = _edge_reason(index, others, durations_ns, extras)
            if why is not None:
                aside[index] = why
    return KeptSteps(
        tuple(numbers[index] for index in range(count) if index not in aside),
        tuple(durations_ns[index] for index in range(count) if index not in aside),
        tuple(
            SetAside(numbers[index], durations_ns[index], why)
            for index, why in sorted(aside.items())
        ),
    )


def _u_counts(first: int, second: int) -> list[int]:
    """How many orderings give each U (0..first·second) with no ties: the
    coefficients of the Gaussian binomial [first+second choose first]_q."""
    size = first * second + 1
    counts = [1] + [0] * (size - 1)
    for index in range(1, first + 1):
        # multiply by (1 - q^(second+index)), then divide by (1 - q^index)
        shift = second + index
        for power in range(size - 1, shift - 1, -1):
            counts[power] -= counts[power - shift]
        for power in range(index, size):
            counts[power] += counts[power - index]
    return counts


def u_statistic(
    before: list[int] | list[float], after: list[int] | list[float]
) -> float:
    """U of the before sample: pairs where before is above after (ties count half)."""
    return sum(
        1.0 if one > two else 0.5 if one == two else 0.0
        for one in before
        for two in after
    )


def mann_whitney_p(
    before: list[int] | list[float], after: list[int] | list[float]
) -> float:
    """Two-sided p of Mann–Whitney U: exact for n₁·n₂ ≤ 10 000, else normal."""
    first, second = len(before), len(after)
    if not first or not second:
        return 1.0
    u = u_statistic(before, after)
    total = first * second
    if total <= EXACT_LIMIT:
        counts = _u_counts(first, second)
        orderings = sum(counts)
        low = sum(counts[: math.floor(u) + 1]) / orderings
        high = sum(counts[math.ceil(u) :]) / orderings
        return min(1.0, 2 * min(low, high))
    mean = total / 2
    sigma = math.sqrt(total * (first + second + 1) / 12)
    z = (abs(u - mean) - 0.5) / sigma
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def rank_test_name(before: int, after: int) -> str:
    """The name of the rank test used for samples of these sizes."""
    return EXACT_NAME if before * after <= EXACT_LIMIT else NORMAL_NAME
