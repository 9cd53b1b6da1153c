"""CUDA graphs: work replayed by `cudaGraphLaunch` is flagged, kept out of launch
statistics as HTA keeps it out, and drawn apart on the timeline.

Oracles: HTA 0.5.0's launch statistics of the shared
`negative_queue_length_values_check` trace (a torch.compile capture with 70
graph launches; HTA counts only work launched by cudaLaunchKernel[ExC],
cudaMemcpyAsync and cudaMemsetAsync, DEFINITIONS.md §8), a parse of that
trace's raw JSON, and a constructed capture whose figures are known by
construction (tests/builders/cuda_graphs.py).
"""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import shared_traces as shared
from tests.builders.cuda_graphs import (
    GRAPH_ID,
    drawn_cuda_graphs,
    write_cuda_graph_trace,
)
from tui.cli import main
from tui.core.base.vocab import CacheUse
from tui.core.figures.analysis import Analysis
from tui.core.figures.kernels import kernel_events, kernel_stats
from tui.core.figures.launches import GraphReplays, Launches, LaunchSummary, graph_work
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Kind

GRAPHS = "negative_queue_length_values_check-rank0.json.gz"
HTA = json.loads(
    (
        Path(__file__).resolve().parents[1] / "fixtures" / "hta" / "hta_figures.json"
    ).read_text()
)


