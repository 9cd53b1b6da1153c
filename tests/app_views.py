"""Helpers for Pilot tests of the bottom tabs that read their figures in a worker."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot

from tui.app.screens.main import MainScreen
from tui.app.widgets.rows_view import RowsView


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
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def info(screen: MainScreen) -> str:
    """The status line's words."""
    return str(screen.query_one("#info-line").render())


def shown_lines(view: RowsView, width: int = 200) -> list[str]:
    """Every line of a tab (not only those on screen), headings included."""
    return [view.line_text(index, width) for index in range(view.line_count())]
