"""The "repeated copy" reading lists every host-to-device copy repeated in each step
with its per-step cost, checked against a raw parse, and points at the copy itself."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from tests.builders.app_traces import write_training_trace
from tests.builders.raw_copies import (
    MEMCPY_HEAVY,
    TRACES,
    raw_direction,
    raw_issuers_and_steps,
    raw_ns,
    raw_union_ns,
)
from tui.core.base.vocab import FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.readings import CopyFigures, ShowEvents, repeated_copy
from tui.core.ingest.load import load_trace
from tui.report.findings import words


@pytest.mark.usefixtures("shared_traces")
def test_repeated_host_to_device_copies_match_a_raw_parse() -> None:
    copies, paths, step_of = raw_issuers_and_steps(MEMCPY_HEAVY)
    steps = 5
    members: dict[tuple[int, tuple[str, ...]], list[int]] = defaultdict(list)
    for index, copy in enumerate(copies):
        if raw_direction(copy) == "htod" and index in paths and index in step_of:
            members[(copy["args"]["bytes"], paths[index])].append(index)
    expected: dict[tuple[int, tuple[str, ...]], float] = {}
    for key, indices in members.items():
        if len({step_of[i] for i in indices}) < steps:
            continue
        per_step = [
            raw_union_ns(
                [
                    (
                        raw_ns(copies[i]["ts"]),
                        raw_ns(copies[i]["ts"]) + raw_ns(copies[i]["dur"]),
                    )
                    for i in indices
                    if step_of[i] == step
                ]
            )
            for step in range(steps)
        ]
        expected[key] = statistics.median(per_step)

    analysis = Analysis(load_trace(TRACES / MEMCPY_HEAVY))
    finding = repeated_copy(analysis)
    figures = finding.figures
    assert finding.status is FindingStatus.POSSIBLE
    assert isinstance(figures, CopyFigures)
    ours = {(copy.bytes, copy.path): copy.ns_per_step for copy in figures.copies}
    assert ours == expected
    assert figures.repeated_copies == len(expected)
    costs = [copy.ns_per_step for copy in figures.copies]
    assert costs == sorted(costs, reverse=True)
    # The anchor selects the costliest copy's first occurrence in the window.
    costliest = figures.copies[0]
    assert isinstance(finding.anchor, ShowEvents)
    assert finding.anchor.select == costliest.event
    trace = analysis.trace
    assert trace.event_name(costliest.event) == costliest.name == finding.anchor.name
    (first,) = [
        i
        for i in members[(costliest.bytes, costliest.path)]
        if step_of[i] == 0
        and raw_ns(copies[i]["ts"])
        == min(
            raw_ns(copies[j]["ts"])
            for j in members[(costliest.bytes, costliest.path)]
            if step_of[j] == 0
        )
    ]
    assert trace.origin_ns + int(trace.start_ns[costliest.event]) == raw_ns(
        copies[first]["ts"]
    )
    said = words(finding).observation
    assert f"in each of the {steps} steps" in said and "per step" in said


def test_fixture_copy(tmp_path: Path) -> None:
    """The fixture copies 4 MiB host-to-device once per step, 300 µs, from transfert."""
    finding = repeated_copy(
        Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=True)))
    )
    figures = finding.figures
    assert isinstance(figures, CopyFigures)
    (copy,) = figures.copies
    assert copy.bytes == 4_194_304 and copy.count_per_step == 1
    assert copy.ns_per_step == 300_000
    assert copy.path == ("transfert", "aten::copy_")
    assert copy.host_memory is not None and copy.host_memory.value == "pageable"
    assert words(finding).observation.startswith(
        "the same host-to-device copy in each of the 3 steps"
    )
