"""Disjoint costs: a finding keeps only the part of the step no finding above it
claims, the costs that fire add up to at most the median step, and each says
how its cost was bounded. Figures are known by construction (µs)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tests.builders.syncs import runtime, sync_trace
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tests.unit.test_findings_weighed import zone_trace
from tui.core.base.intervals import Intervals
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import BoundBy
from tui.core.findings.claims import Claim, ClaimSpace, CostBound
from tui.core.findings.critical import CriticalPathFigures
from tui.core.findings.device_bound import DeviceBoundFigures, device_bound
from tui.core.findings.finding import Finding
from tui.core.findings.ranking import disjoint_costs
from tui.core.findings.readings import compute_findings
from tui.core.findings.weights import Scale, Weight, scale_of
from tui.core.ingest.load import load_trace
from tui.report.findings import cost_text, words

STEP_US = 1000.0
US = 1000  # ns


def _analysis(path: Path) -> Analysis:
    return Analysis(load_trace(path))


def _by_id(findings: list[Finding]) -> dict[FindingId, Finding]:
    return {finding.id: finding for finding in findings}


def _fired_ns(findings: list[Finding]) -> float:
    return sum(finding.cost_ns_per_step or 0.0 for finding in findings if finding.seen)


# -- the ranking itself ------------------------------------------------------------


def _claimed(
    finding_id: FindingId, cost_us: float, spans: list[tuple[float, float]] | None
) -> Finding:
    """A finding costing `cost_us` per step, claiming `spans` (µs from each step's
    start) in each of the 4 steps of `zone_trace`."""
    claim = None
    if spans is not None:
        starts = [step * STEP_US + a for step in range(4) for a, _ in spans]
        ends = [step * STEP_US + b for step in range(4) for _, b in spans]
        claim = Claim(
            Intervals.union_of(
                [int(s * US) for s in starts], [int(e * US) for e in ends]
            ),
            ClaimSpace.DEVICE_IDLE,
            CostBound.DEVICE_IDLE,
        )
    return Finding(
        finding_id,
        FindingStatus.LIKELY,
        weight=Weight(cost_us * US, STEP_US * US),
        claim=claim,
    )


def test_a_finding_keeps_what_no_finding_above_claims(tmp_path: Path) -> None:
    analysis = _analysis(zone_trace(tmp_path / "t.json", 150.0))
    scale = Scale(STEP_US * US, 4)
    ranked = disjoint_costs(
        [
            _claimed(FindingId.HOST_BOUND, 500, [(300, 800)]),
            _claimed(FindingId.GPU_IDLE_DATA_ZONE, 600, [(0, 600)]),
            _claimed(FindingId.DOMINANT_OP, 400, None),
        ],
        analysis,
        scale,
    )
    found = _by_id(ranked)
    # The data zone ranks first (600) and keeps its claim.
    zone = found[FindingId.GPU_IDLE_DATA_ZONE]
    assert zone.cost_ns_per_step == pytest.approx(600 * US)
    # Host-bound claims 300..800: 300..600 is the zone's, 600..800 its own.
    host = found[FindingId.HOST_BOUND]
    assert host.cost_ns_per_step == pytest.approx(200 * US)
    assert host.bound is not None
    assert host.bound.held_ns_per_step == pytest.approx(300 * US)
    assert host.bound.held_by == (FindingId.GPU_IDLE_DATA_ZONE,)
    # No claim: its own 400, cut to the 200 the step has left.
    dominant = found[FindingId.DOMINANT_OP]
    assert dominant.cost_ns_per_step == pytest.approx(200 * US)
    assert dominant.bound is not None
    assert dominant.bound.capped_ns_per_step == pytest.approx(200 * US)
    assert _fired_ns(ranked) == pytest.approx(STEP_US * US)
    # Sorted by the disjoint costs.
    assert [f.id for f in ranked] == [
        FindingId.GPU_IDLE_DATA_ZONE,
        FindingId.HOST_BOUND,
        FindingId.DOMINANT_OP,
    ]
    assert "cut by 200 µs so that the costs together stay within the median step" in (
        cost_text(dominant)
    )
    assert "already counted under gpu idle during the data zone" in cost_text(host)


def test_a_claim_held_above_leaves_a_minor_finding(tmp_path: Path) -> None:
    analysis = _analysis(zone_trace(tmp_path / "t.json", 150.0))
    ranked = disjoint_costs(
        [
            _claimed(FindingId.GPU_IDLE_DATA_ZONE, 600, [(0, 600)]),
            _claimed(FindingId.HOST_SYNC, 300, [(100, 400)]),
        ],
        analysis,
        Scale(STEP_US * US, 4),
    )
    sync = _by_id(ranked)[FindingId.HOST_SYNC]
    assert sync.cost_ns_per_step == 0.0
    assert sync.status is FindingStatus.MINOR


def test_an_umbrella_claims_after_the_parts_of_the_device_work(tmp_path: Path) -> None:
    analysis = _analysis(zone_trace(tmp_path / "t.json", 150.0))
    whole = _claimed(FindingId.DEVICE_BOUND, 850, [(150, 1000)])
    part = _claimed(FindingId.TENSOR_CORES, 100, [(150, 350)])
    assert whole.claim is not None and part.claim is not None
    whole = dataclasses.replace(
        whole,
        claim=dataclasses.replace(
            whole.claim, space=ClaimSpace.DEVICE_WORK, umbrella=True
        ),
    )
    part = dataclasses.replace(
        part,
        claim=dataclasses.replace(part.claim, space=ClaimSpace.DEVICE_WORK, scale=0.5),
    )
    found = _by_id(disjoint_costs([whole, part], analysis, Scale(STEP_US * US, 4)))
    # The part keeps half its 200 µs (its scale); the umbrella the 650 µs left.
    assert found[FindingId.TENSOR_CORES].cost_ns_per_step == pytest.approx(100 * US)
    assert found[FindingId.DEVICE_BOUND].cost_ns_per_step == pytest.approx(650 * US)


# -- each rule's overlap, on built traces ----------------------------------------


def test_the_data_zone_idle_is_not_counted_again_by_the_critical_path(
    tmp_path: Path,
) -> None:
    # 1 ms steps: the device idles 150 µs in the data zone, then one kernel runs.
    findings = compute_findings(_analysis(zone_trace(tmp_path / "t.json", 150.0)))
    found = _by_id(findings)
    assert found[FindingId.GPU_IDLE_DATA_ZONE].cost_ns_per_step == pytest.approx(
        150 * US
    )
    critical = found[FindingId.CRITICAL_PATH]
    # Its claim is the step's device idle: the data zone's 150 µs, all held.
    assert critical.cost_ns_per_step in (None, 0.0)
    if critical.bound is not None:
        assert FindingId.GPU_IDLE_DATA_ZONE in critical.bound.held_by
    assert _fired_ns(findings) <= STEP_US * US


def _host_wait_trace(path: Path) -> Path:
    """Four 1 ms steps: 790 µs of host work, then a 200 µs kernel launched after
    it: the device waits on the host outside any data zone."""
    events = list(metadata())
    for index in range(4):
        at = index * STEP_US
        events += [
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation"),
            cpu("aten::python_work", at, 790),
            cpu("aten::op", at + 795, 5),
            runtime("cudaLaunchKernel", at + 795, 5, 100 + index),
            gpu("gemm", at + 800, 200, correlation=100 + index),
        ]
    return write_trace(path, events)


def test_host_wait_is_not_counted_again_by_the_critical_path_nor_launches(
    tmp_path: Path,
) -> None:
    findings = compute_findings(_analysis(_host_wait_trace(tmp_path / "t.json")))
    found = _by_id(findings)
    host = found[FindingId.HOST_BOUND]
    critical = found[FindingId.CRITICAL_PATH]
    # Each step's device idles 800 µs (the first step's lead-in is before any
    # kernel, so the window's host wait is 3 x 800 over 4 steps).
    idle_ns = (3 * 800 + 800) * US / 4
    pair = [host, critical]
    first, second = sorted(pair, key=lambda f: -(f.cost_ns_per_step or 0.0))
    assert first.cost_ns_per_step is not None
    assert second.cost_ns_per_step is not None
    assert first.cost_ns_per_step + second.cost_ns_per_step <= idle_ns + 1
    assert second.bound is not None and first.id in second.bound.held_by
    assert _fired_ns(findings) <= STEP_US * US


def _sync_step_trace(path: Path, *, busy_us: float) -> Path:
    """Four 1 ms steps: ten kernels of `busy_us / 10` issued at the step's start
    by ten operators, run back to back from 20 µs, then a device sync that
    blocks the host until they end; the next step's work starts 20 µs in."""
    events = list(metadata())
    kernel_us = busy_us / 10
    correlation = 0
    for index in range(4):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        for k in range(10):
            correlation += 1
            events += [
                cpu(f"aten::op{k}", at + 1 + k, 1),
                runtime("cudaLaunchKernel", at + 1 + k, 1, correlation),
                gpu(
                    f"kernel{k}",
                    at + 20 + k * kernel_us,
                    kernel_us,
                    correlation=correlation,
                ),
            ]
        correlation += 1
        events.append(
            runtime("cudaDeviceSynchronize", at + 12, 8 + busy_us, correlation)
        )
    return write_trace(path, events)


