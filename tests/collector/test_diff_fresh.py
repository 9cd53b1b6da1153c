"""The diff verdict on fresh CPU captures made by the collector: the same
code twice says no order; a 60 ms sleep in the data zone reads likely slower
(one capture a side) and names the data zone as what moved, even when one
side's first step is slowed 3x in its data zone (time every step has: it is
kept, never set aside by its duration); 2 steps against 8 of the same code
compare per step without change.

Each step sleeps a fixed, jittered time (the same jitter on both sides), so the
step times are set by the test, not by the machine's noise."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from collector import Window, capture  # noqa: E402
from tui.core.figures.analysis import Analysis  # noqa: E402
from tui.core.ingest.load import load_trace  # noqa: E402
from tui.core.results.diff import DiffResult  # noqa: E402

pytestmark = [
    pytest.mark.torch,
    pytest.mark.filterwarnings("ignore:CUDA is not available:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*Profiler clears events:UserWarning"),
]

BASE_MS = 40.0
JITTER_MS = (0.0, 9.0, 3.0, 12.0, 6.0, 15.0, 4.5, 10.5)
DATA_ZONE = "lecture_batch_cpu"


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Two shared cores: one intra-op thread avoids OpenMP stalls."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def run(
    path: Path,
    active: int = 6,
    *,
    data_sleep_ms: float = 0.0,
    first_factor: float = 1.0,
) -> Path:
    """A capture of `active` steps: a data zone (sleep) then a tiny matmul."""
    window = Window(wait=0, warmup=1, active=active)
    weights = torch.ones(32, 32)
    with capture(path, question="is compute waiting for data?", window=window) as cap:
        for turn in range(window.total_steps):
            active_turn = turn - window.warmup
            step_ms = BASE_MS + JITTER_MS[max(active_turn, 0) % len(JITTER_MS)]
            if active_turn == 0:
                step_ms *= first_factor
            with cap.zone(DATA_ZONE):
                time.sleep((step_ms + data_sleep_ms) / 1000)
            with cap.zone("entrainement"):
                (weights @ weights).sum()
            cap.step()
    return Path(cap.outputs[0])


def diff(before: Path, after: Path) -> dict[str, Any]:
    return DiffResult.of(
        Analysis(load_trace(before)), Analysis(load_trace(after))
    ).to_json()


def test_the_same_code_twice_gives_no_order(tmp_path: Path) -> None:
    payload = diff(run(tmp_path / "one.json"), run(tmp_path / "two.json"))
    steps = payload["steps"]
    assert steps["verdict"] in ("inconclusive", "no_change"), steps["reason"]
    assert steps["test"]["p"] > 0.05
    assert payload["comparable"] is True


def test_a_60_ms_sleep_in_the_data_zone_is_likely_slower_and_named(
    tmp_path: Path,
) -> None:
    # The before side's first step is slowed 3x inside its data zone: its raw
    # range reaches over the after side's, and that step is kept (the data
    # zone is time every step has), so the rank test on 8 steps a side
    # carries the verdict.
    before = run(tmp_path / "before.json", 8, first_factor=3.0)
    after = run(tmp_path / "after.json", 8, data_sleep_ms=60.0)
    payload = diff(before, after)
    steps = payload["steps"]
    assert steps["before"]["max_us"] > steps["after"]["min_us"]  # raw ranges overlap
    assert steps["verdict"] == "likely_slower", steps["reason"]
    assert "one capture a side" in steps["reason"]
    assert steps["before"]["set_aside"] == []
    assert steps["after"]["set_aside"] == []
    assert steps["after"]["kept"] == steps["after"]["steps"]
    zone_before = payload["zone"]["before"]["median_zone_us_per_step"]
    zone_after = payload["zone"]["after"]["median_zone_us_per_step"]
    # 60 ms more per step, within what a loaded machine adds to a sleep.
    assert zone_after - zone_before == pytest.approx(60_000, abs=20_000)
    moved = next(
        entry for entry in payload["mechanisms"] if entry["id"] == "gpu_idle_data_zone"
    )
    assert moved["moved_in"] == "1/1" and moved["moved"] is True
    assert moved["change_us_per_step"] == pytest.approx(60_000, abs=20_000)


def test_two_steps_against_eight_compare_per_step_without_change(
    tmp_path: Path,
) -> None:
    payload = diff(run(tmp_path / "two.json", 2), run(tmp_path / "eight.json", 8))
    rows = {row["name"]: row for row in payload["ops"]}
    zone = rows[DATA_ZONE]
    # Whole-trace totals differ about fourfold; per kept step they agree.
    assert zone["calls_after"] >= 3 * zone["calls_before"]
    assert zone["calls_per_step_before"] == zone["calls_per_step_after"] == 1.0
    per_step = zone["total_cpu_us_per_step_before"], zone["total_cpu_us_per_step_after"]
    # Equal within a loaded machine's noise (sleeps overshoot), far from fourfold.
    assert per_step[1] == pytest.approx(per_step[0], rel=0.5)
    for row in payload["ops"]:
        if row["status"] == "both" and row["calls_per_step_before"]:
            assert row["calls_per_step_before"] == row["calls_per_step_after"], row
    # The biggest change per step is within noise, not a whole-capture total.
    first = payload["ops"][0]
    change = abs(
        first["total_cpu_us_per_step_after"] - first["total_cpu_us_per_step_before"]
    )
    assert change < 0.5 * max(first["total_cpu_us_per_step_before"], 1.0) + 500
