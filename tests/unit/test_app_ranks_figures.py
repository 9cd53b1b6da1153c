"""The figures the ranks screen shows, against run folders and traces built with known answers.

Heat levels come from step times chosen in bands; stragglers and waits
from the arrivals of `builders.runs`; the device split from kernels laid out
by hand; `--zone` on a run from names that some, all or no rank holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.ranks_app import straggler_of, write_heat_run
from tests.builders.runs import write_run
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.base.vocab import HeatLevel, RankSort
from tui.core.figures.breakdown.split import DeviceSplit
from tui.core.ingest.load import load_trace
from tui.core.runs import read_run
from tui.core.runs.heat import RunHeat
from tui.core.runs.rank_summary import summarise_trace

ARRIVALS = {
    0: [100.0, 700.0, 120.0, 200.0],
    1: [150.0, 160.0, 140.0, 210.0],
    2: [400.0, 300.0, 500.0, 220.0],
    3: [130.0, 110.0, 100.0, 600.0],
}
# Every step's median over the four ranks is 1.0 (two of the middle values are 1.0).
SCALES = {
    0: [1.0, 1.0, 1.0, 1.0],
    1: [1.0, 1.07, 0.9, 1.0],
    2: [1.2, 1.0, 1.0, 1.4],
    3: [1.0, 1.0, 1.0, 1.0],
}
EXPECTED_LEVELS = {
    (1, 1): HeatLevel.SLOWER,  # +7 %
    (1, 2): HeatLevel.FASTER,  # -10 %
    (2, 0): HeatLevel.SLOW,  # +20 %
    (2, 3): HeatLevel.SLOWEST,  # +40 %
}


def test_heat_levels_and_late_steps_follow_the_construction(tmp_path: Path) -> None:
    folder = write_heat_run(tmp_path / "run", ARRIVALS, SCALES, world_size=4)
    heat = RunHeat.of(read_run(folder, workers=1))
    assert heat.steps == (1, 2, 3, 4)
    stragglers = [straggler_of(ARRIVALS, SCALES, index) for index in range(4)]
    assert heat.read_steps == 4
    for item in heat.ranks:
        expected = tuple(
            EXPECTED_LEVELS.get((item.rank, index), HeatLevel.NEAR)
            for index in range(4)
        )
        assert item.levels == expected, item.rank
        assert item.late_steps == stragglers.count(item.rank)


def test_total_wait_is_the_sum_of_arrival_differences(tmp_path: Path) -> None:
    """Unstretched steps: everyone leaves together, so a wait is an arrival difference."""
    folder = write_run(tmp_path / "run", ARRIVALS, world_size=4)
    heat = RunHeat.of(read_run(folder, workers=1))
    for item in heat.ranks:
        expected_us = 0.0
        for index in range(4):
            latest = max(values[index] for values in ARRIVALS.values())
            expected_us += latest - ARRIVALS[item.rank][index]
        assert item.total_wait_ns is not None
        assert item.total_wait_ns / 1000 == pytest.approx(expected_us, abs=0.01)
        assert item.median_ns == pytest.approx(1_000_000)


def test_a_rank_without_collectives_has_no_total_wait(tmp_path: Path) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    folder = write_run(tmp_path / "run", {0: ARRIVALS[0][:1]}, world_size=2)
    write_trace(
        folder / "rank-1.pt.trace.json",
        events,
        extra={"distributedInfo": {"rank": 1, "world_size": 2}},
    )
    heat = RunHeat.of(read_run(folder, workers=1))
    rank_one = heat.rank(1)
    assert rank_one is not None and rank_one.total_wait_ns is None
    assert rank_one.late_steps == 0


def test_device_split_adds_up_to_the_span_by_hand(tmp_path: Path) -> None:
    """compute [0,100) and [300,350), NCCL [50,200), a copy [180,260): by priority
    compute 150, communication 100 (100..200), memory 60 (200..260), idle 40."""
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 400, cat="user_annotation"),
        gpu("gemm_kernel", 0, 100),
        gpu("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 150, stream=8),
        gpu("Memcpy HtoD (Pinned -> Device)", 180, 80, cat="gpu_memcpy", stream=9),
        gpu("gemm_kernel", 300, 50),
    ]
    trace = load_trace(write_trace(tmp_path / "t.json", events))
    summary = summarise_trace(trace)
    for breakdown in (summary.breakdown, summary.breakdown_steptrace):
        assert breakdown is not None
        split = DeviceSplit.of(breakdown)
        assert (
            split.span_ns,
            split.compute_ns,
            split.communication_ns,
            split.memory_ns,
            split.other_ns,
            split.idle_ns,
        ) == (350_000, 150_000, 100_000, 60_000, 0, 40_000)
    step = summary.steps[0].breakdown_steptrace
    assert step is not None
    in_step = DeviceSplit.of(step)
    # The step's window (400 µs) is its span: 50 more µs of idle after the last kernel.
    assert (in_step.span_ns, in_step.idle_ns) == (400_000, 90_000)
    assert sum(ns for _, ns in in_step.parts()) == in_step.span_ns


@pytest.mark.parametrize(
    ("names", "refused"),
    [
        (["lecture_batch_cpu"], []),
        (["lecture_batch_cp"], ["lecture_batch_cp"]),
        (["lecture_batch_cpu", "only_on_rank_1"], []),
        (["lecture_batch_cpu", "nowhere"], ["nowhere"]),
    ],
    ids=["held", "misspelt", "held-by-one-rank", "one-of-two-nowhere"],
)
def test_ranks_zone_is_refused_only_when_no_rank_holds_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    names: list[str],
    refused: list[str],
) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS, world_size=4)
    # A range that only rank 1 recorded.
    path = folder / "rank-1.pt.trace.json"
    import orjson

    document = orjson.loads(path.read_bytes())
    step = next(e for e in document["traceEvents"] if e.get("name") == "ProfilerStep#1")
    document["traceEvents"].append(
        {**step, "name": "only_on_rank_1", "dur": 50.0, "ts": step["ts"] + 200}
    )
    path.write_bytes(orjson.dumps(document))
    argv = ["ranks", str(folder), "--workers", "1", "--json"]
    for name in names:
        argv += ["--zone", name]
    status = main(argv)
    captured = capsys.readouterr()
    if not refused:
        assert status == 0, captured.err
        return
    assert status == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == len(refused)
    for line, name in zip(lines, refused, strict=True):
        assert f"no range named '{name}' in any rank of this run" in line
    if refused == ["lecture_batch_cp"]:
        assert lines[0].endswith("closest: lecture_batch_cpu")


@pytest.mark.parametrize(
    "parts",
    [
        (350, 0, 0, 0, 0),
        (150, 100, 60, 0, 40),
        (1, 1, 1, 1, 996),
        (333, 333, 334, 0, 0),
        (7, 0, 0, 0, 0),
    ],
    ids=["all-compute", "by-hand", "slivers", "thirds", "tiny"],
)
@pytest.mark.parametrize("width", [1, 10, 24, 37])
def test_bars_add_up_to_their_width_and_follow_the_shares(
    parts: tuple[int, ...], width: int
) -> None:
    from tui.view.device_bars import bar_cells

    split = DeviceSplit(sum(parts), *parts)
    cells = bar_cells(split, width)
    assert sum(count for _, count in cells) == width
    total = sum(parts)
    for (_, count), ns in zip(cells, parts, strict=True):
        assert abs(count - ns * width / total) < 1.0
        if ns == 0:
            assert count == 0


def test_sorting_puts_ranks_without_a_value_last_both_ways(tmp_path: Path) -> None:
    """A rank with no collective has no total wait: last whichever the direction."""
    from tui.core.results.ranks import RanksResult
    from tui.view.run_table import RunTable

    folder = write_run(tmp_path / "run", {0: [100.0], 2: [300.0]}, world_size=3)
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    write_trace(
        folder / "rank-1.pt.trace.json",
        events,
        extra={"distributedInfo": {"rank": 1, "world_size": 3}},
    )
    table = RunTable(RanksResult.of(read_run(folder, workers=1)))
    ranks = [row.rank for row in table.rows]
    for descending in (True, False):
        order = [ranks[i] for i in table.order(RankSort.WAIT, descending)]
        assert order[-1] == 1
    # Rank 0 arrives 200 µs before rank 2 and waits for it; rank 2 waits nothing.
    assert [ranks[i] for i in table.order(RankSort.WAIT, True)] == [0, 2, 1]
    assert table.unit == "ms"
    assert table.cell(0, 0).text.strip() == "1.000"
    assert table.cell(2, 0).text.strip() == "1.000*"
