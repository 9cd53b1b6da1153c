"""The timeline's index of a trace: per track, its events by nesting depth as
searchable lanes, the steps and the annotations; built once, off the UI thread.

Nothing here depends on the data zone (see `layout.ZoneView`) or on the
screen: the same index serves every zoom, every zone and every terminal size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis
from tui.core.model.steps import Step
from tui.core.model.trace import Trace, TrackKind
from tui.view.lanes import Int64Array, Lane, lanes_of
from tui.view.memory_lane import MemoryLane, memory_lanes
from tui.view.queue_lane import QueueLane, queue_lanes

DEFAULT_DEPTH_CAP = 4
"""Depths shown per CPU thread before `x` unfolds it (the last row holds the rest)."""
EXPANDED_DEPTH_CAP = 64


@dataclass
class TimelineIndex:
    """Events of each track per depth, their lanes, the steps and annotations."""

    trace: Trace
    depth: npt.NDArray[np.int32]
    track_order: list[int]
    """Non-empty tracks in display order: the main thread, device streams,
    the other threads, then other lanes (profiler spans)."""
    labels: dict[int, str]
    """Each track's full label, escaped, distinct from every other."""
    steps: list[Step]
    step_events: Int64Array
    step_lanes: list[Lane]
    annotations: Int64Array
    """record_function ranges (not steps), sorted by start: the zones row."""
    memory: list[MemoryLane] = field(default_factory=list)
    """Allocated bytes per device (profile_memory captures only)."""
    graph_work: npt.NDArray[np.bool_] | None = None
    """Per event: device work replayed by a CUDA graph (drawn apart)."""
    queues: dict[int, QueueLane] = field(default_factory=dict)
    """Per device track, its launch queue (drawn under it when asked)."""
    _per_depth: dict[int, list[Int64Array]] = field(default_factory=dict)
    _lanes: dict[tuple[int, int, bool], list[Lane]] = field(default_factory=dict)
    _devices: dict[int | None, tuple[Int64Array, list[Lane]]] = field(
        default_factory=dict
    )

    @classmethod
    def build(
        cls,
        trace: Trace,
        analysis: Analysis,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> TimelineIndex:
        """Index every track (and the lanes of the default fold) once."""
        steps = analysis.steps
        step_events = np.array(sorted(step.event for step in steps), dtype=np.int64)
        annotations = analysis.zone_events
        annotations = annotations[
            np.argsort(trace.start_ns[annotations], kind="stable")
        ].astype(np.int64)
        index = cls(
            trace,
            analysis.depth,
            _track_order(trace, analysis),
            _track_labels(trace),
            steps,
            step_events,
            lanes_of(trace, step_events),
            annotations,
            memory_lanes(trace),
            analysis.graph_work,
            queue_lanes(analysis.launch_queue) if trace.gpu_observed else {},
        )
        for track in index.track_order:
            if cancelled():
                break
            index.rows_of(track, DEFAULT_DEPTH_CAP)
        return index

    def per_depth(self, track: int) -> list[Int64Array]:
        """Events of a track per nesting depth, each sorted by start."""
        cached = self._per_depth.get(track)
        if cached is not None:
            return cached
        trace = self.trace
        span = trace.track_slice(track)
        if trace.tracks[track].kind == TrackKind.CPU:
            depth = self.depth[span]
            top = int(depth.max()) if depth.size else 0
            order = np.argsort(depth, kind="stable")
            bounds = np.searchsorted(depth[order], np.arange(top + 2))
            per_depth = [
                (order[bounds[d] : bounds[d + 1]] + span.start).astype(np.int64)
                for d in range(top + 1)
            ]
        else:
            per_depth = [np.arange(span.start, span.stop, dtype=np.int64)]
        self._per_depth[track] = per_depth
        return per_depth

    def rows_of(self, track: int, cap: int) -> list[tuple[int, int, list[Lane]]]:
        """(depth, deeper depths folded in, lanes) of each row of a track under a cap."""
        per_depth = self.per_depth(track)
        shown = min(len(per_depth), max(cap, 1))
        rows = []
        for depth in range(shown):
            deeper = len(per_depth) - shown if depth == shown - 1 else 0
            rows.append((depth, deeper, self.lanes(track, depth, deeper > 0)))
        return rows

    def lanes(self, track: int, depth: int, with_deeper: bool) -> list[Lane]:
        """Lanes of one depth of a track (with every deeper depth when folded)."""
        key = (track, depth, with_deeper)
        cached = self._lanes.get(key)
        if cached is None:
            per_depth = self.per_depth(track)
            if with_deeper:
                events = np.sort(np.concatenate(per_depth[depth:]))
            else:
                events = per_depth[depth]
            cached = lanes_of(self.trace, events)
            self._lanes[key] = cached
        return cached

    def device_streams(self) -> dict[int | None, list[int]]:
        """Each device's stream tracks, in display order."""
        tracks = self.trace.tracks
        streams: dict[int | None, list[int]] = {}
        for track in self.track_order:
            if tracks[track].kind == TrackKind.DEVICE:
                streams.setdefault(tracks[track].device, []).append(track)
        return streams

    def device_lanes(
        self, device: int | None, streams: list[int]
    ) -> tuple[Int64Array, list[Lane]]:
        """The events of a device's streams (sorted, to find one) and their
        lanes drawn as one row: busy wherever any stream is."""
        cached = self._devices.get(device)
        if cached is None:
            events = np.sort(
                np.concatenate([self.per_depth(track)[0] for track in streams])
            ).astype(np.int64)
            by_start = events[np.argsort(self.trace.start_ns[events], kind="stable")]
            cached = (events, lanes_of(self.trace, by_start))
            self._devices[device] = cached
        return cached

    def depth_of(self, event: int) -> int:
        """The row depth an event is drawn at on its track."""
        track = int(self.trace.track[event])
        if self.trace.tracks[track].kind == TrackKind.CPU:
            return int(self.depth[event])
        return 0


def _track_order(trace: Trace, analysis: Analysis) -> list[int]:
    """The main thread first (it holds the steps, or launches the most device
    work), then device streams, other threads and other lanes, so a small
    terminal shows the first stream on its first screen."""
    counts = np.diff(trace.track_start)
    present = [track for track in trace.tracks if counts[track.index] > 0]
    cpu = [track.index for track in present if track.kind == TrackKind.CPU]
    main: int | None = None
    if analysis.steps:
        main = int(trace.track[analysis.steps[0].event])
    elif trace.gpu_observed and cpu:
        owners = analysis.gpu_owner[analysis.gpu_owner >= 0]
        if owners.size:
            launching = np.bincount(trace.track[owners], minlength=len(trace.tracks))
            main = int(np.argmax(launching))
    if main not in cpu:
        main = None
    order_of_kind = {TrackKind.CPU: 1, TrackKind.DEVICE: 0, TrackKind.OTHER: 2}
    rest = sorted(
        (track for track in present if track.index != main),
        key=lambda track: (
            order_of_kind[track.kind] if main is not None else track.kind.value,
            track.index,
        ),
    )
    return ([main] if main is not None else []) + [track.index for track in rest]


def _track_labels(trace: Trace) -> dict[int, str]:
    """Escaped labels; the process is named when threads come from several,
    and a label two tracks share is numbered."""
    several_processes = (
        len({str(t.pid) for t in trace.tracks if t.kind == TrackKind.CPU}) > 1
    )
    labels: dict[int, str] = {}
    seen: dict[str, int] = {}
    for track in trace.tracks:
        name = printable(track.label)
        if track.kind == TrackKind.CPU and several_processes:
            name = f"{printable(str(track.pid))} {name}"
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
        labels[track.index] = name
    return labels
