"""The host-sync reading: its cost per step (the device idle after the syncs, a
union: not the host's blocked time), its status from that cost, its words and
where it points."""

from __future__ import annotations

from pathlib import Path

from tests.builders.syncs import STEP_US, runtime, sync_trace
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.core.base.vocab import FindingId, FindingStatus
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import MissingReason
from tui.core.findings.readings import compute_findings
from tui.core.findings.syncs import SyncFigures, host_sync
from tui.core.ingest.load import load_trace
from tui.report.findings import words


def analysis_of(path: Path) -> Analysis:
    return Analysis(load_trace(path))


def test_cost_is_the_device_idle_after_per_step(tmp_path: Path) -> None:
    analysis = analysis_of(sync_trace(tmp_path / "syncs.json"))
    finding = host_sync(analysis)
    # Two 1 ms steps; the first holds blocked 168 us and idle after 321 us
    # (1 + 30 + 200 + 90), but the event sync's idle (810..900) lies inside the
    # device sync's (700..900): the device idles 231 us, the host's wait is no cost.
    assert finding.status is FindingStatus.LIKELY
    assert finding.cost_ns_per_step == (1_000 + 30_000 + 200_000) / 2
    figures = finding.figures
    assert isinstance(figures, SyncFigures)
    assert figures.steps == 2
    assert figures.syncs == 7
    assert figures.blocked_ns_per_step == 84_000
    assert figures.idle_after_ns_per_step == 160_500
    # The costliest sync: cudaDeviceSynchronize (50 blocked + 200 idle), no operator;
    # the costliest operator: aten::item (36 + 1, then 3 + 30).
    assert figures.name == "cudaDeviceSynchronize"
    assert figures.operator == "aten::item"
    said = words(finding)
    assert "may" in said.hypothesis
    assert "every N steps" in said.next_check and ".item()" in said.next_check
    assert "aten::item" in said.observation
    assert "7 host synchronisations over 2 steps (3.5 per step)" in said.observation
    assert FindingId.HOST_SYNC in {f.id for f in compute_findings(analysis)}


def one_step(path: Path, sync_us: float, idle_us: float) -> Path:
    """One 1 ms step: a kernel 0..100, a stream sync 100..100+sync_us, the next
    kernel idle_us after it."""
    end = 100 + sync_us
    return write_trace(
        path,
        [
            *metadata(),
            cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"),
            runtime("cudaLaunchKernel", 1, 2, 1),
            gpu("k", 5, 95, correlation=1),
            cpu("aten::item", 99, sync_us + 2),
            runtime("cudaStreamSynchronize", 100, sync_us, 2),
            runtime("cudaLaunchKernel", end + idle_us - 5, 2, 3),
            gpu("k", end + idle_us, 10, correlation=3),
        ],
    )


def test_status_follows_the_share_of_the_step(tmp_path: Path) -> None:
    minor = host_sync(analysis_of(one_step(tmp_path / "a.json", 5, 14)))
    assert minor.status is FindingStatus.MINOR
    assert minor.cost_ns_per_step == 14_000
    # The host waits 300 us (30 % of the step), the device idles 20 us after: 2 %.
    possible = host_sync(analysis_of(one_step(tmp_path / "b.json", 300, 20)))
    assert possible.status is FindingStatus.POSSIBLE
    assert possible.cost_ns_per_step == 20_000
    likely = host_sync(analysis_of(one_step(tmp_path / "c.json", 5, 100)))
    assert likely.status is FindingStatus.LIKELY


def test_not_seen_and_not_observed(tmp_path: Path) -> None:
    quiet = write_trace(
        tmp_path / "quiet.json",
        [
            *metadata(),
            cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"),
            runtime("cudaLaunchKernel", 1, 2, 1),
            gpu("k", 5, 95, correlation=1),
        ],
    )
    assert host_sync(analysis_of(quiet)).status is FindingStatus.NOT_SEEN
    no_runtime = write_trace(
        tmp_path / "no_runtime.json",
        [
            *metadata(),
            cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"),
            gpu("k", 5, 95),
        ],
    )
    finding = host_sync(analysis_of(no_runtime))
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert finding.missing is not None
    assert finding.missing.reason is MissingReason.NO_RUNTIME_CALLS
    cpu_only = write_trace(
        tmp_path / "cpu.json",
        [*metadata(), cpu("aten::item", 0, 10)],
    )
    finding = host_sync(analysis_of(cpu_only))
    assert finding.status is FindingStatus.NOT_OBSERVED
    assert (
        finding.missing is not None and finding.missing.reason is MissingReason.NO_GPU
    )


def test_the_finding_marks_every_sync_on_the_timeline(tmp_path: Path) -> None:
    """Selecting the reading marks every sync (n / N visit them in time order)
    and selects the costliest."""
    from tui.app.screens.anchors import Visit, finding_target
    from tui.core.findings.finding import ShowSyncs

    analysis = analysis_of(sync_trace(tmp_path / "syncs.json"))
    finding = host_sync(analysis)
    assert isinstance(finding.anchor, ShowSyncs)
    figures = finding.figures
    assert isinstance(figures, SyncFigures)
    assert finding.anchor.select == figures.event
    target = finding_target(finding, analysis.trace, analysis)
    assert isinstance(target, Visit)
    trace = analysis.trace
    assert [trace.event_name(int(e)) for e in target.events] == [
        "cudaMemcpyAsync",
        "cudaStreamSynchronize",
        "cudaMemcpyAsync",
        "cudaStreamSynchronize",
        "cudaDeviceSynchronize",
        "Event Sync",
        "cudaMemcpy",
    ]
    assert target.event == figures.event
    assert trace.event_name(figures.event) == "cudaDeviceSynchronize"
