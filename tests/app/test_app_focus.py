"""The timeline's letter keys work whatever pane was used last: pressed in a
pane that does not take them, the timeline takes the focus back and acts, and
the status line says so; a pane's own keys and a text field keep theirs."""

from __future__ import annotations

from pathlib import Path

from tests.pilot import info, main_screen, make_app, pilot_test
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.notes_pane import NotesPane
from tui.app.widgets.timeline import Timeline
from tui.view.status import TIMELINE_FOCUSED


@pilot_test
async def test_d_pans_after_a_finding_was_shown(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        await pilot.press("2", "enter")
        await pilot.pause()
        assert isinstance(app.focused, FindingsPanel)
        timeline = screen.query_one(Timeline)
        start, end = timeline.view_start_ns, timeline.view_end_ns
        await pilot.press("d")
        await pilot.pause()
        assert screen.focused is timeline
        assert timeline.view_start_ns > start and timeline.view_end_ns > end
        assert info(screen) == TIMELINE_FOCUSED
        await pilot.press("w")  # now the timeline's own key: no second notice
        await pilot.pause()
        assert timeline.view_end_ns - timeline.view_start_ns < end - start


@pilot_test
async def test_a_pane_keeps_its_own_letters(cuda_trace: Path) -> None:
    """In the notes, s is the note's status: the timeline does not zoom out."""
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        timeline = screen.query_one(Timeline)
        view = (timeline.view_start_ns, timeline.view_end_ns)
        await pilot.press("3", "s")
        await pilot.pause()
        assert isinstance(app.focused, NotesPane)
        assert (timeline.view_start_ns, timeline.view_end_ns) == view
        assert info(screen) != TIMELINE_FOCUSED


@pilot_test
async def test_a_search_prompt_takes_the_letters(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        timeline = screen.query_one(Timeline)
        view = (timeline.view_start_ns, timeline.view_end_ns)
        await pilot.press("slash", *"wasd")
        await pilot.pause()
        assert (timeline.view_start_ns, timeline.view_end_ns) == view
        assert screen.query_one("#prompt").value == "wasd"  # type: ignore[attr-defined]