def test_a_saturated_device_reads_device_bound(tmp_path: Path) -> None:
    analysis = _analysis(_sync_step_trace(tmp_path / "t.json", busy_us=950))
    findings = compute_findings(analysis)
    found = _by_id(findings)
    bound = found[FindingId.DEVICE_BOUND]
    assert bound.status is FindingStatus.LIKELY
    figures = bound.figures
    assert isinstance(figures, DeviceBoundFigures)
    assert figures.saturated and figures.host_ahead
    assert figures.busy_share == pytest.approx(0.95)
    assert figures.busy_ns_per_step == pytest.approx(950 * US)
    assert figures.queue_depth is not None and figures.queue_depth >= 2
    # Ranked first, above every host-side reading.
    assert next(f.id for f in findings if f.observed) is FindingId.DEVICE_BOUND
    # The host waits 958 µs on the sync; the device idles 30 µs after it (until
    # the next step's kernels at 20 µs, cut at the step's end: 970..1000).
    sync = found[FindingId.HOST_SYNC]
    assert sync.status is not FindingStatus.LIKELY
    assert (sync.cost_ns_per_step or 0.0) <= 30 * US
    critical = found[FindingId.CRITICAL_PATH]
    if isinstance(critical.figures, CriticalPathFigures):
        assert critical.figures.overhead not in (BoundBy.KERNEL_KERNEL, BoundBy.LAUNCH)
        assert critical.figures.bound_by not in (BoundBy.KERNEL_KERNEL, BoundBy.LAUNCH)
    assert _fired_ns(findings) <= STEP_US * US


