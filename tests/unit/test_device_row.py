"""A device of several streams is one timeline row, busy wherever any stream
is, its streams folded under it until x unfolds them; a device of one
stream keeps its stream's row alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests import shared_traces as shared
from tests.builders.app_traces import write_training_trace
from tui.core.base.vocab import RowRole
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import TrackKind
from tui.view.layout import Row, ZoneView, build_layout
from tui.view.navigation import row_of
from tui.view.timeline_index import TimelineIndex

MULTI_STREAM = (
    shared.FOLDER
    / "critical_path-cuda_event_sync_multi_stream-event_sync_trace.json.gz"
)


def _index(path: Path) -> tuple[TimelineIndex, ZoneView]:
    trace = load_trace(path)
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    return index, ZoneView.build(index, analysis)


def _stream_rows(rows: list[Row], index: TimelineIndex) -> list[Row]:
    tracks = index.trace.tracks
    return [
        row
        for row in rows
        if row.role is RowRole.TRACK
        and row.track is not None
        and tracks[row.track].kind == TrackKind.DEVICE
    ]


@pytest.mark.usefixtures("shared_traces")
def test_several_streams_fold_into_one_device_row() -> None:
    index, zone = _index(MULTI_STREAM)
    streams = index.device_streams()[0]
    assert len(streams) == 4
    folded = build_layout(index, zone)
    (device,) = [row for row in folded.body if row.role is RowRole.DEVICE]
    assert device.label == "GPU 0 ×4 streams" and device.device == 0
    assert not _stream_rows(folded.body, index)
    # Every event of the four streams is on it, and found there.
    trace = index.trace
    events = np.concatenate(
        [np.arange(*trace.track_slice(t).indices(trace.event_count)) for t in streams]
    )
    assert device.members is not None and set(device.members.tolist()) == set(
        events.tolist()
    )
    where = row_of(index, folded, int(events[0]))
    assert where is not None and folded.rows[where] is device
    unfolded = build_layout(index, zone, unfolded={0})
    rows = unfolded.body
    assert [row.track for row in _stream_rows(rows, index)] == streams
    position = rows.index(next(row for row in rows if row.role is RowRole.DEVICE))
    assert rows[position + 1].track == streams[0]  # the streams under it


def test_one_stream_keeps_its_own_row(tmp_path: Path, isolated_data_dir: Path) -> None:
    index, zone = _index(write_training_trace(tmp_path / "t.json", gpu=True))
    layout = build_layout(index, zone)
    assert not [row for row in layout.body if row.role is RowRole.DEVICE]
    assert len(_stream_rows(layout.body, index)) == 1
