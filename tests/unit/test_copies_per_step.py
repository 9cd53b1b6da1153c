"""Copies per step and per group, computed for all steps at once, against plain
models: unions counted nanosecond by nanosecond, groups kept in a dict and
unions merged in a loop over the copies of each step."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from tests.support.tracegen import generate
from tui.core.base.vocab import HostMemory
from tui.core.figures.analysis import Analysis
from tui.core.figures.copies import (
    DIRECTIONS,
    HOST_MEMORIES,
    NO_HOST,
    CopyReading,
    union_per_group,
)
from tui.core.ingest.load import load_trace


def _covered(spans: list[tuple[int, int]]) -> int:
    """Length of a union of spans, by sorting and merging (the plain way)."""
    total, end = 0, None
    for start, stop in sorted(spans):
        if stop <= start:
            continue
        if end is None or start > end:
            total, end = total + stop - start, stop
        elif stop > end:
            total, end = total + stop - end, stop
    return total


@pytest.mark.parametrize("seed", range(6))
def test_union_per_group_counts_each_nanosecond_once(seed: int) -> None:
    generator = np.random.default_rng(seed)
    count, groups = 300, 9
    starts = generator.integers(-50, 200, count).astype(np.int64)
    ends = starts + generator.integers(-5, 40, count)  # some empty or reversed
    group = generator.integers(0, groups, count).astype(np.int64)
    lengths = union_per_group(starts, ends, group, groups)
    for index in range(groups):
        covered = np.zeros(400, dtype=bool)
        for start, end in zip(
            starts[group == index].tolist(), ends[group == index].tolist(), strict=True
        ):
            covered[start + 50 : max(end, start) + 50] = True
        assert lengths[index] == int(covered.sum())


def test_union_per_group_far_apart_times_keep_their_lengths() -> None:
    # Times too far apart to lay every group side by side on one time line.
    starts = np.array([0, 10, 2**61, 2**61 + 5, 3], dtype=np.int64)
    ends = starts + np.array([20, 20, 10, 10, 1], dtype=np.int64)
    group = np.array([0, 0, 1, 1, 2], dtype=np.int64)
    assert union_per_group(starts, ends, group, 4).tolist() == [30, 15, 1, 0]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Analysis, CopyReading]:
    path = tmp_path_factory.mktemp("copies") / "g.json"
    generate(path, steps=9, seed=5)
    analysis = Analysis(load_trace(path))
    return analysis, CopyReading.of(analysis)


def _readings() -> list[str]:
    return ["generated", "negative_queue_length_values_check-rank0.json.gz"]


@pytest.fixture(params=_readings())
def reading(
    request: pytest.FixtureRequest, generated: tuple[Analysis, CopyReading]
) -> tuple[Analysis, CopyReading]:
    if request.param == "generated":
        return generated
    traces: Path = request.getfixturevalue("shared_traces")
    analysis = Analysis(load_trace(traces / request.param))
    return analysis, CopyReading.of(analysis)


def test_step_totals_match_a_loop_over_each_steps_copies(
    reading: tuple[Analysis, CopyReading],
) -> None:
    analysis, copies = reading
    trace, columns = analysis.trace, copies.columns
    assert len(copies.step_totals) == len(analysis.steps) > 1
    for index, totals in enumerate(copies.step_totals):
        expected = []
        for code, direction in enumerate(DIRECTIONS):
            mine = [
                p
                for p in range(len(columns))
                if columns.step[p] == index and columns.direction[p] == code
            ]
            if not mine:
                continue
            sizes = [int(columns.bytes[p]) for p in mine]
            memories = [int(columns.host_memory[p]) for p in mine]
            events = [int(columns.events[p]) for p in mine]
            spans = [(int(trace.start_ns[e]), int(trace.end_ns[e])) for e in events]
            expected.append(
                (
                    direction,
                    len(mine),
                    sum(size for size in sizes if size >= 0),
                    sum(1 for size in sizes if size < 0),
                    _covered(spans),
                    memories.count(HOST_MEMORIES.index(HostMemory.PAGEABLE)),
                    memories.count(HOST_MEMORIES.index(HostMemory.PINNED)),
                )
            )
        ours = [
            (
                row.direction,
                row.count,
                row.bytes,
                row.unknown_size,
                row.time_ns,
                row.pageable,
                row.pinned,
            )
            for row in totals
        ]
        assert ours == expected


def test_groups_match_a_dict_of_copies_and_a_union_per_step(
    reading: tuple[Analysis, CopyReading],
) -> None:
    analysis, copies = reading
    trace, columns = analysis.trace, copies.columns
    window = {step.event: rank for rank, step in enumerate(copies.window)}
    members: dict[tuple[int, int, int, int], list[int]] = {}
    for position in range(len(columns)):
        key = (
            int(columns.direction[position]),
            int(columns.host_memory[position]),
            int(columns.bytes[position]),
            int(columns.path[position]),
        )
        members.setdefault(key, []).append(position)
    expected = []
    for (way, memory, size, path), positions in members.items():
        events = [int(columns.events[p]) for p in positions]
        spans = [(int(trace.start_ns[e]), int(trace.end_ns[e])) for e in events]
        per_step: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for position, span in zip(positions, spans, strict=True):
            step = int(columns.step[position])
            if step >= 0 and copies.steps[step].event in window:
                per_step[window[copies.steps[step].event]].append(span)
        expected.append(
            (
                DIRECTIONS[way],
                None if memory == NO_HOST else HOST_MEMORIES[memory],
                None if size < 0 else size,
                columns.paths[path] if path >= 0 else (),
                trace.event_name(events[0]),
                positions,
                _covered(spans),
                [len(per_step[rank]) for rank in range(len(window))],
                [_covered(per_step[rank]) for rank in range(len(window))],
            )
        )
    expected.sort(key=lambda row: (-row[6], -len(row[5]), row[4]))
    ours = [
        (
            group.direction,
            group.host_memory,
            group.bytes,
            group.path,
            group.name,
            group.positions.tolist(),
            group.time_ns,
            group.per_step_count.tolist(),
            group.per_step_ns.tolist(),
        )
        for group in copies.groups
    ]
    assert ours == expected
    assert any(group.repeated for group in copies.groups)
    for group in copies.groups:
        first = next(
            (
                p
                for p in group.positions.tolist()
                if columns.step[p] >= 0
                and copies.steps[columns.step[p]].event in window
            ),
            int(group.positions[0]),
        )
        assert copies.first_in_window(group) == first
