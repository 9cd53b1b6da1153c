"""Gaps against a brute-force model, over generated traces (hypothesis).

Traces hold steps (on their own thread), data zones on several threads
(nested, overlapping, crossing step boundaries, starting before the first
step), children inside zones, and
device work on two devices (crossing zone and step edges). Every time is a
whole microsecond, so a set of points at µs resolution is an exact model: the
gaps of a device are exactly zone − busy, cut at step edges, never overlap,
and never add up to more than the zone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders.traces import BASE_US, CPU_PID, write_trace
from tui.core.base.vocab import GapKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import Gap
from tui.core.ingest.load import load_trace
from tui.core.model import nesting
from tui.core.model.steps import Step

ZONE = "lecture_batch_cpu"
THREADS = (100, 101, 102)
HORIZON = 120


def _event(
    name: str, start: int, length: int, cat: str, pid: int, tid: int
) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": BASE_US + start,
        "dur": length,
        "args": {},
    }


spans = st.tuples(st.integers(0, HORIZON), st.integers(1, 40))


@st.composite
def traces(draw: st.DrawFn, gpu: bool) -> dict[str, Any]:
    """Steps, zones with children, and (when `gpu`) kernels on two devices."""
    step_count = draw(st.integers(1, 4))
    step_length = draw(st.integers(15, 40))
    step_gap = draw(st.integers(0, 5))
    first_step = draw(st.integers(0, 20))
    steps = [
        (first_step + index * (step_length + step_gap), step_length)
        for index in range(step_count)
    ]
    zones = [
        (draw(st.sampled_from(THREADS)), start, length)
        for start, length in draw(st.lists(spans, min_size=0, max_size=6))
    ]
    # A nested zone inside some zone, and children (ops) inside zones.
    children: list[tuple[int, int, int]] = []
    nested: list[tuple[int, int, int]] = []
    for tid, start, length in zones:
        if length >= 4 and draw(st.booleans()):
            offset = draw(st.integers(0, length - 2))
            children.append(
                (tid, start + offset, draw(st.integers(1, length - offset - 1)))
            )
        if length >= 6 and draw(st.booleans()):
            offset = draw(st.integers(1, length - 4))
            nested.append(
                (tid, start + offset, draw(st.integers(1, length - offset - 1)))
            )
    kernels: list[tuple[int, int, int, int]] = []
    if gpu:
        for device in (0, 1):
            for stream in (7, 8):
                cursor = draw(st.integers(0, 30))
                for _ in range(draw(st.integers(0 if device else 1, 4))):
                    length = draw(st.integers(1, 25))
                    kernels.append((device, stream, cursor, length))
                    cursor += length + draw(st.integers(0, 20))
    return {
        "steps": steps,
        "zones": zones,
        "nested": nested,
        "children": children,
        "kernels": kernels,
    }


def _write(tmp_path: Path, spec: dict[str, Any]) -> Path:
    events: list[dict[str, Any]] = []
    for number, (start, length) in enumerate(spec["steps"], start=1):
        events.append(
            _event(
                f"ProfilerStep#{number}", start, length, "user_annotation", CPU_PID, 90
            )
        )
    for tid, start, length in spec["zones"] + spec["nested"]:
        events.append(_event(ZONE, start, length, "user_annotation", CPU_PID, tid))
    for tid, start, length in spec["children"]:
        events.append(_event("aten::copy_", start, length, "cpu_op", CPU_PID, tid))
    for device, stream, start, length in spec["kernels"]:
        events.append(_event("kernel", start, length, "kernel", device, stream))
        events.append(
            {
                "ph": "M",
                "name": "process_name",
                "pid": device,
                "tid": 0,
                "args": {"name": f"GPU {device}"},
            }
        )
    # The file must hold something with a timestamp at 0 so times are relative to it.
    events.append(_event("origin", 0, 1, "cpu_op", CPU_PID, 999))
    return write_trace(tmp_path / "t.json", events)


def _points(intervals: list[tuple[int, int]]) -> set[int]:
    return {t for start, end in intervals for t in range(start, end)}


def _check(analysis: Analysis, spec: dict[str, Any], gpu: bool) -> None:
    us = 1000
    zone = _points([(s, s + n) for _, s, n in spec["zones"]])
    step_points = [_points([(s, s + n)]) for s, n in spec["steps"]]
    gaps: list[Gap] = analysis.gaps
    steps: list[Step] = analysis.steps
    assert len(steps) == len(spec["steps"])
    if gpu:
        devices = sorted({device for device, *_ in spec["kernels"]})
        expected = {
            device: zone
            - _points([(s, s + n) for d, _, s, n in spec["kernels"] if d == device])
            for device in devices
        }
    else:
        expected = {None: zone - _points([(s, s + n) for _, s, n in spec["children"]])}
    for device, wanted in expected.items():
        mine = [gap for gap in gaps if gap.device == device]
        got = _points([(g.start_ns // us, g.end_ns // us) for g in mine])
        # Exactly zone minus busy (or minus children): nothing missing, nothing extra.
        assert got == wanted
        # Never overlapping, so their sum is the size of the set and at most the zone.
        assert sum(g.duration_ns for g in mine) == len(got) * us
        assert sum(g.duration_ns for g in mine) <= analysis.total_zone_ns
        for gap in mine:
            assert gap.start_ns % us == 0 and gap.duration_ns > 0
            inside = [
                index
                for index, points in enumerate(step_points)
                if set(range(gap.start_ns // us, gap.end_ns // us)) <= points
            ]
            if gap.step is None:
                assert not any((gap.start_ns // us) in points for points in step_points)
            else:
                assert [steps[i].number for i in inside] == [gap.step]
        # Per step, the gap never exceeds the zone time of the step.
        for figure, points in zip(
            analysis.zone_reading.steps, step_points, strict=True
        ):
            assert figure.zone_ns == len(zone & points) * us
            if figure.gap_ns is not None:
                assert figure.gap_ns <= figure.zone_ns
    assert analysis.total_zone_ns == len(zone) * us
    assert analysis.total_gap_ns <= analysis.total_zone_ns
    assert analysis.total_gap_ns == len(set().union(*expected.values())) * us


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(spec=traces(gpu=True))
def test_gpu_idle_gaps_are_zone_minus_busy(
    tmp_path: Path, spec: dict[str, Any]
) -> None:
    analysis = Analysis(load_trace(_write(tmp_path, spec)))
    _check(analysis, spec, gpu=True)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(spec=traces(gpu=False))
def test_untraced_time_is_zone_minus_children(
    tmp_path: Path, spec: dict[str, Any]
) -> None:
    analysis = Analysis(load_trace(_write(tmp_path, spec)))
    _check(analysis, spec, gpu=False)


def test_gpu_idle_gaps_read_no_nesting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The nesting (half a second on a big trace) is read only for untraced time."""
    from tests.builders.traces import metadata, training_steps

    path = write_trace(tmp_path / "gpu.json", [*metadata(), *training_steps(2)])
    analysis = Analysis(load_trace(path))
    asked: list[str] = []
    real = nesting.parents

    def parents(*args: Any) -> Any:
        asked.append("parents")
        return real(*args)

    monkeypatch.setattr(nesting, "parents", parents)
    assert analysis.zone_reading.kind is GapKind.GPU_IDLE
    assert analysis.zone_reading.total_gap_ns > 0
    assert asked == []
    cpu_only = [event for event in training_steps(2) if event.get("pid") != 0]
    untraced = Analysis(load_trace(write_trace(tmp_path / "cpu.json", cpu_only)))
    assert untraced.zone_reading.kind is GapKind.UNTRACED
    assert asked == ["parents"]
