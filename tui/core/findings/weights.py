"""How much a finding weighs: its cost per step against the median step, and its status.

Every threshold a finding is judged by lives here (docs/findings.md lists them).

A finding's **cost** is the time per step it plausibly holds: an upper bound
of what fixing it could save, taken from its own figures (device idle in the
data zone, a copy's device time, a collective's wait, ...). Its **share** is
that cost against the median window step. The status follows from the share:

- `likely`: the pattern is seen and costs at least `LIKELY_SHARE` of a step;
- `possible`: seen, and at least the floor (`DEFAULT_MIN_SHARE`, or the
  user's `--min-share`);
- `minor`: seen, but below the floor: not worth a look before the others;
- `not_seen`: the pattern is absent; `not_observed`: the capture cannot say.

A capture without steps is weighed as one step: its analysed span. A window
step holding a torch.compile compilation (an outermost compile range starting
in it, `figures/compiled.py`) is set aside from the median step, with its
reason: it lasts what the compile lasts, 10-100x its neighbours, and says
nothing of the step's own work. When every window step compiles, none is set
aside (there is no other step to weigh against).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.core.base.vocab import FindingStatus

if TYPE_CHECKING:  # read by the CLI's --help: no numpy here
    from tui.core.figures.analysis import Analysis
    from tui.core.figures.compiled import Compilation
    from tui.core.model.steps import Step

# Below this share of the median step a seen pattern is `minor` (`--min-share`).
DEFAULT_MIN_SHARE = 0.02
# From this share of the median step on, a seen pattern is `likely`.
LIKELY_SHARE = 0.10

# Data zone: the device idles in it (the pattern); its cost is that idle per step.
# Gaps shorter than this are slivers: summed, never listed one by one by default.
SLIVER_NS = 10_000
# Launches: a step launching at least this many kernels with a median kernel
# under SMALL_KERNEL_NS is the pattern; its cost is the host time of the
# launch calls while the device waits on the host (see small_launches).
MANY_KERNELS_PER_STEP = 50
SMALL_KERNEL_NS = 20_000
# An operator holding at least this share of the operators' self time dominates.
DOMINANT_SHARE = 0.30
# Host-bound: on the busiest stream, waiting for the host is the largest
# cause of idle time; its cost is that host wait per step.
# Late rank: the same rank is last in more than this share of the steps.
LATE_STEP_SHARE = 0.5


@dataclass(frozen=True)
class Weight:
    """A finding's cost per step and its share of the median step."""

    cost_ns_per_step: float
    median_step_ns: float

    @property
    def share(self) -> float | None:
        """The cost as a share of the median step (None without a step length)."""
        if self.median_step_ns <= 0:
            return None
        return self.cost_ns_per_step / self.median_step_ns


@dataclass(frozen=True)
class StepSetAside:
    """A window step the median step leaves out, its duration, and why."""

    step: int
    duration_ns: int
    reason: str


@dataclass(frozen=True)
class Scale:
    """What findings are weighed against: the median step, and the user's floor.

    `steps` counts every window step; `set_aside` those the median leaves out.
    """

    median_step_ns: float
    steps: int
    min_share: float = DEFAULT_MIN_SHARE
    set_aside: tuple[StepSetAside, ...] = ()

    def weigh(
        self, seen: bool, cost_ns_per_step: float | None
    ) -> tuple[FindingStatus, Weight | None]:
        """The status of a reading and its weight (None when it has no cost).

        No fix saves more than the step: a cost past the median step (time on
        threads running beside the step's own) is capped at it. The status
        follows the share: a cost at or above the floor is seen, whatever the
        rule's own threshold says.
        """
        weight = None
        if cost_ns_per_step is not None:
            cost = float(cost_ns_per_step)
            if self.median_step_ns > 0:
                cost = min(cost, self.median_step_ns)
            weight = Weight(cost, self.median_step_ns)
            share = weight.share
            seen = seen or (share is not None and share >= self.min_share)
        return status_of(seen, weight, self.min_share), weight


def median_step_ns(steps: list[Step], span_ns: int) -> float:
    """The median length of the window's steps; without steps, the analysed span."""
    if steps:
        import statistics  # not at import: --help reads this module

        return float(statistics.median(step.duration_ns for step in steps))
    return float(max(span_ns, 0))


def status_of(
    seen: bool, weight: Weight | None, min_share: float = DEFAULT_MIN_SHARE
) -> FindingStatus:
    """The status of a reading whose pattern is `seen` (or not), from its weight."""
    if not seen:
        return FindingStatus.NOT_SEEN
    share = None if weight is None else weight.share
    if share is None:
        return FindingStatus.POSSIBLE
    if share >= max(LIKELY_SHARE, min_share):
        return FindingStatus.LIKELY
    if share >= min_share:
        return FindingStatus.POSSIBLE
    return FindingStatus.MINOR


def _some(count: int, noun: str) -> str:
    return "" if not count else f"a {noun}" if count == 1 else f"{count} {noun}s"


def compiling_reason(step: int, compilations: list[Compilation]) -> str:
    """`step 2 holds a recompilation (compile id 0/1): set aside from the median step`."""
    recompiles = sum(item.recompile for item in compilations)
    held = " and ".join(
        part
        for part in (
            _some(len(compilations) - recompiles, "compilation"),
            _some(recompiles, "recompilation"),
        )
        if part
    )
    ids = [item.compile_id for item in compilations if item.compile_id is not None]
    named = ""
    if ids:
        named = f" (compile id{'s' if len(ids) > 1 else ''} {', '.join(ids)})"
    return f"step {step} holds {held}{named}: set aside from the median step"


def compiling_steps(analysis: Analysis) -> tuple[StepSetAside, ...]:
    """The window steps holding a compilation, unless every window step does."""
    from tui.core.figures.compiled import CompiledFigures  # numpy: not at import

    steps = analysis.window_steps
    held: dict[int, list[Compilation]] = {}
    for item in CompiledFigures.of(analysis).compilations:
        if item.in_window and item.step is not None:
            held.setdefault(item.step, []).append(item)
    aside = [step for step in steps if step.number in held]
    if len(aside) == len(steps):
        return ()
    return tuple(
        StepSetAside(
            step.number,
            step.duration_ns,
            compiling_reason(step.number, held[step.number]),
        )
        for step in aside
    )


def scale_of(analysis: Analysis, min_share: float = DEFAULT_MIN_SHARE) -> Scale:
    """What this capture's findings are weighed against: the median of the
    window steps not set aside (`compiling_steps`)."""
    steps = analysis.window_steps
    trace = analysis.trace
    span = int(trace.end_ns.max() - trace.start_ns.min()) if trace.event_count else 0
    aside = compiling_steps(analysis)
    left_out = {entry.step for entry in aside}
    kept = [step for step in steps if step.number not in left_out]
    return Scale(median_step_ns(kept, span), len(steps), min_share, aside)