def test_a_device_busy_half_the_step_is_not_device_bound(tmp_path: Path) -> None:
    finding = device_bound(
        _analysis(_sync_step_trace(tmp_path / "t.json", busy_us=500))
    )
    assert finding.status is FindingStatus.NOT_SEEN
    assert finding.cost_ns_per_step is None
    assert isinstance(finding.figures, DeviceBoundFigures)
    assert finding.figures.busy_share == pytest.approx(0.5)


def test_without_device_work_device_bound_is_not_observed(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "t.json", [*metadata(), cpu("aten::mm", 0, 10)])
    assert device_bound(_analysis(path)).status is FindingStatus.NOT_OBSERVED


def _tc_overlap_trace(path: Path) -> Path:
    """Four 1 ms steps: aten::mm launches a 400 µs FP32 GEMM (eligible, off
    Tensor Cores): the dominant operator's kernels and the Tensor Cores' are one."""
    events = list(metadata())
    for index in range(4):
        at = index * STEP_US
        events += [
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation"),
            cpu("aten::mm", at + 10, 10, external_id=index + 1),
            runtime(
                "cudaLaunchKernel",
                at + 11,
                5,
                200 + index,
                **{"External id": index + 1},
            ),
            gpu(
                "ampere_sgemm_128x64_nn",
                at + 20,
                400,
                correlation=200 + index,
                external_id=index + 1,
            ),
        ]
    return write_trace(path, events)


def test_tensor_core_time_is_not_counted_again_under_the_dominant_operator(
    tmp_path: Path,
) -> None:
    findings = compute_findings(_analysis(_tc_overlap_trace(tmp_path / "t.json")))
    found = _by_id(findings)
    dominant = found[FindingId.DOMINANT_OP]
    tensor = found[FindingId.TENSOR_CORES]
    # The GEMM's 400 µs: the operator claims it first (400 > 200 at a 2x speed-up).
    assert dominant.cost_ns_per_step == pytest.approx(400 * US)
    assert tensor.cost_ns_per_step == pytest.approx(0.0)
    assert tensor.bound is not None
    assert tensor.bound.how is CostBound.TENSOR_CORE_SPEEDUP
    assert tensor.bound.read_ns_per_step == pytest.approx(200 * US)
    assert FindingId.DOMINANT_OP in tensor.bound.held_by
    assert "2x Tensor Core speed-up" in cost_text(tensor)


