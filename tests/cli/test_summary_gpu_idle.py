"""`summary` says why the GPU idles: host wait, kernel wait, other, per stream, per step.

The trace is built so that every gap's cause is known by construction
(HTA 0.5.0's rules, tests/fixtures/hta/DEFINITIONS.md §7): a gap is host
wait when the next op's launching call started after the stream went idle,
else kernel wait when shorter than 30 µs, else other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.idle import idle_trace
from tests.builders.traces import cpu, metadata, write_trace
from tui.cli import main

WINDOW = {
    7: {"host_wait_us": 500, "kernel_wait_us": 30, "other_us": 300},
    8: {"host_wait_us": 0, "kernel_wait_us": 10, "other_us": 0},
}
STEPS = {
    1: {
        7: {"host_wait_us": 400, "kernel_wait_us": 10, "other_us": 100},
        8: {"host_wait_us": 0, "kernel_wait_us": 10, "other_us": 0},
    },
    2: {7: {"host_wait_us": 100, "kernel_wait_us": 20, "other_us": 200}},
}


def _trace(tmp_path: Path) -> Path:
    return idle_trace(tmp_path / "idle.json")


def _summary(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["summary", str(path), "--json"]) == 0
    result: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return result


def _by_stream(split: dict[str, Any]) -> dict[int, dict[str, float]]:
    return {
        part["stream"]: {
            key: part[key] for key in ("host_wait_us", "kernel_wait_us", "other_us")
        }
        for part in split["streams"]
        if part["idle_us"] != 0
    }


def test_the_window_split_is_the_constructed_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    idle = _summary(_trace(tmp_path), capsys)["gpu_idle"]
    window = idle["window"]
    assert _by_stream(window) == WINDOW
    assert {part["device"] for part in window["streams"]} == {0}
    assert window["host_wait_us"] == 500
    assert window["kernel_wait_us"] == 40
    assert window["other_us"] == 300
    assert window["idle_us"] == 840
    for part in window["streams"]:
        assert part["idle_us"] == (
            part["host_wait_us"] + part["kernel_wait_us"] + part["other_us"]
        )


def test_each_step_holds_its_part_of_each_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = _summary(_trace(tmp_path), capsys)["gpu_idle"]["steps"]
    assert [step["step"] for step in steps] == [1, 2]
    for step in steps:
        assert _by_stream(step) == STEPS[step["step"]]


def test_summary_text_names_the_largest_cause_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(_trace(tmp_path))]) == 0
    text = capsys.readouterr().out
    line = " ".join(
        part.strip() for part in text.split("\nidle ", 1)[1].split("\n")[:3]
    )
    # 500, 300 and 40 µs of 840 µs.
    assert "840 µs" in line
    host, other, kernel = (
        line.index("host wait 59.5%"),
        line.index("other 35.7%"),
        line.index("kernel wait 4.8%"),
    )
    assert host < other < kernel


def test_no_gpu_means_no_split_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    summary = _summary(write_trace(tmp_path / "cpu.json", events), capsys)
    assert summary["gpu_idle"] is None
    assert summary["gpu_idle_missing_reason"]
    assert main(["summary", str(tmp_path / "cpu.json")]) == 0
    assert "\nidle " not in capsys.readouterr().out


@pytest.mark.parametrize("markdown", [False, True])
def test_the_report_says_why_the_gpu_idles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], markdown: bool
) -> None:
    assert main(["report", str(_trace(tmp_path)), *(["--md"] if markdown else [])]) == 0
    text = " ".join(capsys.readouterr().out.split())
    said = text.split("Stream idle time: ", 1)[1]
    assert said.startswith(
        "840 µs between ops over 2 streams: "
        "host wait 59.5%, other 35.7%, kernel wait 4.8%"
    )
    assert "launched after its stream went idle" in said
