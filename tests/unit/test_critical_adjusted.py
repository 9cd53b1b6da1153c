"""The adjusted reading of the critical path, beside HTA's, on hand-made steps
whose chains are known by construction (times in µs from the step's start).

Each expectation is worked out in the test's docstring from the built events,
and the filled gaps are recomputed with plain sets of whole microseconds, not
by the interval code under test.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

import tui.core.figures.critical as critical_module
from tests.builders.traces import cpu, gpu, metadata, write_trace
from tests.unit.test_critical_path import _events as hta_step_events
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import (
    BoundBy,
    Correction,
    CriticalPaths,
    PathFlag,
    critical_paths,
)
from tui.core.figures.critical.adjusted import annotation_rows
from tui.core.figures.critical.frame import HtaFrame
from tui.core.figures.critical.graph import Graph, build_graph
from tui.core.ingest.load import load_trace
from tui.core.results.critical import CriticalResult
from tui.report.critical import critical_text


def _paths(path: Path) -> CriticalPaths:
    trace = load_trace(path)
    analysis = Analysis(trace)
    return critical_paths(
        trace, analysis.steps, busy=analysis.busy_by_device, adjusted=True
    )


def _launch(ts: float, corr: int, cat: str = "cuda_runtime") -> dict[str, Any]:
    return cpu("cudaLaunchKernel", ts, 2, cat=cat, correlation=corr)


def _old_step(step_category: str) -> list[dict[str, Any]]:
    """A PyTorch <= 1.10 step: every host range is an `Operator`, the step and
    a `## forward ##` record_function range included (`step_category` lets a
    test give the step today's `user_annotation`)."""
    return [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat=step_category),
        cpu("## forward ##", 8, 107, cat="Operator"),
        cpu("aten::mm", 10, 100, cat="Operator"),
        cpu("cudaLaunchKernel", 20, 10, cat="Runtime", correlation=1),
        gpu("gemm", 50, 800, cat="Kernel", correlation=1),
        cpu("aten::relu", 950, 40, cat="Operator"),
    ]


def test_old_step_ranges_are_not_cpu_work(tmp_path: Path) -> None:
    """HTA makes the two `Operator` annotations nodes: the step's thread holds
    a chain from 0 to 1000 µs, all CPU, most of it (835 µs between the forward
    range's end and relu) the step's own. Without them: mm's start to the
    launch (10, cpu), the launch delay (30), gemm (800) is 840 µs, the host's
    chain (mm 100 + relu 40) shorter. The device is busy 800 of 1000 µs."""
    (step,) = _paths(write_trace(tmp_path / "old.json", _old_step("Operator"))).steps
    assert step.path is not None and step.adjusted is not None
    hta = step.path
    assert hta.path_ns == 1_000_000
    assert dict(hta.bound_ns)[BoundBy.CPU] == 1_000_000
    assert hta.top[0].name == "ProfilerStep#1"
    adjusted = step.adjusted
    assert adjusted.path.path_ns == 840_000
    assert dict(adjusted.path.bound_ns) == {
        BoundBy.CPU: 10_000,
        BoundBy.GPU_COMPUTE: 800_000,
        BoundBy.GPU_COMMUNICATION: 0,
        BoundBy.KERNEL_KERNEL: 0,
        BoundBy.LAUNCH: 30_000,
    }
    names = {part.name for part in adjusted.path.top}
    assert names.isdisjoint({"ProfilerStep#1", "## forward ##"})
    (corrected,) = adjusted.corrected
    assert corrected.correction is Correction.ANNOTATIONS
    assert corrected.count == 2
    assert dict(corrected.change_ns) == {
        BoundBy.CPU: -990_000,
        BoundBy.GPU_COMPUTE: 800_000,
        BoundBy.LAUNCH: 30_000,
    }
    assert corrected.moved_ns == 990_000
    assert adjusted.device_busy_share == pytest.approx(0.8)
    assert adjusted.coverage == pytest.approx(0.84)
    assert adjusted.hta_coverage == pytest.approx(1.0)
    assert adjusted.hta_flags == (PathFlag.CPU_BOUND_ON_BUSY_DEVICE,)
    assert adjusted.flags == ()


def test_a_user_annotation_step_needs_no_correction(tmp_path: Path) -> None:
    """Today's traces name the step `user_annotation`, which HTA reads as no
    node already; the old `Operator` forward range is the only one left out,
    and the path it held is already the device's: nothing moves."""
    events = [e for e in _old_step("user_annotation") if e["name"] != "## forward ##"]
    (step,) = _paths(write_trace(tmp_path / "new.json", events)).steps
    assert step.path is not None and step.adjusted is not None
    assert step.path.path_ns == 840_000
    assert step.adjusted.path == step.path
    assert step.adjusted.corrected == ()


