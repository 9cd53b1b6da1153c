"""Step times of two captures and the only verdict a trace can support.

The verdict says faster or slower only when the two ranges of window step
times do not overlap; otherwise it is inconclusive. Start-up is kept beside
the window, never mixed into it. Raw values are kept: a median says little
without the values it comes from.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from tui.core.base.vocab import StepPhase, Verdict
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import StepStats

# Below this many window steps a side's figures show the mechanism, not a distribution.
FEW_STEPS = 5
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


def verdict_of(before: StepStats | None, after: StepStats | None) -> Verdict:
    """Faster or slower only when the two ranges of step times do not overlap."""
    if before is None or after is None:
        return Verdict.INCONCLUSIVE
    if after.max_ns < before.min_ns:
        return Verdict.FASTER
    if after.min_ns > before.max_ns:
        return Verdict.SLOWER
    return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class StepsDiff:
    """The window step times before and after, the change of the median and the verdict."""

    before: StepFigures
    after: StepFigures
    verdict: Verdict
    change_pct: float | None
    unit: str

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
        return cls(before, after, verdict_of(first, second), change, unit)
