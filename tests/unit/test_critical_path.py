"""The critical path on a hand-made step whose longest chain is known by construction.

One step of 1 ms (µs):

- aten::mm 10..110 launches gemm (cudaLaunchKernel 20..30) which runs 50..350 on
  stream 7, nothing else queued: a launch delay of 30;
- aten::add 120..150 launches add_kernel (cudaLaunchKernel 125..130) while
  gemm is queued; it runs 400..500: a gap of 50 after gemm;
- aten::item 160..560 holds cudaStreamSynchronize 170..555 (a Stream Sync on
  stream 7): the host waits for add_kernel's end (500);
- aten::relu 600..650.

The longest chain: mm's start to the launch (10, cpu), launch to gemm (30,
launch), gemm (300, compute), gap (50, kernel-kernel), add_kernel (100,
compute), the sync's end to item's end (5, cpu), relu (50, cpu): 545 µs. The
host's own chain (mm 100 + add 30 + item to the sync 10 + 5 + relu 50 = 195)
is shorter, and the blocking call's own time weighs nothing (HTA's rule).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.critical import BoundBy, critical_paths
from tui.core.ingest.load import load_trace


def _runtime(name: str, ts: float, dur: float, corr: int) -> dict[str, Any]:
    return cpu(name, ts, dur, cat="cuda_runtime", correlation=corr)


def _events(with_sync: bool = True) -> list[dict[str, Any]]:
    events = list(metadata())
    events += [
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("aten::mm", 10, 100),
        _runtime("cudaLaunchKernel", 20, 10, 1),
        gpu("gemm", 50, 300, correlation=1),
        cpu("aten::add", 120, 30),
        _runtime("cudaLaunchKernel", 125, 5, 2),
        gpu("add_kernel", 400, 100, correlation=2),
        cpu("aten::item", 160, 400),
        cpu("aten::relu", 600, 50),
    ]
    if with_sync:
        events += [
            _runtime("cudaStreamSynchronize", 170, 385, 3),
            gpu("Stream Sync", 170, 330, cat="cuda_sync", correlation=3),
        ]
    return events


@pytest.fixture
def step_trace(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "step.json", _events())


def _paths(path: Path) -> Any:
    trace = load_trace(path)
    return critical_paths(trace, Analysis(trace).steps)


def test_the_path_follows_the_device_to_the_sync(step_trace: Path) -> None:
    paths = _paths(step_trace)
    (step,) = paths.steps
    assert step.number == 1
    path = step.path
    assert path is not None
    assert path.path_ns == 545_000
    assert dict(path.bound_ns) == {
        BoundBy.CPU: 65_000,
        BoundBy.GPU_COMPUTE: 400_000,
        BoundBy.GPU_COMMUNICATION: 0,
        BoundBy.KERNEL_KERNEL: 50_000,
        BoundBy.LAUNCH: 30_000,
    }
    assert path.dominant() is BoundBy.GPU_COMPUTE
    assert paths.window == path


def test_without_the_sync_the_device_chain_ends_alone(tmp_path: Path) -> None:
    """The call stays without its Stream Sync: nothing ties the device's end
    back to the host, so the path ends at add_kernel's end (10 + 30 + 300 + 50
    + 100 = 490); the host's chain, its blocking call weighing nothing, is 195."""
    sync_call = _runtime("cudaStreamSynchronize", 170, 385, 3)
    events = [*_events(with_sync=False), sync_call]
    (step,) = _paths(write_trace(tmp_path / "nosync.json", events)).steps
    assert step.path is not None
    assert step.path.path_ns == 490_000
    assert dict(step.path.bound_ns)[BoundBy.CPU] == 10_000


def test_cli_json_shape(step_trace: Path) -> None:
    printed = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(printed):
        assert main(["critical", str(step_trace), "--json"]) == 0
    printed.flush()
    data = orjson.loads(printed.buffer.getvalue())
    assert data["whole_capture"] is False
    assert data["window"]["path_us"] == 545.0
    (step,) = data["steps"]
    assert step["step"] == 1
    assert step["bound_by"]["gpu_compute_bound"] == pytest.approx(400 / 545 * 100)
    assert step["bound_by"]["gpu_kernel_launch_overhead"] == pytest.approx(
        30 / 545 * 100
    )
    assert step["top"][0] == {"name": "gemm", "kind": "gpu_compute_bound", "us": 300.0}


def test_cli_refuses_a_missing_step(step_trace: Path) -> None:
    assert main(["critical", str(step_trace), "--step", "9"]) == 2


def _event_sync_trace(tmp_path: Path, record_us: float) -> Path:
    """The step with the Stream Sync replaced by cudaEventSynchronize on an
    event recorded at `record_us` on stream 7."""
    event_sync = gpu(
        "Event Sync",
        170,
        330,
        cat="cuda_sync",
        correlation=5,
        wait_on_stream=7,
        wait_on_cuda_event_record_corr_id=4,
    )
    event_sync["args"]["stream"] = -1  # Kineto's Event Sync has no stream of its own
    events = [
        *_events(with_sync=False),
        _runtime("cudaEventRecord", record_us, 2, 4),
        _runtime("cudaEventSynchronize", 170, 385, 5),
        event_sync,
    ]
    return write_trace(tmp_path / f"event_{record_us:.0f}.json", events)


@pytest.mark.parametrize(("record_us", "path_us"), [(140, 545), (100, 490)])
def test_an_event_sync_waits_for_the_op_its_event_recorded(
    tmp_path: Path, record_us: float, path_us: int
) -> None:
    """Recorded after add_kernel's launch (140), the host waits for add_kernel:
    the path is the Stream Sync's, 545. Recorded before it (100), the host
    waits only for gemm (10 + 30 + 300 + 5 + 50 = 395 through the host), and
    the device chain ending at add_kernel (490) is the longest."""
    (step,) = _paths(_event_sync_trace(tmp_path, record_us)).steps
    assert step.path is not None
    assert step.path.path_ns == path_us * 1000


def test_an_mtia_launch_is_a_node(tmp_path: Path) -> None:
    """MTIA's launch call (category mtia_runtime, HTA's launch name for it) is a
    node as a CUDA runtime call is: the launch delay to gemm stays on the path
    (545 µs). HTA's node query leaves mtia_runtime out and fails on such traces;
    without the node the device chain would start at gemm alone (505 µs)."""
    events = _events()
    launch = next(e for e in events if e.get("name") == "cudaLaunchKernel")
    launch["cat"] = "mtia_runtime"
    launch["name"] = "runFunction - job_prep_and_submit_for_execution"
    (step,) = _paths(write_trace(tmp_path / "mtia.json", events)).steps
    assert step.path is not None
    assert step.path.path_ns == 545_000
    assert dict(step.path.bound_ns)[BoundBy.LAUNCH] == 30_000