def _backward_step(autograd: bool) -> list[dict[str, Any]]:
    """The forward thread (100) runs linear 10..100 and add_ 450..600; the
    backward (200) evaluates a node 150..400 whose mm (160..390) launches a
    kernel 200..380. `autograd`: the node is named as the autograd engine
    names it; otherwise it is some other thread's work."""
    node = (
        "autograd::engine::evaluate_function: AddmmBackward0"
        if autograd
        else "worker::prepare"
    )
    return [
        *metadata(),
        cpu("ProfilerStep#1", 0, 700, cat="user_annotation"),
        cpu("aten::linear", 10, 90),
        cpu("aten::add_", 450, 150),
        cpu(node, 150, 250, tid=200),
        cpu("aten::mm", 160, 230, tid=200),
        cpu("cudaLaunchKernel", 170, 10, cat="cuda_runtime", tid=200, correlation=1),
        gpu("gemm", 200, 180, correlation=1),
    ]


def test_the_autograd_thread_is_joined_to_the_forward_thread(tmp_path: Path) -> None:
    """HTA: two separate chains, the forward thread's (90 + 150) and the
    backward's (250, its host chain longer than launch 30 + kernel 180 after
    20 µs of host): 250. Joined: linear, then the backward burst, then add_,
    by order edges: 90 + 250 + 150 = 490 µs of CPU."""
    path = write_trace(tmp_path / "bwd.json", _backward_step(autograd=True))
    (step,) = _paths(path).steps
    assert step.path is not None and step.adjusted is not None
    assert step.path.path_ns == 250_000
    adjusted = step.adjusted
    assert adjusted.path.path_ns == 490_000
    assert dict(adjusted.path.bound_ns)[BoundBy.CPU] == 490_000
    (corrected,) = adjusted.corrected
    assert corrected.correction is Correction.AUTOGRAD_THREAD
    assert corrected.count == 2
    assert corrected.moved_ns == 240_000
    assert dict(corrected.change_ns) == {BoundBy.CPU: 240_000}


def test_another_thread_is_not_joined(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "other.json", _backward_step(autograd=False))
    (step,) = _paths(path).steps
    assert step.adjusted is not None and step.path is not None
    assert step.adjusted.corrected == ()
    assert step.adjusted.path.path_ns == step.path.path_ns == 250_000


def test_the_shared_backward_trace_has_no_forward_operator_to_join(
    shared_traces: Path,
) -> None:
    """Its forward thread holds only user annotations: nothing to order the
    backward thread after, so no edge, and the path is HTA's."""
    paths = _paths(shared_traces / "call_stack-backward_thread.json")
    adjusted = paths.window_adjusted
    assert adjusted is not None and paths.window is not None
    assert adjusted.corrected == ()
    assert adjusted.path == paths.window


def _covered_us(gap: tuple[int, int], others: list[tuple[int, int]]) -> int:
    """How many whole microseconds of `gap` the `others` cover."""
    inside = set(range(*gap))
    return len(inside & {us for low, high in others for us in range(low, high)})


def _two_streams() -> list[dict[str, Any]]:
    """Stream 7: A 100..300 (launched at 12, alone: a launch delay of 88), B
    500..700 (launched at 72 while A is queued: a gap of 200 after A); stream
    8: C 250..550 on the same device, launched at 40."""
    return [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("aten::mm", 10, 20),
        _launch(12, 1),
        gpu("A", 100, 200, correlation=1),
        cpu("aten::relu", 38, 7),
        _launch(40, 2),
        gpu("C", 250, 300, correlation=2, stream=8),
        cpu("aten::add", 70, 20),
        _launch(72, 3),
        gpu("B", 500, 200, correlation=3),
    ]


def test_a_gap_another_stream_fills_is_not_idle(tmp_path: Path) -> None:
    """HTA's path: mm to the launch (2), the delay (88), A (200), the gap
    (200), B (200). C runs over the whole gap: the device is not idle."""
    (step,) = _paths(write_trace(tmp_path / "streams.json", _two_streams())).steps
    assert step.path is not None and step.adjusted is not None
    hta = dict(step.path.bound_ns)
    assert hta[BoundBy.KERNEL_KERNEL] == 200_000
    filled = _covered_us((300, 500), [(250, 550)]) * 1000
    adjusted = dict(step.adjusted.path.bound_ns)
    assert adjusted[BoundBy.KERNEL_KERNEL] == hta[BoundBy.KERNEL_KERNEL] - filled == 0
    assert adjusted[BoundBy.GPU_COMPUTE] == hta[BoundBy.GPU_COMPUTE] + filled
    assert step.adjusted.path.path_ns == step.path.path_ns
    (corrected,) = step.adjusted.corrected
    assert corrected.correction is Correction.OTHER_STREAMS
    assert (corrected.count, corrected.moved_ns) == (1, filled)


