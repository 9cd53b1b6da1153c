"""The "repeated copy" reading lists every host-to-device copy repeated in each step
with its per-step cost, checked against a raw parse, and points at the copy itself."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from tests.builders.app_traces import (
    metadata_events,
    training_events,
    write_training_trace,
)
from tests.builders.raw_copies import (
    MEMCPY_HEAVY,
    TRACES,
    raw_direction,
    raw_events,
    raw_issuers_and_steps,
    raw_ns,
    raw_union_ns,
)
from tui.core.base.vocab import FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.copies import (
    CopyFigures,
    PageableFigures,
    pageable_copy,
    repeated_copy,
)
from tui.core.findings.finding import ShowEvents
from tui.core.findings.weights import DEFAULT_MIN_SHARE
from tui.core.ingest.load import load_trace
from tui.report.findings import words


@pytest.mark.usefixtures("shared_traces")
def test_repeated_host_to_device_copies_match_a_raw_parse() -> None:
    copies, paths, step_of = raw_issuers_and_steps(MEMCPY_HEAVY)
    steps = 5
    # Keyed as the finding's copies are: bytes (None when unknown), call path.
    members: dict[tuple[int | None, tuple[str, ...]], list[int]] = defaultdict(list)
    for index, copy in enumerate(copies):
        if raw_direction(copy) == "htod" and index in paths and index in step_of:
            members[(copy["args"]["bytes"], paths[index])].append(index)
    expected: dict[tuple[int | None, tuple[str, ...]], float] = {}
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
    # Weighed: their time per step against the median of the raw ProfilerStep
    # ranges (the window is the 5 recorded steps).
    step_ns = sorted(
        raw_ns(event["dur"])
        for event in raw_events(MEMCPY_HEAVY)
        if event.get("ph") == "X" and event["name"].startswith("ProfilerStep#")
    )
    assert len(step_ns) == steps
    cost = sum(expected.values())
    assert finding.weight is not None
    assert finding.weight.cost_ns_per_step == pytest.approx(cost)
    assert finding.weight.median_step_ns == statistics.median(step_ns)
    share = cost / statistics.median(step_ns)
    assert finding.share_of_step == pytest.approx(share)
    # About 1.9 % of a step: seen, but under the 2 % floor.
    assert share < DEFAULT_MIN_SHARE and finding.status is FindingStatus.MINOR
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


def test_fixture_copy_is_the_batch_and_pageable(tmp_path: Path) -> None:
    """The fixture copies 4 MiB host-to-device once per step, 300 µs, from `transfert`
    right after the data zone: the batch, from pageable memory, not a constant."""
    analysis = Analysis(load_trace(write_training_trace(tmp_path / "t.json", gpu=True)))
    finding = repeated_copy(analysis)
    figures = finding.figures
    assert isinstance(figures, CopyFigures)
    assert finding.status is FindingStatus.NOT_SEEN
    assert figures.copies == () and figures.input_copies == 1
    assert "1 input copy (the batch" in words(finding).observation
    pageable = pageable_copy(analysis)
    assert isinstance(pageable.figures, PageableFigures)
    assert pageable.figures.count_per_step == 1
    assert pageable.figures.bytes_per_step == 4_194_304
    assert pageable.figures.ns_per_step == 300_000
    assert pageable.figures.bytes_per_s == pytest.approx(4_194_304 / 300e-6)
    assert pageable.figures.input_share == 1.0
    assert pageable.figures.path == ("transfert", "aten::copy_")
    # 300 µs of a 9.95 ms step: 3 %, over the floor, under `likely`.
    assert pageable.share_of_step == pytest.approx(300 / 9950)
    assert pageable.status is FindingStatus.POSSIBLE
    said = words(pageable)
    assert "4 MiB copied from pageable host memory per step" in said.observation
    assert "14.0 GB/s" in said.observation and "pin_memory" in said.next_check


def test_a_copy_inside_the_compute_is_a_repeated_constant(tmp_path: Path) -> None:
    """The same copy issued after the step's first kernel is not the batch."""
    events = training_events(3, gpu=True)
    for event in events:
        if event["name"] in ("transfert", "aten::to", "aten::copy_") or (
            event.get("args", {}).get("bytes") == 4_194_304
            or event["name"] == "cudaMemcpyAsync"
        ):
            event["ts"] += 1500  # after the first kernels of `entrainement`
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": metadata_events(True) + events}))
    finding = repeated_copy(Analysis(load_trace(path)))
    assert isinstance(finding.figures, CopyFigures)
    assert finding.figures.input_copies == 0
    (copy,) = finding.figures.copies
    assert copy.bytes == 4_194_304 and copy.ns_per_step == 300_000
    assert finding.seen
