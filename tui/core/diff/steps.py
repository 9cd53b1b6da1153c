"""Step times of two sides, each one or more captures (runs), and the only
verdict they can support.

Steps inside one capture are not independent samples of the job: the runs are
the unit of evidence. Each run is read as the median of its kept steps (steps
set aside for a reason by `kept.py`).

- Several runs a side: faster or slower only when the runs separate — every
  after-run median beyond every before-run median, the change of the medians
  larger than the between-run spread (the widest range of run medians on a
  side) — with at least 3 runs a side; separated runs with fewer read
  likely_faster or likely_slower; else inconclusive, with the reason.
- One capture a side: at most likely_faster or likely_slower (the kept ranges
  apart, or an exact Mann–Whitney U test with p < 0.05 and at least 5 kept
  steps a side), since run-to-run variance is unknown.
- no_change when both sides hold the same step times; identical (set by
  `TraceDiff`) when they hold the same figures.

Start-up is kept beside the window, never mixed into it. Raw values are kept:
a median says little without the values it comes from.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from tui.core.base.units import duration_text
from tui.core.base.vocab import StepPhase, Verdict
from tui.core.diff.kept import KeptSteps, kept_steps, mann_whitney_p, rank_test_name
from tui.core.diff.stalls import StepExtra, step_extras
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import StepStats

# Below this many window steps a side's figures show the mechanism, not a distribution.
FEW_STEPS = 5
# The rank test's threshold.
SIGNIFICANCE = 0.05
# Runs a side a conclusive faster or slower needs.
RUNS_FOR_ORDER = 3
ONE_CAPTURE = (
    "one capture a side: run-to-run variance unknown; capture again, or run "
    "`steptrace bench` on both"
)
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
    extras: tuple[StepExtra, ...] = field(default=(), compare=False)
    """Each window step's stall, compilation and untraced time (what `kept` reads)."""

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
            step_extras(analysis),
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
        """The window steps a verdict reads (a stalled first or last step set aside)."""
        return kept_steps(self.numbers, self.durations_ns, self.extras)

    @property
    def kept_median_ns(self) -> float | None:
        """The run's figure: the median of its kept steps (None without any)."""
        kept = self.kept.durations_ns
        return float(statistics.median(kept)) if kept else None

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


def _span(values: list[int] | list[float]) -> str:
    low, high = min(values), max(values)
    return _ms(low) if low == high else f"{_ms(low)}–{_ms(high)}"


def _likely(order: Verdict) -> Verdict:
    return Verdict.LIKELY_FASTER if order is Verdict.FASTER else Verdict.LIKELY_SLOWER


def kept_verdict(before: KeptSteps, after: KeptSteps) -> KeptVerdict:
    """One capture a side: likely faster or slower only when the kept ranges are
    apart, or the rank test says so; never a conclusive order."""
    first, second = list(before.durations_ns), list(after.durations_ns)
    if not first or not second:
        return KeptVerdict(
            Verdict.INCONCLUSIVE, "a side has no step in its window", None
        )
    test = RankTest(
        rank_test_name(len(first), len(second)), mann_whitney_p(first, second)
    )
    if sorted(first) == sorted(second):
        return KeptVerdict(Verdict.NO_CHANGE, "the same step times on both sides", test)
    step = "kept step" if before.set_aside or after.set_aside else "step"
    if max(second) < min(first):
        return KeptVerdict(
            Verdict.LIKELY_FASTER,
            f"every {step} after is quicker than every {step} before; {ONE_CAPTURE}",
            test,
        )
    if min(second) > max(first):
        return KeptVerdict(
            Verdict.LIKELY_SLOWER,
            f"every {step} after is slower than every {step} before; {ONE_CAPTURE}",
            test,
        )
    overlap = f"ranges overlap: {_span(first)} before, {_span(second)} after"
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
            _likely(order),
            f"{overlap}, but the rank test gives p = {test.p:.3g} < {SIGNIFICANCE}; "
            f"{ONE_CAPTURE}",
            test,
        )
    return KeptVerdict(
        Verdict.INCONCLUSIVE, f"{overlap}; the rank test gives p = {test.p:.3g}", test
    )


