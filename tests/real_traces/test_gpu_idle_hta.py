"""`summary --json`'s idle split agrees with HTA 0.5.0's idle time breakdown on every shared GPU trace.

The oracle is HTA's own output in tests/fixtures/hta/hta_figures.json
(`get_idle_time_breakdown` over the whole capture,
include_last_profiler_step=True), which rounds its figures to 0.01 µs:
steptrace's are held to that, tighter than the 0.5 % of the span the
ranks' breakdowns are (test_breakdown_hta.py), since both read the same
rows by HTA's rules.
"""

from __future__ import annotations

import contextlib
import io
from functools import cache
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tests.real_traces.test_breakdown_hta import GPU_TRACES, SKIPPED, fixture
from tui.cli import main

CAUSES = ("host_wait", "kernel_wait", "other")
HTA_ROUNDING_US = 0.01  # HTA rounds idle_time to two decimals


@cache
def _summary_json(name: str) -> bytes:
    """What `steptrace summary TRACE --json` prints, once per trace."""
    printed = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(printed):
        assert main(["summary", str(shared.FOLDER / name), "--json"]) == 0
    printed.flush()
    data: bytes = printed.buffer.getvalue()
    return data


def summary_of(name: str) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(_summary_json(name))
    return data


@pytest.mark.parametrize("name", GPU_TRACES)
def test_the_window_split_agrees_with_hta(name: str) -> None:
    trace = fixture()["traces"][name]
    tolerance = HTA_ROUNDING_US
    theirs = {
        (row["stream"], row["idle_category"]): row["idle_time"]
        for row in trace["idle_time_breakdown"]["rows"]
    }
    window = summary_of(name)["gpu_idle"]["window"]
    ours = {
        (part["stream"], cause): part[f"{cause}_us"]
        for part in window["streams"]
        for cause in CAUSES
    }
    assert {stream for stream, _ in ours} == {stream for stream, _ in theirs}
    for key, value in ours.items():
        # A cause HTA does not list had no gap on that stream.
        assert value == pytest.approx(theirs.get(key, 0.0), abs=tolerance), key
    for cause in CAUSES:
        expected = sum(
            value for (_, their_cause), value in theirs.items() if their_cause == cause
        )
        assert window[f"{cause}_us"] == pytest.approx(expected, abs=tolerance), cause


@pytest.mark.parametrize("name", GPU_TRACES)
def test_no_step_holds_more_idle_than_the_window(name: str) -> None:
    """Steps read each gap's part inside them, so together they hold at most the
    window's host wait and other (kernel wait is left out: HTA's window also sums
    the negative gaps of overlapping ops, which no step holds)."""
    idle = summary_of(name)["gpu_idle"]
    for part in idle["window"]["streams"]:
        for cause in ("host_wait", "other"):
            steps = sum(
                mine[f"{cause}_us"]
                for step in idle["steps"]
                for mine in step["streams"]
                if mine["stream"] == part["stream"]
            )
            assert steps <= part[f"{cause}_us"] + 1e-6, (part["stream"], cause)


@pytest.mark.parametrize("name", SKIPPED)
def test_a_capture_without_device_ops_has_no_idle_split(name: str) -> None:
    summary = summary_of(name)
    assert summary["gpu_idle"] is None
    assert summary["gpu_idle_missing_reason"] == summary["gpu_missing_reason"]
