"""A constructed CUDA-graph capture shaped like Kineto's: eager launches, then a graph replay.

Shape taken from real Kineto output (the shared
`negative_queue_length_values_check` trace, torch.compile on an A100): one
`cudaGraphLaunch` runtime event (`cbid` 311) under the compiled function's
operator, and every kernel and memset the graph replays carrying the call's
`correlation` and `External id`, an `ac2g` flow starting at the call and
ending at each of them. Kineto built against CUDA 12 also writes `graph id`
and `graph node id` in device events' args (0 for work not launched by a
graph; libkineto's `getGraphNodeMetadata`).

Per step (µs from the step's start), figures known by construction:
  eager  aten::mm → cudaLaunchKernel 20..30 → gemm_kernel 40..240     (delay 10)
         aten::add → cudaLaunchKernel 110..118 → add_kernel 250..260   (delay 132: late)
  graph  CompiledFunction → cudaGraphLaunch 410..1610 (1,200 µs) replays
         Memset (Device) 1620, triton_poi_fused_add_0 1750..1755,
         gemm_kernel 1760..1960 (the eager kernel's name, replayed)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.builders.traces import BASE_US, CPU_PID, CPU_TID, cpu, gpu, metadata
from tests.builders.traces import write_trace as write_document
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Trace
from tui.view.layout import Row, TimelineLayout, ZoneView, build_layout
from tui.view.timeline_index import TimelineIndex

GRAPH_ID = 7
GRAPH_CALL_US = 1200
STEP_US = 2000
# Graph-replayed device work per step: (category, name, start, duration).
GRAPH_WORK = (
    ("gpu_memset", "Memset (Device)", 1620, 1),
    ("kernel", "triton_poi_fused_add_0", 1750, 5),
    ("kernel", "gemm_kernel", 1760, 200),
)


def _flow(phase: str, flow_id: int, ts: float, device: bool) -> dict[str, Any]:
    event: dict[str, Any] = {
        "ph": phase,
        "id": flow_id,
        "pid": 0 if device else CPU_PID,
        "tid": 7 if device else CPU_TID,
        "ts": BASE_US + ts,
        "cat": "ac2g",
        "name": "ac2g",
    }
    if phase == "f":
        event["bp"] = "e"
    return event


def cuda_graph_step_events(
    step: int, at: float, *, graph_ids: bool = True, graph_call: bool = True
) -> list[dict[str, Any]]:
    """One step: two eager kernels, then one graph replay (see the module's layout).

    `graph_ids`: device args carry `graph id` / `graph node id` (CUDA 12);
    `graph_call`: the `cudaGraphLaunch` call is in the trace.
    """
    ext = step * 100
    corr = step * 1000

    def ids(graph: int, node: int) -> dict[str, Any]:
        return {"graph id": graph, "graph node id": node} if graph_ids else {}

    def launch(name: str, ts: float, dur: float, correlation: int, cbid: int) -> Any:
        return cpu(
            name,
            at + ts,
            dur,
            cat="cuda_runtime",
            cbid=cbid,
            correlation=correlation,
            external_id=correlation,
        )

    events = [
        cpu(
            f"ProfilerStep#{step}",
            at,
            STEP_US,
            cat="user_annotation",
            external_id=ext,
        ),
        cpu("aten::mm", at + 10, 70, external_id=corr + 1),
        launch("cudaLaunchKernel", 20, 10, corr + 1, 211),
        gpu(
            "gemm_kernel",
            at + 40,
            200,
            correlation=corr + 1,
            external_id=corr + 1,
            **ids(0, 0),
        ),
        cpu("aten::add", at + 100, 50, external_id=corr + 2),
        launch("cudaLaunchKernel", 110, 8, corr + 2, 211),
        gpu(
            "add_kernel",
            at + 250,
            10,
            correlation=corr + 2,
            external_id=corr + 2,
            **ids(0, 0),
        ),
        cpu("CompiledFunction", at + 400, 1500, external_id=corr + 3),
    ]
    events += [
        _flow("s", corr + 1, at + 20, False),
        _flow("f", corr + 1, at + 40, True),
        _flow("s", corr + 2, at + 110, False),
        _flow("f", corr + 2, at + 250, True),
    ]
    if graph_call:
        events.append(launch("cudaGraphLaunch", 410, GRAPH_CALL_US, corr + 3, 311))
        events.append(_flow("s", corr + 3, at + 410, False))
    for node, (category, name, start, dur) in enumerate(GRAPH_WORK, start=1):
        args: dict[str, Any] = {
            "External id": corr + 3,
            **ids(GRAPH_ID, step * 10 + node),
        }
        events.append(
            gpu(name, at + start, dur, cat=category, correlation=corr + 3, **args)
        )
        events.append(_flow("f", corr + 3, at + start, True))
    return events


def write_cuda_graph_trace(
    path: Path, *, steps: int = 3, graph_ids: bool = True, graph_call: bool = True
) -> Path:
    """`steps` steps of `cuda_graph_step_events`, back to back."""
    events = metadata()
    for step in range(steps):
        events += cuda_graph_step_events(
            step + 1, step * STEP_US, graph_ids=graph_ids, graph_call=graph_call
        )
    return write_document(path, events)


@dataclass(frozen=True)
class DrawnGraphs:
    """A CUDA-graph capture loaded and laid out for the timeline, with its first
    device stream's row: what a drawing test paints from."""

    trace: Trace
    analysis: Analysis
    index: TimelineIndex
    zone: ZoneView
    layout: TimelineLayout
    device_row: Row


def drawn_cuda_graphs(path: Path, *, steps: int = 1) -> DrawnGraphs:
    """`write_cuda_graph_trace` at `path`, loaded, indexed and laid out."""
    trace = load_trace(write_cuda_graph_trace(path, steps=steps))
    analysis = Analysis(trace)
    index = TimelineIndex.build(trace, analysis)
    zone = ZoneView.build(index, analysis)
    layout = build_layout(index, zone)
    row = next(
        row
        for row in layout.rows
        if row.track is not None and trace.tracks[row.track].device is not None
    )
    return DrawnGraphs(trace, analysis, index, zone, layout, row)
