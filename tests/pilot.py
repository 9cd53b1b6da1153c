"""Pilot helpers, once for every app test: build the explorer from a trace
file, run an async test, wait until the app or a tab settles, read what a
screen shows.

Tests never read from `~` or the environment: traces are written under
tmp_path by `tests.builders`, and notes fall back under tmp_path too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

from tui.app.app import StepTraceApp
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.rows_view import RowsView


async def workers_finished(app: App[Any]) -> None:
    """Wait until no worker runs. A worker of a screen dismissed as its last
    message arrived (the load worker of the loading screen) is cancelled by
    Textual, and `wait_for_complete` raises for it: it is finished all the same
    (CI failed on it now and then, as the loading screen went)."""
    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


def make_app(path: Path | str) -> StepTraceApp:
    """The app on one trace, with animations off for stable pictures."""
    app = StepTraceApp(Path(path))
    app.animation_level = "none"
    return app


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for the load worker and for the screen it leads to."""
    app = pilot.app
    for _ in range(200):
        await workers_finished(app)
        await pilot.pause()
        if isinstance(app.screen, (MainScreen, LoadErrorScreen)):
            break
    await pilot.pause()
    await pilot.pause()


async def main_screen(pilot: Pilot[Any]) -> MainScreen:
    """The main screen, once the load has settled on it."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


def pilot_test(
    test: Callable[..., Coroutine[Any, Any, None]],
) -> Callable[..., None]:
    """Run an async Pilot test in its own event loop (no async pytest plugin here)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def workers_done(pilot: Pilot[Any]) -> None:
    """Let a tab shown by the last key start its worker, finish, and draw."""
    for _ in range(3):
        await pilot.pause()
        await workers_finished(pilot.app)
    await pilot.pause()


def info(screen: MainScreen) -> str:
    """The status line's words."""
    return str(screen.query_one("#info-line").render())


def shown_lines(view: RowsView, width: int = 200) -> list[str]:
    """Every line of a tab (not only those on screen), headings included."""
    return [view.line_text(index, width) for index in range(view.line_count())]


def screen_text(app: App[Any]) -> str:
    """What the screen on top draws, line by line, as plain text: the words a
    snapshot's picture shows, for asserting its claims beside it."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def shown_keys(screen: Screen[Any]) -> set[str]:
    """The keys the footer offers now (enabled and shown)."""
    return {
        key
        for key, active in screen.active_bindings.items()
        if active.enabled and active.binding.show
    }
