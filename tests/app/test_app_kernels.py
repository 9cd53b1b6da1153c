"""The Kernels tab through Pilot: rows, sort, filter, Enter and n/N against a raw
parse of the trace file; 'not observed' without GPU events; untrusted names."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.builders.app_traces import write_training_trace
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
from tui.app.widgets.kernel_table import KernelTable
from tui.core.base.units import duration_text

HOSTILE_KERNEL = "[bold]gemm[/bold]\x1b[2J\u202e<T>"


def raw_kernels(path: Path) -> dict[str, list[tuple[float, float]]]:
    """Kernel name → (ts, dur) of each, in time order, straight from the JSON."""
    found: dict[str, list[tuple[float, float]]] = {}
    for event in json.loads(path.read_text())["traceEvents"]:
        if event.get("ph") == "X" and event.get("cat") == "kernel":
            found.setdefault(event["name"], []).append((event["ts"], event["dur"]))
    return {name: sorted(times) for name, times in found.items()}


async def _kernels_tab(pilot: Pilot[Any]) -> tuple[MainScreen, KernelTable]:
    await settle(pilot)
    await pilot.press("4")
    await workers_done(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen, screen.query_one(KernelTable)


@pilot_test
async def test_rows_are_the_kernels_of_the_file(cuda_trace: Path) -> None:
    raw = raw_kernels(cuda_trace)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        _, table = await _kernels_tab(pilot)
        assert table.has_focus and table.rows is not None
        names = table.rows.stats.table.names
        shown = [names[int(row)] for row in table.order]
        by_total = sorted(raw, key=lambda name: -sum(dur for _, dur in raw[name]))
        assert shown == by_total
        lines = shown_lines(table)
        for line, name in zip(lines, shown, strict=True):
            durations = [dur * 1000 for _, dur in raw[name]]
            assert line.startswith(name)
            assert str(len(durations)) in line
            assert duration_text(sum(durations)) in line
            assert duration_text(max(durations)) in line
        assert "Kernel (2 of 2)" in table.header_text(120)


@pilot_test
async def test_sort_and_filter(cuda_trace: Path) -> None:
    raw = raw_kernels(cuda_trace)
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        _, table = await _kernels_tab(pilot)
        assert table.rows is not None
        names = table.rows.stats.table.names
        await pilot.press("o")  # total → count
        by_count = sorted(raw, key=lambda name: -len(raw[name]))
        assert [names[int(row)] for row in table.order] == by_count
        assert "Count ▼" in table.header_text(120)
        await pilot.press("r")
        assert [names[int(row)] for row in table.order] == by_count[::-1]
        await pilot.press("F", *"SGEMM", "enter")
        assert [names[int(row)] for row in table.order] == ["ampere_sgemm_128x64_nn"]
        assert "filter: SGEMM" in table.header_text(120)
        assert table.has_focus


@pilot_test
async def test_enter_marks_occurrences_and_n_names_the_launching_operator(
    cuda_trace: Path,
) -> None:
    raw = raw_kernels(cuda_trace)["elementwise_kernel<relu>"]
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, table = await _kernels_tab(pilot)
        table.select_name("elementwise_kernel<relu>")
        await pilot.press("enter")
        trace = screen.trace
        marks = screen.marks
        assert marks.size == len(raw) == 36
        assert {trace.event_name(int(event)) for event in marks} == {
            "elementwise_kernel<relu>"
        }
        # Times are from the trace's first event (the first step, at ts 0 of the fixture).
        starts = (trace.start_ns[marks] + trace.origin_ns) / 1000
        assert starts.tolist() == pytest.approx([ts for ts, _ in raw])
        assert screen.timeline.selected_event == int(marks[0])
        said = info(screen)
        assert "1/36" in said and "launched by aten::relu" in said
        await pilot.press("n")
        assert screen.timeline.selected_event == int(marks[1])
        said = info(screen)
        assert "2/36" in said and "launched by aten::relu" in said
        await pilot.press("N", "N")
        assert "36/36" in info(screen)


@pilot_test
async def test_details_show_the_full_name_and_who_launched_it(
    cuda_trace: Path,
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        _, table = await _kernels_tab(pilot)
        table.select_name("elementwise_kernel<relu>")
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, FiguresScreen)
        text = str(app.screen.query_one("#figures-text").render())
        assert "full name       elementwise_kernel<relu>" in text
        assert "count           36" in text
        lines = text.splitlines()
        launched = lines.index("launched by")
        assert lines[launched + 1].split() == ["36", "aten::relu"]
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pilot_test
async def test_cpu_only_capture_says_not_observed_and_why(cpu_trace: Path) -> None:
    app = make_app(cpu_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, table = await _kernels_tab(pilot)
        assert table.message is not None
        assert table.message.startswith("Kernels: not observed")
        assert "CUDA is not available on this machine" in table.message
        assert table.line_count() == 0 and table.current_row is None
        await pilot.press("enter", "v")
        assert screen.marks.size == 0
        assert isinstance(app.screen, MainScreen)


@pilot_test
async def test_untrusted_kernel_names_stay_text(
    tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = write_training_trace(tmp_path / "hostile.json", gpu=True)
    path.write_text(
        path.read_text().replace(
            "ampere_sgemm_128x64_nn", json.dumps(HOSTILE_KERNEL)[1:-1]
        )
    )
    app = make_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, table = await _kernels_tab(pilot)
        line = shown_lines(table)[0]
        assert "[bold]gemm[/bold]\\x1b[2J" in line
        assert "\x1b" not in line and "\u202e" not in line
        await pilot.press("enter")
        assert "\x1b" not in info(screen)
        await pilot.press("v")
        await pilot.pause()
        text = str(app.screen.query_one("#figures-text").render())
        assert "[bold]gemm[/bold]\\x1b[2J\\u202e" in text


def test_kernels_tab_picture(
    snap_compare: Callable[..., bool], cuda_trace: Path
) -> None:
    """4: kernels by total time; Enter on the second marks its 36 occurrences and
    the status line names the operator that launched the first."""

    async def before(pilot: Pilot[Any]) -> None:
        await _kernels_tab(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        lines = screen_text(pilot.app).splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("Kernel ("))
        assert "Total ▼" in lines[header]
        totals = [lines[header + 1].split()[0], lines[header + 2].split()[0]]
        assert totals == ["ampere_sgemm_128x64_nn", "elementwise_kernel<relu>"]
        assert any(
            line.startswith(
                " kernel elementwise_kernel<relu>: 1/36  launched by aten::relu"
            )
            for line in lines
        )

    assert snap_compare(
        make_app(cuda_trace), terminal_size=(120, 36), run_before=before
    )


def test_kernels_not_observed_picture(
    snap_compare: Callable[..., bool], cpu_trace: Path
) -> None:
    """4 on a CPU-only capture: the tab says not observed and why, no empty table."""

    async def before(pilot: Pilot[Any]) -> None:
        await _kernels_tab(pilot)
        text = screen_text(pilot.app)
        assert " Kernels: not observed — CUDA is not available on this machine." in text
        assert "Count" not in text and "Total ▼" not in text  # no empty table

    assert snap_compare(make_app(cpu_trace), terminal_size=(80, 24), run_before=before)