def _repeated_pageable_trace(path: Path) -> Path:
    """Four 1 ms steps: the same 1 KiB pageable upload from aten::to, 50 µs of
    device time, after the step's kernel: both copy readings hold it."""
    events = list(metadata())
    for index in range(4):
        at = index * STEP_US
        correlation = 300 + 2 * index
        events += [
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation"),
            cpu("aten::mm", at + 1, 5),
            runtime("cudaLaunchKernel", at + 1, 5, correlation),
            gpu("gemm", at + 10, 300, correlation=correlation),
            cpu("aten::to", at + 400, 20),
            runtime("cudaMemcpyAsync", at + 401, 5, correlation + 1),
            gpu(
                "Memcpy HtoD (Pageable -> Device)",
                at + 410,
                50,
                cat="gpu_memcpy",
                correlation=correlation + 1,
                bytes=1024,
            ),
        ]
    return write_trace(path, events)


def test_a_repeated_pageable_copy_is_counted_once(tmp_path: Path) -> None:
    findings = compute_findings(
        _analysis(_repeated_pageable_trace(tmp_path / "t.json"))
    )
    found = _by_id(findings)
    repeated = found[FindingId.REPEATED_COPY]
    pageable = found[FindingId.PAGEABLE_COPY]
    assert repeated.seen and pageable.seen
    costs = sorted([repeated.cost_ns_per_step or 0.0, pageable.cost_ns_per_step or 0.0])
    assert costs == [pytest.approx(0.0), pytest.approx(50 * US)]


# -- statuses -----------------------------------------------------------------------


def test_a_share_at_the_floor_is_never_not_seen(tmp_path: Path) -> None:
    """The top operator holds 28 % of the operators' time (under the 30 % of the
    pattern), which is 28 % of the step: it reads from its share, not not_seen."""
    events = list(metadata())
    for index in range(2):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        start = at
        for name, us in (
            ("aten::a", 280),
            ("aten::b", 250),
            ("aten::c", 240),
            ("aten::d", 230),
        ):
            events.append(cpu(name, start, us))
            start += us
    findings = compute_findings(_analysis(write_trace(tmp_path / "t.json", events)))
    dominant = _by_id(findings)[FindingId.DOMINANT_OP]
    assert dominant.status is FindingStatus.LIKELY
    assert dominant.cost_ns_per_step == pytest.approx(280 * US)
    for finding in findings:
        share = finding.share_of_step
        if share is not None and share >= 0.02:
            assert finding.status is not FindingStatus.NOT_SEEN


# -- every shared trace ---------------------------------------------------------------


@pytest.mark.parametrize("name", shared.names())
def test_costs_add_up_to_at_most_the_median_step(
    shared_traces: Path, name: str
) -> None:
    analysis = _analysis(shared_traces / name)
    findings = compute_findings(analysis)
    median = scale_of(analysis).median_step_ns
    assert _fired_ns(findings) <= median * (1 + 1e-9) + 1
    for finding in findings:
        share = finding.share_of_step
        if share is not None and share >= 0.02:
            assert finding.status is not FindingStatus.NOT_SEEN
        if finding.seen:
            assert finding.bound is not None
        figures: Any = finding.figures
        if isinstance(figures, CriticalPathFigures) and figures.top is not None:
            assert not figures.top.startswith("ProfilerStep")


def _old_steps(path: Path) -> Path:
    """The trace with its steps written as PyTorch <= 1.10 does: category Operator."""
    document = orjson.loads(path.read_bytes())
    for event in document["traceEvents"]:
        if str(event.get("name", "")).startswith("ProfilerStep"):
            event["cat"] = "cpu_op"
    path.write_bytes(orjson.dumps(document))
    return path


def test_an_old_step_range_is_not_the_critical_path_s_cpu_work(tmp_path: Path) -> None:
    waiting = _old_steps(_host_wait_trace(tmp_path / "wait.json"))
    critical = _by_id(compute_findings(_analysis(waiting)))[FindingId.CRITICAL_PATH]
    assert isinstance(critical.figures, CriticalPathFigures)
    assert critical.figures.top == "aten::python_work"
    busy = _old_steps(_sync_step_trace(tmp_path / "busy.json", busy_us=800))
    critical = _by_id(compute_findings(_analysis(busy)))[FindingId.CRITICAL_PATH]
    assert isinstance(critical.figures, CriticalPathFigures)
    # The device is busy 80 % of each step: the step is not CPU-bound.
    assert critical.figures.bound_by is BoundBy.GPU_COMPUTE
    assert critical.status is FindingStatus.NOT_SEEN


