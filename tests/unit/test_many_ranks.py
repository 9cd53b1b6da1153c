"""`runs.many`: per-rank spreads, the robust outlier bound, top ranks, hosts, not observed.

Runs are made of summaries (`builders.many_ranks`); expected figures are
worked out here with numpy from the construction, not read from steptrace.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.builders.many_ranks import END_NS, summary_run
from tui.core.base.vocab import RankSort
from tui.core.results.ranks import RanksResult
from tui.core.runs.discover import host_in_name
from tui.core.runs.many import ManyRanks, percentile
from tui.report.many_ranks import panel_lines
from tui.report.ranks import ranks_text
from tui.view.run_table import RunTable

STEPS = 10
MS = 1_000_000


def jitter(rank: int, index: int) -> int:
    """A deterministic ±0.5 % jitter, different for each rank and step."""
    return ((rank * 7919 + index * 104729) % 11 - 5) * 1_000


def robust_bound(medians: list[float]) -> float:
    center = float(np.median(medians))
    mad = float(np.median(np.abs(np.array(medians) - center)))
    return center + max(3.5 * 1.4826 * mad, 0.03 * center)


def test_a_slow_rank_among_64_is_the_one_outlier() -> None:
    durations = {
        rank: [MS + jitter(rank, index) for index in range(STEPS)] for rank in range(64)
    }
    durations[41] = [int(1.2 * MS) + jitter(41, index) for index in range(STEPS)]
    figures = ManyRanks.of(summary_run(durations))
    spread = figures.step_time
    medians = [float(np.median(durations[rank])) for rank in range(64)]
    assert spread.median == pytest.approx(float(np.median(medians)))
    assert spread.bound == pytest.approx(robust_bound(medians))
    assert spread.outliers == (41,)
    assert spread.top[0] == 41
    assert figures.order[0] == 41
    rank_41 = spread.of_rank(41)
    assert rank_41 is not None
    assert rank_41.median == pytest.approx(float(np.median(durations[41])))
    assert rank_41.p90 == pytest.approx(float(np.percentile(durations[41], 90)))
    assert rank_41.max == max(durations[41])
    assert rank_41.steps == STEPS


def test_ranks_all_within_jitter_have_no_outlier() -> None:
    """Every rank equal but one 2 % slower: the MAD is 0, the 3 % floor holds."""
    durations = {rank: [MS] * STEPS for rank in range(40)}
    durations[7] = [int(1.02 * MS)] * STEPS
    spread = ManyRanks.of(summary_run(durations)).step_time
    assert spread.mad == 0.0
    assert spread.bound == pytest.approx(1.03 * MS)
    assert spread.outliers == ()
    assert spread.top[0] == 7


def test_top_ranks_tie_by_lowest_rank() -> None:
    durations = {rank: [MS] * 4 for rank in range(12)}
    for rank in (9, 3, 7):
        durations[rank] = [2 * MS] * 4
    durations[5] = [int(1.5 * MS)] * 4
    spread = ManyRanks.of(summary_run(durations), top_k=5).step_time
    assert spread.top == (3, 7, 9, 5, 0)
    assert spread.outliers == (3, 7, 9, 5)


def test_waits_and_the_ranks_waited_for_follow_the_arrivals() -> None:
    """Rank 2 is last in 6 of 8 steps, rank 5 in the other 2; peers wait the
    difference of the arrivals."""
    ranks = range(8)
    arrivals = {rank: [100_000 + 1_000 * rank] * 8 for rank in ranks}
    for index in range(6):
        arrivals[2][index] = 600_000
    for index in (6, 7):
        arrivals[5][index] = 700_000
    durations = {rank: [MS] * 8 for rank in ranks}
    figures = ManyRanks.of(summary_run(durations, arrivals=arrivals))
    assert [item.rank for item in figures.waited_for] == [2, 5]
    assert [item.late_steps for item in figures.waited_for] == [6, 2]
    expected_cost = 0.0
    for index in range(6):
        waits = [600_000 - arrivals[rank][index] for rank in ranks if rank != 2]
        expected_cost += float(np.median(waits))
    assert figures.waited_for[0].wait_ns == pytest.approx(expected_cost)
    # Rank 0's waits: the latest arrival minus its own, 0 never (it is never last).
    waits_0 = [600_000 - 100_000] * 6 + [700_000 - 100_000] * 2
    spread_0 = figures.wait.of_rank(0)
    assert spread_0 is not None
    assert spread_0.median == pytest.approx(float(np.median(waits_0)))
    assert spread_0.max == max(waits_0)
    # The straggler's own steps count 0: rank 2 waits only in steps 7 and 8.
    spread_2 = figures.wait.of_rank(2)
    assert spread_2 is not None
    assert spread_2.median == 0.0 and spread_2.max == 700_000 - arrivals[2][6]
    assert figures.read_steps == 8
    assert END_NS > 700_000  # every arrival is inside the collective's window


def test_ranks_are_grouped_by_the_host_their_file_names_state() -> None:
    """tensorboard_trace_handler's names: `{hostname}_{pid}.{time_ns}.pt.trace.json`."""
    hosts = {0: "gpu_node-a", 1: "gpu_node-a", 2: "node-b", 3: "node-b"}
    # gpu_node-a's ranks' median (1.4 ms) is above node-b's (1.25 ms).
    durations = {0: [int(1.3 * MS)] * 3, 1: [int(1.5 * MS)] * 3}
    durations |= {2: [MS] * 3, 3: [int(1.5 * MS) + 1] * 3}
    names = {
        rank: f"{host}_{4100 + rank}.173310000000{rank}.pt.trace.json"
        for rank, host in hosts.items()
    }
    grouped = ManyRanks.of(summary_run(durations, names=names))
    assert grouped.hosts is not None
    # node-b holds the slowest rank (3): first, and rank 3 first within it.
    assert [(group.host, group.ranks) for group in grouped.hosts] == [
        ("node-b", (3, 2)),
        ("gpu_node-a", (1, 0)),
    ]
    assert grouped.order == (3, 2, 1, 0)
    assert grouped.host_of(1) == "gpu_node-a"
    names[2] = "rank-2.pt.trace.json"
    ungrouped = ManyRanks.of(summary_run(durations, names=names))
    assert ungrouped.hosts is None and ungrouped.without_host == (2,)
    assert ungrouped.order == (3, 1, 0, 2)


