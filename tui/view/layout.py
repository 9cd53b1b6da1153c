"""The timeline's layout: which rows, in which order, with which lanes and gap marks.

Rows come from the index (zone-independent) and from a `ZoneView` (what the
data zone in use marks); gap marks are the core's gap intervals, as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tui.core.base.distinct import distinct
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import GapKind, RowRole
from tui.core.figures.analysis import Analysis
from tui.core.model.trace import TrackKind
from tui.view.labels import distinct_labels
from tui.view.lanes import BoolArray, Int64Array, Lane, lanes_of
from tui.view.memory_lane import MemoryLane
from tui.view.queue_lane import QueueLane
from tui.view.timeline_index import (
    DEFAULT_DEPTH_CAP,
    EXPANDED_DEPTH_CAP,
    TimelineIndex,
)

GAP_GLYPH = "░"
"""Drawn over device-idle (or untraced) time: readable without colour."""

Bounds = tuple[Int64Array, Int64Array]


def _bounds(intervals: Intervals) -> Bounds:
    return intervals.starts, intervals.ends


@dataclass(eq=False)
class Row:
    """One line of the timeline."""

    role: RowRole
    label: str
    lanes: list[Lane] = field(default_factory=list)
    track: int | None = None
    depth: int = 0
    first_of_track: bool = False
    deeper: int = 0
    gaps: Bounds | None = None
    """Sorted disjoint gap intervals drawn on this row (the core's, as they are)."""
    members: Int64Array | None = None
    """Sorted events of a header row, to tell whether it draws an event."""
    memory: MemoryLane | None = None
    """The allocated bytes a memory row draws."""
    queue: QueueLane | None = None
    """The launch queue a queue row draws."""
    device: int | None = None
    """The device a device row draws the streams of."""


@dataclass(frozen=True)
class ZoneView:
    """What the data zone in use changes on the timeline: the zones row, the
    colour of zone occurrences, and the gap marks per device and overall."""

    data_zone_mask: BoolArray
    members: Int64Array
    lanes: list[Lane]
    gap_union: Bounds
    gaps_by_device: dict[int | None, Bounds]
    gap_kind: GapKind
    has_gaps: bool

    @classmethod
    def build(cls, index: TimelineIndex, analysis: Analysis) -> ZoneView:
        """Read the analysis's zone: its occurrences and its gap intervals."""
        trace = index.trace
        reading = analysis.zone_reading
        mask = np.zeros(trace.event_count, dtype=np.bool_)
        mask[reading.zone_events] = True
        members = distinct(
            np.concatenate([index.annotations, reading.zone_events]).astype(np.int64)
        )
        by_start = members[np.argsort(trace.start_ns[members], kind="stable")]
        return cls(
            mask,
            members,
            lanes_of(trace, by_start) if members.size else [],
            _bounds(reading.gap_union),
            {
                device: _bounds(intervals)
                for device, intervals in reading.gap_intervals.items()
            },
            reading.kind,
            bool(reading.gaps),
        )


@dataclass
class TimelineLayout:
    """Header rows (fixed on top) then track rows (scrolled)."""

    header: list[Row]
    body: list[Row]
    _labels: dict[int, list[str]] = field(default_factory=dict)

    @property
    def rows(self) -> list[Row]:
        """Every row, header first."""
        return self.header + self.body

    def first_track_row(self) -> int:
        """Index of the first track row (where the cursor starts)."""
        return len(self.header) if self.body else 0

    def track_labels(self, width: int) -> dict[int, str]:
        """The first-row label of each track fitted to `width`, all distinct."""
        cached = self._labels.get(width)
        if cached is None:
            firsts = [row for row in self.body if row.first_of_track]
            cached = distinct_labels([row.label for row in firsts], width)
            self._labels[width] = cached
        tracks = [row.track for row in self.body if row.first_of_track]
        return {
            track: label
            for track, label in zip(tracks, cached, strict=True)
            if track is not None
        }


def build_layout(
    index: TimelineIndex,
    zone: ZoneView,
    expanded: set[int] | frozenset[int] = frozenset(),
    first_cap: int = DEFAULT_DEPTH_CAP,
    queues: bool = False,
    unfolded: set[int | None] | frozenset[int | None] = frozenset(),
) -> TimelineLayout:
    """Rows: axis, steps, zones, then the tracks in the index's order, with one
    memory row per device after the device streams (after the main thread when
    there is none) when the capture holds memory events; with `queues`, each
    device stream's launch queue under it.

    `first_cap` folds the first track (the main thread) to fewer depths so
    that, on a small terminal, the first device stream still shows. A device
    of several streams gets one row of them all before them (busy wherever
    any is), and its stream rows only when `unfolded` holds it or `queues`
    are shown (each under its stream).
    """
    trace = index.trace
    body: list[Row] = []
    memory_after = _memory_position(index)
    several = {
        device: streams
        for device, streams in index.device_streams().items()
        if len(streams) > 1
    }
    for position, track_index in enumerate(index.track_order):
        track = trace.tracks[track_index]
        streams = several.get(track.device) if track.kind == TrackKind.DEVICE else None
        if streams is not None and streams[0] == track_index:
            body.append(device_row(index, zone, track.device, streams))
        if streams is not None and track.device not in unfolded and not queues:
            if position == memory_after:
                body += memory_rows(index)
            continue
        if track_index in expanded:
            cap = EXPANDED_DEPTH_CAP
        elif position == 0:
            cap = first_cap
        else:
            cap = DEFAULT_DEPTH_CAP
        body += track_rows(index, zone, track_index, cap)
        lane = index.queues.get(track_index) if queues else None
        if lane is not None:
            body.append(Row(RowRole.QUEUE, lane.label, queue=lane))
        if position == memory_after:
            body += memory_rows(index)
    if memory_after < 0:
        body += memory_rows(index)
    return TimelineLayout(header_rows(index, zone), body)


def header_rows(index: TimelineIndex, zone: ZoneView) -> list[Row]:
    """The rows fixed on top: the axis, the steps, the zones with their gaps."""
    header = [Row(RowRole.AXIS, "")]
    if index.steps:
        header.append(
            Row(
                RowRole.STEPS,
                "steps",
                index.step_lanes,
                members=index.step_events,
            )
        )
    if zone.members.size or zone.gap_union[0].size:
        legend = f" {GAP_GLYPH} {zone.gap_kind.short_label}" if zone.has_gaps else ""
        header.append(
            Row(
                RowRole.ZONES,
                "zones" + legend,
                zone.lanes,
                gaps=zone.gap_union,
                members=zone.members,
            )
        )
    return header


def track_rows(
    index: TimelineIndex, zone: ZoneView, track_index: int, cap: int
) -> list[Row]:
    """A track's rows under a depth cap (a device stream's with its idle gaps)."""
    track = index.trace.tracks[track_index]
    gaps = None
    if track.kind == TrackKind.DEVICE and zone.gap_kind is GapKind.GPU_IDLE:
        gaps = zone.gaps_by_device.get(track.device)
    return [
        Row(
            RowRole.TRACK,
            index.labels[track_index],
            lanes,
            track=track_index,
            depth=depth,
            first_of_track=depth == 0,
            deeper=deeper,
            gaps=gaps,
        )
        for depth, deeper, lanes in index.rows_of(track_index, cap)
    ]


def device_row(
    index: TimelineIndex, zone: ZoneView, device: int | None, streams: list[int]
) -> Row:
    """One row of a device's streams as one: `GPU 0 ×4 streams`."""
    members, lanes = index.device_lanes(device, streams)
    name = "device" if device is None else f"GPU {device}"
    gaps = (
        zone.gaps_by_device.get(device) if zone.gap_kind is GapKind.GPU_IDLE else None
    )
    return Row(
        RowRole.DEVICE,
        f"{name} ×{len(streams)} streams",
        lanes,
        gaps=gaps,
        members=members,
        device=device,
    )


def memory_rows(index: TimelineIndex) -> list[Row]:
    """One row per device with memory events: its allocated bytes."""
    return [
        Row(RowRole.MEMORY, f"alloc {lane.label}", memory=lane) for lane in index.memory
    ]


def _memory_position(index: TimelineIndex) -> int:
    """The track position after which memory rows go: the last device stream,
    else the first track (the main thread); -1 when there is no track."""
    tracks = index.trace.tracks
    devices = [
        position
        for position, track in enumerate(index.track_order)
        if tracks[track].kind == TrackKind.DEVICE
    ]
    if devices:
        return devices[-1]
    return 0 if index.track_order else -1


def first_cap_for(index: TimelineIndex, visible_body_rows: int) -> int:
    """How many depths the main thread may take so the first stream still shows."""
    order = index.track_order
    trace = index.trace
    if len(order) < 2 or trace.tracks[order[1]].kind != TrackKind.DEVICE:
        return DEFAULT_DEPTH_CAP
    return max(1, min(DEFAULT_DEPTH_CAP, visible_body_rows - 1))
