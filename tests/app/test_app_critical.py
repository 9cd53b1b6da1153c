"""P marks the current step's critical path on the timeline (n / N along it)
and says what bounds it: the hand-made step of tests/unit/test_critical_path.py,
whose 545 µs path runs mm → its launch → gemm → add_kernel → the stream sync →
item → relu."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App

from tests.builders.traces import write_trace
from tests.pilot import make_app, settle
from tests.unit.test_critical_path import _events
from tui.app.screens.main import MainScreen


def test_the_critical_path_marked(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_trace(tmp_path / "step.json", _events())

    def check(app: App[Any]) -> None:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        trace = screen.trace
        assert [trace.event_name(int(e)) for e in screen.marks] == [
            "aten::mm",
            "cudaLaunchKernel",
            "gemm",
            "aten::item",
            "cudaStreamSynchronize",
            "add_kernel",
            "aten::relu",
        ]
        assert screen.mark_label.startswith("critical path")
        said = [str(n.message) for n in app._notifications]
        assert any(
            "critical path of step 1: 545 µs" in line and "compute 73.4 %" in line
            for line in said
        )

    async def before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("P")
        await pilot.pause()
        check(pilot.app)

    assert snap_compare(make_app(path), terminal_size=(100, 30), run_before=before)
