"""Pictures of the explorer at fixed sizes, from fixture traces.

Each picture is of a settled app (load worker finished, animations off); the
fixture traces are written with fixed names and contents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests import shared_traces as shared
from tests.builders.app_traces import (
    write_bad_trace,
    write_hostile_trace,
)
from tests.pilot import make_app, settle
from tui.app.app import StepTraceApp


def _shot(
    snap_compare: Callable[..., bool],
    path: Path | str,
    size: tuple[int, int],
    press: Iterable[str] = (),
) -> bool:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in press:
            await pilot.press(key)
        await pilot.pause()

    return snap_compare(make_app(path), terminal_size=size, run_before=before)


def test_main_cuda(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """Header says GPU observed; operators sorted by self GPU time."""
    assert _shot(snap_compare, cuda_trace, (120, 36))


def test_main_cpu_only(snap_compare: Callable[..., bool], cpu_trace: Path) -> None:
    """GPU reads 'not observed' with the reason; GPU column shows n/o, not 0."""
    assert _shot(snap_compare, cpu_trace, (120, 36))


def test_total_mode(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """After t the column headers say Total and the order follows total time."""
    assert _shot(snap_compare, cuda_trace, (120, 36), press=["t"])


def test_gap_selected(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """b selects the biggest gap: the info line names it GPU idle with its figures."""
    assert _shot(snap_compare, cuda_trace, (120, 36), press=["b"])


def test_cpu_wait_gap(snap_compare: Callable[..., bool], cpu_trace: Path) -> None:
    """Without GPU events the gap is the zone's CPU wait, never 'GPU idle'."""
    assert _shot(snap_compare, cpu_trace, (120, 36), press=["g"])


def test_details(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """Enter on an operator occurrence opens its details with the GPU work it launched."""
    assert _shot(
        snap_compare, cuda_trace, (120, 40), press=["slash", *"addmm", "enter", "enter"]
    )


def test_help(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """? lists every key, read from the bindings."""
    assert _shot(snap_compare, cuda_trace, (120, 50), press=["question_mark"])


def test_load_error(
    snap_compare: Callable[..., bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that is not a trace: the path and a one-line reason."""
    monkeypatch.chdir(tmp_path)
    write_bad_trace(tmp_path / "not-a-trace.json")
    assert _shot(snap_compare, "not-a-trace.json", (80, 24))


def test_small_terminal(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """80x24: header, strip, timeline, info line, table and footer all fit."""
    assert _shot(snap_compare, cuda_trace, (80, 24))


def test_findings(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """2 shows the four readings as possible observations with next checks."""
    assert _shot(snap_compare, cuda_trace, (120, 40), press=["2"])


ALEXNET = (
    shared.FOLDER
    / "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"
)


@pytest.mark.usefixtures("shared_traces")
def test_real_cuda_trace(
    snap_compare: Callable[..., bool], isolated_data_dir: Path
) -> None:
    """A real CUDA capture without steps: no steps, no data zone, GPU observed."""
    assert _shot(snap_compare, ALEXNET, (120, 36))


def test_hostile_names(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """Markup, escapes and bidi overrides in names show as visible escapes."""
    path = write_hostile_trace(tmp_path / "hostile.json")
    assert _shot(snap_compare, path, (120, 36), press=["1", "o", "o"])


def test_zone_picker(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """z lists the ranges that can be the data zone with calls and total time,
    the one in use marked (●), filtered by what is typed."""
    assert _shot(snap_compare, cuda_trace, (100, 30), press=["z", *"aten"])


def test_opened_with_zone(snap_compare: Callable[..., bool], cuda_trace: Path) -> None:
    """--zone transfert: the header says whose choice, the zones row marks its gaps."""

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("g")
        await pilot.pause()

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
    assert _shot(snap_compare, NS_TRACE, (80, 24))


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

    app = make_app(cuda_trace.name)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
