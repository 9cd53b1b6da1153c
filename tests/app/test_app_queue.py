"""The launch queue in the app: Q draws, under each device stream, its queue
(ops launched and not yet started, HTA's queue length) as a lane of level
glyphs; Q again hides it. The capture is tests/builders/queue.py's, whose
queue is known by construction (stream 7 reads 1, 2, 3, 2, 1, 0)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.builders.queue import write_queue_trace
from tests.pilot import make_app, pilot_test, screen_text, settle
from tui.app.screens.main import MainScreen
from tui.app.widgets.timeline import Timeline
from tui.core.base.vocab import RowRole
from tui.view.cells import Viewport


@pytest.fixture
def queue_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_queue_trace(tmp_path / "queue.json")


@pilot_test
async def test_q_shows_each_streams_queue_under_it(queue_trace: Path) -> None:
    app = make_app(queue_trace)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        assert all(row.role is not RowRole.QUEUE for row in timeline._rows)
        await pilot.press("Q")
        await pilot.pause()
        rows = timeline._rows
        queues = [i for i, row in enumerate(rows) if row.role is RowRole.QUEUE]
        assert [rows[i].label for i in queues] == ["queue ≤3", "queue ≤2"]
        for position in queues:
            above = rows[position - 1]
            assert above.role is RowRole.TRACK and above.track is not None
            lane = rows[position].queue
            assert lane is not None and lane.queue.track == above.track
        # Stream 7's first 300 µs in three cells: 3 (the launches), 2 then 1
        # (two starts), 0 (the last start, at 200 µs: nothing queued after).
        lane = rows[queues[0]].queue
        assert lane is not None
        origin = int(lane.queue.time_ns[0])
        view = Viewport(origin, origin + 300_000, 3)
        assert lane.cells(view).tolist() == [3, 2, 0]
        assert lane.glyphs(view) == "█▆ "
        await pilot.press("Q")
        await pilot.pause()
        assert all(row.role is not RowRole.QUEUE for row in timeline._rows)


def test_queue_lane_picture(
    snap_compare: Callable[..., bool], queue_trace: Path
) -> None:
    """Q: a yellow lane under each stream, each cell its longest queue in
    eighths of the stream's longest (the label says it: ≤3, ≤2)."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("Q")
        await pilot.pause()
        lines = screen_text(pilot.app).splitlines()
        lanes = [line for line in lines if line.startswith("queue ≤")]
        assert len(lanes) == 2

    assert snap_compare(
        make_app(queue_trace), terminal_size=(100, 24), run_before=before
    )
