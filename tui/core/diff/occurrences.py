"""Where one operator of a diff occurs in both captures, aligned on the same step.

The comparison screen shows an operator's occurrences on two timelines, one
above the other, each fitted to the same step: `step_pairs` matches the two
windows' steps (by step number when they share numbers, else by position in
the window), and `align` picks the pair to show. Occurrences are the events
the operator table counts in that row (torch's key_averages() events), so
their count equals the row's calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest

import numpy as np
import numpy.typing as npt

from tui.core.figures.analysis import Analysis, Step
from tui.core.figures.optable import group_name
from tui.core.model import nesting

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class StepPair:
    """A step of the before window and the step of the after window it is compared with."""

    before: Step | None
    after: Step | None

    @property
    def label(self) -> str:
        """The step's number, or both numbers when the windows are numbered apart."""
        numbers = [step.number for step in (self.before, self.after) if step]
        if len(set(numbers)) == 1:
            return f"step {numbers[0]}"
        return " / ".join(
            "–" if step is None else f"#{step.number}"
            for step in (self.before, self.after)
        )


def step_pairs(before: Analysis, after: Analysis) -> list[StepPair]:
    """The window steps of both captures side by side.

    Matched by number when the two windows share step numbers (a number on one
    side only is paired with nothing); else the k-th step of one window with
    the k-th of the other.
    """
    first, second = before.window_steps, after.window_steps
    by_number = {step.number: step for step in second}
    if any(step.number in by_number for step in first):
        mine = {step.number: step for step in first}
        numbers = sorted(set(mine) | set(by_number))
        return [StepPair(mine.get(number), by_number.get(number)) for number in numbers]
    return [StepPair(one, other) for one, other in zip_longest(first, second)]


class OperatorEvents:
    """The events behind each operator-table row of one capture, found on demand."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self._counted: npt.NDArray[np.bool_] | None = None
        self._ids: dict[str, list[int]] | None = None

    def of(self, name: str) -> Int64Array:
        """The events counted in row `name` (`ProfilerStep*` groups the steps), in time order."""
        trace = self.analysis.trace
        if self._counted is None or self._ids is None:
            self._counted = nesting.participants(trace, self.analysis.on_cpu)
            ids: dict[str, list[int]] = {}
            for name_id, event_name in enumerate(trace.names):
                ids.setdefault(group_name(event_name), []).append(name_id)
            self._ids = ids
        wanted = np.array(self._ids.get(name, []), dtype=np.int32)
        events = np.flatnonzero(self._counted & np.isin(trace.name_id, wanted))
        order = np.argsort(trace.start_ns[events], kind="stable")
        return events[order].astype(np.int64)


def _starting_in(analysis: Analysis, events: Int64Array, step: Step | None) -> int:
    """How many of `events` (time order) start inside `step`."""
    if step is None or events.size == 0:
        return 0
    starts = analysis.trace.start_ns[events]
    first = int(np.searchsorted(starts, step.start_ns, side="left"))
    last = int(np.searchsorted(starts, step.end_ns, side="left"))
    return last - first


@dataclass(frozen=True)
class SideOccurrences:
    """An operator's occurrences in one capture, and how many start in the step shown."""

    events: Int64Array
    step: Step | None
    in_step: int


@dataclass(frozen=True)
class AlignedOccurrences:
    """An operator shown on both captures at one pair of steps (`pair` indexes the pairs)."""

    name: str
    pair: int | None
    before: SideOccurrences
    after: SideOccurrences


def align(
    before: Analysis,
    after: Analysis,
    pairs: list[StepPair],
    name: str,
    before_events: Int64Array,
    after_events: Int64Array,
    pair: int | None = None,
) -> AlignedOccurrences:
    """The operator's occurrences at one pair of steps.

    Without `pair`: the first pair where the operator occurs on both sides,
    else on either side, else the first pair (None when no side has a step).
    """

    def counts(index: int) -> tuple[int, int]:
        return (
            _starting_in(before, before_events, pairs[index].before),
            _starting_in(after, after_events, pairs[index].after),
        )

    if pair is None and pairs:
        found = [counts(index) for index in range(len(pairs))]
        pair = next(
            (index for index, (one, two) in enumerate(found) if one and two),
            next((index for index, (one, two) in enumerate(found) if one or two), 0),
        )
    if pair is None or not pairs:
        return AlignedOccurrences(
            name,
            None,
            SideOccurrences(before_events, None, 0),
            SideOccurrences(after_events, None, 0),
        )
    pair = max(0, min(len(pairs) - 1, pair))
    in_before, in_after = counts(pair)
    return AlignedOccurrences(
        name,
        pair,
        SideOccurrences(before_events, pairs[pair].before, in_before),
        SideOccurrences(after_events, pairs[pair].after, in_after),
    )
