"""`summary` and `report` give TensorBoard's step split.

The traces are torch-tb-profiler's own test traces and its figures for them
(tests/fixtures/tensorboard/tb_step_costs.json, made outside the project by
make_tb_fixture.py); nothing expected here comes from steptrace.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import write_trace
from tui.cli import main

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tensorboard"
    / "tb_step_costs.json"
)
PARTS = (
    "kernel",
    "memcpy",
    "memset",
    "communication",
    "runtime",
    "dataloader",
    "cpu_exec",
    "other",
)


@cache
def case(name: str) -> dict[str, Any]:
    cases: dict[str, Any] = json.loads(FIXTURE.read_text())["cases"]
    return dict(cases[name])


def _trace(tmp_path: Path, name: str) -> Path:
    return write_trace(tmp_path / "trace.json", case(name)["trace_events"])


def _summary(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["summary", str(path), "--json"]) == 0
    result: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return result


def test_summary_json_has_tensorboards_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "test_multiple_profilersteps_with_overlap"
    split = _summary(_trace(tmp_path, name), capsys)["step_breakdown"]
    theirs = case(name)
    assert [step["step"] for step in split["steps"]] == [1, 2]
    for ours, expected in zip(split["steps"], theirs["steps_costs"], strict=True):
        assert ours["total_us"] == expected["total"]
        for part in PARTS:
            assert ours[f"{part}_us"] == expected[part], part
    for part in (*PARTS, "total"):
        assert split["average"][f"{part}_us"] == theirs["avg_costs"][part], part
    assert split["device_observed"] is True
    assert split["whole_capture"] is False
    assert split["left_out_steps"] == []


def test_a_cpu_only_capture_says_device_parts_are_not_observed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = _summary(_trace(tmp_path, "test_pure_cpu"), capsys)["step_breakdown"]
    assert split["device_observed"] is False
    for step in [*split["steps"], split["average"]]:
        assert (step["kernel_us"], step["memcpy_us"], step["memset_us"]) == (
            None,
            None,
            None,
        )
        assert step["runtime_us"] == 0
    first = split["steps"][0]
    expected = case("test_pure_cpu")["steps_costs"][0]
    assert (first["cpu_exec_us"], first["other_us"]) == (
        expected["cpu_exec"],
        expected["other"],
    )


def test_steps_left_out_and_the_whole_capture_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = _summary(_trace(tmp_path, "test_last_steps_no_kernel"), capsys)[
        "step_breakdown"
    ]
    assert split["left_out_steps"] == [2, 3]
    whole = _summary(
        write_trace(
            tmp_path / "whole.json", case("test_no_profilerstep")["trace_events"]
        ),
        capsys,
    )["step_breakdown"]
    assert whole["whole_capture"] is True
    assert [step["step"] for step in whole["steps"]] == [None]


def test_summary_text_shows_the_split_per_step_and_on_average(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(_trace(tmp_path, "test_all_categories"))]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    header = next(line for line in lines if "Kernel" in line and "CPU Exec" in line)
    assert header.split() == [
        "step",
        "total",
        "Kernel",
        "Memcpy",
        "Memset",
        "Comm",
        "Runtime",
        "DataLoader",
        "CPU",
        "Exec",
        "Other",
    ]
    assert "step time as TensorBoard splits it, µs" in lines[lines.index(header) - 1]
    # torch-tb-profiler's figures for test_all_categories, in µs: total, then
    # Kernel, Memcpy, Memset, Comm, Runtime, DataLoader, CPU Exec, Other.
    expected = case("test_all_categories")["steps_costs"][0]
    row = lines[lines.index(header) + 1].split()
    assert row == [
        "1",
        *(str(expected[part]) for part in ("total", *PARTS)),
    ]
    assert max(len(line) for line in lines) <= 80


def test_report_json_text_and_markdown_carry_the_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _trace(tmp_path, "test_all_categories")
    assert main(["report", str(path), "--json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    expected = case("test_all_categories")["avg_costs"]
    assert (
        report["step_breakdown"]["average"]["dataloader_us"] == expected["dataloader"]
    )
    assert main(["report", str(path)]) == 0
    assert "CPU Exec" in capsys.readouterr().out
    assert main(["report", str(path), "--md"]) == 0
    markdown = capsys.readouterr().out
    header = next(
        line
        for line in markdown.splitlines()
        if line.startswith("|") and "CPU Exec" in line
    )
    assert header.startswith("|") and "Kernel" in header
