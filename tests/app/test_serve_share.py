"""The share dialog in a served app writes only next to the trace.

A browser's user is not the host's: the dialog's "Copy to" field took any path,
so a served app could write a file into any folder the server may write. In a
served app the copy goes next to the trace under a fresh derived name, whatever
is typed anywhere, and the dialog says so.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Input, Static

from tests.builders.app_traces import write_training_trace
from tests.pilot import settle, workers_finished
from tui.app.app import StepTraceApp
from tui.app.dialogs.scrub import ScrubDialog


def _dialog_text(dialog: ScrubDialog) -> str:
    return " ".join(str(widget.render()) for widget in dialog.query(Static))


async def _share(trace: Path, elsewhere: Path, served: bool) -> tuple[str, Path | None]:
    """Open the share dialog, point every path field at `elsewhere`, write;
    the dialog's text and where the copy went."""
    app = StepTraceApp(trace, served=served)
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ScrubDialog)
        for field in dialog.query(Input):
            field.value = str(elsewhere)
        await pilot.pause()
        dialog.action_write()
        for _ in range(300):
            await workers_finished(app)
            await pilot.pause()
            if dialog.scrub_report is not None or not dialog.writing:
                break
        report = dialog.scrub_report
        return _dialog_text(dialog), None if report is None else report.destination


def test_a_served_share_writes_next_to_the_trace_only(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    (tmp_path / "traces").mkdir()
    trace = write_training_trace(tmp_path / "traces" / "train.json")
    (trace.parent / "train.scrubbed.json").write_text("taken")  # a name in use
    elsewhere = tmp_path / "elsewhere" / "copy.json"
    elsewhere.parent.mkdir()
    text, written = asyncio.run(_share(trace, elsewhere, served=True))
    assert not elsewhere.exists()
    assert written == trace.parent / "train.scrubbed-1.json"
    assert written.is_file()
    assert (trace.parent / "train.scrubbed.json").read_text() == "taken"
    assert "next to the trace" in text and "fresh name" in text


def test_a_terminal_share_still_writes_where_asked(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    (tmp_path / "traces").mkdir()
    trace = write_training_trace(tmp_path / "traces" / "train.json")
    elsewhere = tmp_path / "elsewhere" / "copy.json"
    elsewhere.parent.mkdir()
    _, written = asyncio.run(_share(trace, elsewhere, served=False))
    assert written == elsewhere and elsewhere.is_file()
