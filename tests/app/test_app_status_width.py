"""At 80 columns the status line drops or shortens its least
useful parts instead of being cut in the middle of a word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual.pilot import Pilot

from tests.pilot import info, make_app, pilot_test, settle
from tui.app.screens.main import MainScreen


def _whole_words(shown: str, full_words: set[str]) -> None:
    """Every word on the line is a word the full line has (an ellipsis may end it)."""
    for word in shown.removesuffix("…").split():
        assert word in full_words, (word, shown)


async def _main(pilot: Pilot[Any]) -> MainScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen


@pilot_test
async def test_at_80_columns_the_status_line_fits_in_whole_words(
    cuda_trace: Path,
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _main(pilot)
        room = 80 - 2  # the line's padding
        wide = {
            # a step with its zones, a copy with its issuing operator
            "step": ("right_square_bracket",),
            "match": ("slash", *"Memcpy", "enter"),
        }
        for what, keys in wide.items():
            await pilot.press(*keys)
            await pilot.pause()
            shown = info(screen)
            assert cell_len(shown) <= room, (what, shown)
            line = screen.query_one("#info-line")
            full = line._line.plain  # type: ignore[attr-defined]
            _whole_words(shown, set(full.split()))
            if what == "step":  # the case this test is about: too wide to fit
                assert len(full) > room, full
        # A step keeps its number, phase, duration and GPU busy time.
        await pilot.press("escape", "right_square_bracket")
        await pilot.pause()
        shown = info(screen)
        assert shown.startswith("step ") and "(active)" in shown, shown
        assert "GPU busy" in shown, shown
