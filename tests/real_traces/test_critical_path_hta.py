"""`steptrace critical --json` agrees with HTA 0.5.0's critical_path_analysis on
every shared trace where HTA computes it.

The oracle is tests/fixtures/hta/hta_critical_path.json, made by
make_hta_critical_path.py (HTA in a scratch virtualenv, pandas 2.3.3). The
window is HTA's path over all ProfilerStep instances, (0, n-1), or over the
whole trace (annotation "") when there is no step; each step is HTA's
instance of the same ProfilerStep name. Every class of the split is held to
2 percentage points, the path's time to 1 %.
"""

from __future__ import annotations

import contextlib
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tui.cli import main

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "hta" / "hta_critical_path.json"
)
CLASSES = (
    "cpu_bound",
    "gpu_compute_bound",
    "gpu_communication_bound",
    "gpu_kernel_kernel_overhead",
    "gpu_kernel_launch_overhead",
)
POINTS = 2.0
PATH_SHARE = 0.01


@cache
def _fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def _computed(name: str) -> list[str]:
    """Traces where HTA found a path for the window."""
    runs = _fixture()["traces"][name].get("runs", {})
    window = runs.get("whole") or runs.get("all") or {}
    return [name] if window.get("success") else []


TRACES = sorted(
    name for name in json.loads(FIXTURE.read_text())["traces"] if _computed(name)
)


@cache
def _critical(name: str) -> dict[str, Any]:
    printed = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(printed):
        assert main(["critical", str(shared.FOLDER / name), "--json"]) == 0
    printed.flush()
    data: dict[str, Any] = orjson.loads(printed.buffer.getvalue())
    return data


def _agree(ours: dict[str, Any], hta: dict[str, Any], where: str) -> None:
    assert ours["path_us"] == pytest.approx(hta["path_us"], rel=PATH_SHARE), where
    for kind in CLASSES:
        theirs = hta["bound_by_pct"].get(kind, 0.0)
        assert ours["bound_by"][kind] == pytest.approx(theirs, abs=POINTS), (
            f"{where}: {kind}"
        )


def test_the_fixture_covers_the_gpu_traces() -> None:
    """HTA computed a path on at least the ten GPU traces it did not fail on."""
    assert len(TRACES) >= 10


@pytest.mark.parametrize("name", TRACES)
def test_window_split_equals_hta(name: str, shared_traces: Path) -> None:
    runs = _fixture()["traces"][name]["runs"]
    result = _critical(name)
    whole = "whole" in runs
    assert result["whole_capture"] is whole
    _agree(result["window"], runs["whole" if whole else "all"], f"{name} window")


@pytest.mark.parametrize("name", TRACES)
def test_each_step_split_equals_hta(name: str, shared_traces: Path) -> None:
    entry = _fixture()["traces"][name]
    instance: dict[str, int] = {}
    for index, annotation in enumerate(entry.get("annotations", [])):
        instance.setdefault(annotation["name"], index)
    compared = 0
    for step in _critical(name)["steps"]:
        run = entry["runs"].get(str(instance.get(f"ProfilerStep#{step['step']}")))
        if run is None or not run.get("success"):
            continue
        _agree(step, run, f"{name} step {step['step']}")
        compared += 1
    assert compared or "whole" in entry["runs"]