def _kernels_json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    assert main(["kernels", str(path), "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


# -- a real torch.compile capture ----------------------------------------------


@pytest.mark.usefixtures("shared_traces")
def test_graph_work_is_what_a_graph_launch_correlates() -> None:
    raw = json.loads(gzip.decompress((shared.FOLDER / GRAPHS).read_bytes()))
    events = [e for e in raw["traceEvents"] if e.get("ph") == "X"]
    graph_calls = {
        e["args"]["correlation"] for e in events if e["name"] == "cudaGraphLaunch"
    }
    replayed = sorted(
        (e["name"], e["ts"])
        for e in events
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
        and e["args"].get("correlation") in graph_calls
    )
    analysis = Analysis(load_trace(shared.FOLDER / GRAPHS))
    trace = analysis.trace
    graph = graph_work(trace, analysis.launch_call)
    ours = sorted(
        (trace.event_name(int(e)), (trace.origin_ns + int(trace.start_ns[e])) // 1000)
        for e in np.flatnonzero(graph)
    )
    assert len(replayed) == 345
    assert ours == replayed


@pytest.mark.usefixtures("shared_traces")
def test_launch_summary_of_all_device_work_is_htas() -> None:
    """Graph replays left out, the summary over every kernel, copy and set is HTA's."""
    (hta,) = HTA["traces"][GRAPHS]["cuda_kernel_launch_stats"].values()
    analysis = Analysis(load_trace(shared.FOLDER / GRAPHS))
    trace = analysis.trace
    device = np.flatnonzero(trace.device_work_mask).astype(np.int64)
    summary = LaunchSummary.of(trace, Launches.of(trace, analysis.launch_call, device))
    assert summary.graph_replays == 345
    assert summary.linked == hta["events"]
    assert summary.call_total_ns == hta["sum_cpu_duration"] * 1000
    assert summary.delay_total_ns == hta["sum_launch_delay"] * 1000
    assert summary.work_total_ns == hta["sum_gpu_duration"] * 1000
    assert summary.call_median_ns == hta["median_cpu_duration"] * 1000
    assert summary.delay_median_ns == hta["median_launch_delay"] * 1000
    assert summary.slow_calls == hta["cpu_duration_gt_runtime_cutoff"]
    assert summary.late_starts == hta["launch_delay_gt_cutoff"]


# -- a constructed capture -------------------------------------------------------


def test_kernels_json_flags_graph_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cuda_graph_trace(tmp_path / "graphs.json", steps=3)
    rows = {row["name"]: row for row in _kernels_json(capsys, path)["kernels"]}
    gemm, add, triton = (
        rows["gemm_kernel"],
        rows["add_kernel"],
        rows["triton_poi_fused_add_0"],
    )
    # gemm_kernel: 3 eager launches (call 10 µs, delay 10 µs) and 3 graph replays.
    assert (gemm["count"], gemm["graph_count"], gemm["launched"]) == (6, 3, 3)
    assert gemm["graph"] is True and gemm["graph_ids"] == [GRAPH_ID]
    assert gemm["launch_us_median"] == 10.0 and gemm["launch_delay_us_median"] == 10.0
    assert gemm["slow_launches"] == 0 and gemm["late_starts"] == 0
    # add_kernel: eager only, 132 µs after its call's end: three real late starts.
    assert add["graph"] is False and add["graph_count"] == 0 and add["graph_ids"] == []
    assert add["late_starts"] == 3 and add["launch_delay_us_median"] == 132.0
    # triton_poi_fused_add_0: only replayed; the 1,200 µs graph call is no launch of its own.
    assert (triton["count"], triton["graph_count"], triton["launched"]) == (3, 3, 0)
    assert (
        triton["launch_us_median"] is None and triton["launch_delay_us_median"] is None
    )
    assert triton["slow_launches"] == 0 and triton["late_starts"] == 0


def test_graph_replays_are_flagged_without_graph_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kineto built before CUDA 12 writes no graph id: the launch call alone says it."""
    path = write_cuda_graph_trace(tmp_path / "graphs.json", graph_ids=False)
    rows = {row["name"]: row for row in _kernels_json(capsys, path)["kernels"]}
    triton = rows["triton_poi_fused_add_0"]
    assert triton["graph"] is True and triton["graph_ids"] == []
    assert triton["launched"] == 0


def test_a_graph_id_alone_flags_a_replay(tmp_path: Path) -> None:
    """The graph launch call missing from the trace, the kernel's graph id still says it."""
    trace = load_trace(write_cuda_graph_trace(tmp_path / "g.json", graph_call=False))
    analysis = Analysis(trace)
    graph = graph_work(trace, analysis.launch_call)
    names = sorted({trace.event_name(int(e)) for e in np.flatnonzero(graph)})
    assert names == ["Memset (Device)", "gemm_kernel", "triton_poi_fused_add_0"]
    assert int(graph.sum()) == 9


def test_launch_summary_leaves_graph_replays_out(tmp_path: Path) -> None:
    trace = load_trace(write_cuda_graph_trace(tmp_path / "g.json", steps=3))
    analysis = Analysis(trace)
    stats = kernel_stats(
        trace, kernel_events(trace), analysis.launch_call, analysis.busy_all_devices
    )
    summary = stats.launches
    # Eager: 3 × (call 10 µs, delay 10 µs) and 3 × (call 8 µs, delay 132 µs).
    assert (summary.events, summary.linked, summary.graph_replays) == (12, 6, 6)
    assert summary.call_median_ns == statistics.median([10_000] * 3 + [8_000] * 3)
    assert summary.call_total_ns == 3 * 18_000
    assert summary.slow_calls == 0 and summary.late_starts == 3


def test_graph_kernels_are_drawn_as_graph_work(tmp_path: Path) -> None:
    """A replayed kernel has its own colour, also where an eager kernel has its name."""
    from tui.app.widgets.timeline_render import Painter

    drawn = drawn_cuda_graphs(tmp_path / "g.json")
    trace, row = drawn.trace, drawn.device_row
    painter = Painter(drawn.index, drawn.zone)
    graph = graph_work(trace, drawn.analysis.launch_call)
    colours = {
        (trace.event_name(int(event)), bool(graph[event])): painter.colour_key(
            row, int(event)
        )
        for event in np.flatnonzero(trace.kind == Kind.KERNEL)
    }
    eager = colours[("gemm_kernel", False)]
    assert eager == colours[("add_kernel", False)] == int(Kind.KERNEL)
    replayed = colours[("gemm_kernel", True)]
    assert replayed == colours[("triton_poi_fused_add_0", True)] != eager


# -- words -------------------------------------------------------------------------


def test_a_replayed_kernel_says_so_on_the_status_line(tmp_path: Path) -> None:
    from tui.view.status import launcher_text

    trace = load_trace(write_cuda_graph_trace(tmp_path / "g.json", steps=1))
    analysis = Analysis(trace)
    graph = analysis.graph_work
    words = {
        (trace.event_name(int(e)), bool(graph[e])): launcher_text(analysis, int(e))
        for e in np.flatnonzero(trace.kind == Kind.KERNEL)
    }
    assert words[("gemm_kernel", False)] == "launched by aten::mm"
    assert words[("gemm_kernel", True)] == (
        f"replayed by CUDA graph {GRAPH_ID}, launched by CompiledFunction"
    )


def test_kernels_text_counts_graph_replays_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_cuda_graph_trace(tmp_path / "graphs.json", steps=3)
    assert main(["kernels", str(path)]) == 0
    out = capsys.readouterr().out
    launches = out.split("\nlaunches\n")[1]
    (triton,) = [line for line in launches.splitlines() if "triton_poi" in line]
    assert triton.split()[2:4] == ["graph", "graph"] and "–" not in triton
    text = " ".join(out.split())
    # 12 kernels: 6 eager launches, 6 replayed by graphs (3 gemm, 3 triton).
    assert "6 of 12 kernels have their launch call in the trace" in text
    assert "6 replayed by CUDA graphs, left out of launch figures" in text


def test_graph_work_reads_apart_without_colour(tmp_path: Path) -> None:
    """Wide replayed kernels are filled with their own glyph, eager ones with bars."""
    from tui.app.widgets.timeline_render import (
        BAR_GLYPH,
        GRAPH_GLYPH,
        LineView,
        Painter,
        draw_line,
    )
    from tui.view.cells import Drawing

    drawn = drawn_cuda_graphs(tmp_path / "g.json")
    trace, index, zone, layout = drawn.trace, drawn.index, drawn.zone, drawn.layout
    row = drawn.device_row
    graph = drawn.analysis.graph_work
    kernels = np.flatnonzero(trace.kind == Kind.KERNEL)

    def lane(event: int) -> str:
        """The stream's line with the view on one kernel (it fills the lane)."""
        start = int(trace.start_ns[event])
        view = LineView(
            start,
            start + int(trace.duration_ns[event]),
            20,
            -1,
            0.0,
            None,
            None,
            Drawing.EXACT,
            layout,
        )
        strip, _ = draw_line(Painter(index, zone), view, row, 0, 80, lambda _: [])
        return strip.text.split("│", 1)[1]

    eager, replayed = (
        next(
            int(e)
            for e in kernels
            if trace.event_name(int(e)) == "gemm_kernel" and bool(graph[e]) is flag
        )
        for flag in (False, True)
    )
    assert BAR_GLYPH in lane(eager) and GRAPH_GLYPH not in lane(eager)
    assert GRAPH_GLYPH in lane(replayed) and BAR_GLYPH not in lane(replayed)


def test_the_kernels_tab_says_graph_where_only_replays_ran(tmp_path: Path) -> None:
    from tui.core.results.kernels import KernelsResult
    from tui.view.kernel_rows import KernelRows

    analysis = Analysis(load_trace(write_cuda_graph_trace(tmp_path / "g.json")))
    rows = KernelRows.of(KernelsResult.of(analysis))
    names = rows.stats.table.names
    delay = {name: rows.cells(row)[-1] for row, name in enumerate(names)}
    assert delay == {
        "gemm_kernel": "10 µs",
        "add_kernel": "132 µs",
        "triton_poi_fused_add_0": "graph",
    }


def test_graph_ids_survive_the_column_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reopened from the cache, the args are memory-mapped: the same ids are read."""
    from tui.core.ingest import cache as column_cache

    monkeypatch.setenv("STEPTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STEPTRACE_NO_CACHE", raising=False)
    path = write_cuda_graph_trace(tmp_path / "g.json")
    fresh = load_trace(path, cache=CacheUse.ON)
    cached = column_cache.load(path)
    assert cached is not None
    replays = [
        GraphReplays.of(trace, Analysis(trace).launch_call) for trace in (fresh, cached)
    ]
    assert replays[0].ids.tolist() == replays[1].ids.tolist()
    assert sorted(set(replays[1].ids.tolist())) == [-1, GRAPH_ID]
    assert int(replays[1].work.sum()) == 9
