"""`compare`: ranges side by side, inconclusive on overlap, loss and environment flagged; no torch needed."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from collector.compare import compare_sides, format_comparison, side_from_data
from collector.errors import ResultFormatError
from tui.cli import main

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENT = {
    "torch": "2.13.0+cpu",
    "cuda": None,
    "hip": None,
    "driver": None,
    "device_name": None,
    "cpu_model": "AMD EPYC",
    "cpu_cores": 2,
    "python": "3.11.7",
    "platform": "Linux",
    "host_name": None,
}


def result(
    run_values: list[list[float]], loss: float = 2.0, **changes: Any
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "steptrace_bench": 1,
        "name": "demo",
        "config": {
            "runs": len(run_values),
            "warmup": 2,
            "steps": 3,
            "device": "cpu",
            "samples_per_step": 32,
        },
        "runs": [
            {"run": i + 1, "wall_ms": values, "gpu_ms": None, "loss": [3.0, 2.5, loss]}
            for i, values in enumerate(run_values)
        ],
        "environment": copy.deepcopy(ENVIRONMENT),
        "warnings": [],
    }
    data.update(changes)
    return data


SLOW = [[10.0, 10.2, 10.1], [10.4, 10.3, 10.5], [9.9, 10.0, 10.1]]
FAST = [[7.0, 7.1, 7.2], [7.3, 7.2, 7.1], [6.9, 7.0, 7.0]]
OVERLAPPING = [[9.0, 9.1, 9.2], [10.2, 10.3, 10.4], [9.5, 9.6, 9.4]]


def compare(before: dict[str, Any], after: dict[str, Any]) -> Any:
    return compare_sides(
        side_from_data(before, "before.json"), side_from_data(after, "after.json")
    )


def test_overlapping_ranges_are_inconclusive() -> None:
    comparison = compare(result(SLOW), result(OVERLAPPING))
    assert comparison.wall.verdict == "inconclusive"
    assert comparison.wall.sentence.startswith("inconclusive: the ranges overlap")
    assert "inconclusive" in format_comparison(comparison)


def test_separate_ranges_give_an_order_on_this_machine() -> None:
    comparison = compare(result(SLOW), result(FAST))
    assert comparison.wall.verdict == "after lower"
    assert comparison.before.wall_run_medians == [10.1, 10.4, 10.0]
    assert compare(result(FAST), result(SLOW)).wall.verdict == "after higher"
    text = format_comparison(comparison)
    assert (
        "10.10 10.40 10.00" in text and "7.100 7.200 7.000" in text
    )  # raw run medians, side by side
    assert "on this machine" in text
    assert not comparison.warnings and not comparison.loss_flagged


def test_a_loss_difference_is_flagged() -> None:
    comparison = compare(result(SLOW), result(FAST, loss=2.2))
    assert comparison.loss_flagged
    assert "loss differs" in comparison.loss_note and "2 → 2.2" in comparison.loss_note


def test_different_environments_are_flagged() -> None:
    other = result(FAST)
    other["environment"]["cpu_model"] = "Intel Xeon"
    other["config"]["device"] = "cuda:0"
    comparison = compare(result(SLOW), other)
    keys = [key for key, _before, _after in comparison.environment_differences]
    assert keys == ["device", "cpu_model"]
    assert any("does not rank another" in warning for warning in comparison.warnings)


def test_gpu_time_is_compared_separately() -> None:
    before, after = result(SLOW), result(FAST)
    for data, value in ((before, 5.0), (after, 5.1)):
        for run in data["runs"]:
            run["gpu_ms"] = [value, value, value]
    comparison = compare(before, after)
    assert comparison.wall.verdict == "after lower"
    assert comparison.gpu is not None and comparison.gpu.verdict == "after higher"
    assert "CUDA events" in format_comparison(comparison)


def test_not_a_bench_result_is_refused() -> None:
    with pytest.raises(ResultFormatError, match="not a steptrace bench result"):
        side_from_data({"traceEvents": []}, "trace.json")


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


def test_cli_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path / "before.json", result(SLOW))
    after = write(tmp_path / "after.json", result(OVERLAPPING))
    assert main(["compare", str(before), str(after)]) == 0
    assert "inconclusive" in capsys.readouterr().out
    assert main(["compare", str(before), str(after), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["wall_ms"]["verdict"] == "inconclusive"


@pytest.mark.parametrize("content", [None, b"{not json", b'{"traceEvents": []}'])
def test_cli_compare_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_bytes(content)
    good = write(tmp_path / "good.json", result(SLOW))
    assert main(["compare", str(bad), str(good)]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("steptrace: ")
        and error.count("\n") == 1
        and "Traceback" not in error
    )


def test_compare_works_without_torch(tmp_path: Path) -> None:
    before = write(tmp_path / "before.json", result(SLOW))
    after = write(tmp_path / "after.json", result(FAST))
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from tui.cli import main\n"
        "status = main(['compare', sys.argv[1], sys.argv[2]])\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "sys.exit(status)\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    completed = subprocess.run(
        [sys.executable, "-c", code, str(before), str(after)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "after lower" in completed.stdout
