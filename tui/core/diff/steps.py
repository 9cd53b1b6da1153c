"""Step times of two captures and the only verdict a trace can support.

Warm-up and outlier steps are first set aside by the rule of `kept.py`. The
verdict says faster or slower only when the two ranges of the kept steps do
not overlap, or when an exact Mann–Whitney U test gives p < 0.05 with at least
5 kept steps a side; otherwise it is inconclusive, with the reason. Start-up
is kept beside the window, never mixed into it. Raw values are kept: a median
says little without the values it comes from.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from tui.core.base.units import duration_text
from tui.core.base.vocab import StepPhase, Verdict
from tui.core.diff.kept import KeptSteps, kept_steps, mann_whitney_p, rank_test_name
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import StepStats

# Below this many window steps a side's figures show the mechanism, not a distribution.
FEW_STEPS = 5
# The rank test's threshold.
SIGNIFICANCE = 0.05
MS_PER_STEP = "ms/step"
SAMPLES_PER_S = "samples/s"


@dataclass(frozen=True)
class StartupStepTime:
    """One step before the window: timed by the collector, or found in the trace."""

    step: int
    phase: str
    ms: float
    source: str  # "description" (the collector's timing) or "trace"


@dataclass(frozen=True)
class StartupFigures:
    """Start-up of one capture, kept as its own observation."""

    before_first_step_ms: float | None
    steps: tuple[StartupStepTime, ...]

    @property
    def empty(self) -> bool:
        """Whether the capture says nothing about its start-up."""
        return self.before_first_step_ms is None and not self.steps


@dataclass(frozen=True)
class StepFigures:
    """The window's step times of one capture (raw values kept), and its start-up apart."""

    numbers: tuple[int, ...]
    durations_ns: tuple[int, ...]
    samples_per_step: int | None
    unit_name: str
    startup: StartupFigures

    @classmethod
    def of(cls, analysis: Analysis) -> StepFigures:
        """The active steps of an analysed capture and what came before them."""
        capture = analysis.trace.capture
        active = analysis.active_steps
        timed = {entry.step for entry in capture.startup.steps}
        startup = [
            StartupStepTime(entry.step, entry.phase, entry.ms, "description")
            for entry in capture.startup.steps
        ]
        startup += [
            StartupStepTime(step.number, "startup", step.duration_ns / 1e6, "trace")
            for step in analysis.steps
            if step.phase is StepPhase.STARTUP and step.number not in timed
        ]
        return cls(
            tuple(step.number for step in active),
            tuple(step.duration_ns for step in active),
            capture.samples_per_step,
            capture.unit_name,
            StartupFigures(
                capture.startup.before_first_step_ms,
                tuple(sorted(startup, key=lambda entry: entry.step)),
            ),
        )

    @property
    def count(self) -> int:
        """How many steps the window holds."""
        return len(self.durations_ns)

    @property
    def stats(self) -> StepStats | None:
        """Median, min and max of the window's step times."""
        return StepStats.of(list(self.durations_ns))

    @property
    def kept(self) -> KeptSteps:
        """The window steps a verdict reads (warm-up and outliers set aside)."""
        return kept_steps(self.numbers, self.durations_ns)

    def samples_per_s(self) -> list[float] | None:
        """Each step's throughput, when the number of samples per step is known."""
        samples = self.samples_per_step
        if not samples:
            return None
        return [samples / (ns / 1e9) for ns in self.durations_ns if ns > 0]


@dataclass(frozen=True)
class Rate:
    """Median, min and max of per-step throughputs (samples/s)."""

    median: float
    min: float
    max: float

    @classmethod
    def of(cls, values: list[float] | None) -> Rate | None:
        """The spread of some rates; None without any."""
        if not values:
            return None
        return cls(float(statistics.median(values)), min(values), max(values))


@dataclass(frozen=True)
class RankTest:
    """The rank test a verdict read: its name and two-sided p."""

    name: str
    p: float


@dataclass(frozen=True)
class KeptVerdict:
    """A verdict on the kept steps of both sides, with the reason and the test read."""

    verdict: Verdict
    reason: str
    test: RankTest | None


def _ms(value: float) -> str:
    return duration_text(value)


def kept_verdict(before: KeptSteps, after: KeptSteps) -> KeptVerdict:
    """Faster or slower only when the kept ranges are apart, or the rank test says so."""
    first, second = list(before.durations_ns), list(after.durations_ns)
    if not first or not second:
        return KeptVerdict(
            Verdict.INCONCLUSIVE, "a side has no step in its window", None
        )
    test = RankTest(
        rank_test_name(len(first), len(second)), mann_whitney_p(first, second)
    )
    if sorted(first) == sorted(second):
        return KeptVerdict(
            Verdict.INCONCLUSIVE, "no change: the same step times on both sides", test
        )
    step = "kept step" if before.set_aside or after.set_aside else "step"
    if max(second) < min(first):
        return KeptVerdict(
            Verdict.FASTER,
            f"every {step} after is quicker than every {step} before",
            test,
        )
    if min(second) > max(first):
        return KeptVerdict(
            Verdict.SLOWER,
            f"every {step} after is slower than every {step} before",
            test,
        )
    overlap = (
        f"ranges overlap: {_ms(min(first))}–{_ms(max(first))} before, "
        f"{_ms(min(second))}–{_ms(max(second))} after"
    )
    few = min(len(first), len(second))
    if few < FEW_STEPS:
        return KeptVerdict(
            Verdict.INCONCLUSIVE,
            f"{overlap}; {few} steps a side kept, under the {FEW_STEPS} "
            "a rank test needs",
            test,
        )
    if test.p < SIGNIFICANCE:
        order = (
            Verdict.FASTER
            if statistics.median(second) < statistics.median(first)
            else Verdict.SLOWER
        )
        return KeptVerdict(
            order,
            f"{overlap}, but the rank test gives p = {test.p:.3g} < {SIGNIFICANCE}",
            test,
        )
    return KeptVerdict(
        Verdict.INCONCLUSIVE, f"{overlap}; the rank test gives p = {test.p:.3g}", test
    )


@dataclass(frozen=True)
class StepsDiff:
    """The window step times before and after, the change of the median and the verdict.

    `verdict`, `reason` and `test` read the kept steps (`kept_before`,
    `kept_after`); the medians and the change read the whole window, as before.
    """

    before: StepFigures
    after: StepFigures
    verdict: Verdict
    change_pct: float | None
    unit: str
    reason: str = ""
    test: RankTest | None = None

    @property
    def kept_before(self) -> KeptSteps:
        """The before side's kept steps."""
        return self.before.kept

    @property
    def kept_after(self) -> KeptSteps:
        """The after side's kept steps."""
        return self.after.kept

    @classmethod
    def between(cls, before: StepFigures, after: StepFigures) -> StepsDiff:
        """Compare two captures' windows (start-up is carried along, not compared)."""
        first, second = before.stats, after.stats
        change = None
        if first is not None and second is not None and first.median_ns > 0:
            change = (second.median_ns - first.median_ns) / first.median_ns * 100.0
        both_rates = bool(before.samples_per_step) and bool(after.samples_per_step)
        unit = (
            SAMPLES_PER_S
            if both_rates and before.unit_name == SAMPLES_PER_S
            else MS_PER_STEP
        )
        reading = kept_verdict(before.kept, after.kept)
        return cls(
            before, after, reading.verdict, change, unit, reading.reason, reading.test
        )
