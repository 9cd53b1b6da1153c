"""Pictures of the explorer at fixed sizes, from fixture traces.

Each picture is of a settled app (load worker finished, animations off); the
fixture traces are written with fixed names and contents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.builders.app_traces import (
    write_bad_trace,
    write_hostile_trace,
)
from tests.pilot import info, make_app, screen_text, settle
from tui.app.app import StepTraceApp
from tui.app.screens.help import bindings_rows
from tui.app.screens.load_error import LoadErrorScreen
from tui.app.screens.main import MainScreen
from tui.app.widgets.findings_panel import FindingsPanel
from tui.app.widgets.op_table import OperatorTable
from tui.core.base.vocab import FindingStatus, SortKey
from tui.core.findings.registry import RULES

Check = Callable[[App[Any]], None]


def _shot(
    snap_compare: Callable[..., bool],
    path: Path | str,
    size: tuple[int, int],
    press: Iterable[str] = (),
    check: Check | None = None,
) -> bool:
    """The picture after `press`; `check` asserts the docstring's claims on
    the same settled app before the picture is taken."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in press:
            await pilot.press(key)
        await pilot.pause()
        if check is not None:
            check(pilot.app)

    return snap_compare(make_app(path), terminal_size=size, run_before=before)


def _main(app: App[Any]) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


def _gpu_order(app: App[Any]) -> list[int]:
    """The GPU column of the operator table, in the order shown."""
    table = app.screen.query_one(OperatorTable)
    values = [table.values(int(row))[2] for row in table.order]
    assert all(value is not None for value in values)
    return [value for value in values if value is not None]


def _sorted_by_gpu(app: App[Any], mode: SortKey) -> None:
    table = app.screen.query_one(OperatorTable)
    assert table.mode is mode and table.sort == "gpu" and table.descending
    order = _gpu_order(app)
    assert order == sorted(order, reverse=True) and order[0] > 0


