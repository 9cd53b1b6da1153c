"""Export report (X) from the main screen: the file holds exactly what
`markdown_report` returns for the capture and its notes, next to the trace,
under a fresh name that never replaces a file — also in a served app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.builders.app_traces import write_training_trace
from tests.pilot import pilot_test, settle, workers_finished
from tui.app.app import StepTraceApp
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.notes.store import NotesStore
from tui.report.report_markdown import markdown_report


def expected_report(trace: Path) -> str:
    """The report computed apart from the app: a fresh load, the notes on disk."""
    return markdown_report(
        Analysis(load_trace(trace)), NotesStore.open(trace).notes, trace_name=trace.name
    )


async def export(pilot: Pilot[Any], folder: Path, count: int) -> list[Path]:
    """Press X and wait until `count` reports are in the folder."""
    await pilot.press("X")
    for _ in range(100):
        await workers_finished(pilot.app)
        await pilot.pause()
        reports = sorted(folder.glob("*.report*.md"))
        if len(reports) >= count:
            return reports
    return sorted(folder.glob("*.report*.md"))


@pilot_test
async def test_export_writes_the_report_next_to_the_trace(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_training_trace(tmp_path / "train.json", gpu=True)
    store = NotesStore.open(trace)
    store.add("the GPU waits for lecture_batch_cpu", next_check="preload batches")
    store.save()
    app = StepTraceApp(trace)
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        (report,) = await export(pilot, tmp_path, 1)
        assert report.name == "train.report.md"
        assert report.read_text(encoding="utf-8") == expected_report(trace)
        assert "the GPU waits for lecture_batch_cpu" in report.read_text()
        # Again: a fresh name; the first report is left as it was.
        first = report.read_bytes()
        reports = await export(pilot, tmp_path, 2)
        assert [path.name for path in reports] == [
            "train.report-1.md",
            "train.report.md",
        ]
        assert report.read_bytes() == first
        assert any(
            "train.report-1.md" in str(note.message) for note in app._notifications
        )


@pilot_test
async def test_a_served_app_exports_too(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    trace = write_training_trace(tmp_path / "served.json.gz", gpu=False)
    taken = tmp_path / "served.report.md"
    taken.write_text("someone else's file")
    app = StepTraceApp(trace, served=True)
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        reports = await export(pilot, tmp_path, 2)
        assert [path.name for path in reports] == [
            "served.report-1.md",
            "served.report.md",
        ]
        assert taken.read_text() == "someone else's file"
        assert (tmp_path / "served.report-1.md").read_text() == expected_report(trace)