def runs_verdict(before: list[KeptSteps], after: list[KeptSteps]) -> KeptVerdict:
    """The verdict of several runs a side, read from the runs' medians of kept steps
    (one capture a side: `kept_verdict`)."""
    if len(before) == 1 and len(after) == 1:
        return kept_verdict(before[0], after[0])
    if not all(run.durations_ns for run in (*before, *after)):
        return KeptVerdict(
            Verdict.INCONCLUSIVE, "a run has no step in its window", None
        )
    if [sorted(run.durations_ns) for run in before] == [
        sorted(run.durations_ns) for run in after
    ]:
        return KeptVerdict(Verdict.NO_CHANGE, "the same step times in every run", None)
    medians_before = [float(statistics.median(run.durations_ns)) for run in before]
    medians_after = [float(statistics.median(run.durations_ns)) for run in after]
    spread = max(
        max(values) - min(values) for values in (medians_before, medians_after)
    )
    change = statistics.median(medians_after) - statistics.median(medians_before)
    runs = f"run medians {_span(medians_before)} before, {_span(medians_after)} after"
    if max(medians_after) < min(medians_before):
        order, word = Verdict.FASTER, "below"
    elif min(medians_after) > max(medians_before):
        order, word = Verdict.SLOWER, "above"
    else:
        return KeptVerdict(Verdict.INCONCLUSIVE, f"{runs} overlap", None)
    if abs(change) <= spread:
        return KeptVerdict(
            Verdict.INCONCLUSIVE,
            f"{runs}: the change of the median ({_ms(abs(change))}) is within "
            f"the between-run spread ({_ms(spread)})",
            None,
        )
    separated = (
        f"every after-run median is {word} every before-run median ({runs}) and "
        f"the change ({_ms(abs(change))}) exceeds the between-run spread "
        f"({_ms(spread)})"
    )
    few = min(len(before), len(after))
    if few < RUNS_FOR_ORDER:
        return KeptVerdict(
            _likely(order),
            f"{separated}; {len(before)} runs before, {len(after)} after: a "
            f"conclusive verdict needs {RUNS_FOR_ORDER} runs a side",
            None,
        )
    return KeptVerdict(order, separated, None)


@dataclass(frozen=True)
class StepsDiff:
    """The window step times before and after, the change of the median and the verdict.

    `before` and `after` are each side's first capture; `before_runs` and
    `after_runs` every capture of the side (one each for a plain pair).
    `verdict`, `reason` and `test` read the runs' kept steps; the change is that
    of the median of the runs' medians of kept steps.
    """

    before: StepFigures
    after: StepFigures
    verdict: Verdict
    change_pct: float | None
    unit: str
    reason: str = ""
    test: RankTest | None = None
    before_runs: tuple[StepFigures, ...] = ()
    after_runs: tuple[StepFigures, ...] = ()

    @property
    def kept_before(self) -> KeptSteps:
        """The before side's kept steps."""
        return self.before.kept

    @property
    def kept_after(self) -> KeptSteps:
        """The after side's kept steps."""
        return self.after.kept

    @property
    def runs(self) -> tuple[int, int]:
        """How many captures each side holds."""
        return len(self.before_runs), len(self.after_runs)

    @classmethod
    def between(cls, before: StepFigures, after: StepFigures) -> StepsDiff:
        """Compare two captures' windows (start-up is carried along, not compared)."""
        return cls.between_runs((before,), (after,))

    @classmethod
    def between_runs(
        cls, before: tuple[StepFigures, ...], after: tuple[StepFigures, ...]
    ) -> StepsDiff:
        """Compare two sides of one or more captures each."""
        change = None
        medians = [
            [value for run in side if (value := run.kept_median_ns) is not None]
            for side in (before, after)
        ]
        if len(medians[0]) == len(before) and len(medians[1]) == len(after):
            first = statistics.median(medians[0])
            if first > 0:
                change = (statistics.median(medians[1]) - first) / first * 100.0
        rates = all(side.samples_per_step for side in (*before, *after))
        unit = (
            SAMPLES_PER_S
            if rates and before[0].unit_name == SAMPLES_PER_S
            else MS_PER_STEP
        )
        reading = runs_verdict(
            [run.kept for run in before], [run.kept for run in after]
        )
        return cls(
            before[0],
            after[0],
            reading.verdict,
            change,
            unit,
            reading.reason,
            reading.test,
            before,
            after,
        )