def test_host_in_name_reads_the_trace_handlers_default_only() -> None:
    assert host_in_name("my_host-3_12345.1733100000123456789.pt.trace.json") == (
        "my_host-3"
    )
    assert host_in_name("node7_9.17.pt.trace.json.gz") == "node7"
    for name in ("rank-3.pt.trace.json", "node7.17.pt.trace.json", "a_b.json"):
        assert host_in_name(name) is None


def test_idle_share_without_device_work_is_not_observed() -> None:
    durations = {rank: [MS] * 4 for rank in range(6)}
    idle = {rank: [0.1, 0.2, 0.3, 0.4] for rank in range(5)}
    idle[4] = [0.6, 0.7, 0.6, 0.7]
    spread = ManyRanks.of(summary_run(durations, idle=idle)).idle_share
    assert spread.not_observed == (5,)
    rank_5 = spread.of_rank(5)
    assert rank_5 is not None and rank_5.median is None and rank_5.steps == 0
    rank_0 = spread.of_rank(0)
    assert rank_0 is not None
    assert rank_0.median == pytest.approx(0.25)
    assert rank_0.p90 == pytest.approx(float(np.percentile([0.1, 0.2, 0.3, 0.4], 90)))
    assert spread.top[0] == 4
    assert 5 not in spread.top


def test_percentile_is_numpys_linear_one() -> None:
    rng = np.random.default_rng(5)
    for size in (1, 2, 3, 7, 10, 41):
        values = sorted(rng.normal(48.0, 3.0, size).tolist())
        for pct in (0.0, 50.0, 90.0, 100.0):
            assert percentile(values, pct) == pytest.approx(np.percentile(values, pct))


def test_hostile_host_names_stay_text() -> None:
    """A host name with an escape and markup reads as text in the words and the table."""
    host = "ev[b]il\x1b[31m"
    names = {rank: f"{host}_{rank}.17331.pt.trace.json" for rank in range(40)}
    durations = {rank: [MS + rank] * 3 for rank in range(40)}
    result = RanksResult.of(summary_run(durations, names=names))
    assert result.many.hosts is not None and result.many.hosts[0].host == host
    words = ranks_text(result) + "\n".join(panel_lines(result))
    assert "\x1b" not in words and "ev[b]il\\x" in words  # cut to its column
    table = RunTable(result)
    left = table.left_text(0, RankSort.HOST)
    assert "\x1b" not in left and left.startswith("ev[b]il\\x1b")
    assert "\x1b" not in table.cell_info(0, 0).plain


def test_the_text_heat_map_fits_80_columns_by_host() -> None:
    """64 ranks on 8 hosts, 130 steps: rank 21 (host node002) 30 % slower from the
    66th step. 61 columns hold 130 steps as 44 columns of 3, each the slowest."""
    names = {
        rank: f"node{rank // 8:03d}_{rank}.17331.pt.trace.json" for rank in range(64)
    }
    durations = {rank: [MS] * 130 for rank in range(64)}
    durations[21] = [MS] * 65 + [int(1.3 * MS)] * 65
    lines = ranks_text(RanksResult.of(summary_run(durations, names=names))).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "  a column is 3 steps, the slowest of them" in lines
    rows = [line for line in lines if line.lstrip().startswith("node")]
    assert len(rows) == 8  # 8 hosts: none hidden
    label, cells = rows[0][:18].strip(), rows[0][19:]
    assert label == "node002 (8)"
    # Columns 0-20 hold steps 1-63; column 21 holds steps 64-66, the 66th slow.
    assert cells == "·" * 21 + "█" * 23
    assert all(set(row[19:]) == {"·"} for row in rows[1:])
