"""The Copies tab through Pilot: totals, the repeated copy and its cost per step,
Enter and n/N against a raw parse of the trace file; 'not observed' without GPU
events; a real trace's repeated copies."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.pilot import (
    info,
    make_app,
    pilot_test,
    screen_text,
    settle,
    shown_lines,
    workers_done,
)
from tui.app.screens.figures import FiguresScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.copies_view import CopiesView
from tui.core.base.units import duration_text, size_text

TRACES = shared.FOLDER
SAMPLED = TRACES / "timeline_analysis-sampled_rank-0.json.gz"


def raw_copies(path: Path) -> list[dict[str, Any]]:
    """The copy events of the file, in time order, straight from the JSON."""
    events = json.loads(path.read_text())["traceEvents"]
    copies = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu_memcpy"]
    return sorted(copies, key=lambda event: event["ts"])


async def _copies_tab(pilot: Pilot[Any]) -> tuple[MainScreen, CopiesView]:
    await settle(pilot)
    await pilot.press("5")
    await workers_done(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen, screen.query_one(CopiesView)


def _line(view: CopiesView, starts: str) -> int:
    return next(
        index
        for index, text in enumerate(shown_lines(view))
        if text.strip().startswith(starts) and not view.is_section(index)
    )


@pilot_test
async def test_totals_repeated_copy_and_per_step_cost(cuda_trace: Path) -> None:
    raw = raw_copies(cuda_trace)
    total_bytes = sum(event["args"]["bytes"] for event in raw)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        _, view = await _copies_tab(pilot)
        assert view.has_focus and view.message is None
        lines = shown_lines(view)
        direction = lines[_line(view, "host→device")].split()
        # host→device, count, bytes (two words), time (two words), pageable, pinned
        assert direction[1] == str(len(raw))
        assert " ".join(direction[2:4]) == size_text(total_bytes)
        assert " ".join(direction[4:6]) == duration_text(
            sum(event["dur"] for event in raw) * 1000
        )
        assert direction[6:] == [str(len(raw)), "0"]  # pageable, pinned
        heading = next(text for text in lines if text.startswith("Repeated in all"))
        assert "3 window steps" in heading
        repeated = lines[lines.index(heading) + 2]
        assert size_text(raw[0]["args"]["bytes"]) in repeated
        assert "1×" in repeated
        assert duration_text(raw[0]["dur"] * 1000) in repeated
        assert repeated.rstrip().endswith("transfert > aten::copy_")


@pilot_test
async def test_enter_marks_the_copies_and_n_names_the_issuing_operator(
    cuda_trace: Path,
) -> None:
    raw = raw_copies(cuda_trace)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, view = await _copies_tab(pilot)
        lines = shown_lines(view)
        heading = next(i for i, text in enumerate(lines) if "Repeated" in text)
        view.move_cursor(heading + 2)
        await pilot.pause()
        assert "issued by transfert > aten::copy_" in info(screen)
        await pilot.press("enter")
        trace = screen.trace
        marks = screen.marks
        starts = (trace.start_ns[marks] + trace.origin_ns) / 1000
        assert starts.tolist() == pytest.approx([event["ts"] for event in raw])
        said = info(screen)
        assert f"1/{len(raw)}" in said and "issued by aten::copy_" in said
        await pilot.press("n")
        assert screen.timeline.selected_event == int(marks[1])
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, FiguresScreen)
        text = str(app.screen.query_one("#figures-text").render())
        assert f"copies        {len(raw)}" in text
        assert "issued by     transfert > aten::copy_" in text


@pilot_test
async def test_filter_keeps_matching_rows(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        _, view = await _copies_tab(pilot)
        await pilot.press("F", *"step 2", "enter")
        rows = [
            text
            for index, text in enumerate(shown_lines(view))
            if not view.is_section(index)
        ]
        assert rows and all("step 2" in text for text in rows)
        assert "filter: step 2" in view.header_text(120)


@pilot_test
async def test_cpu_only_capture_says_not_observed_and_why(cpu_trace: Path) -> None:
    app = make_app(cpu_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, view = await _copies_tab(pilot)
        assert view.message is not None
        assert view.message.startswith("Copies: not observed")
        assert "CUDA is not available on this machine" in view.message
        await pilot.press("enter")
        assert screen.marks.size == 0


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_real_trace_repeated_copies(isolated_data_dir: Path) -> None:
    """A real capture: each repeated line's copies, issued in every window step,
    are all of one direction, size and name, and Enter marks exactly them."""
    from tui.core.figures.analysis import Analysis
    from tui.core.ingest.load import load_trace

    trace = load_trace(SAMPLED)
    analysis = Analysis(trace)
    window = [(step.start_ns, step.end_ns) for step in analysis.window_steps]
    app = make_app(SAMPLED)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, view = await _copies_tab(pilot)
        reading = view.reading
        assert reading is not None and reading.repeated
        lines = shown_lines(view)
        first = next(i for i, text in enumerate(lines) if "Repeated in all" in text)
        view.move_cursor(first + 2)
        await pilot.press("enter")
        marks = screen.marks
        names = {screen.trace.event_name(int(event)) for event in marks}
        assert len(names) == 1
        sizes = {screen.trace.event_args(int(event)).get("bytes") for event in marks}
        assert len(sizes) == 1
        launch = analysis.launch_call[marks]
        issued = screen.trace.start_ns[launch]
        for start, end in window:
            assert ((issued >= start) & (issued < end)).any()


def test_copies_tab_picture(
    snap_compare: Callable[..., bool], cuda_trace: Path
) -> None:
    """5: copies per direction, the repeated copy with its cost per step, per step,
    and by issuing path; the cursor on the first direction."""

    async def before(pilot: Pilot[Any]) -> None:
        await _copies_tab(pilot)
        lines = [line.rstrip() for line in screen_text(pilot.app).splitlines()]
        start = lines.index("Copies and sets (3 in the capture)")
        tab = [line.strip() for line in lines[start:]]
        assert tab[3].split()[:2] == ["host→device", "3"]
        repeated = tab.index(
            "Repeated in all 3 window steps  (same direction, size and path)"
        )
        assert " ".join(tab[repeated + 2].split()).endswith(
            "1× 300 µs transfert > aten::copy_"
        )
        per_step = tab.index("Per step  (copies the host issued in the step)")
        assert [row.split()[:2] for row in tab[per_step + 1 : per_step + 4]] == [
            ["step", "1"],
            ["step", "2"],
            ["step", "3"],
        ]
        assert any(row.startswith("By issuing operator path") for row in tab)
        assert lines[start - 3].startswith(" host→device  3 copies")

    assert snap_compare(
        make_app(cuda_trace), terminal_size=(100, 40), run_before=before
    )
