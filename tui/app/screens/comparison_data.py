"""What the comparison screen shows, computed off the UI thread (no Textual here).

`compare` loads the other capture, puts both on the same data zone names,
computes the `TraceDiff` (the figures of `steptrace diff`), pairs the two
windows' steps, and indexes the other capture's timeline. The capture already
open keeps its timeline index.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.diff import TraceDiff, shared_zone
from tui.core.diff.occurrences import OperatorEvents, StepPair, step_pairs
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import LoadProgress
from tui.core.model.trace import Trace
from tui.view.layout import ZoneView
from tui.view.timeline_index import TimelineIndex


class ComparisonRefused(Exception):
    """The comparison cannot be made as asked (lines say why)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class CompareRequest:
    """The capture to compare the open one with, and how to read the pair.

    `sort`: self or total time first (calls or name order the table by those);
    `device`: the clock changes are ordered on (None: GPU when both sides have
    it); `by_shape`: match operators by name and input shapes; `zones`: the
    data zone both sides read (none: both default zones together).
    """

    path: Path
    sort: SortKey = SortKey.SELF
    device: TimeDevice | None = None
    by_shape: bool = False
    zones: tuple[str, ...] = ()


@dataclass
class Side:
    """One capture of the pair, ready for a timeline."""

    path: Path
    trace: Trace
    analysis: Analysis
    index: TimelineIndex
    zone_view: ZoneView
    operators: OperatorEvents


@dataclass
class Comparison:
    """Both captures, their diff, and their window steps side by side."""

    before: Side
    after: Side
    diff: TraceDiff
    pairs: list[StepPair]


def compare(
    before_path: Path,
    before: Analysis,
    before_index: TimelineIndex,
    request: CompareRequest,
    *,
    progress: Callable[[LoadProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> Comparison:
    """Load `request.path` and compare the open capture (before) with it.

    TraceLoadError for an unreadable file, ComparisonRefused for a data zone in
    neither capture, core LoadCancelled when `cancel` is set.
    """
    from tui.core.base.errors import LoadCancelled
    from tui.core.opening.capture import open_beside
    from tui.core.opening.zones import ZoneRefusal
    from tui.report.refusals import zone_refusal_lines

    pair = open_beside(
        before, request.path, asked=request.zones, progress=progress, cancel=cancel
    )
    if isinstance(pair, ZoneRefusal):
        raise ComparisonRefused(zone_refusal_lines(pair))
    before, after = pair.before, pair.after
    trace = after.trace
    before, after = shared_zone(before, after)
    diff = TraceDiff.of(before, after, by_shape=request.by_shape)
    if cancel is not None and cancel.is_set():
        raise LoadCancelled()
    index = TimelineIndex.build(
        trace, after, cancel.is_set if cancel is not None else lambda: False
    )
    if cancel is not None and cancel.is_set():
        raise LoadCancelled()
    return Comparison(
        Side(
            before_path,
            before.trace,
            before,
            before_index,
            ZoneView.build(before_index, before),
            OperatorEvents(before),
        ),
        Side(
            request.path,
            trace,
            after,
            index,
            ZoneView.build(index, after),
            OperatorEvents(after),
        ),
        diff,
        step_pairs(before, after),
    )
