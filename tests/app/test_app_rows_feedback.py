"""A key that adds rows to the timeline says so, and says when they land out of
view: Q's launch queues, x's unfolded track pushing the device streams down."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import shared_traces as shared
from tests.pilot import info, main_screen, make_app, pilot_test

OUT_OF_VIEW = "out of view (shift+↓ walks the tracks)"


async def _said_after(path: Path, size: tuple[int, int], *keys: str) -> str:
    app = make_app(path)
    async with app.run_test(size=size) as pilot:
        screen = await main_screen(pilot)
        await pilot.press(*keys)
        for _ in range(5):  # the rows laid out, then said
            await pilot.pause()
        return info(screen)


@pilot_test
async def test_queues_below_a_small_view_are_said(cuda_trace: Path) -> None:
    said = await _said_after(cuda_trace, (80, 24), "Q")
    assert said == f"1 launch queue shown; 1 launch queue {OUT_OF_VIEW}"
    assert await _said_after(cuda_trace, (80, 24), "Q", "Q") == (
        "launch queues hidden (Q shows them)"
    )


@pilot_test
async def test_queues_in_view_are_only_counted(cuda_trace: Path) -> None:
    assert await _said_after(cuda_trace, (200, 60), "Q") == "1 launch queue shown"


@pilot_test
async def test_unfolding_the_main_thread_says_the_stream_went_down(
    cuda_trace: Path,
) -> None:
    said = await _said_after(cuda_trace, (80, 24), "x")
    assert said == f"track unfolded; 1 device stream {OUT_OF_VIEW}"
    assert await _said_after(cuda_trace, (200, 60), "x") == "track unfolded"


MULTI_STREAM = (
    shared.FOLDER
    / "critical_path-cuda_event_sync_multi_stream-event_sync_trace.json.gz"
)


@pytest.mark.usefixtures("shared_traces", "isolated_data_dir")
@pilot_test
async def test_x_on_a_device_row_unfolds_its_streams() -> None:
    """Four streams of GPU 0 are one row at 80x24; x there shows them under it."""
    said = await _said_after(MULTI_STREAM, (80, 24), "shift+down", "x")
    assert said == "GPU 0 ×4 streams: unfolded (x folds them)"
    folded = await _said_after(MULTI_STREAM, (80, 24), "shift+down", "x", "x")
    assert folded == "GPU 0 ×4 streams: folded into one row (x)"
