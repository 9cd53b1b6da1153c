"""Device tracks hold device work only: waits and runtime calls on an accelerator's
tracks are set aside, neither kernels nor busy time, and said so.

The trace is built like the MTIA traces Kineto writes (a process named
`MTIA 9`, its ops in category `mtia_ccp_events`), with, on the device's
stream, a `synchronize` and an `event_wait` in that category and a call
in the runtime's category: 300 µs of real device work by construction.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import BASE_US, cpu, metadata, write_trace
from tui.cli import main

# (name, category, start, duration) on the device's stream 1, µs.
DEVICE_EVENTS = [
    ("add-dtype_Float", "mtia_ccp_events", 100, 100),
    ("fc-dtype_Float", "mtia_ccp_events", 300, 100),
    ("dma_request", "mtia_ccp_events", 420, 100),
    ("synchronize", "mtia_ccp_events", 520, 300),
    ("event_wait", "mtia_ccp_events", 830, 50),
    ("event_wait", "mtia_ccp_events", 890, 50),
    ("submit_job", "mtia_runtime", 950, 20),
]
# dma_request is device work too, a copy (HTA's class MEMORY), not a kernel.
KERNELS = {"add-dtype_Float", "fc-dtype_Float"}
SET_ASIDE = {"synchronize": 1, "event_wait": 2, "submit_job": 1}


def _device(name: str, cat: str, ts: int, dur: int) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": 9,
        "tid": 4,
        "ts": BASE_US + ts,
        "dur": dur,
        "args": {"stream": 1},
    }


def _trace(tmp_path: Path) -> Path:
    events: list[dict[str, Any]] = [
        *metadata(),
        {
            "ph": "M",
            "name": "process_name",
            "pid": 9,
            "tid": 0,
            "args": {"name": "MTIA 9"},
        },
        {
            "ph": "M",
            "name": "thread_name",
            "pid": 9,
            "tid": 4,
            "args": {"name": "Stream 1"},
        },
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("runFunction", 50, 10, cat="mtia_runtime"),
    ]
    events += [_device(*event) for event in DEVICE_EVENTS]
    return write_trace(tmp_path / "mtia.json", events)


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*args, "--json"]) == 0
    result: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return result


def test_waits_and_runtime_calls_are_not_kernels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernels = _json(["kernels", str(_trace(tmp_path))], capsys)
    assert {row["name"] for row in kernels["kernels"]} == KERNELS
    assert kernels["device_busy_us"] == 300.0
    set_aside = kernels["set_aside"]
    assert set_aside["count"] == 4
    assert {row["name"]: row["count"] for row in set_aside["names"]} == SET_ASIDE


def test_they_are_not_busy_time_and_the_summary_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = _json(["summary", str(_trace(tmp_path))], capsys)
    assert summary["device_busy_us"] == 300.0
    assert summary["steps"][0]["device_busy_us"] == 300.0
    (said,) = [line for line in summary["warnings"] if "set aside" in line]
    assert said.startswith("4 events on device tracks")
    for name in SET_ASIDE:
        assert name in said


def test_the_kernels_text_says_what_was_set_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["kernels", str(_trace(tmp_path))]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "set aside" in text and "synchronize" in text and "event_wait" in text
