"""Runs are the unit of evidence: a diff of one capture a side says at most
likely_; several runs a side conclude only when the runs separate beyond their
spread; the verdict names the finding that moved and in how many run pairs;
a stalled edge step is set aside with its reason, the quickest step never.

Captures are built here (tests/builders/diff_pair.py): every step holds a data
zone with the GPU idle through it, so the data zone's idle time per step is set
by the test, and each run's steps are shifted by its own jitter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.diff_pair import write_capture, write_runs
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.diff import DiffResult
from tui.report.diff import diff_text

WINDOW_MS = (10.0, 10.3, 10.1, 10.2)
# Data-zone idle per step: 6 ms before (no prefetch), 0.5 ms after.
SLOW_READ_US, FAST_READ_US = 6000.0, 500.0
QUICKER_MS = tuple(step - 5.5 for step in WINDOW_MS)


def analyses(paths: list[Path]) -> tuple[Analysis, ...]:
    return tuple(Analysis(load_trace(path)) for path in paths)


def runs_json(before: list[Path], after: list[Path]) -> dict[str, Any]:
    return DiffResult.of_runs(analyses(before), analyses(after)).to_json()


def mechanism(payload: dict[str, Any], finding: str) -> dict[str, Any]:
    return next(entry for entry in payload["mechanisms"] if entry["id"] == finding)


def test_one_capture_a_side_is_at_most_likely_and_names_the_data_zone(
    tmp_path: Path,
) -> None:
    before = write_capture(tmp_path / "b.json", WINDOW_MS, read_us=SLOW_READ_US)
    after = write_capture(tmp_path / "a.json", QUICKER_MS, read_us=FAST_READ_US)
    result = DiffResult.of_runs(analyses([before]), analyses([after]))
    payload = result.to_json()
    steps = payload["steps"]
    assert steps["verdict"] == "likely_faster"
    assert steps["reason"].endswith(
        "one capture a side: run-to-run variance unknown; capture again, or run "
        "`steptrace bench` on both"
    )
    assert steps["runs"] == {"before": 1, "after": 1}
    idle = mechanism(payload, "gpu_idle_data_zone")
    assert idle["before_us_per_step"] == pytest.approx(6000.0)
    assert idle["after_us_per_step"] == pytest.approx(500.0)
    assert idle["change_us_per_step"] == pytest.approx(-5500.0)
    assert idle["moved_in"] == "1/1" and idle["moved"] is True
    # The largest change is listed first; a figure that did not move is not named.
    assert payload["mechanisms"][0]["id"] == "gpu_idle_data_zone"
    still = [
        entry for entry in payload["mechanisms"] if entry["change_us_per_step"] == 0
    ]
    assert still and not any(entry["moved"] for entry in still)
    text = diff_text(result)
    assert "verdict likely faster" in text
    assert "what moved: GPU idle during the data zone -5.5 ms per step in 1/1" in text
    assert "runs: 1 before (10.15 ms), 1 after (4.65 ms)" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_three_runs_a_side_that_separate_are_faster(tmp_path: Path) -> None:
    before = write_runs(
        tmp_path, "slow", WINDOW_MS, (0.0, 0.4, -0.3), read_us=SLOW_READ_US
    )
    after = write_runs(
        tmp_path, "fast", QUICKER_MS, (0.0, 0.2, -0.2), read_us=FAST_READ_US
    )
    payload = runs_json(before, after)
    steps = payload["steps"]
    assert steps["verdict"] == "faster", steps["reason"]
    assert "exceeds the between-run spread (700 µs)" in steps["reason"]
    assert steps["runs"] == {"before": 3, "after": 3}
    assert [run["median_us_of_kept"] for run in steps["run_figures"]["before"]] == [
        pytest.approx(10_150.0),
        pytest.approx(10_550.0),
        pytest.approx(9_850.0),
    ]
    idle = mechanism(payload, "gpu_idle_data_zone")
    assert idle["moved_in"] == "3/3" and idle["moved"] is True
    assert idle["change_us_per_step"] == pytest.approx(-5500.0)


def test_separated_runs_under_three_a_side_are_only_likely(tmp_path: Path) -> None:
    before = write_runs(tmp_path, "slow", WINDOW_MS, (0.0, 0.4), read_us=SLOW_READ_US)
    after = write_runs(tmp_path, "fast", QUICKER_MS, (0.0, 0.2), read_us=FAST_READ_US)
    steps = runs_json(before, after)["steps"]
    assert steps["verdict"] == "likely_faster"
    assert "needs 3 runs a side" in steps["reason"]


def test_two_runs_against_a_third_of_the_same_configuration_do_not_conclude(
    tmp_path: Path,
) -> None:
    runs = write_runs(tmp_path, "same", WINDOW_MS, (0.0, 0.8, 0.4))
    steps = runs_json(runs[:2], runs[2:])["steps"]
    assert steps["verdict"] == "inconclusive"
    assert steps["runs"] == {"before": 2, "after": 1}
    # The third run just outside the others, by less than their spread: still none.
    outside = write_runs(tmp_path, "edge", WINDOW_MS, (0.9,))
    steps = runs_json(runs[:2], outside)["steps"]
    assert steps["verdict"] == "inconclusive"
    assert "within the between-run spread" in steps["reason"]


def test_runs_of_the_same_configuration_never_read_faster_or_slower(
    tmp_path: Path,
) -> None:
    runs = write_runs(tmp_path, "same", WINDOW_MS, (0.0, 0.8, 0.4, 0.1, 0.5, -0.2))
    # One capture a side whose steps separate: likely at most.
    single = runs_json(runs[:1], runs[1:2])["steps"]
    assert single["verdict"] == "likely_slower"
    for before, after in ((runs[:3], runs[3:]), (runs[3:], runs[:3])):
        steps = runs_json(before, after)["steps"]
        assert steps["verdict"] not in ("faster", "slower"), steps["reason"]


def test_a_stalled_first_step_is_set_aside_and_the_quickest_step_kept(
    tmp_path: Path,
) -> None:
    # After: the first window step holds a 41 ms cudaMalloc the others lack.
    # Before: its quickest step is last, as far below the others as a fence
    # on six steps would drop.
    before = write_capture(tmp_path / "b.json", (10.4, 10.5, 10.45, 10.5, 10.48, 9.0))
    after = write_capture(
        tmp_path / "a.json",
        (49.0, 8.0, 8.1, 8.05, 8.0, 8.1),
        stalls={0: 41_000.0},
    )
    result = DiffResult.of_runs(analyses([before]), analyses([after]))
    steps = result.to_json()["steps"]
    assert steps["before"]["set_aside"] == []
    assert steps["before"]["kept"] == steps["before"]["steps"]
    (aside,) = steps["after"]["set_aside"]
    assert aside["step"] == 2 and aside["duration_us"] == 49_000.0
    assert aside["why"].startswith(
        "runtime stall: the window's first step is 40.95 ms above the median of "
        "the others (8.05 ms), 40.95 ms of it in runtime stall (cudaMalloc) that the "
        "other steps lack"
    )
    assert steps["verdict"] == "likely_faster"
    text = diff_text(result)
    assert "after: 5 steps kept; set aside:" in text
    assert "step 2 — runtime stall" in text
    # The same slow first step with its extra time in the data zone, which
    # every step has: it stays in.
    plain = write_capture(
        tmp_path / "plain.json",
        (49.0, 8.0, 8.1, 8.05, 8.0, 8.1),
        reads_us={0: 45_000.0},
    )
    kept = DiffResult.of(Analysis(load_trace(before)), Analysis(load_trace(plain)))
    assert kept.to_json()["steps"]["after"]["set_aside"] == []


def test_a_window_elsewhere_in_the_run_is_named(tmp_path: Path) -> None:
    before = write_capture(tmp_path / "b.json", WINDOW_MS)
    after = write_capture(tmp_path / "a.json", (*WINDOW_MS, 10.2))
    payload = runs_json([before], [after])
    messages = [
        entry["message"] for entry in payload["checks"] if entry["check"] == "capture"
    ]
    assert any(
        m.startswith("window steps differs: '2–5' before, '2–6'") for m in messages
    )
    assert any(
        m.startswith("steps recorded differs: 4 before, 5 after") for m in messages
    )
    assert payload["comparable"] is False  # the described windows differ too
    same = runs_json([before], [write_capture(tmp_path / "c.json", WINDOW_MS)])
    assert not [entry for entry in same["checks"] if entry["check"] == "capture"]


def test_the_screen_shows_the_verdict_runs_and_what_moved(tmp_path: Path) -> None:
    from tui.view.comparison import verdict_text

    before = write_runs(
        tmp_path, "slow", WINDOW_MS, (0.0, 0.4, -0.3), read_us=SLOW_READ_US
    )
    after = write_runs(
        tmp_path, "fast", QUICKER_MS, (0.0, 0.2, -0.2), read_us=FAST_READ_US
    )
    shown = verdict_text(DiffResult.of_runs(analyses(before), analyses(after))).plain
    assert shown.startswith(" FASTER ")
    assert "runs: 3 before (10.15 ms, 10.55 ms, 9.85 ms), 3 after" in shown
    assert "what moved: GPU idle during the data zone -5.5 ms per step in 3/3" in shown


def test_the_cli_reads_several_runs_a_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    before = write_runs(
        tmp_path, "slow", WINDOW_MS, (0.0, 0.4, -0.3), read_us=SLOW_READ_US
    )
    after = write_runs(
        tmp_path, "fast", QUICKER_MS, (0.0, 0.2, -0.2), read_us=FAST_READ_US
    )
    argv = ["diff", "--before", *map(str, before), "--after", *map(str, after)]
    assert main([*argv, "--json"]) == 0
    payload = orjson.loads(capsys.readouterr().out)
    assert payload["steps"]["verdict"] == "faster"
    assert payload["steps"]["runs"] == {"before": 3, "after": 3}
    assert [run["trace"] for run in payload["steps"]["run_figures"]["after"]] == [
        str(path) for path in after
    ]
    assert main([*argv, "--text"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    text = " ".join(out.split())
    assert "operators and kernels below read the first capture of each side" in text
    assert "verdict faster: every after-run median is below every before-run" in text
    assert "runs: 3 before (10.15 ms, 10.55 ms, 9.85 ms), 3 after" in text


@pytest.mark.parametrize(
    "shape",
    [["A", "--before", "B"], ["--before", "A"], ["A"], ["--after", "A", "B"]],
    ids=["mixed", "no-after", "one", "no-before"],
)
def test_the_cli_refuses_sides_given_half_or_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: list[str]
) -> None:
    from tui.cli import main

    path = str(write_capture(tmp_path / "one.json", WINDOW_MS))
    argv = [path if word in ("A", "B") else word for word in shape]
    assert main(["diff", *argv]) == 2
    err = capsys.readouterr().err
    assert err == (
        "steptrace: diff takes BEFORE AFTER, or --before TRACE... and --after "
        "TRACE...\n"
    )