def test_a_gap_half_filled_keeps_its_idle_half(tmp_path: Path) -> None:
    """C moved to 400..450 fills 50 µs of the 200 µs gap: the other 150 stay idle."""
    events = _two_streams()
    c = next(e for e in events if e.get("name") == "C")
    c["ts"] += 150
    c["dur"] = 50
    (step,) = _paths(write_trace(tmp_path / "half.json", events)).steps
    assert step.path is not None and step.adjusted is not None
    filled = _covered_us((300, 500), [(400, 450)]) * 1000
    assert filled == 50_000
    hta = dict(step.path.bound_ns)
    adjusted = dict(step.adjusted.path.bound_ns)
    assert adjusted[BoundBy.KERNEL_KERNEL] == hta[BoundBy.KERNEL_KERNEL] - filled
    assert adjusted[BoundBy.KERNEL_KERNEL] == 150_000


def test_a_gap_nothing_fills_stays_a_gap(tmp_path: Path) -> None:
    """The hand-made step of test_critical_path: one stream, a 50 µs gap
    between gemm and add_kernel with nothing else on the device."""
    path = write_trace(tmp_path / "step.json", hta_step_events())
    (step,) = _paths(path).steps
    assert step.path is not None and step.adjusted is not None
    assert step.adjusted.corrected == ()
    assert dict(step.adjusted.path.bound_ns)[BoundBy.KERNEL_KERNEL] == 50_000
    assert step.adjusted.path == step.path


def _graph_step() -> list[dict[str, Any]]:
    """Stream 7: A 100..300, a CUDA-graph replay (one cudaGraphLaunch at 42,
    its kernels g1 300..500 and g2 500..700 sharing its correlation), B
    700..900 launched at 72: the device is busy from 100 to 900 without a
    break. One replayed kernel is a node (the call's partner); the other is
    not, so HTA sees a 200 µs gap beside it."""
    return [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("aten::mm", 10, 20),
        _launch(12, 1),
        gpu("A", 100, 200, correlation=1),
        cpu("CompiledFunction", 40, 20),
        cpu("cudaGraphLaunch", 42, 8, cat="cuda_runtime", correlation=2),
        gpu("g1", 300, 200, correlation=2),
        gpu("g2", 500, 200, correlation=2),
        cpu("aten::add", 70, 20),
        _launch(72, 3),
        gpu("B", 700, 200, correlation=3),
    ]


def test_graph_replays_fill_the_gaps_beside_them(tmp_path: Path) -> None:
    (step,) = _paths(write_trace(tmp_path / "graph.json", _graph_step())).steps
    assert step.path is not None and step.adjusted is not None
    hta = dict(step.path.bound_ns)
    assert hta[BoundBy.KERNEL_KERNEL] == 200_000
    adjusted = dict(step.adjusted.path.bound_ns)
    assert adjusted[BoundBy.KERNEL_KERNEL] == 0
    assert adjusted[BoundBy.GPU_COMPUTE] == 800_000
    assert step.adjusted.device_busy_share == pytest.approx(0.8)


def test_json_keeps_hta_and_adds_the_adjusted_reading(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "old.json", _old_step("Operator"))
    printed = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(printed):
        assert main(["critical", str(path), "--json"]) == 0
    printed.flush()
    data = orjson.loads(printed.buffer.getvalue())
    window = data["window"]
    assert window["bound_by"]["cpu_bound"] == pytest.approx(100.0)
    adjusted = window["adjusted"]
    assert adjusted["path_us"] == 840.0
    assert adjusted["bound_by"]["gpu_compute_bound"] == pytest.approx(800 / 840 * 100)
    assert adjusted["top"][0]["name"] == "gemm"
    assert adjusted["coverage"] == pytest.approx(0.84)
    assert adjusted["hta_flags"] == ["cpu_bound_on_busy_device"]
    assert adjusted["flags"] == []
    (corrected,) = adjusted["corrected"]
    assert corrected["what"] == "annotations"
    assert corrected["moved_us"] == 990.0
    assert corrected["change_us"]["cpu_bound"] == -990.0
    (step,) = data["steps"]
    assert step["adjusted"]["path_us"] == 840.0


def test_text_says_what_was_corrected(tmp_path: Path) -> None:
    trace = load_trace(write_trace(tmp_path / "old.json", _old_step("Operator")))
    text = critical_text(CriticalResult.of(Analysis(trace)))
    (line,) = [line for line in text.splitlines() if line.startswith("adjusted")]
    assert "840" in line and "compute" in line
    assert "annotations" in line and "990" in line
    assert "cpu-bound on a busy device" in text


