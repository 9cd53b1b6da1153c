"""Enter on each finding goes to its place, on real captures: the small-launches
kernel selected on the timeline (first from its step on, by a raw parse of the
file) and its Kernels row, the repeated copy and its Copies line, the dominant
operator in the table, the idle gap."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.pilot import info, make_app, pilot_test, settle, workers_done
from tui.app.screens.main import MainScreen
from tui.app.widgets.copies_view import CopiesView
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.kernel_table import KernelTable
from tui.core.base.vocab import FindingId
from tui.core.findings.finding import (
    Finding,
    ShowEvents,
    ShowGap,
    ShowKernel,
    ShowOperator,
)

TRACES = shared.FOLDER
SAMPLED = TRACES / "timeline_analysis-sampled_rank-0.json.gz"
CPU_GAPS = TRACES / "distributed_info_unavailable-distributed_info_not_found.json.gz"

pytestmark = pytest.mark.usefixtures("shared_traces")


def raw_events(path: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads(gzip.decompress(path.read_bytes()))[
        "traceEvents"
    ]
    return events


async def _enter_on(
    pilot: Pilot[Any], finding_id: FindingId
) -> tuple[MainScreen, Finding]:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    await pilot.press("2")
    panel = screen.query_one(FindingsPanel)
    assert screen.findings is not None
    index = next(i for i, f in enumerate(screen.findings) if f.id is finding_id)
    panel.highlighted = index
    await pilot.press("enter")
    await workers_done(pilot)
    return screen, screen.findings[index]


@pilot_test
async def test_small_launches_selects_its_kernel(isolated_data_dir: Path) -> None:
    app = make_app(SAMPLED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, finding = await _enter_on(pilot, FindingId.SMALL_LAUNCHES)
        anchor = finding.anchor
        assert isinstance(anchor, ShowKernel) and anchor.step is not None
        raw = raw_events(SAMPLED)
        step_ts = next(
            e["ts"]
            for e in raw
            if e.get("ph") == "X" and e.get("name") == f"ProfilerStep#{anchor.step}"
        )
        kernels = sorted(
            e["ts"]
            for e in raw
            if e.get("ph") == "X"
            and e.get("cat") == "kernel"
            and e.get("name") == anchor.name
        )
        selected = screen.timeline.selected_event
        assert selected is not None
        trace = screen.trace
        assert trace.event_name(selected) == anchor.name
        selected_ts = (trace.origin_ns + int(trace.start_ns[selected])) / 1000
        assert selected_ts == pytest.approx(next(ts for ts in kernels if ts >= step_ts))
        assert screen.marks.size == len(kernels)
        said = info(screen)
        assert "launched by" in said and said.startswith("kernel ")
        table = screen.query_one(KernelTable)
        assert table.rows is not None and table.current_row is not None
        assert table.rows.stats.table.names[table.current_row] == anchor.name
        top = int(table.scroll_y)
        assert top <= table.cursor < top + table.size.height - 1  # on screen
        assert screen.timeline.has_focus


@pilot_test
async def test_repeated_copy_selects_the_copy(isolated_data_dir: Path) -> None:
    app = make_app(SAMPLED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, finding = await _enter_on(pilot, FindingId.REPEATED_COPY)
        anchor = finding.anchor
        assert isinstance(anchor, ShowEvents) and anchor.select is not None
        raw = raw_events(SAMPLED)
        named = [e for e in raw if e.get("ph") == "X" and e.get("name") == anchor.name]
        assert screen.timeline.selected_event == anchor.select
        assert screen.trace.event_name(anchor.select) == anchor.name
        assert screen.marks.size == len(named)
        assert "issued by" in info(screen)
        view = screen.query_one(CopiesView)
        line = view.current_line
        assert line is not None and line.positions is not None
        assert view.reading is not None
        assert anchor.select in view.reading.columns.events[line.positions].tolist()
        assert line.label.startswith("repeated ")
        top = int(view.scroll_y)
        assert top <= view.cursor < top + view.size.height - 1  # on screen


@pilot_test
async def test_dominant_operator_in_the_table(isolated_data_dir: Path) -> None:
    app = make_app(SAMPLED)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, finding = await _enter_on(pilot, FindingId.DOMINANT_OP)
        anchor = finding.anchor
        assert isinstance(anchor, ShowOperator)
        assert screen.ops.current_name == anchor.name
        assert screen.ops.has_focus


@pilot_test
async def test_idle_reading_selects_its_gap(isolated_data_dir: Path) -> None:
    app = make_app(CPU_GAPS)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, finding = await _enter_on(pilot, FindingId.GPU_IDLE_DATA_ZONE)
        anchor = finding.anchor
        assert isinstance(anchor, ShowGap)
        gap = screen.analysis.gaps[anchor.index]
        assert screen.timeline.selected_range == (gap.start_ns, gap.end_ns)
        assert info(screen).startswith(f"gap {anchor.index + 1}/")
