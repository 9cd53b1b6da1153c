"""What makes two captures comparable: each difference in the description gives
exactly one warning of its kind and makes the pair not comparable; caveats do
not. Step times are built here, so ranges, verdicts and rates are known."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.builders.traces import cpu, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.diff import DiffResult
from tui.report.diff import diff_text

STEPS_US = [10_000.0, 10_400.0, 10_200.0, 10_100.0, 10_300.0]


def build(
    path: Path,
    description: dict[str, Any] | None,
    durations_us: list[float] = STEPS_US,
    zone: str = "lecture_batch_cpu",
) -> Path:
    events = []
    at = 0.0
    for number, duration in enumerate(durations_us, start=2):
        events.append(
            cpu(f"ProfilerStep#{number}", at, duration, cat="user_annotation")
        )
        events.append(cpu(zone, at + 10, 100, cat="user_annotation"))
        events.append(cpu("aten::mm", at + 200, 50))
        at += duration + 10
    extra = None if description is None else {"steptrace": description}
    return write_trace(path, events, extra=extra)


def base() -> dict[str, Any]:
    return {
        "question": "is compute waiting for data?",
        "scenario": {"batch_size": 32, "data_source": "disk"},
        "window": {"wait": 1, "warmup": 1, "active": 5},
        "active_steps": [2, 3, 4, 5, 6],
        "options": {
            "record_shapes": False,
            "with_stack": False,
            "profile_memory": False,
        },
        "unit": {"name": "ms/step", "samples_per_step": 32},
        "zones": {"data": "lecture_batch_cpu"},
        "environment": {
            "torch": "2.13.0",
            "cuda": None,
            "device_name": None,
            "cpu_model": "Xeon",
            "cpu_cores": 2,
            "platform": "Linux",
            "python": "3.11.7",
        },
    }


def diff(before: Path, after: Path) -> dict[str, Any]:
    return DiffResult.of(
        Analysis(load_trace(before)), Analysis(load_trace(after))
    ).to_json()


CHANGES: dict[str, tuple[str, Any]] = {
    "torch version": (
        "environment",
        {"environment": base()["environment"] | {"torch": "2.12.0"}},
    ),
    "device": (
        "environment",
        {"environment": base()["environment"] | {"device_name": "H200"}},
    ),
    "host kind": (
        "environment",
        {"environment": base()["environment"] | {"cpu_cores": 16}},
    ),
    "window": ("window", {"window": {"wait": 1, "warmup": 2, "active": 5}}),
    "shapes": ("options", {"options": base()["options"] | {"record_shapes": True}}),
    "question": ("question", {"question": "is the copy repeated?"}),
    "batch size": ("batch_size", {"scenario": {"batch_size": 64}}),
    "data zone": ("data_zone", {"zones": {"data": "read_batch"}}),
}


@pytest.mark.parametrize("what", list(CHANGES), ids=lambda what: what.replace(" ", "-"))
def test_each_difference_gives_one_warning_and_breaks_comparability(
    tmp_path: Path, what: str
) -> None:
    check, change = CHANGES[what]
    before = build(tmp_path / "before.json", base())
    after = build(tmp_path / "after.json", base() | change)
    result = diff(before, after)
    assert result["comparable"] is False
    breaking = [c for c in result["checks"] if c["breaks_comparability"]]
    assert [c["check"] for c in breaking] == [check]
    if check == "environment":
        assert f"({what})" in breaking[0]["message"]
    assert result["warnings"] == [c["message"] for c in result["checks"]]


def test_identical_descriptions_are_comparable_and_a_data_source_change_is_the_change(
    tmp_path: Path,
) -> None:
    before = build(tmp_path / "before.json", base())
    changed = base() | {"scenario": {"batch_size": 32, "data_source": "preloaded"}}
    after = build(tmp_path / "after.json", changed, [v / 2 for v in STEPS_US])
    result = diff(before, after)
    assert result["comparable"] is True
    assert result["checks"] == []
    assert result["steps"]["verdict"] == "likely_faster"


def test_missing_descriptions_and_few_steps_are_caveats(tmp_path: Path) -> None:
    before = build(tmp_path / "before.json", None, STEPS_US[:3])
    after = build(tmp_path / "after.json", base())
    result = diff(before, after)
    assert {c["check"] for c in result["checks"]} == {
        "no_description",
        "few_steps",
        "capture",
    }
    assert result["comparable"] is True
    assert "3 steps before, 5 after" in " ".join(result["warnings"])
    # The window's length and position as the traces record them: caveats.
    named = [c["message"] for c in result["checks"] if c["check"] == "capture"]
    assert named == [
        "steps recorded differs: 3 before, 5 after; the windows hold different "
        "numbers of steps",
        "window steps differs: '2–4' before, '2–6' after; the window sits "
        "elsewhere in the run (warm-up, caches, data order)",
    ]


def test_samples_per_second_when_the_capture_counts_in_samples(tmp_path: Path) -> None:
    rate = base() | {"unit": {"name": "samples/s", "samples_per_step": 32}}
    slower = [v * 1.5 for v in STEPS_US]
    before = build(tmp_path / "before.json", rate)
    after = build(tmp_path / "after.json", rate, slower)
    result = DiffResult.of(Analysis(load_trace(before)), Analysis(load_trace(after)))
    payload = result.to_json()
    steps = payload["steps"]
    assert steps["unit"] == "samples/s"
    assert steps["verdict"] == "likely_slower"
    rates = [32 / (value / 1e6) for value in STEPS_US]
    assert steps["before"]["samples_per_s"]["median"] == pytest.approx(
        statistics.median(rates)
    )
    assert steps["before"]["samples_per_s"]["min"] == pytest.approx(min(rates))
    assert steps["change_pct"] == pytest.approx(50.0)
    text = diff_text(result)
    assert "steps of the window (samples/s)" in text
    assert f"{statistics.median(rates):,.1f}" in text
    assert "verdict likely slower" in text
