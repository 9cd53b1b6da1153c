"""Which steps represent the code, and the rank test a verdict may rest on.

The rule that sets steps aside (documented in docs/diff.md, `steptrace diff`):

1. **Warm-up**: with at least 3 window steps, the first one is set aside when
   it lasts more than 1.5 times the median of the others (caches, allocator,
   autotuning and lazy initialisation land there).
2. **Outliers**: with at least 5 steps left, a step outside Tukey's far fences
   (below Q1 − 3·IQR or above Q3 + 3·IQR, quartiles of the steps left) is set
   aside. The far fences (3, not 1.5) keep the ordinary spread of a few steps.

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

WARM_UP_FACTOR = 1.5
TUKEY_FAR = 3.0
EXACT_LIMIT = 10_000
EXACT_NAME = "Mann-Whitney U (exact, two-sided)"
NORMAL_NAME = "Mann-Whitney U (normal approximation, two-sided)"


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


def kept_steps(numbers: tuple[int, ...], durations_ns: tuple[int, ...]) -> KeptSteps:
    """Apply the rule of this module's docstring to one side's window steps."""
    pairs = list(zip(numbers, durations_ns, strict=True))
    aside: list[SetAside] = []
    if len(pairs) >= 3:
        rest = statistics.median(duration for _, duration in pairs[1:])
        step, duration = pairs[0]
        if duration > WARM_UP_FACTOR * rest:
            aside.append(
                SetAside(
                    step,
                    duration,
                    f"warm-up: first step {_ms(duration)}, over "
                    f"{WARM_UP_FACTOR}× the median of the others ({_ms(rest)})",
                )
            )
            pairs = pairs[1:]
    if len(pairs) >= 5:
        q1, _, q3 = statistics.quantiles(
            [duration for _, duration in pairs], n=4, method="inclusive"
        )
        low, high = q1 - TUKEY_FAR * (q3 - q1), q3 + TUKEY_FAR * (q3 - q1)
        outside = [(step, d) for step, d in pairs if not low <= d <= high]
        for step, duration in outside:
            side = "above" if duration > high else "below"
            aside.append(
                SetAside(
                    step,
                    duration,
                    f"outlier: {_ms(duration)} {side} Tukey's far fence "
                    f"({_ms(high if duration > high else low)})",
                )
            )
        pairs = [pair for pair in pairs if pair not in outside]
    return KeptSteps(
        tuple(step for step, _ in pairs),
        tuple(duration for _, duration in pairs),
        tuple(sorted(aside, key=lambda entry: entry.step)),
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
