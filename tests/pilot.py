"""Build the explorer from fixture files, and wait until it settles.

Tests never read from `~` or the environment: traces are written under
tmp_path by `fixtures_app`, and notes fall back under tmp_path too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tui.app.app import StepTraceApp
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen


def make_app(path: Path | str) -> StepTraceApp:
    """The app on one trace, with animations off for stable pictures."""
    app = StepTraceApp(Path(path))
    app.animation_level = "none"
    return app


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for the load worker and for the screen it leads to."""
    app = pilot.app
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if isinstance(app.screen, (MainScreen, LoadErrorScreen)):
            break
    await pilot.pause()
    await pilot.pause()
