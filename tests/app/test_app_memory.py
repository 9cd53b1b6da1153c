"""Memory in the app through Pilot: a lane per device on a profile_memory capture,
the step's peaks on the status line from the raw events, none without memory
events, and the help saying why."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.builders.app_traces import write_training_trace
from tests.builders.memory import write_memory_trace
from tests.pilot import info, make_app, pilot_test, screen_text, settle
from tui.app.screens.help import HelpScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.timeline import Timeline
from tui.core.base.units import size_text
from tui.core.base.vocab import RowRole


@pytest.fixture
def memory_trace(tmp_path: Path, isolated_data_dir: Path) -> Path:
    return write_memory_trace(tmp_path / "memory.json")


def raw_step_peaks(path: Path, start_us: float, end_us: float) -> dict[str, int]:
    """Per device, the highest Total Allocated in [start, end) and of the level the
    step starts at, by a loop over the raw `[memory]` events."""
    events = json.loads(path.read_text())["traceEvents"]
    memory = sorted(
        (e for e in events if e.get("name") == "[memory]"), key=lambda e: e["ts"]
    )
    peaks: dict[str, int] = {}
    for label, device_type in (("cpu", 0), ("cuda:0", 1)):
        mine = [e for e in memory if e["args"]["Device Type"] == device_type]
        before = [e for e in mine if e["ts"] < start_us]
        inside = [e for e in mine if start_us <= e["ts"] < end_us]
        totals = [e["args"]["Total Allocated"] for e in inside]
        if before:
            totals.append(before[-1]["args"]["Total Allocated"])
        peaks[label] = max(totals)
    return peaks


@pilot_test
async def test_lanes_and_step_peaks(memory_trace: Path) -> None:
    app = make_app(memory_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        memory = [row for row in timeline._rows if row.role is RowRole.MEMORY]
        assert [row.label for row in memory] == ["alloc cpu", "alloc cuda:0"]
        for press in range(3):
            await pilot.press("right_square_bracket")
            step = screen.analysis.steps[press]
            origin_us = screen.trace.origin_ns / 1000
            peaks = raw_step_peaks(
                memory_trace,
                origin_us + step.start_ns / 1000,
                origin_us + step.end_ns / 1000,
            )
            said = info(screen)
            assert f"step {step.number}" in said
            assert "alloc peak " in said
            for label, peak in peaks.items():
                assert f" {label} {size_text(peak)}" in said
        # The lane's label names the peak in view: the last step's cuda:0 peak.
        await pilot.pause()
        line = timeline.render_line(
            next(
                i for i, row in enumerate(timeline._rows) if row.label == "alloc cuda:0"
            )
        )
        assert re.search(r"alloc cuda:0 \d", line.text)


@pilot_test
async def test_a_wide_step_line_names_the_operator_of_the_peak(
    memory_trace: Path,
) -> None:
    """Room enough: the step's cuda:0 peak is reached in the entrainement range
    (the fourth activation, by construction), as memory --timeline says."""
    app = make_app(memory_trace)
    async with app.run_test(size=(200, 36)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert "cuda:0 peak in entrainement" in info(app.screen)


@pilot_test
async def test_no_memory_events_no_lane_and_the_help_says_why(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_training_trace(tmp_path / "plain.json")
    app = make_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        timeline = screen.query_one(Timeline)
        assert all(row.role is not RowRole.MEMORY for row in timeline._rows)
        await pilot.press("right_square_bracket")
        assert "alloc peak" not in info(screen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(
            str(static.render()) for static in app.screen.query("Static")
        ).replace("\n", " ")
        assert "no allocated-bytes lane" in text
        assert "holds no [memory] events" in text
        assert "profile_memory=True" in text


def test_memory_lane_picture(
    snap_compare: Callable[..., bool], memory_trace: Path
) -> None:
    """] on a profile_memory capture: a lane per device under the stream, each cell
    its peak in eighths of the view's peak, the step's peaks on the status line."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        lines = screen_text(pilot.app).splitlines()
        lanes = [line for line in lines if line.startswith("alloc ")]
        assert [lane.split()[1] for lane in lanes] == ["cpu", "cuda:0"]
        stream = next(
            i for i, line in enumerate(lines) if line.startswith("GPU 0 stream")
        )
        assert lines[stream + 1 : stream + 3] == lanes  # under the stream
        cells = set("".join(lane.split("│", 1)[1] for lane in lanes))
        assert cells <= set(" ▁▂▃▄▅▆▇█")  # eighths of the view's peak
        status = next(line for line in lines if line.startswith(" step 2 (active)"))
        assert "alloc peak cuda:0 12 MiB cpu 2 MiB" in status

    assert snap_compare(
        make_app(memory_trace), terminal_size=(120, 36), run_before=before
    )
