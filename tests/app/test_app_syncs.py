"""The host-sync reading on the timeline: selecting it marks every sync (n / N
visit them) and selects the costliest."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App

from tests.builders.syncs import sync_trace
from tests.pilot import make_app, settle
from tui.app.screens.main import MainScreen
from tui.core.base.vocab import FindingId


def test_the_syncs_marked(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """2, down, enter on the second reading (the host syncs: the device idles
    115.5 µs a step of 1 ms after them, after the dominant operator's 150 µs)
    marks the seven syncs and selects the cudaDeviceSynchronize (50 µs blocked,
    200 µs idle after)."""
    path = sync_trace(tmp_path / "syncs.json")

    def check(app: App[Any]) -> None:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.findings is not None
        assert screen.findings[1].id is FindingId.HOST_SYNC
        trace = screen.trace
        assert [trace.event_name(int(e)) for e in screen.marks] == [
            "cudaMemcpyAsync",
            "cudaStreamSynchronize",
            "cudaMemcpyAsync",
            "cudaStreamSynchronize",
            "cudaDeviceSynchronize",
            "Event Sync",
            "cudaMemcpy",
        ]
        selected = screen.timeline.selected_event
        assert selected is not None
        assert trace.event_name(selected) == "cudaDeviceSynchronize"
        assert screen.mark_label.startswith("sync")

    async def before(pilot: Any) -> None:
        await settle(pilot)
        for key in ("2", "down", "enter"):
            await pilot.press(key)
        await pilot.pause()
        check(pilot.app)

    assert snap_compare(make_app(path), terminal_size=(100, 30), run_before=before)
