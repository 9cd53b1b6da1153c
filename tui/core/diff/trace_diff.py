"""Two captures of the same window compared: steps, operators, data zone, kernels, comparability."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tui.core.base.vocab import DiffCheck, Verdict, ZoneSource
from tui.core.diff.comparability import DiffWarning, comparability
from tui.core.diff.facts import Check, checks
from tui.core.diff.side import CaptureSide, ZoneFigures
from tui.core.diff.steps import StepsDiff
from tui.core.diff.tables import KernelsDiff, OpsDiff
from tui.core.figures.analysis import Analysis
from tui.core.figures.shapes import shapes_in_trace
from tui.core.figures.zones import ZoneChoice

# Differences that set one machine against another: the verdict is not_comparable.
MACHINE_CHECKS = frozenset({DiffCheck.DEVICE, DiffCheck.WORLD_SIZE})


@dataclass(frozen=True)
class ZoneDiff:
    """The data zone before and after, read with the same zone names on both sides."""

    before: ZoneFigures
    after: ZoneFigures


@dataclass(frozen=True)
class TraceDiff:
    """Everything `steptrace diff` compares; a pure function of two captures' summaries."""

    before: CaptureSide
    after: CaptureSide
    steps: StepsDiff
    ops: OpsDiff
    zone: ZoneDiff
    kernels: KernelsDiff
    warnings: tuple[DiffWarning, ...]
    checks: tuple[Check, ...] = ()
    """Each fact both traces were read for, with both values (None: not recorded)."""

    @property
    def comparable(self) -> bool:
        """Whether nothing that matters differs between the two captures."""
        return not any(warning.breaks_comparability for warning in self.warnings)

    @classmethod
    def between(
        cls, before: CaptureSide, after: CaptureSide, *, by_shape: bool = False
    ) -> TraceDiff:
        """Compare two summarised captures (a run's ranks are diffed the same way).

        With `by_shape`, operators are matched by name and input shapes when
        both sides recorded shapes, else by name with a caveat saying so.
        """
        ops = OpsDiff.of(
            before.ops,
            after.ops,
            before.ops_kept,
            after.ops_kept,
            (before.kept_count, after.kept_count),
        )
        warnings = comparability(before, after)
        if by_shape and not ops.by_shape:
            warnings.append(
                DiffWarning(
                    DiffCheck.SHAPES,
                    "input shapes were not recorded on both sides "
                    "(record_shapes): operators are matched by name",
                )
            )
        steps = StepsDiff.between(before.steps, after.steps)
        machines = [w for w in warnings if w.check in MACHINE_CHECKS]
        if machines:
            steps = replace(
                steps,
                verdict=Verdict.NOT_COMPARABLE,
                reason="; ".join(warning.message for warning in machines),
            )
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
        )

    @classmethod
    def of(
        cls, before: Analysis, after: Analysis, *, by_shape: bool = False
    ) -> TraceDiff:
        """Compare two analysed captures; both read the same data zone names."""
        first, second = shared_zone(before, after)
        both = by_shape and all(shapes_in_trace(side.trace) for side in (first, second))
        return cls.between(
            CaptureSide.of(first, by_shape=both),
            CaptureSide.of(second, by_shape=both),
            by_shape=by_shape,
        )


def shared_zone(before: Analysis, after: Analysis) -> tuple[Analysis, Analysis]:
    """Both analyses on the same data zone names, so zone figures compare like with like.

    A zone chosen by the user on either side is used on both; otherwise the
    names of both default zones together (a name absent on one side reads
    no time there).
    """
    choices = (before.zone_choice, after.zone_choice)
    chosen = [choice for choice in choices if choice.source is ZoneSource.CHOSEN]
    if chosen:
        shared = ZoneChoice(
            tuple(dict.fromkeys(name for choice in chosen for name in choice.names)),
            ZoneSource.CHOSEN,
        )
    else:
        names = tuple(dict.fromkeys([*choices[0].names, *choices[1].names]))
        source = next(
            (choice.source for choice in choices if choice.names), ZoneSource.NONE
        )
        shared = ZoneChoice(names, source)
    return (
        before if before.zone_choice == shared else before.with_zones(shared),
        after if after.zone_choice == shared else after.with_zones(shared),
    )
