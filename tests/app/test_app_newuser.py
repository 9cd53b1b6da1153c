"""What a new user tripped on in the explorer: load warnings kept
out of sight, a note written on an old selection, keys lost in a burst in the
note form and the compare prompt, the notes pane without observations, table
keys that did nothing from the timeline, and room given to blank rows."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.widgets import Input, Static

from tests.pilot import (
    info,
    main_screen,
    make_app,
    pilot_test,
    screen_text,
    workers_done,
)
from tui.app.widgets.op_table import OperatorTable
from tui.app.widgets.timeline import Timeline


@pilot_test
async def test_a_note_is_anchored_on_the_step_moved_to_after_a_search(
    cuda_trace: Path,
) -> None:
    """Search, then ] ]: the status line names a step, and so does the note."""
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(pilot)
        await pilot.press("slash", *"addmm", "enter")
        await pilot.pause()
        assert screen.timeline.selected_event is not None
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert screen.current_step is not None
        step = screen.analysis.steps[screen.current_step]
        assert f"step {step.number}" in info(screen)
        anchor, label, _ = screen.current_anchor()
        assert (anchor.kind, anchor.step) == ("step", step.number)
        assert label == f"step {step.number}"
        # An event picked after the step is the current one again.
        await pilot.press("n")
        await pilot.pause()
        anchor, label, _ = screen.current_anchor()
        assert anchor.kind == "event" and label.startswith("event aten::addmm")


@pilot_test
async def test_the_notes_pane_shows_a_notes_observation(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(pilot)
        await pilot.press("right_square_bracket", "m", *"slow read")
        await pilot.press("tab", *"reads wait on disk", "ctrl+s")
        await workers_done(pilot)
        notes = screen.notes_store.notes
        assert [(n.hypothesis, n.observation) for n in notes] == [
            ("slow read", "reads wait on disk")
        ]
        await pilot.press("3")
        await workers_done(pilot)
        assert "observation: reads wait on disk" in screen_text(app)


@pilot_test
async def test_o_and_r_sort_the_operator_table_from_the_timeline(
    cuda_trace: Path,
) -> None:
    """o and r name the table's sort: from the timeline they act on it, as t does."""
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(pilot)
        table = screen.query_one(OperatorTable)
        assert screen.query_one(Timeline).has_focus
        sort, descending = table.sort, table.descending
        await pilot.press("o")
        await pilot.pause()
        assert table.sort != sort
        assert screen.query_one(Timeline).has_focus  # the view stays where it was
        sort, descending = table.sort, table.descending
        await pilot.press("r")
        await pilot.pause()
        assert (table.sort, table.descending) == (sort, not descending)
        await pilot.press("O")
        await pilot.pause()
        assert table.sort != sort


@pilot_test
async def test_tab_in_the_compare_prompt_takes_the_whole_suggestion(
    cuda_trace: Path,
) -> None:
    """`seed_l` Tab showed `seed_long.pt.trace.json` with only `seed_long.` typed
    in: Enter then said `seed_long.: no such file`. What Tab shows is the text."""
    from tests.builders.app_traces import write_training_trace
    from tui.app.dialogs.compare_with import CompareWithDialog

    write_training_trace(cuda_trace.parent / "seed_long.pt.trace.json", gpu=True)
    (cuda_trace.parent / "seed_long.log").write_text("a log beside it\n")
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(pilot)
        await pilot.press("D")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CompareWithDialog)
        field = dialog.query_one("#compare-path", Input)
        await pilot.press(*"seed_l")
        await workers_done(pilot)
        assert field._suggestion == "seed_long.pt.trace.json"  # what is shown
        await pilot.press("tab")
        await pilot.pause()
        assert field.value == "seed_long.pt.trace.json"
        # A refusal's line goes as soon as the path is edited.
        field.value = ""
        await pilot.press(*"nope", "enter")
        await pilot.pause()
        problem = dialog.query_one("#compare-problem", Static)
        assert "no such file" in str(problem.render())
        await pilot.press("backspace")
        await pilot.pause()
        assert str(problem.render()).strip() == ""


