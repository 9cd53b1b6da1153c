"""The operator table's `i`: rows by (name, input shapes) against a raw parse of the
trace file, back by name, per step, and 'record_shapes was off' without shapes."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.pilot import make_app, pilot_test, screen_text, settle, workers_done
from tui.app.screens.main import MainScreen
from tui.app.widgets.op_table import OperatorTable
from tui.core.figures.shapes import ShapeOpTable
from tui.core.results.ops import SHAPES_OFF

TRACES = shared.FOLDER
ALEXNET = (
    TRACES / "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"
)


def raw_shape_calls(
    path: Path, first_us: float | None = None
) -> Counter[tuple[str, str]]:
    """(name, shapes as torch prints them) → calls, from the CPU events of the JSON
    (steps grouped as torch does), optionally only those starting in one window."""
    calls: Counter[tuple[str, str]] = Counter()
    events = json.loads(path.read_text())["traceEvents"]
    cpu = [e for e in events if e.get("ph") == "X" and e.get("pid") == 100]
    for event in cpu:
        if first_us is not None and not first_us <= event["ts"] < first_us + 9950:
            continue
        name = event["name"]
        name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        calls[(name, str(event["args"].get("Input Dims", [])))] += 1
    return calls


def table_calls(table: OperatorTable) -> Counter[tuple[str, str]]:
    shapes = table.table
    assert isinstance(shapes, ShapeOpTable)
    return Counter(
        {
            (name, shapes.shapes_text(row)): int(shapes.calls[row])
            for row, name in enumerate(shapes.names)
        }
    )


async def _by_shape(pilot: Pilot[Any]) -> tuple[MainScreen, OperatorTable]:
    await settle(pilot)
    await pilot.press("1", "i")
    await workers_done(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen, screen.query_one(OperatorTable)


@pilot_test
async def test_rows_by_shape_are_the_files_name_and_shape_pairs(
    cuda_trace: Path,
) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        _, table = await _by_shape(pilot)
        assert table.by_shape and table.shapes_state == ""
        assert table_calls(table) == raw_shape_calls(cuda_trace)
        assert table.header_text().startswith("Operator × input shapes (")
        addmm = [
            row for row, name in enumerate(table.table.names) if name == "aten::addmm"
        ]
        assert len(addmm) == 1
        assert table._shown[addmm[0]] == "aten::addmm [[64, 128], [128, 128]]"
        # Back by name, the cursor on the same operator.
        table.select_name("aten::relu")
        await pilot.press("i")
        assert not table.by_shape and not isinstance(table.table, ShapeOpTable)
        assert table.current_name == "aten::relu"


@pilot_test
async def test_a_shape_row_marks_its_own_calls(cuda_trace: Path) -> None:
    """On a row by shape the timeline marks that row's calls, not every call
    of the operator's name."""
    # One operator called with two shapes: every other call gets another one.
    document = json.loads(cuda_trace.read_text())
    calls = [
        event
        for event in document["traceEvents"]
        if event.get("ph") == "X" and event.get("name") == "aten::relu"
    ]
    assert len(calls) > 3
    for event in calls[::2]:
        event["args"]["Input Dims"] = [[7, 3]]
    cuda_trace.write_text(json.dumps(document))
    raw = raw_shape_calls(cuda_trace)
    shapes_per_name = Counter(name for name, _ in raw)
    name = "aten::relu"
    assert shapes_per_name[name] == 2
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, table = await _by_shape(pilot)
        shapes = table.table
        assert isinstance(shapes, ShapeOpTable)
        rows = [row for row, item in enumerate(shapes.names) if item == name]
        assert len(rows) == shapes_per_name[name]
        for row in rows:
            table.move_cursor(int(np.flatnonzero(table.order == row)[0]))
            await pilot.pause()
            marked = screen.marks
            text = shapes.shapes_text(row)
            assert marked.size == raw[(name, text)] > 0
            for event in marked.tolist():
                assert screen.trace.event_name(event) == name
                dims = screen.trace.event_args(event).get("Input Dims", [])
                assert str(dims) == text


@pilot_test
async def test_step_scope_groups_the_steps_operators(cuda_trace: Path) -> None:
    app = make_app(cuda_trace)
    async with app.run_test(size=(120, 36)) as pilot:
        screen, table = await _by_shape(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket", "S")
        await workers_done(pilot)
        step = screen.analysis.steps[screen.current_step or 0]
        assert table.scope_label == f"step {step.number}"
        first_us = (step.start_ns + screen.trace.origin_ns) / 1000
        assert table_calls(table) == raw_shape_calls(cuda_trace, first_us)


@pytest.mark.usefixtures("shared_traces")
@pilot_test
async def test_without_shapes_the_table_says_record_shapes_was_off(
    isolated_data_dir: Path,
) -> None:
    app = make_app(ALEXNET)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, table = await _by_shape(pilot)
        assert table.shapes_state == "off"
        assert table.current_row is None
        assert table.header_text() == "Operator × input shapes: not recorded"
        # Under the header line, the why in place of the rows.
        lines = [table.render_line(line + 1).text.strip() for line in range(4)]
        assert " ".join(lines).startswith(SHAPES_OFF)
        await pilot.press("enter")
        assert screen.marks.size == 0
        await pilot.press("i")
        assert table.shapes_state == "" and table.current_row is not None


def test_shapes_picture(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """1 then i: each operator once per input shapes, shapes after the name."""

    async def before(pilot: Pilot[Any]) -> None:
        await _by_shape(pilot)
        lines = screen_text(pilot.app).splitlines()
        header = next(
            i
            for i, line in enumerate(lines)
            if line.startswith("Operator × input shapes (")
        )
        rows = [line.split("  ")[0] for line in lines[header + 1 : header + 12]]
        names = [row.split(" [")[0] for row in rows]
        assert len(set(names)) == len(names)  # each operator once per shapes
        assert rows[0] == "aten::addmm [[64, 128], [128, 128]]"

    assert snap_compare(
        make_app(cuda_trace), terminal_size=(120, 36), run_before=before
    )


@pytest.mark.usefixtures("shared_traces")
def test_shapes_off_picture(
    snap_compare: Callable[..., bool], isolated_data_dir: Path
) -> None:
    """i on a capture without shapes: record_shapes was off, and how to record them."""

    async def before(pilot: Pilot[Any]) -> None:
        await _by_shape(pilot)
        text = screen_text(pilot.app)
        assert "Operator × input shapes: not recorded" in text
        assert " record_shapes was off for this capture" in text
        assert "--record-shapes, or record_shapes=True" in text

    assert snap_compare(make_app(ALEXNET), terminal_size=(80, 24), run_before=before)
