"""Profiler steps (`ProfilerStep#N`): the unit every per-step figure is cut by."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.base.grouped import exact_median
from tui.core.base.vocab import StepPhase
from tui.core.model.masks import names_in
from tui.core.model.trace import Trace

Int64Array = npt.NDArray[np.int64]

# Step numbers beyond 18 digits are not steps torch wrote (and do not fit in int64).
STEP_PREFIX = "ProfilerStep#"
STEP_NAME = re.compile(r"^ProfilerStep#(-?\d{1,18})$")


@dataclass(frozen=True)
class Step:
    """One profiler step (`ProfilerStep#N`)."""

    number: int
    event: int
    start_ns: int
    duration_ns: int
    phase: StepPhase

    @property
    def end_ns(self) -> int:
        """When the step ends."""
        return self.start_ns + self.duration_ns


def find_steps(trace: Trace, on_cpu: npt.NDArray[np.bool_]) -> list[Step]:
    """Profiler steps in time order, on the CPU thread that has the most of them.

    Steps the capture description does not list as active are start-up.
    """
    names = trace.names
    step_ids = {
        index: int(match.group(1))
        for index in trace.name_ids_starting(STEP_PREFIX).tolist()
        if (match := STEP_NAME.match(names[index]))
    }
    if not step_ids:
        return []
    candidates = np.flatnonzero(on_cpu & names_in(trace, list(step_ids)))
    if candidates.size == 0:
        return []
    tracks, counts = np.unique(trace.track[candidates], return_counts=True)
    main_track = tracks[np.argmax(counts)]
    candidates = candidates[trace.track[candidates] == main_track]
    active = trace.capture.active_steps
    steps = []
    for event in candidates.tolist():
        number = step_ids[int(trace.name_id[event])]
        phase = (
            StepPhase.ACTIVE
            if active is None or number in active
            else StepPhase.STARTUP
        )
        steps.append(
            Step(
                number,
                event,
                int(trace.start_ns[event]),
                int(trace.duration_ns[event]),
                phase,
            )
        )
    steps.sort(key=lambda step: step.start_ns)
    return steps


def step_name_ids(trace: Trace) -> npt.NDArray[np.int32]:
    """Name ids of `ProfilerStep#N` names."""
    names = trace.names
    return np.array(
        [
            index
            for index in trace.name_ids_starting(STEP_PREFIX).tolist()
            if STEP_NAME.match(names[index])
        ]
        or [-1],
        dtype=np.int32,
    )


@dataclass(frozen=True)
class StepStats:
    """Median, min and max of step durations: a few steps show the mechanism, not a distribution."""

    count: int
    median_ns: float
    min_ns: int
    max_ns: int

    @classmethod
    def of(cls, durations_ns: list[int]) -> StepStats | None:
        """The stats of some durations; None without any."""
        if not durations_ns:
            return None
        return cls(
            len(durations_ns),
            exact_median(durations_ns),
            min(durations_ns),
            max(durations_ns),
        )
