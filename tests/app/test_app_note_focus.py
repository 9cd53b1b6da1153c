"""The note form shows which field has the focus: its fields are compact
(no border), so the focused one is lit, and the others are not."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tests.pilot import make_app, pilot_test, settle
from tui.app.dialogs.note_form import NoteForm


@pilot_test
async def test_the_focused_field_is_lit_and_the_others_not(
    cuda_trace: Path, isolated_data_dir: Path
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket", "m")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, NoteForm)
        fields = list(form.query(Input))
        assert len(fields) == 3
        for focused in range(3):
            assert app.focused is fields[focused]
            lit = [field.styles.background for field in fields]
            assert all(
                lit[focused] != lit[other] for other in range(3) if other != focused
            )
            assert "underline" in str(fields[focused].styles.text_style)
            await pilot.press("tab")
            await pilot.pause()