@pytest.mark.parametrize(
    ("name", "corrections"),
    [
        (
            "timeline_analysis-sampled_rank-0.json.gz",
            {Correction.AUTOGRAD_THREAD, Correction.OTHER_STREAMS},
        ),
        (
            "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
            {Correction.AUTOGRAD_THREAD},
        ),
        (
            "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz",
            set(),
        ),
    ],
)
def test_real_traces_corrections_add_up(
    shared_traces: Path, name: str, corrections: set[Correction]
) -> None:
    """Each class of the adjusted path is HTA's plus what the corrections moved
    into or out of it; the corrections that fire are those the trace calls for
    (a backward thread, sibling streams), none on a single-threaded one."""
    paths = _paths(shared_traces / name)
    assert paths.window is not None and paths.window_adjusted is not None
    adjusted = paths.window_adjusted
    assert {item.correction for item in adjusted.corrected} == corrections
    hta = dict(paths.window.bound_ns)
    for kind, ns in adjusted.path.bound_ns:
        moved = sum(dict(item.change_ns).get(kind, 0) for item in adjusted.corrected)
        assert ns == hta[kind] + moved, kind
    for item in adjusted.corrected:
        assert item.moved_ns > 0 and item.count > 0
    assert all(not part.name.startswith("ProfilerStep") for part in adjusted.path.top)


@pytest.mark.parametrize(
    "name",
    [
        "timeline_analysis-sampled_rank-0.json.gz",
        "amd_trace-mi250_minitoy_train_ROCm6_2_kineto.json.gz",
        "critical_path-cuda_event_sync_multi_stream-event_sync_trace.json.gz",
    ],
)
def test_reading_hta_graph_again_changes_nothing(
    shared_traces: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window where no annotation parents or crosses an operator reuses HTA's
    graph; building it again without the annotations gives the same reading."""
    reused = _paths(shared_traces / name)
    monkeypatch.setattr(
        critical_module,
        "disturbing",
        lambda frame, _annotations: np.sort(frame.start_ns).astype(np.int64),
    )
    rebuilt = _paths(shared_traces / name)
    assert reused.window_adjusted == rebuilt.window_adjusted
    assert [step.adjusted for step in reused.steps] == [
        step.adjusted for step in rebuilt.steps
    ]


def _annotated_inside(tmp_path: Path) -> Path:
    """A `## inner ##` annotation inside aten::outer holds two operators: it
    parents them, so it is read again, but it is no node."""
    return write_trace(
        tmp_path / "inside.json",
        [
            *metadata(),
            cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
            cpu("aten::outer", 10, 200),
            cpu("## inner ##", 20, 100, cat="user_annotation"),
            cpu("aten::a", 30, 20),
            _launch(35, 1),
            gpu("gemm", 60, 300, correlation=1),
            cpu("aten::b", 80, 20),
        ],
    )


def _graphs(path: Path) -> tuple[Graph, Graph]:
    """HTA's graph of the whole capture and the one without its annotations."""
    frame = HtaFrame.of(load_trace(path))
    window = (int(frame.start_ns.min()), int(frame.end_ns.max()))
    hta = build_graph(frame, window)
    return hta, build_graph(frame, window, leave_out=annotation_rows(frame))


def test_an_annotation_inside_an_operator_keeps_every_edge_weight(
    tmp_path: Path,
) -> None:
    """Left out, the inner annotation changes only what aten::a's end to
    aten::b's start is attributed to (the annotation, then aten::outer)."""
    hta, adjusted = _graphs(_annotated_inside(tmp_path))
    assert adjusted.same_weights(hta)
    assert adjusted.edges != hta.edges


def test_annotations_that_are_nodes_change_the_edges(tmp_path: Path) -> None:
    """Old traces' `Operator` annotations are nodes: leaving them out removes them."""
    hta, adjusted = _graphs(write_trace(tmp_path / "old.json", _old_step("Operator")))
    assert not adjusted.same_weights(hta)


def test_keeping_hta_path_changes_nothing(
    shared_traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where leaving the annotations out keeps every edge weight (every window
    of this trace), HTA's longest path is kept; finding it again gives the
    same reading."""
    name = "timeline_analysis-sampled_rank-0.json.gz"
    kept = _paths(shared_traces / name)
    monkeypatch.setattr(Graph, "same_weights", lambda _graph, _other: False)
    found = _paths(shared_traces / name)
    assert kept.window_adjusted == found.window_adjusted
    assert [step.adjusted for step in kept.steps] == [
        step.adjusted for step in found.steps
    ]


def test_an_annotation_inside_an_operator_reads_as_when_found_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The built step, read with HTA's path kept and with it found again."""
    path = _annotated_inside(tmp_path)
    kept = _paths(path)
    monkeypatch.setattr(Graph, "same_weights", lambda _graph, _other: False)
    assert kept == _paths(path)
