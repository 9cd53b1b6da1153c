"""Two sides of the same window compared — one capture each, or several runs each:
steps, operators, data zone, kernels, what moved, comparability.

The tables (operators, kernels, data zone) read each side's first capture; the
verdict and the mechanisms read every run.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tui.core.base.vocab import DiffCheck, Verdict, ZoneSource
from tui.core.diff.comparability import DiffWarning, comparability
from tui.core.diff.facts import Check, checks
from tui.core.diff.mechanisms import Mechanism, mechanisms, run_figure
from tui.core.diff.side import CaptureSide, ZoneFigures
from tui.core.diff.steps import StepsDiff
from tui.core.diff.tables import KernelsDiff, OpsDiff
from tui.core.figures.analysis import Analysis
from tui.core.figures.optable import OpTable
from tui.core.figures.shapes import shapes_in_trace
from tui.core.figures.zones import ZoneChoice

# Differences that set one machine against another: the verdict is not_comparable.
MACHINE_CHECKS = frozenset({DiffCheck.DEVICE, DiffCheck.WORLD_SIZE})
SAME_FILE = "the same file on both sides"
SAME_FIGURES = "the same figures on both sides: step times, operators and findings"


@dataclass(frozen=True)
class ZoneDiff:
    """The data zone before and after, read with the same zone names on both sides."""

    before: ZoneFigures
    after: ZoneFigures


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _same_ops(first: OpTable, second: OpTable) -> bool:
    return (
        first.names == second.names
        and np.array_equal(first.calls, second.calls)
        and np.array_equal(first.self_cpu_ns, second.self_cpu_ns)
        and np.array_equal(first.total_cpu_ns, second.total_cpu_ns)
    )


def _findings_figures(side: CaptureSide) -> list[tuple[str, float | None]]:
    return [(finding.id.value, run_figure(finding)) for finding in side.findings]


def identical_reason(
    before: Sequence[CaptureSide], after: Sequence[CaptureSide]
) -> str | None:
    """Why the two sides are identical (the same files, or the same figures run by
    run), or None when they are not."""
    if len(before) != len(after):
        return None
    if all(_same_file(b.path, a.path) for b, a in zip(before, after, strict=True)):
        return SAME_FILE
    for first, second in zip(before, after, strict=True):
        if (
            first.steps.numbers != second.steps.numbers
            or first.steps.durations_ns != second.steps.durations_ns
            or not _same_ops(first.ops, second.ops)
            or _findings_figures(first) != _findings_figures(second)
        ):
            return None
    return SAME_FIGURES


def _run_warnings(
    before: Sequence[CaptureSide], after: Sequence[CaptureSide]
) -> list[DiffWarning]:
    """Differences that break comparability between the first capture and another
    run of either side, each named by the run's file."""
    first = before[0]
    found = []
    for run in (*before[1:], *after[1:]):
        name = run.path.rsplit("/", 1)[-1]
        found += [
            DiffWarning(warning.check, f"run {name}: {warning.message}")
            for warning in comparability(first, run)
            if warning.check in MACHINE_CHECKS
        ]
    return found