def test_main_cuda(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """Header says GPU observed; operators sorted by self GPU time."""

    def check(app: App[Any]) -> None:
        assert "GPU observed" in screen_text(app).splitlines()[0]
        _sorted_by_gpu(app, SortKey.SELF)
        assert "Self GPU ▼" in screen_text(app)

    assert _shot(snap_compare, cuda_trace, (120, 36), check=check)


def test_main_cpu_only(snap_compare: Callable[..., bool], cpu_trace: Path) -> None:
    """GPU reads 'not observed' with the reason; GPU column shows n/o, not 0."""

    def check(app: App[Any]) -> None:
        text = screen_text(app)
        assert "GPU not observed  CUDA is not available" in text
        table = app.screen.query_one(OperatorTable)
        assert not table.gpu_observed
        assert all(table.values(int(row))[2] is None for row in table.order)
        header = next(line for line in text.splitlines() if line.startswith("Operator"))
        assert header.rstrip().endswith("GPU n/o")
        rows = text.split(header, 1)[1].splitlines()[1:4]
        assert all(row.rstrip().endswith("—") for row in rows), rows

    assert _shot(snap_compare, cpu_trace, (120, 36), check=check)


def test_total_mode(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """After t the column headers say Total and the order follows total time."""

    def check(app: App[Any]) -> None:
        _sorted_by_gpu(app, SortKey.TOTAL)
        assert "Total CPU Total GPU ▼" in screen_text(app)

    assert _shot(snap_compare, cuda_trace, (120, 36), press=["t"], check=check)


def test_gap_selected(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """b selects the biggest gap: the info line names it GPU idle with its figures."""

    def check(app: App[Any]) -> None:
        screen = _main(app)
        biggest = max(gap.duration_ns for gap in screen.analysis.gaps)
        assert biggest == 3_700_000  # the fixture's longest data-zone gap
        assert info(screen).startswith("gap 3/3  GPU idle  3.7 ms at 20.100 ms  step 3")

    assert _shot(snap_compare, cuda_trace, (120, 36), press=["b"], check=check)


def test_untraced_gap(snap_compare: Callable[..., bool], cpu_trace: Path) -> None:
    """Without GPU events the gap is the zone's untraced time, never 'GPU idle' nor a wait."""

    def check(app: App[Any]) -> None:
        assert info(_main(app)).startswith("gap 1/6  untraced time (no GPU events)")
        assert "GPU idle" not in screen_text(app)

    assert _shot(snap_compare, cpu_trace, (120, 36), press=["g"], check=check)


def test_details(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """Enter on an operator occurrence opens its details with the GPU work it launched."""

    def check(app: App[Any]) -> None:
        assert not isinstance(app.screen, MainScreen)
        lines = [line.strip("│ ") for line in screen_text(app).splitlines()]
        assert "aten::addmm" in lines
        launched = lines.index("GPU work launched (1)")
        assert lines[launched + 1].endswith("ampere_sgemm_128x64_nn")

    assert _shot(
        snap_compare,
        cuda_trace,
        (120, 40),
        press=["slash", *"addmm", "enter", "enter"],
        check=check,
    )


def test_help(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """? lists every key, read from the bindings."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        title, bindings = _main(pilot.app).key_sections()[0]
        await pilot.press("question_mark")
        await pilot.pause()
        # A scrollbar's thumb drawn over a row's end is not part of the row.
        text = screen_text(pilot.app)
        lines = [line.strip("│ ▁▂▃▄▅▆▇█") for line in text.splitlines()]
        assert "steptrace keys" in lines and title in lines
        rows = bindings_rows(bindings)
        assert len(rows) > 20
        for key, description in rows:
            assert f"{key:<16}{description}" in lines, (key, description)

    app = make_app(cuda_trace)
    assert snap_compare(app, terminal_size=(120, 50), run_before=before)


def test_load_error(
    snap_compare: Callable[..., bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that is not a trace: the path and a one-line reason."""
    monkeypatch.chdir(tmp_path)
    write_bad_trace(tmp_path / "not-a-trace.json")

    def check(app: App[Any]) -> None:
        assert isinstance(app.screen, LoadErrorScreen)
        text = screen_text(app)
        assert "file    not-a-trace.json" in text
        reason = next(line for line in text.splitlines() if "reason" in line)
        assert "not-a-trace.json: not a trace" in reason

    assert _shot(snap_compare, "not-a-trace.json", (80, 24), check=check)


def test_small_terminal(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """80x24: header, strip, timeline, info line, table and footer all fit."""

    def check(app: App[Any]) -> None:
        screen = _main(app)
        parts = [
            screen.query_one("#header-line"),
            screen.query_one("#steps"),
            screen.query_one("#timeline"),
            screen.query_one("#info-line"),
            screen.query_one(OperatorTable),
        ]
        for part in parts:
            region = part.region
            assert region.height > 0 and region.bottom <= 23, part
        assert screen_text(app).splitlines()[-1].startswith(" w s Zoom")

    assert _shot(snap_compare, cuda_trace, (80, 24), check=check)


def test_findings(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """2 shows the readings costliest first, each with its cost and next check."""

    def check(app: App[Any]) -> None:
        findings = app.screen.query_one(FindingsPanel).findings
        assert len(findings) == len([rule for rule in RULES if rule.read])
        costs = [f.cost_ns_per_step for f in findings if f.seen]
        weighed = [cost for cost in costs if cost is not None]
        assert weighed == costs  # every finding seen is weighed
        assert weighed and weighed == sorted(weighed, reverse=True)
        likely = [f for f in findings if f.status is FindingStatus.LIKELY]
        text = screen_text(app)
        # As many as the bottom pane's rows hold: two at least.
        assert text.count("● likely") >= min(len(likely), 2)
        assert text.count("cost: about") >= 2
        assert text.count("next check:") >= 2 and "cause" not in text

    assert _shot(snap_compare, cuda_trace, (120, 40), press=["2"], check=check)


ALEXNET = (
    shared.FOLDER
    / "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"
)


@pytest.mark.usefixtures("shared_traces")
def test_real_cuda_trace(
    snap_compare: Callable[..., bool], isolated_data_dir: Path
) -> None:
    """A real CUDA capture without steps: no steps, no data zone, GPU observed."""

    def check(app: App[Any]) -> None:
        analysis = _main(app).analysis
        assert not analysis.steps and not analysis.gaps
        header = screen_text(app).splitlines()[:3]
        assert header[0].rstrip().endswith("GPU observed")
        assert "zone none found" in header[1] and "window no steps" in header[1]

    assert _shot(snap_compare, ALEXNET, (120, 36), check=check)


def test_hostile_names(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """Markup, escapes and bidi overrides in names show as visible escapes."""
    path = write_hostile_trace(tmp_path / "hostile.json")

    def check(app: App[Any]) -> None:
        text = screen_text(app)
        assert "\x1b" not in text and "\u202e" not in text
        assert "\\x1b[2J" in text and "[@click=app.quit]" in text

    assert _shot(snap_compare, path, (120, 36), press=["1", "o", "o"], check=check)


def test_zone_picker(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """z lists the ranges that can be the data zone with calls and total time,
    the one in use marked (●), filtered by what is typed."""

    def check(app: App[Any]) -> None:
        text = screen_text(app)
        assert "now:" in text and "lecture_batch_cpu (default)" in text
        rows = [line for line in text.splitlines() if " calls " in line]
        assert len(rows) == 6, rows
        assert all("aten::" in row and "[ ]" in row for row in rows)

    assert _shot(snap_compare, cuda_trace, (100, 30), press=["z", *"aten"], check=check)


def test_opened_with_zone(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """--zone transfert: the header says whose choice, the zones row marks its gaps."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("g")
        await pilot.pause()
        screen = _main(pilot.app)
        assert "zone transfert (your choice)" in screen_text(pilot.app)
        assert screen.analysis.gaps and info(screen).endswith("zone transfert")

    app = StepTraceApp(cuda_trace, zones=("transfert",))
    app.animation_level = "none"
    assert snap_compare(app, terminal_size=(120, 36), run_before=before)


NS_TRACE = (
    shared.FOLDER / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
)


@pytest.mark.usefixtures("shared_traces")
def test_real_gpu_trace_80x24(
    snap_compare: Callable[..., bool], isolated_data_dir: Path
) -> None:
    """A real GPU trace at 80x24: the GPU state fits, the first stream is on screen."""

    def check(app: App[Any]) -> None:
        lines = screen_text(app).splitlines()
        assert lines[0].rstrip().endswith("GPU observed") and len(lines[0]) <= 80
        timeline = app.screen.query_one("#timeline").region
        rows = lines[timeline.y : timeline.bottom]
        assert any(re.search(r"GPU 0 stream 7 *│", row) for row in rows), rows

    assert _shot(snap_compare, NS_TRACE, (80, 24), check=check)


def test_loading(
    snap_compare: Callable[..., bool],
    cuda_trace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loading screen: what is being read, how far, and Esc to cancel."""
    monkeypatch.chdir(cuda_trace.parent)
    import threading

    from tui.core.base.errors import LoadCancelled
    from tui.core.base.vocab import LoadPhase
    from tui.core.ingest import load
    from tui.core.ingest.load import LoadProgress

    reading = threading.Event()

    def slow_load(
        path: Any,
        *,
        progress: Any = None,
        cancel: Any = None,
        cache: Any = None,
        workers: Any = None,
        max_memory: Any = None,
    ) -> Any:
        progress(LoadProgress(LoadPhase.READING, 40_000_000, 85_000_000))
        reading.set()
        cancel.wait(3)
        raise LoadCancelled()

    monkeypatch.setattr(load, "load_trace", slow_load)

    async def before(pilot: Pilot[Any]) -> None:
        assert reading.wait(5)
        for _ in range(3):
            await pilot.pause()
        text = screen_text(pilot.app)
        assert "Loading train-cuda.json" in text
        assert "reading: 38.1 MiB of 81.1 MiB" in text and "Esc cancels" in text

    app = make_app(cuda_trace.name)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
