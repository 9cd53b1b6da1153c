"""Findings weighed by their cost: where each must fire, where it must not, and that
its cost is the time known by construction; statuses change exactly at the floor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.cuda_graphs import write_cuda_graph_trace
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.base.vocab import DataLoading, FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.data_zone import IdleFigures, idle_in_data_zone
from tui.core.findings.dominant import dominant_operator
from tui.core.findings.finding import by_cost
from tui.core.findings.host_bound import HostBoundFigures, host_bound
from tui.core.findings.readings import compute_findings
from tui.core.findings.small_launches import LaunchFigures, many_small_launches
from tui.core.findings.weights import DEFAULT_MIN_SHARE, LIKELY_SHARE, Scale
from tui.core.ingest.load import load_trace
from tui.report.findings import words

STEP_US = 1000.0


def _launch(
    events: list[dict[str, Any]],
    correlation: int,
    call_at: float,
    call_us: float,
    kernel_at: float,
    kernel_us: float,
    name: str = "small_kernel",
) -> None:
    """An operator, its cudaLaunchKernel and the kernel it launches."""
    events.append(cpu("aten::op", call_at, call_us))
    events.append(
        cpu(
            "cudaLaunchKernel",
            call_at,
            call_us,
            cat="cuda_runtime",
            correlation=correlation,
        )
    )
    events.append(gpu(name, kernel_at, kernel_us, correlation=correlation))


def zone_trace(path: Path, idle_us: float, steps: int = 4) -> Path:
    """Steps of 1 ms: a data zone of `idle_us` while the device idles, then one
    kernel that keeps the device busy for the rest of the step."""
    events = list(metadata())
    for index in range(steps):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(
            cpu(
                "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                at,
                idle_us,
                cat="user_annotation",
            )
        )
        # Issued at the step's start, run right after the zone: busy until the end.
        _launch(events, 100 + index, at, 1, at + idle_us, STEP_US - idle_us, "gemm")
    return write_trace(path, events)


@pytest.mark.parametrize(
    ("idle_us", "status"),
    [
        (19.0, FindingStatus.MINOR),
        (20.0, FindingStatus.POSSIBLE),  # 2 % of the 1 ms step: the floor
        (99.0, FindingStatus.POSSIBLE),
        (100.0, FindingStatus.LIKELY),  # 10 %
    ],
)
def test_the_data_zone_weighs_its_idle_per_step(
    tmp_path: Path, idle_us: float, status: FindingStatus
) -> None:
    analysis = Analysis(load_trace(zone_trace(tmp_path / "t.json", idle_us)))
    finding = idle_in_data_zone(analysis)
    assert finding.cost_ns_per_step == pytest.approx(idle_us * 1000)
    assert finding.share_of_step == pytest.approx(idle_us / STEP_US)
    assert finding.status is status
    assert isinstance(finding.figures, IdleFigures)
    assert finding.figures.loading is DataLoading.MAIN_THREAD
    said = words(finding)
    assert "main thread (num_workers=0)" in said.observation
    assert "num_workers > 0" in said.next_check


def test_the_floor_moves_with_min_share(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(zone_trace(tmp_path / "t.json", 50.0)))
    assert idle_in_data_zone(analysis).status is FindingStatus.POSSIBLE
    scale = Scale(STEP_US * 1000, 4, min_share=0.06)
    assert idle_in_data_zone(analysis, scale).status is FindingStatus.MINOR
    assert DEFAULT_MIN_SHARE < 0.05 < LIKELY_SHARE


def test_the_data_zone_counts_slivers_apart(tmp_path: Path) -> None:
    """One 300 µs gap and many 2 µs slivers per step: the gap holds the idle."""
    events = list(metadata())
    for index in range(3):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(cpu("lecture_batch_cpu", at, 500, cat="user_annotation"))
        # Busy 300..500 in 10 µs kernels with 2 µs slivers between them.
        for k in range(17):
            start = at + 300 + 12 * k
            _launch(events, 1000 * index + k, start - 5, 1, start, 10)
        _launch(events, 1000 * index + 99, at + 504, 1, at + 505, 490, "gemm")
    path = write_trace(tmp_path / "t.json", events)
    finding = idle_in_data_zone(Analysis(load_trace(path)))
    figures = finding.figures
    assert isinstance(figures, IdleFigures) and figures.gaps > 3
    assert figures.sizeable_gaps == 3
    assert "3 gaps of 10 µs or more hold" in words(finding).observation


def launch_trace(path: Path, *, saturated: bool, steps: int = 4) -> Path:
    """60 kernels of 5 µs (or 15 µs, saturated) per 1 ms step.

    Host-bound launching: 60 back-to-back 10 µs launch calls from the step's
    start, each kernel right after its call: the device idles between
    kernels (5 µs each) and from the last one to the next step's first.
    Saturated: 2 µs calls every 2 µs, 15 µs kernels queued back to back to
    the step's end: the device never waits on the host.
    """
    events = list(metadata())
    for index in range(steps):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        for k in range(60):
            correlation = 1000 * index + k
            if saturated:
                first = at + 100 if index == 0 else at
                _launch(events, correlation, at + 2 * k, 2, first + 15 * k + 100, 15)
            else:
                _launch(events, correlation, at + 10 * k, 10, at + 10 * k + 10, 5)
    return write_trace(path, events)


def test_small_launches_weigh_the_launch_time_while_the_device_waits(
    tmp_path: Path,
) -> None:
    analysis = Analysis(load_trace(launch_trace(tmp_path / "t.json", saturated=False)))
    finding = many_small_launches(analysis)
    figures = finding.figures
    assert isinstance(figures, LaunchFigures)
    assert figures.median_kernels_per_step == 60
    # Launch calls fill 600 µs of each step. The device waits 5 µs between
    # kernels (59 a step: kernel wait) and 405 µs from a step's last kernel to
    # the next step's first (3 of them: host wait), 598.75 µs a step on average.
    assert figures.launch_ns_per_step == pytest.approx(600_000)
    waits = (59 * 5 * 4 + 405 * 3) / 4 * 1000
    assert figures.device_wait_ns_per_step == pytest.approx(waits)
    assert finding.cost_ns_per_step == pytest.approx(min(600_000, waits))
    assert finding.status is FindingStatus.LIKELY


def test_small_launches_behind_a_busy_device_are_minor(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(launch_trace(tmp_path / "t.json", saturated=True)))
    finding = many_small_launches(analysis)
    assert finding.seen  # the pattern is there...
    assert finding.share_of_step is not None
    assert finding.share_of_step < DEFAULT_MIN_SHARE  # ...but hidden behind the device
    assert finding.status is FindingStatus.MINOR
    assert host_bound(analysis).status is not FindingStatus.LIKELY


def test_graph_replays_are_not_launches(tmp_path: Path) -> None:
    trace = write_cuda_graph_trace(tmp_path / "g.json", steps=3)
    analysis = Analysis(load_trace(trace))
    finding = many_small_launches(analysis)
    figures = finding.figures
    assert isinstance(figures, LaunchFigures)
    # Per step: two eager kernels launched, two kernels replayed by the graph.
    assert figures.kernels_per_step == [2, 2, 2]
    assert figures.graph_kernels == 6
    assert "6 CUDA-graph kernels left out" in words(finding).observation


def test_host_bound_fires_on_host_wait_and_not_in_the_zone(tmp_path: Path) -> None:
    """Each step: one 200 µs kernel issued at 800 µs, after 800 µs of host work."""
    events = list(metadata())
    for index in range(4):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(cpu("aten::python_work", at, 790))
        _launch(events, 100 + index, at + 795, 5, at + 800, 200, "gemm")
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    finding = host_bound(analysis)
    # The stream idles 800 µs a step, each gap ended by a launch issued after
    # it began: all host wait (the first step's lead-in is before any kernel).
    assert finding.status is FindingStatus.LIKELY
    assert finding.cost_ns_per_step == pytest.approx(800_000 * 3 / 4)
    said = words(finding)
    assert "waits for the host" in said.observation

    # The same wait inside a data zone is the zone's, not host-bound's.
    zoned = Analysis(load_trace(zone_trace(tmp_path / "z.json", 300.0)))
    assert host_bound(zoned).cost_ns_per_step in (None, pytest.approx(0.0))
    assert host_bound(zoned).status in (FindingStatus.NOT_SEEN, FindingStatus.MINOR)
    assert idle_in_data_zone(zoned).cost_ns_per_step == pytest.approx(300_000)


def test_a_dominant_collective_points_to_ranks(tmp_path: Path) -> None:
    events = list(metadata())
    for index in range(3):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(cpu("aten::mm", at, 100))
        events.append(cpu("gloo:all_reduce", at + 100, 800))
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    finding = dominant_operator(analysis)
    assert finding.cost_ns_per_step == pytest.approx(800_000)
    said = words(finding)
    assert said.title == "One collective dominates"
    assert "steptrace ranks" in said.next_check


def test_costliest_first_and_not_observed_last(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(zone_trace(tmp_path / "t.json", 150.0)))
    findings = compute_findings(analysis)
    assert [f.id for f in findings] == [f.id for f in by_cost(findings)]
    seen = [f for f in findings if f.seen]
    costs = [f.cost_ns_per_step for f in seen]
    weighed = [cost for cost in costs if cost is not None]
    assert weighed == costs  # every finding seen is weighed
    assert weighed == sorted(weighed, reverse=True)
    order = [f.status for f in findings]
    assert order.index(FindingStatus.NOT_SEEN) > max(
        order.index(f.status) for f in seen
    )
    # The matmul holds 850 µs a step, the data zone's idle 150 µs.
    assert [f.id for f in seen][:2] == [
        FindingId.DOMINANT_OP,
        FindingId.GPU_IDLE_DATA_ZONE,
    ]


def test_findings_command_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = zone_trace(tmp_path / "t.json", 150.0)
    assert main(["findings", str(trace), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["median_step_us"] == pytest.approx(STEP_US)
    assert result["min_share_pct"] == pytest.approx(2.0)
    first = next(f for f in result["findings"] if f["id"] == "gpu_idle_data_zone")
    assert set(first) >= {
        "id",
        "status",
        "title",
        "cost_us_per_step",
        "share_of_step_pct",
        "observation",
        "hypothesis",
        "next_check",
        "figures",
        "anchors",
    }
    assert first["status"] == "likely"
    assert first["cost_us_per_step"] == pytest.approx(150.0)
    assert first["share_of_step_pct"] == pytest.approx(15.0)
    assert first["figures"]["idle_us"] == pytest.approx(4 * 150.0)
    assert first["figures"]["loading"] == "main_thread"
    assert first["anchors"][0]["kind"] == "gap"
    assert main(["findings", str(trace), "--json", "--min-share", "20"]) == 0
    raised = json.loads(capsys.readouterr().out)
    statuses = {f["id"]: f["status"] for f in raised["findings"]}
    assert statuses["gpu_idle_data_zone"] == "minor"  # 15 % < 20 %
    assert statuses["dominant_op"] == "likely"  # 85 %
    assert main(["findings", str(trace)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("findings, costliest first (median step 1 ms over 4")
    assert "cost: about 150 µs per step, 15% of the median step" in text


@pytest.mark.parametrize("value", ["-1", "101", "nan"])
def test_findings_refuses_a_bad_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    trace = zone_trace(tmp_path / "t.json", 150.0)
    assert main(["findings", str(trace), "--min-share", value]) == 2
    assert "--min-share must be a percentage" in capsys.readouterr().err


def test_host_bound_reads_the_device_not_one_stream(tmp_path: Path) -> None:
    """Two streams take turns (stream 7 in each step's first half, stream 8 in
    its second, both launched at the step's start): each stream idles half the
    step, the device never does, so the device does not wait on the host."""
    events = list(metadata())
    for index in range(4):
        at = index * STEP_US
        events.append(
            cpu(f"ProfilerStep#{index + 1}", at, STEP_US, cat="user_annotation")
        )
        events.append(cpu("aten::op", at, 2))
        events.append(
            cpu("cudaLaunchKernel", at, 1, cat="cuda_runtime", correlation=10 * index)
        )
        events.append(gpu("first_half", at, 500, correlation=10 * index, stream=7))
        events.append(cpu("aten::op", at + 1, 2))
        events.append(
            cpu(
                "cudaLaunchKernel",
                at + 1,
                1,
                cat="cuda_runtime",
                correlation=10 * index + 1,
            )
        )
        events.append(
            gpu("second_half", at + 500, 500, correlation=10 * index + 1, stream=8)
        )
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    finding = host_bound(analysis)
    assert isinstance(finding.figures, HostBoundFigures)
    assert finding.figures.busy_ns == pytest.approx(1_000_000)
    assert finding.figures.host_wait_ns == 0
    assert finding.status is FindingStatus.NOT_SEEN
