"""Copies on the shared GPU traces against an independent parse of their raw JSON:
directions, bytes, memory, unions of time, steps, issuers and repeated copies."""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cache
from typing import Any

import numpy as np
import pytest

from tests.builders.raw_copies import (
    MEMCPY_HEAVY,
    TRACES,
    raw_copies,
    raw_direction,
    raw_issuers_and_steps,
    raw_ns,
    raw_union_ns,
)
from tui.cli import main
from tui.core.base.vocab import CopyDirection, HostMemory
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import CopyReading, parse_copy_name
from tui.core.ingest.load import load_trace

GPU_TRACES = [
    MEMCPY_HEAVY,
    "timeline_analysis-sampled_rank-0.json.gz",
    "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
    "trace_compare-base-base.json.gz",
]


@cache
def _reading(name: str) -> tuple[Analysis, CopyReading]:
    analysis = Analysis(load_trace(TRACES / name))
    return analysis, CopyReading.of(analysis)


@pytest.mark.parametrize("name", GPU_TRACES, ids=lambda n: n.split("-")[0])
def test_totals_per_direction(name: str) -> None:
    expected: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"count": 0, "bytes": 0, "spans": [], "pageable": 0, "pinned": 0}
    )
    for event in raw_copies(name):
        row = expected[raw_direction(event)]
        row["count"] += 1
        row["bytes"] += event["args"]["bytes"]
        row["spans"].append(
            (raw_ns(event["ts"]), raw_ns(event["ts"]) + raw_ns(event["dur"]))
        )
        row["pageable"] += "Pageable" in event["name"]
        row["pinned"] += "Pinned" in event["name"]
    _, reading = _reading(name)
    ours = {row.direction.value: row for row in reading.totals}
    assert set(ours) == set(expected)
    for direction, row in expected.items():
        mine = ours[direction]
        assert mine.count == row["count"]
        assert mine.bytes == row["bytes"] and mine.unknown_size == 0
        assert mine.time_ns == raw_union_ns(row["spans"])
        assert (mine.pageable, mine.pinned) == (row["pageable"], row["pinned"])


def test_steps_issuers_and_repeated_copies_on_the_memcpy_heavy_trace() -> None:
    copies, paths, step_of = raw_issuers_and_steps(MEMCPY_HEAVY)
    analysis, reading = _reading(MEMCPY_HEAVY)
    steps = len(analysis.steps)
    assert steps == len(reading.window) == 5
    # Per step and direction: how many copies the host issued in it.
    expected_steps: dict[tuple[int, str], int] = defaultdict(int)
    for index, copy in enumerate(copies):
        if index in step_of:
            expected_steps[(step_of[index], raw_direction(copy))] += 1
    ours_steps = {
        (number, row.direction.value): row.count
        for number, totals in enumerate(reading.step_totals)
        for row in totals
    }
    assert ours_steps == dict(expected_steps)
    # Repeated: same direction, size and issuing path in every step.
    groups: dict[tuple[str, int, tuple[str, ...]], set[int]] = defaultdict(set)
    for index, copy in enumerate(copies):
        if index in paths and index in step_of:
            key = (raw_direction(copy), copy["args"]["bytes"], paths[index])
            groups[key].add(step_of[index])
    expected = {
        key for key, seen in groups.items() if len(seen) == steps and key[0] != "set"
    }
    ours = {
        (group.direction.value, group.bytes, group.path) for group in reading.repeated
    }
    assert ours == expected
    assert any(key[0] == "htod" for key in expected)
    for group in reading.repeated:
        assert group.per_step_count.size == steps and (group.per_step_count > 0).all()


def test_repeated_copy_cost_per_step_is_a_union_per_step() -> None:
    analysis, reading = _reading(MEMCPY_HEAVY)
    trace = analysis.trace
    group = next(
        g for g in reading.repeated if g.direction is CopyDirection.HOST_TO_DEVICE
    )
    events = reading.columns.events[group.positions]
    steps = reading.columns.step[group.positions]
    for rank, step in enumerate(reading.window):
        index = reading.steps.index(step)
        mine = events[steps == index]
        spans = list(
            zip(trace.start_ns[mine].tolist(), trace.end_ns[mine].tolist(), strict=True)
        )
        assert group.per_step_ns[rank] == raw_union_ns(spans)
        assert group.per_step_count[rank] == mine.size
    assert group.median_ns_per_step == float(np.median(group.per_step_ns))


@pytest.mark.parametrize(
    ("name", "direction", "memory"),
    [
        (
            "Memcpy HtoD (Pageable -> Device)",
            CopyDirection.HOST_TO_DEVICE,
            HostMemory.PAGEABLE,
        ),
        (
            "Memcpy HtoD (Pinned -> Device)",
            CopyDirection.HOST_TO_DEVICE,
            HostMemory.PINNED,
        ),
        (
            "Memcpy DtoH (Device -> Pageable)",
            CopyDirection.DEVICE_TO_HOST,
            HostMemory.PAGEABLE,
        ),
        (
            "Memcpy DtoH (Device -> Pinned)",
            CopyDirection.DEVICE_TO_HOST,
            HostMemory.PINNED,
        ),
        (
            "Memcpy HtoD (Host -> Device)",
            CopyDirection.HOST_TO_DEVICE,
            HostMemory.UNKNOWN,
        ),
        ("Memcpy HtoD", CopyDirection.HOST_TO_DEVICE, HostMemory.UNKNOWN),
        ("Memcpy DtoD (Device -> Device)", CopyDirection.DEVICE_TO_DEVICE, None),
        ("Memcpy PtoP (Device -> Device)", CopyDirection.DEVICE_TO_DEVICE, None),
        ("Memcpy HtoH (Pinned -> Pageable)", CopyDirection.HOST_TO_HOST, None),
        ("Memset (Device)", CopyDirection.SET, None),
        ("cudaMemcpy", CopyDirection.OTHER, None),
    ],
)
def test_kineto_copy_names(
    name: str, direction: CopyDirection, memory: HostMemory | None
) -> None:
    assert parse_copy_name(name) == (direction, memory)


def test_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["copies", str(TRACES / MEMCPY_HEAVY), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["gpu_observed"] is True
    assert {row["direction"] for row in document["directions"]} == {
        "htod",
        "dtoh",
        "dtod",
        "set",
    }
    assert [row["step"] for row in document["steps"]] == [550, 551, 552, 553, 554]
    for row in document["repeated"]:
        assert row["repeated"] is True and row["steps"] == 5
        assert row["count_per_step"] >= 1 and row["time_us_per_step"] > 0
        assert row["bytes_per_step"] == row["bytes"] * row["count_per_step"]
    assert main(["copies", str(TRACES / MEMCPY_HEAVY)]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "pinned" in text and "repeated in each of the 5 window steps" in text


def test_cpu_only_copies_are_not_observed(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    assert main(["copies", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["gpu_observed"] is False
    assert document["directions"] is None and document["repeated"] is None
    assert main(["copies", str(path)]) == 0
    assert "not observed" in capsys.readouterr().out
