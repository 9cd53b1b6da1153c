"""`steptrace ranks DIR`: stragglers and waits known by construction, the JSON shape, the text, the reading."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.builders.runs import COLLECTIVE_END, write_run
from tui.cli import main
from tui.core.base.vocab import FindingStatus
from tui.core.runs import read_run
from tui.core.runs.late_rank import late_rank
from tui.report.findings import words

# Rank 2 reaches the collective last in steps 1 and 3, rank 0 in step 2.
ARRIVALS = {
    0: [100.0, 700.0, 120.0],
    1: [150.0, 160.0, 140.0],
    2: [400.0, 300.0, 500.0],
}


def ranks_json(folder: Path, capsys: pytest.CaptureFixture[str], *more: str) -> Any:
    assert main(["ranks", str(folder), "--json", "--workers", "1", *more]) == 0
    return json.loads(capsys.readouterr().out)


def test_stragglers_and_waits_match_the_construction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS, world_size=3)
    result = ranks_json(folder, capsys)
    assert result["world_size"] == 3
    assert [step["step"] for step in result["steps"]] == [1, 2, 3]
    for index, step in enumerate(result["steps"]):
        arrivals = {rank: values[index] for rank, values in ARRIVALS.items()}
        straggler = max(arrivals, key=lambda rank: arrivals[rank])
        assert step["straggler"] == straggler
        assert step["arrival_us"] == {str(r): a for r, a in arrivals.items()}
        # Everyone leaves together: the others wait exactly the arrival difference.
        assert step["wait_us"] == pytest.approx(
            {
                str(rank): arrivals[straggler] - arrival
                for rank, arrival in arrivals.items()
                if rank != straggler
            }
        )
        assert step["duration_us"] == {"0": 1000.0, "1": 1000.0, "2": 1000.0}
        assert (step["median_us"], step["spread_us"]) == (1000.0, 0.0)
    for rank in result["ranks"]:
        assert rank["breakdown"] is None and rank["gpu_observed"] is False
        assert rank["collectives"] == "cpu"
        assert [s["collective_us"] for s in rank["steps"]] == pytest.approx(
            [COLLECTIVE_END - a for a in ARRIVALS[rank["rank"]]]
        )
    assert any("CPU-side only" in warning for warning in result["warnings"])


def test_a_gloo_range_closing_after_its_step_counts_only_within_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Rank 0's gloo thread closes its range 300 µs after rank 0's step ended
    # (the thread was descheduled after waking the step's thread): that tail is
    # not time rank 0 spent waiting in the step.
    arrivals = {0: [100.0, 100.0], 1: [400.0, 400.0]}
    folder = write_run(
        tmp_path / "run", arrivals, world_size=2, collective_end={0: 1300.0}
    )
    result = ranks_json(folder, capsys)
    rank0 = result["ranks"][0]
    assert [s["collective_us"] for s in rank0["steps"]] == pytest.approx(
        [1000.0 - 100.0] * 2
    )
    for step in result["steps"]:
        assert step["straggler"] == 1
        assert step["wait_us"]["0"] == pytest.approx(1000.0 - 100.0 - (900.0 - 400.0))
        assert step["wait_us"]["0"] <= step["duration_us"]["0"]


def test_the_json_has_the_documented_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS, world_size=4, on_gpu=[1])
    result = ranks_json(folder, capsys)
    assert {"world_size", "ranks", "steps", "warnings"} <= set(result)
    for rank in result["ranks"]:
        assert {"rank", "file", "gpu_observed", "step_median_us", "breakdown"} <= set(
            rank
        )
    gpu_rank = result["ranks"][1]
    breakdown = gpu_rank["breakdown"]
    assert set(breakdown) == {
        "span_us",
        "idle_us",
        "compute_us",
        "non_compute_us",
        "comm_comp_overlap_pct",
        "kernel_types",
        "idle_by_cause",
    }
    assert {tuple(sorted(part)) for part in breakdown["kernel_types"]} == {
        ("pct", "type", "us")
    }
    assert {part["cause"] for part in breakdown["idle_by_cause"]} <= {
        "host_wait",
        "kernel_wait",
        "other",
    }
    for step in result["steps"]:
        assert {"step", "duration_us", "straggler", "wait_us"} <= set(step)
    assert result["ranks"][0]["breakdown"] is None  # CPU-only rank: null, never zeros
    assert "world size is 4 but 3 rank(s) were found; missing: 3" in result["warnings"]
    assert any("on the CPU only" in warning for warning in result["warnings"])


def test_gpu_collectives_arrive_when_the_kernel_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_run(tmp_path / "run", ARRIVALS, world_size=3, on_gpu=[0, 1, 2])
    result = ranks_json(folder, capsys)
    assert [step["straggler"] for step in result["steps"]] == [2, 0, 2]
    assert {rank["collectives"] for rank in result["ranks"]} == {"gpu"}
    assert not any("CPU-side only" in warning for warning in result["warnings"])
    # An NCCL kernel is communication for both HTA's rules and steptrace's.
    for rank in result["ranks"]:
        labels = {part["type"] for part in rank["breakdown"]["kernel_types"]}
        assert "COMMUNICATION" in labels
        assert rank["breakdown"]["comm_comp_overlap_pct"] == 0.0


def test_the_late_rank_reading(tmp_path: Path) -> None:
    late = {0: [100.0] * 4, 1: [120.0] * 4, 2: [600.0, 110.0, 650.0, 620.0]}
    folder = write_run(tmp_path / "run", late, world_size=3, zone_us={2: 450.0})
    finding = late_rank(read_run(folder, workers=1))
    # Its peers wait a median 510 µs of a 1 ms step in the steps it is last.
    assert finding.cost_ns_per_step == 510_000
    assert finding.share_of_step == pytest.approx(0.51)
    assert finding.status is FindingStatus.LIKELY
    said = words(finding)
    assert said.cost == "about 510 µs per step, 51% of the median step (1 ms)"
    assert said.title == "One rank reaches the collectives late"
    assert said.observation.startswith(
        "rank 2 reached the collectives last in 3 of 4 steps"
    )
    assert "450 µs per step against 100 µs on rank 0" in said.observation
    assert said.next_check == "compare that rank's data zone and kernels with a peer's"


@pytest.mark.parametrize(
    ("lateness_us", "status"),
    [
        (1.0, FindingStatus.MINOR),
        (19.0, FindingStatus.MINOR),
        (20.0, FindingStatus.POSSIBLE),  # 2 % of the 1 ms step: the floor
        (99.0, FindingStatus.POSSIBLE),
        (100.0, FindingStatus.LIKELY),  # 10 %
    ],
)
def test_a_late_rank_weighs_what_its_peers_wait(
    tmp_path: Path, lateness_us: float, status: FindingStatus
) -> None:
    arrivals = {0: [100.0] * 3, 1: [100.0 + lateness_us] * 3}
    folder = write_run(tmp_path / "run", arrivals, world_size=2)
    finding = late_rank(read_run(folder, workers=1))
    assert finding.cost_ns_per_step == pytest.approx(lateness_us * 1000)
    assert finding.status is status


def test_the_floor_is_the_users(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "run", {0: [100.0] * 3, 1: [150.0] * 3}, world_size=2)
    run = read_run(folder, workers=1)
    assert late_rank(run).status is FindingStatus.POSSIBLE  # 5 %
    assert late_rank(run, min_share=0.06).status is FindingStatus.MINOR


def test_no_late_rank_when_no_rank_is_last_in_most_steps(tmp_path: Path) -> None:
    arrivals = {0: [100.0, 200.0, 100.0, 200.0], 1: [200.0, 100.0, 200.0, 100.0]}
    folder = write_run(tmp_path / "run", arrivals, world_size=2)
    finding = late_rank(read_run(folder, workers=1))
    assert finding.status is FindingStatus.NOT_SEEN
    assert finding.cost_ns_per_step is None
    assert "no rank reached the collectives last" in words(finding).observation


def test_one_rank_is_not_observed(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "run", {0: [100.0]}, world_size=1)
    finding = late_rank(read_run(folder, workers=1))
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert "one rank" in words(finding).observation


def test_text_cuts_steps_beyond_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nine = {rank: [*values, *values, *values] for rank, values in ARRIVALS.items()}
    folder = write_run(tmp_path / "run", nine, world_size=3)
    assert main(["ranks", str(folder), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "steps 7–9 not shown: 3 more columns; all in --json" in text
    assert "     2   6/9    *1.000" in text  # every rank has its row, stragglers marked


def test_past_32_ranks_the_text_reads_the_run_as_distributions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """40 ranks: rank 17 reaches the collectives last in every step; all leave at
    900 µs, so rank r waits (900 - 100 - r) - (900 - 600) = 500 - r µs."""
    many = {rank: [100.0 + rank] * 9 for rank in range(40)}
    many[17] = [600.0] * 9
    peers_wait = statistics.median(500 - rank for rank in range(40) if rank != 17)
    folder = write_run(tmp_path / "run", many, world_size=40)
    assert main(["ranks", str(folder), "--workers", "2"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "step time per rank (ms)" in text and "    17   9/9" not in text
    waited = lines.index(next(line for line in lines if line.startswith("waited")))
    assert lines[waited + 3].split() == ["17", "9/9", f"{9 * peers_wait / 1000:.3f}"]
    assert "outliers none" in text  # every step took 1 ms on every rank
    assert "29 more rows, all in --json" in text
    assert "rank 17 reached the collectives last in 9 of 9 steps" in text

    result = ranks_json(folder, capsys)
    assert len(result["ranks"]) == 40
    figures = result["many_ranks"]
    assert figures["waited_for"][0] == {
        "rank": 17,
        "late_steps": 9,
        "wait_us": pytest.approx(9 * peers_wait),
    }
    waits = figures["wait"]
    assert waits["ranks"][0] == {
        "rank": 0,
        "median_us": pytest.approx(500.0),
        "p90_us": pytest.approx(500.0),
        "max_us": pytest.approx(500.0),
        "steps": 9,
    }
    assert waits["ranks"][17]["max_us"] == 0.0  # last in every step: waits 0
    assert figures["idle_share"]["not_observed"] == list(range(40))
    assert figures["hosts"] is None and figures["without_host"] == list(range(40))
    assert figures["outlier_rule"] == {
        "mads": 3.5,
        "mad_to_sd": 1.4826,
        "floor_pct": 3.0,
    }


def test_hostile_names_stay_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_run(
        tmp_path / "run", ARRIVALS, world_size=None, name="host\x1b[31m-{rank}.json"
    )
    assert main(["ranks", str(folder), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out


@pytest.mark.parametrize("target", ["missing", "file", "empty"])
def test_a_bad_folder_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    (tmp_path / "file").write_text("{}")
    (tmp_path / "empty").mkdir()
    assert main(["ranks", str(tmp_path / target)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("steptrace: ") and error.count("\n") == 1


def test_a_folder_of_broken_files_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rank-0.json").write_text("not json")
    assert main(["ranks", str(tmp_path), "--workers", "1"]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("steptrace: no rank could be read") and error.count("\n") == 1
    )
