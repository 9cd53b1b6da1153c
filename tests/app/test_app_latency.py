"""What keeps keys light without changing what they show: the collector's walks
kept off a capture's objects while it is open (and given back when it closes),
the zone picker's lines read once per data zone, the dialogs built before their
first use, and the status line repainted without a layout of the screen."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tests.pilot import main_screen, make_app, settle, workers_finished
from tui.app.dialogs.zone_picker import AUTOMATIC, ZonePicker
from tui.app.screens.main import MainScreen


@pytest.mark.real_heap
def test_a_capture_is_frozen_out_of_collections_while_open(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=True)
    assert gc.get_freeze_count() == 0

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, MainScreen)
            frozen = gc.get_freeze_count()
            assert frozen > 1000
            # The screen is among them: no generation the collector walks holds it.
            assert all(app.screen not in gc.get_objects(g) for g in range(3))

    asyncio.run(scenario())
    # The app gone, everything can be collected again.
    assert gc.get_freeze_count() == 0


def _listed(picker: ZonePicker) -> list[tuple[str | None, str]]:
    return [(choice.id, choice.text) for choice in picker.options.choices]


def test_the_picker_lists_the_candidates_of_the_zone_in_use(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_training_trace(tmp_path / "t.json", gpu=True)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await main_screen(pilot)
            for zone in ("lecture_batch_cpu", "transfert"):
                await pilot.press("z")
                await pilot.pause()
                picker = app.screen
                assert isinstance(picker, ZonePicker)
                expected = screen.analysis.zone_candidates()
                listed = _listed(picker)
                assert [name for name, _ in listed if name != AUTOMATIC] == [
                    c.name for c in expected
                ]
                marked = [name for name, prompt in listed if " ● " in prompt[:6]]
                assert marked == [zone]
                await pilot.press(*"transf", "enter")
                for _ in range(3):
                    await workers_finished(app)
                    await pilot.pause()
                assert app.screen is screen

    asyncio.run(scenario())


def test_the_help_is_built_once_and_shown_again_from_the_top(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    from textual.containers import VerticalScroll

    from tui.app.screens.help import HelpScreen

    path = write_training_trace(tmp_path / "t.json", gpu=True)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(100, 20)) as pilot:
            await settle(pilot)
            main = app.screen
            await pilot.press("question_mark")
            first = app.screen
            assert isinstance(first, HelpScreen)
            box = first.query_one(VerticalScroll)
            await pilot.press("pagedown")
            await pilot.pause()
            assert box.scroll_y > 0
            await pilot.press("escape")
            assert app.screen is main
            await pilot.press("question_mark")
            await pilot.pause()
            assert app.screen is first
            assert box.scroll_y == 0
            await pilot.press("escape")

    asyncio.run(scenario())


def test_dialogs_built_ahead_show_what_is_current_when_opened(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """The help, zone picker and note form are built after the first frame and
    shown again: each opening shows the zone in use now and an empty note."""
    from textual.widgets import Input, Static

    from tests.pilot import screen_text
    from tui.app.dialogs.note_form import NoteForm
    from tui.app.screens.help import HelpScreen
    from tui.app.screens.kept_dialogs import BUILD_AHEAD_AFTER_S, LAY_OUT_AFTER_S

    path = write_training_trace(tmp_path / "t.json", gpu=True)

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await pilot.pause(BUILD_AHEAD_AFTER_S + LAY_OUT_AFTER_S + 0.2)
            built = {
                kind: screen.dialogs.get(kind, lambda: None)  # type: ignore[arg-type,return-value]
                for kind in (HelpScreen, ZonePicker, NoteForm)
            }
            assert all(dialog.is_mounted for dialog in built.values())
            await pilot.press("question_mark")
            assert app.screen is built[HelpScreen]
            await pilot.pause()
            assert "steptrace keys" in screen_text(app)
            assert "Main screen" in screen_text(app)
            await pilot.press("escape")
            for zone in ("lecture_batch_cpu", "transfert"):
                await pilot.press("z")
                await pilot.pause()
                picker = app.screen
                assert picker is built[ZonePicker]
                assert isinstance(picker, ZonePicker)
                now = str(picker.query_one("#zone-now", Static).render())
                assert f"now: {zone} " in now
                marked = [c.id for c in picker.options.choices if " ● " in c.text[:6]]
                assert marked == [zone]
                assert picker.query_one(Input).value == ""
                drawn = screen_text(app)
                assert any(" ● " + zone in line for line in drawn.splitlines())
                await pilot.press(*"transf", "enter")
                for _ in range(3):
                    await workers_finished(app)
                    await pilot.pause()
                assert screen.analysis.zone_choice.names == ("transfert",)
            for _ in range(2):
                await pilot.press("right_square_bracket", "m")
                await pilot.pause()
                form = app.screen
                assert form is built[NoteForm]
                fields = form.query(Input)
                assert [field.value for field in fields] == ["", "", ""]
                assert form.focused is fields.first()
                assert "Note on step" in str(form.query_one("#note-title").render())
                await pilot.press(*"typed then cancelled", "escape")
                assert app.screen is screen

    asyncio.run(scenario())


def test_the_status_line_speaks_without_a_layout_of_the_screen(
    tmp_path: Path, isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """g, ] and Esc say what they selected on the status line: a repaint of that
    line, not a layout of the whole screen (Static's default, 10-30 ms a key)."""
    from textual.screen import Screen

    from tests.pilot import info

    path = write_training_trace(tmp_path / "t.json", gpu=True)
    layouts: list[object] = []
    laid_out = Screen._refresh_layout

    def counted(screen: Screen[object], *args: object, **kwargs: object) -> None:
        layouts.append(screen)
        laid_out(screen, *args, **kwargs)  # type: ignore[arg-type]

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen)
            monkeypatch.setattr(Screen, "_refresh_layout", counted)
            said = []
            for key in ("g", "right_square_bracket", "escape"):
                await pilot.press(key)
                await pilot.pause()
                said.append(info(screen))
            assert said[0].startswith("gap 1/") and said[1].startswith("step 2")
            assert said[2] != said[1]
            assert screen not in layouts  # (dialogs built ahead are laid out apart)

    asyncio.run(scenario())
