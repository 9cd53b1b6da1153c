"""`[memory]` args are decoded in one batch when they are plain integers, and one
by one otherwise; both ways give the documented figures (an oracle written here)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import BASE_US, cpu, metadata
from tui.core.ingest.load import load_trace

KEYS = (
    ("bytes", "Bytes", 0),
    ("total_allocated", "Total Allocated", -1),
    ("total_reserved", "Total Reserved", -1),
    ("device_type", "Device Type", -1),
    ("device_id", "Device Id", -1),
)


def expected(value: Any, default: int) -> int:
    """The rule: a finite number under 2**62 in size, truncated; else the default."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    if not math.isfinite(value) or abs(value) >= 2**62:
        return default
    return int(value)


def memory(at: float, args: Any) -> dict[str, Any]:
    return {
        "ph": "i",
        "cat": "cpu_instant_event",
        "s": "t",
        "name": "[memory]",
        "pid": 100,
        "tid": 100,
        "ts": BASE_US + at,
        "args": args,
    }


PLAIN = [
    {
        "Bytes": 512,
        "Total Allocated": 512,
        "Total Reserved": 2048,
        "Device Type": 1,
        "Device Id": 0,
    },
    {
        "Bytes": -512,
        "Total Allocated": 0,
        "Total Reserved": 2048,
        "Device Type": 1,
        "Device Id": 0,
    },
    {"Bytes": 2**62, "Total Allocated": -(2**63), "Device Type": 0},  # out of range
    {"Device Id": 3},  # missing keys
    {},
]
ODD = [
    *PLAIN,
    {"Bytes": 12.9, "Total Allocated": True, "Device Type": "1", "Device Id": None},
    {"Bytes": 2**70, "Total Allocated": [1], "Total Reserved": {"a": 1}},
]


@pytest.mark.parametrize("rows", [PLAIN, ODD], ids=["integers", "odd values"])
def test_memory_columns_follow_the_rule(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    events += [memory(10.0 * (index + 1), args) for index, args in enumerate(rows)]
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"traceEvents": events}))  # 2**70 is past orjson
    trace = load_trace(path)
    columns = trace.memory
    assert len(columns) == len(rows)
    for name, key, default in KEYS:
        assert getattr(columns, name).tolist() == [
            expected(args.get(key), default) for args in rows
        ], name


def test_args_that_are_not_an_object_read_as_empty(tmp_path: Path) -> None:
    events = [*metadata(), cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    events += [memory(10.0, [1, 2]), memory(20.0, {"Bytes": 7})]
    data = orjson.dumps({"traceEvents": events})
    path = tmp_path / "m.json"
    path.write_bytes(data)
    columns = load_trace(path).memory
    assert columns.bytes.tolist() == [0, 7]
