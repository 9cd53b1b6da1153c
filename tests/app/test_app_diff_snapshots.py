"""Pictures of the comparison screen at fixed sizes, from two fixture captures
written deterministically (`tests/builders/diff_pair.py`) with fixed names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.app.test_app_diff import comparing, settle_comparison
from tests.builders.diff_pair import FAST_MS, SLOW_MS, write_capture, write_pair
from tests.pilot import screen_text, workers_finished
from tui.notes.store import NotesStore


def _shot(
    snap_compare: Callable[..., bool],
    before: Path,
    after: Path,
    size: tuple[int, int],
    press: Iterable[str] = (),
    check: Callable[[list[str]], None] | None = None,
) -> bool:
    """The picture after `press`; `check` asserts the docstring's claims on the
    lines the same settled screen draws, before the picture is taken."""

    async def ready(pilot: Pilot[Any]) -> None:
        await settle_comparison(pilot)
        for key in press:
            await pilot.press(key)
        await workers_finished(pilot.app)
        await pilot.pause()
        if check is not None:
            check(screen_text(pilot.app).splitlines())

    return snap_compare(comparing(before, after), terminal_size=size, run_before=ready)


def test_faster_at_80x24(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """The verdict LIKELY FASTER (one capture a side) with the change of the
    median, the runs and what moved, the few-steps caveat, both strips, and the
    operators by change of self GPU time."""

    def check(lines: list[str]) -> None:
        text = "\n".join(lines)
        assert "LIKELY FASTER" in lines[1] and "median step time -20.9%" in lines[1]
        assert "runs: 1 before (10.3 ms), 1 after (8.15 ms)" in text
        assert "what moved: GPU idle during the data zone -2 ms per step" in text
        assert "caveat: 4 steps before, 4 after: under 5 steps" in text
        assert any(line.startswith(" before CPU-side steps") for line in lines)
        assert any(line.startswith(" after  CPU-side steps") for line in lines)
        assert "by change of self GPU time" in text and "Δ GPU ▼" in text
        first = next(i for i, line in enumerate(lines) if "Δ GPU ▼" in line) + 1
        assert lines[first].split()[:2] == ["aten::mm", "5→5"]
        # Δ per kept step, as `steptrace diff` says it (1.5 ms over the trace).
        assert lines[first].rstrip().endswith("-300 µs")

    assert _shot(snap_compare, *write_pair(tmp_path), (80, 24), check=check)


def test_gpu_against_cpu_not_comparable(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """NOT COMPARABLE with the reason; CPU and GPU side by side, the after side's
    GPU cells read n/o, never 0, and rows follow the change of CPU time."""
    before = write_capture(tmp_path / "gpu.json", SLOW_MS)
    after = write_capture(tmp_path / "cpu.json", FAST_MS, on_gpu=False)

    def check(lines: list[str]) -> None:
        text = "\n".join(lines)
        assert "NOT COMPARABLE" in text and "- GPU events before only" in text
        assert "by change of self CPU time" in text and "Δ CPU ▼" in text
        header = next(i for i, line in enumerate(lines) if "Δ CPU ▼" in line)
        rows = [line for line in lines[header + 1 :] if "→" in line]
        assert len(rows) == 8
        assert all(" n/o " in row for row in rows)
        # Δ per kept step (-8.6 ms over the whole trace).
        assert rows[0].split()[:2] == ["ProfilerStep*", "5→5"] and "-2.15 ms" in rows[0]

    assert _shot(snap_compare, before, after, (130, 36), check=check)


def test_both_timelines_at_the_same_step(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """Enter on aten::mm: both timelines at step 2, its occurrence selected in each."""

    def check(lines: list[str]) -> None:
        sides = [line for line in lines if "aten::mm  1 of 5 in this step" in line]
        assert len(sides) == 2
        assert sides[0].startswith(" before  before.json  step 2 ")
        assert sides[1].startswith(" after   after.json  step 2 ")

    assert _shot(
        snap_compare, *write_pair(tmp_path), (80, 24), press=["enter"], check=check
    )


def test_tested_by_dialog(
    snap_compare: Callable[..., bool], tmp_path: Path, isolated_data_dir: Path
) -> None:
    """l lists BEFORE's open notes and what the link will record."""
    before, after = write_pair(tmp_path)
    store = NotesStore.open(before)
    store.add("compute waits for lecture_batch_cpu", next_check="preload batches")
    store.save()

    def check(lines: list[str]) -> None:
        text = "\n".join(line.strip("│ ") for line in lines)
        assert "Tested by after.json: which hypothesis did this capture test?" in text
        assert "It records: likely_faster" in text
        assert "[open] compute waits for lecture_batch_cpu" in text
        assert "next check: preload batches" in text

    assert _shot(snap_compare, before, after, (80, 24), press=["l"], check=check)
