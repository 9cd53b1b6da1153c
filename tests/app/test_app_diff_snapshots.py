"""Pictures of the comparison screen at fixed sizes, from two fixture captures
written deterministically (`tests/builders/diff_pair.py`) with fixed names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.app.test_app_diff import comparing, settle_comparison
from tests.builders.diff_pair import FAST_MS, SLOW_MS, write_capture, write_pair
from tui.notes.store import NotesStore


def _shot(
    snap_compare: Callable[..., bool],
    before: Path,
    after: Path,
    size: tuple[int, int],
    press: Iterable[str] = (),
) -> bool:
    async def ready(pilot: Pilot[Any]) -> None:
        await settle_comparison(pilot)
        for key in press:
            await pilot.press(key)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return snap_compare(comparing(before, after), terminal_size=size, run_before=ready)


def test_faster_at_80x24(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """The verdict FASTER with the change of the median, the few-steps caveat,
    both strips, and the operators by change of self GPU time."""
    assert _shot(snap_compare, *write_pair(tmp_path), (80, 24))


def test_gpu_against_cpu_not_comparable(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """NOT COMPARABLE with the reason; CPU and GPU side by side, the after side's
    GPU cells read n/o, never 0, and rows follow the change of CPU time."""
    before = write_capture(tmp_path / "gpu.json", SLOW_MS)
    after = write_capture(tmp_path / "cpu.json", FAST_MS, on_gpu=False)
    assert _shot(snap_compare, before, after, (130, 36))


def test_both_timelines_at_the_same_step(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """Enter on aten::mm: both timelines at step 2, its occurrence selected in each."""
    assert _shot(snap_compare, *write_pair(tmp_path), (80, 24), press=["enter"])


def test_tested_by_dialog(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """l lists BEFORE's open notes and what the link will record."""
    before, after = write_pair(tmp_path)
    store = NotesStore.open(before)
    store.add("compute waits for lecture_batch_cpu", next_check="preload batches")
    store.save()
    assert _shot(snap_compare, before, after, (80, 24), press=["l"])