@pilot_test
async def test_the_note_form_keeps_tab_in_a_burst(cuda_trace: Path) -> None:
    """'abc' Tab 'def' Tab 'ghi' arriving at once (a paste, fast typing over
    SSH) fills three fields, not 'abcdefghi' in the hypothesis."""
    from tui.app.dialogs.note_form import NoteForm

    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(pilot)
        await pilot.press("right_square_bracket", "m")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, NoteForm)
        burst = [*"abc", "tab", *"def", "tab", *"ghi"]
        for key in burst:
            character = key if len(key) == 1 else ("\t" if key == "tab" else None)
            app.post_message(events.Key(key, character))
        for _ in range(6):
            await pilot.pause()
        fields = ["#note-hypothesis", "#note-observation", "#note-next-check"]
        values = [form.query_one(name, Input).value for name in fields]
        assert values == ["abc", "def", "ghi"]
        # Enter goes on to the next field too, Shift+Tab back, in a burst alike.
        form.query_one("#note-hypothesis", Input).focus()
        await pilot.pause()
        for key, character in [("end", None), ("enter", "\r"), ("shift+tab", None)]:
            app.post_message(events.Key(key, character))
        for key in "xy":
            app.post_message(events.Key(key, key))
        for _ in range(6):
            await pilot.pause()
        assert form.query_one("#note-hypothesis", Input).value.endswith("xy")


def cut_off_trace(folder: Path) -> Path:
    """A .json.gz whose writer was killed: its last third is missing."""
    from tests.builders.app_traces import write_training_trace

    path = write_training_trace(folder / "cut.pt.trace.json.gz", steps=6)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


@pilot_test
async def test_load_warnings_show_in_the_header_and_behind_w(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    """A cut-off capture opens with what `summary` warns of: a badge in the
    header names the key, the footer and the help offer it, W lists them."""
    from tests.pilot import shown_keys
    from tui.app.screens.figures import FiguresScreen

    app = make_app(cut_off_trace(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        assert screen.trace.warnings
        header = str(screen.query_one("#header-line").render())
        assert "3 load warnings (W)" in header
        # The cut is a banner saying what the figures cover, not only a count.
        banner = " ".join(header.split("CUT OFF", 1)[1].split())
        assert banner.startswith("the file ends mid-event"), header
        assert "steps found whole" in banner and "(W: every load warning)" in banner
        assert "W" in shown_keys(screen)
        main_rows = screen.key_sections()[0][1]
        assert any(
            isinstance(binding, Binding) and binding.key == "W" and binding.description
            for binding in main_rows
        )
        await pilot.press("W")
        await pilot.pause()
        listed = app.screen
        assert isinstance(listed, FiguresScreen)
        text = " ".join(
            line.strip("│ ") for line in screen_text(app).splitlines() if line.strip()
        )
        assert "- the gzip stream ends early" in text
        assert "kept the 195 records" in text


@pilot_test
async def test_a_capture_without_warnings_has_no_badge_nor_key(
    cuda_trace: Path,
) -> None:
    from tests.pilot import shown_keys

    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(pilot)
        header = str(screen.query_one("#header-line").render())
        assert "load warning" not in header and "CUT OFF" not in header
        assert "W" not in shown_keys(screen)


@pilot_test
async def test_at_200x60_the_tables_get_the_rows_the_timeline_leaves(
    cuda_trace: Path,
) -> None:
    """A timeline with few tracks took 1fr and drew blank rows while the
    operator table was cut at 40%; the operator names took 170 columns with
    their numbers far right."""
    import re

    app = make_app(cuda_trace)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await main_screen(pilot)
        timeline = screen.timeline
        rows = len(timeline.rows_layout.rows)
        assert rows < 30
        assert timeline.region.height == rows  # no blank rows under the tracks
        info_line = screen.query_one("#info-line")
        assert info_line.region.y == timeline.region.bottom
        bottom = screen.query_one("#bottom")
        assert bottom.region.height > 60 * 40 // 100
        # The numbers sit near the names.
        line = next(
            line for line in screen_text(app).splitlines() if "aten::addmm " in line
        )
        first_number = re.search(r"aten::addmm\s+\d", line)
        assert first_number is not None and first_number.end() < 60, line
    # At 80 columns the table is as wide as it was.
    app = make_app(cuda_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(pilot)
        table = screen.query_one(OperatorTable)
        assert table.header_text().rstrip().endswith("Self GPU ▼")
        assert len(table.header_text()) == table.scrollable_content_region.width