@dataclass(frozen=True)
class TraceDiff:
    """Everything `steptrace diff` compares; a pure function of the sides' summaries."""

    before: CaptureSide
    after: CaptureSide
    steps: StepsDiff
    ops: OpsDiff
    zone: ZoneDiff
    kernels: KernelsDiff
    warnings: tuple[DiffWarning, ...]
    checks: tuple[Check, ...] = ()
    """Each fact both traces were read for, with both values (None: not recorded)."""
    before_runs: tuple[CaptureSide, ...] = ()
    """Every capture of the before side (the first is `before`)."""
    after_runs: tuple[CaptureSide, ...] = ()
    mechanisms: tuple[Mechanism, ...] = ()
    """Each finding's per-step figure on both sides, largest change first."""

    @property
    def comparable(self) -> bool:
        """Whether nothing that matters differs between the two captures."""
        return not any(warning.breaks_comparability for warning in self.warnings)

    @property
    def moved(self) -> tuple[Mechanism, ...]:
        """The mechanisms that moved in every run pair, largest change first."""
        return tuple(entry for entry in self.mechanisms if entry.moved)

    @classmethod
    def between(
        cls, before: CaptureSide, after: CaptureSide, *, by_shape: bool = False
    ) -> TraceDiff:
        """Compare two summarised captures (a run's ranks are diffed the same way).

        With `by_shape`, operators are matched by name and input shapes when
        both sides recorded shapes, else by name with a caveat saying so.
        """
        return cls.between_runs((before,), (after,), by_shape=by_shape)

    @classmethod
    def between_runs(
        cls,
        before_runs: Sequence[CaptureSide],
        after_runs: Sequence[CaptureSide],
        *,
        by_shape: bool = False,
    ) -> TraceDiff:
        """Compare two sides of one or more summarised captures each."""
        before, after = before_runs[0], after_runs[0]
        ops = OpsDiff.of(
            before.ops,
            after.ops,
            before.ops_kept,
            after.ops_kept,
            (before.kept_count, after.kept_count),
        )
        warnings = comparability(before, after)
        warnings += _run_warnings(before_runs, after_runs)
        if by_shape and not ops.by_shape:
            warnings.append(
                DiffWarning(
                    DiffCheck.SHAPES,
                    "input shapes were not recorded on both sides "
                    "(record_shapes): operators are matched by name",
                )
            )
        steps = StepsDiff.between_runs(
            tuple(run.steps for run in before_runs),
            tuple(run.steps for run in after_runs),
        )
        medians = [run.steps.kept_median_ns for run in before_runs]
        step_ns = (
            statistics.median(value for value in medians if value is not None)
            if any(value is not None for value in medians)
            else None
        )
        moved = mechanisms(
            [run.findings for run in before_runs],
            [run.findings for run in after_runs],
            step_ns,
        )
        machines = [w for w in warnings if w.check in MACHINE_CHECKS]
        same = identical_reason(before_runs, after_runs)
        if machines:
            steps = replace(
                steps,
                verdict=Verdict.NOT_COMPARABLE,
                reason="; ".join(warning.message for warning in machines),
            )
        elif same is not None:
            steps = replace(steps, verdict=Verdict.IDENTICAL, reason=same)
        return cls(
            before,
            after,
            steps,
            ops,
            ZoneDiff(before.zone, after.zone),
            KernelsDiff.of(
                before.kernels,
                after.kernels,
                before.kernels_kept,
                after.kernels_kept,
                (before.kept_count, after.kept_count),
            ),
            tuple(warnings),
            tuple(checks(before.facts, after.facts)),
            tuple(before_runs),
            tuple(after_runs),
            moved,
        )

    @classmethod
    def of(
        cls, before: Analysis, after: Analysis, *, by_shape: bool = False
    ) -> TraceDiff:
        """Compare two analysed captures; both read the same data zone names."""
        return cls.of_runs((before,), (after,), by_shape=by_shape)

    @classmethod
    def of_runs(
        cls,
        before: Sequence[Analysis],
        after: Sequence[Analysis],
        *,
        by_shape: bool = False,
    ) -> TraceDiff:
        """Compare two sides of one or more analysed captures; all read the same
        data zone names."""
        every = shared_zones([*before, *after])
        both = by_shape and all(shapes_in_trace(side.trace) for side in every)
        sides = [CaptureSide.of(side, by_shape=both) for side in every]
        return cls.between_runs(
            sides[: len(before)], sides[len(before) :], by_shape=by_shape
        )


def shared_zone(before: Analysis, after: Analysis) -> tuple[Analysis, Analysis]:
    """Both analyses on the same data zone names, so zone figures compare like with like."""
    first, second = shared_zones([before, after])
    return first, second


def shared_zones(analyses: Sequence[Analysis]) -> list[Analysis]:
    """Every analysis on the same data zone names, so zone figures compare like with like.

    A zone chosen by the user on any side is used on all; otherwise the
    names of every default zone together (a name absent on one side reads
    no time there).
    """
    choices = [analysis.zone_choice for analysis in analyses]
    chosen = [choice for choice in choices if choice.source is ZoneSource.CHOSEN]
    if chosen:
        shared = ZoneChoice(
            tuple(dict.fromkeys(name for choice in chosen for name in choice.names)),
            ZoneSource.CHOSEN,
        )
    else:
        names = tuple(
            dict.fromkeys(name for choice in choices for name in choice.names)
        )
        source = next(
            (choice.source for choice in choices if choice.names), ZoneSource.NONE
        )
        shared = ZoneChoice(names, source)
    return [
        analysis if analysis.zone_choice == shared else analysis.with_zones(shared)
        for analysis in analyses
    ]
