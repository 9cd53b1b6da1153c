"""What would make the steps or the trace's span silently wrong, named.

A step record written twice is counted once (`find_steps`); two different
steps sharing one number are both kept; steps on another thread than the one
holding the most are left out; events more than a day away from the rest of
the trace (a timestamp of 0 or -1 among epoch times) stretch its span. Each
is a line of the capture's warnings, saying what was done.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import numpy.typing as npt

from tui.core.base.units import duration_text
from tui.core.model.steps import STEP_PREFIX, step_numbers, step_records
from tui.core.model.trace import Trace

# No profiler capture has a day without an event: a gap that long splits off
# events whose clock was not the trace's (0, -1, another epoch).
STRAY_GAP_NS = 86_400 * 10**9


def step_warnings(trace: Trace, on_cpu: npt.NDArray[np.bool_]) -> list[str]:
    """Repeated step records, step numbers naming several steps, steps on other threads."""
    step_ids = step_numbers(trace)
    records, main_track = step_records(trace, on_cpu, step_ids)
    if main_track is None:
        return []
    warnings: list[str] = []
    on_main = trace.track[records] == main_track
    spans: dict[int, Counter[tuple[int, int]]] = defaultdict(Counter)
    for event in records[on_main].tolist():
        number = step_ids[int(trace.name_id[event])]
        spans[number][int(trace.start_ns[event]), int(trace.duration_ns[event])] += 1
    for number in sorted(spans):
        name = f"{STEP_PREFIX}{number}"
        repeated = sum(count - 1 for count in spans[number].values())
        if repeated:
            times = "twice" if repeated == 1 else f"{repeated + 1} times"
            warnings.append(
                f"{name} is recorded {times} with the same start and length: "
                "counted once"
            )
        if len(spans[number]) > 1:
            warnings.append(
                f"{name} names {len(spans[number])} different steps: all kept, "
                "in time order"
            )
    main_spans = {
        (start, length) for counter in spans.values() for start, length in counter
    }
    others = [
        event
        for event in records[~on_main].tolist()
        if (int(trace.start_ns[event]), int(trace.duration_ns[event])) not in main_spans
    ]
    if others:
        threads = sorted(
            {trace.tracks[int(trace.track[e])].tid for e in others}, key=str
        )
        count = len(others)
        warnings.append(
            f"{count} step{'s' if count != 1 else ''} on another thread "
            f"({', '.join(f'tid {tid}' for tid in threads[:3])}) left out: steps are "
            "read on the thread that holds the most of them"
        )
    return warnings


def stray_timestamp_warnings(trace: Trace) -> list[str]:
    """Events more than a day away from the rest of the trace, counted once."""
    starts = trace.start_ns
    # A span within a day has no gap of a day: no sort of every start
    # (every command asks this of the trace it opens).
    if starts.size < 2 or int(starts.max()) - int(starts.min()) <= STRAY_GAP_NS:
        return []
    ordered = np.sort(starts)
    cuts = np.flatnonzero(np.diff(ordered) > STRAY_GAP_NS) + 1
    if cuts.size == 0:
        return []
    bounds = np.concatenate(([0], cuts, [ordered.size]))
    sizes = np.diff(bounds)
    main = int(np.argmax(sizes))
    stray = int(ordered.size - sizes[main])
    low, high = int(ordered[bounds[main]]), int(ordered[bounds[main + 1] - 1])
    farthest = max(int(low - ordered[0]), int(ordered[-1] - high))
    return [
        f"{stray} event{'s' if stray != 1 else ''} start far outside the rest of "
        f"the trace (up to {_far_text(farthest)} away, e.g. a timestamp of 0): "
        "they stretch the trace's span; the steps leave them out"
    ]


def _far_text(nanoseconds: int) -> str:
    """Days past a day (52 years reads as 19,000 days, not 1.6e9 s)."""
    if nanoseconds >= STRAY_GAP_NS:
        return f"{nanoseconds / STRAY_GAP_NS:,.0f} days"
    return duration_text(nanoseconds)


def integrity_warnings(trace: Trace, on_cpu: npt.NDArray[np.bool_]) -> list[str]:
    """Every warning of this module, steps first."""
    return [*step_warnings(trace, on_cpu), *stray_timestamp_warnings(trace)]
