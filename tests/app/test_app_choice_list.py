"""The zone picker's list is drawn with the Line API (`ChoiceList`): it lists
every candidate it is given (60 at most, then a line saying how many more),
draws only the lines in view, scrolls to the cursor, and skips the notes."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App

from tui.app.dialogs.zone_picker import AUTOMATIC, SHOWN_AT_MOST, ZonePicker
from tui.app.widgets.choice_list import ChoiceList
from tui.core.base.vocab import ZoneSource
from tui.core.figures.zones import ZoneCandidate, ZoneChoice

CANDIDATES = [
    ZoneCandidate(f"range_{index:03d}", calls=index + 1, total_ns=1000, kind="user")
    for index in range(100)
]


def test_the_zone_list_draws_the_lines_in_view_and_scrolls_to_the_cursor() -> None:
    chosen: list[Any] = []

    async def scenario() -> None:
        app: App[None] = App()
        async with app.run_test(size=(100, 24)) as pilot:
            choice = ZoneChoice(("range_001",), ZoneSource.CHOSEN)
            app.push_screen(ZonePicker(CANDIDATES, choice), chosen.append)
            await pilot.pause()
            await pilot.pause()
            picker = app.screen
            assert isinstance(picker, ZonePicker)
            listed = picker.query_one("#zone-list", ChoiceList)
            ids = [c.id for c in listed.choices]
            # The automatic line, the 60 biggest, then how many more (not a choice).
            assert ids == [
                AUTOMATIC,
                *(c.name for c in CANDIDATES[:SHOWN_AT_MOST]),
                None,
            ]
            assert (
                listed.choices[-1].text
                == f"… {100 - SHOWN_AT_MOST} more: type to narrow"
            )
            assert "●" in listed.choices[2].text and "2 calls" in listed.choices[2].text
            # Fewer lines in view than listed: only those are drawn.
            assert 0 < listed.size.height < len(ids)
            drawn = [listed.render_line(y).text for y in range(listed.size.height)]
            assert drawn[1].startswith("[ ]   range_000")
            await pilot.press("pagedown", "pagedown", "pagedown")
            await pilot.pause()
            assert listed.highlighted_id == "range_029"
            top = int(listed.scroll_y)
            assert 0 < top <= 30 < top + listed.size.height
            cursor = listed.render_line(30 - top)
            assert cursor.text.startswith("[ ]   range_029")
            # The end: the cursor stays on the last choice, not on the note.
            for _ in range(4):
                await pilot.press("pagedown")
            assert listed.highlighted_id == CANDIDATES[SHOWN_AT_MOST - 1].name
            await pilot.press("tab", "up", "tab", "enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert chosen == [("range_059", "range_058")]