def test_a_small_cost_holds_only_the_part_of_its_claim_it_takes(tmp_path: Path) -> None:
    """Syncs costing 100 µs a step over a 600 µs claim hold its first 100 µs: the
    host-bound umbrella after them keeps the other 500."""
    analysis = _analysis(zone_trace(tmp_path / "t.json", 150.0))
    small = _claimed(FindingId.HOST_SYNC, 100, [(0, 600)])
    whole = _claimed(FindingId.HOST_BOUND, 500, [(0, 600)])
    assert whole.claim is not None
    whole = dataclasses.replace(
        whole, claim=dataclasses.replace(whole.claim, umbrella=True)
    )
    found = _by_id(disjoint_costs([whole, small], analysis, Scale(STEP_US * US, 4)))
    assert found[FindingId.HOST_SYNC].cost_ns_per_step == pytest.approx(100 * US)
    host = found[FindingId.HOST_BOUND]
    assert host.cost_ns_per_step == pytest.approx(500 * US)
    assert host.bound is not None
    assert host.bound.held_ns_per_step == pytest.approx(100 * US)
    assert host.bound.held_by == (FindingId.HOST_SYNC,)


def test_text_json_panel_and_report_read_one_ranking(tmp_path: Path) -> None:
    """The CLI's text and JSON, the report and the app's panel show the same
    findings in the same order with the same costs."""
    from tui.app.widgets.findings_panel import finding_text
    from tui.core.results.findings import FindingsResult
    from tui.report.findings import findings_json, findings_text
    from tui.report.report import ReportResult

    analysis = _analysis(_sync_step_trace(tmp_path / "t.json", busy_us=950))
    listed = compute_findings(analysis)
    result = FindingsResult.of(analysis)
    assert [f.id for f in result.findings] == [f.id for f in listed]
    as_json = findings_json(result)["findings"]
    report = ReportResult.of(analysis).to_json()["findings"]
    for shown in (as_json, report):
        assert [f["id"] for f in shown] == [f.id.value for f in listed]
        assert [f["cost_us_per_step"] for f in shown] == [
            None if f.cost_ns_per_step is None else f.cost_ns_per_step / US
            for f in listed
        ]
    text = findings_text(result)
    titles = [finding_text(f).plain.splitlines()[0] for f in listed]
    positions = [text.find(f"- {words(f).title} — ") for f in listed]
    assert all(position >= 0 for position in positions)
    assert positions == sorted(positions)
    assert titles[0].endswith("The device is the bottleneck")


def test_the_idle_after_syncs_is_not_counted_again_by_host_bound(
    tmp_path: Path,
) -> None:
    """The syncs' trace (tests/builders/syncs.py): the device idles 231 µs after
    the syncs in the first step and waits on the host 350 µs over the two steps;
    the idle after the syncs is host wait too, and counts under the syncs only."""
    findings = compute_findings(_analysis(sync_trace(tmp_path / "syncs.json")))
    found = _by_id(findings)
    sync = found[FindingId.HOST_SYNC]
    host = found[FindingId.HOST_BOUND]
    assert sync.cost_ns_per_step == pytest.approx(231 * US / 2)
    assert host.bound is not None
    assert host.bound.read_ns_per_step == pytest.approx(175 * US)
    assert host.bound.held_by[0] is FindingId.HOST_SYNC
    assert host.cost_ns_per_step == pytest.approx(
        175 * US - host.bound.held_ns_per_step
    )
    assert host.cost_ns_per_step is not None and host.cost_ns_per_step < 175 * US


def _launches_trace(path: Path) -> Path:
    """Two 1 ms steps of 60 operators, each a 10 µs launch call then a 5 µs
    kernel starting 1 µs after it: the device waits on the host between them."""
    events = list(metadata())
    correlation = 0
    for index in range(2):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        for k in range(60):
            correlation += 1
            start = at + k * 16
            events += [
                cpu("aten::add", start, 11),
                runtime("cudaLaunchKernel", start, 10, correlation),
                gpu("add_kernel", start + 11, 5, correlation=correlation),
            ]
    return write_trace(path, events)


def test_launch_waits_are_counted_once(tmp_path: Path) -> None:
    analysis = _analysis(_launches_trace(tmp_path / "t.json"))
    findings = compute_findings(analysis)
    found = _by_id(findings)
    launches = found[FindingId.SMALL_LAUNCHES]
    assert launches.seen and launches.cost_ns_per_step
    # The device is busy 60 x 5 = 300 µs a step: the readings that claim its idle
    # (launches, host-bound, critical path, syncs) hold at most the 700 µs left.
    idle_readers = (
        FindingId.SMALL_LAUNCHES,
        FindingId.HOST_BOUND,
        FindingId.CRITICAL_PATH,
        FindingId.HOST_SYNC,
    )
    held = sum(found[i].cost_ns_per_step or 0.0 for i in idle_readers)
    assert held <= 700 * US + 1
    assert _fired_ns(findings) <= STEP_US * US
