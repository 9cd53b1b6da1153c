"""A hand-made trace holding every kind of host synchronisation, its figures known
by construction (tests/unit/test_syncs.py spells them out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders.traces import cpu, gpu, metadata, write_trace

STEP_US = 1000.0


def runtime(name: str, ts: float, dur: float, corr: int, **args: Any) -> dict[str, Any]:
    return cpu(name, ts, dur, cat="cuda_runtime", correlation=corr, **args)


def device_sync(
    kind: str, ts: float, dur: float, corr: int, stream: int
) -> dict[str, Any]:
    return gpu(
        kind,
        ts,
        dur,
        cat="cuda_sync",
        stream=stream,
        correlation=corr,
        cuda_sync_kind=kind,
    )


def sync_trace(path: Path) -> Path:
    """Two steps of 1 ms; every sync in the first (µs):

    - under python frames train.py > model.py and aten::item >
      aten::_local_scalar_dense: 110..146 cudaMemcpyAsync of a copy into pageable
      memory (141..145, after k1 ends at 140): blocked 36, idle after 1 (cut at
      the next sync on the thread); 147..150 cudaStreamSynchronize, the next
      kernel at 180: blocked 3, idle after 30;
    - 302..304 cudaMemcpyAsync into pinned memory: no wait;
    - under aten::to > aten::copy_: 390..446 cudaMemcpyAsync into pageable memory
      and 447..450 cudaStreamSynchronize, stream 8 runs 300..600 across both
      ends: blocked 56 and 3, idle after 0;
    - 650..700 cudaDeviceSynchronize, no operator, the next kernel at 900:
      blocked 50, idle after 200;
    - 750..752 cudaEventQuery with an Event Sync: a poll, left out (1 query);
      760..763 cudaStreamWaitEvent with a Stream Wait Event: no host wait;
    - 800..810 an Event Sync whose call is not in the trace: blocked 10 (its own
      length), idle after 90;
    - 950..960 a synchronous cudaMemcpy, no device work after: blocked 10, idle -1;
    - aten::nonzero 20..30 with no sync inside (on host tensors).
    """
    events = list(metadata())
    events += [
        cpu("ProfilerStep#1", 0, STEP_US, cat="user_annotation"),
        cpu("ProfilerStep#2", STEP_US, STEP_US, cat="user_annotation"),
        cpu("aten::mm", 5, 15),
        runtime("cudaLaunchKernel", 10, 5, 10),
        gpu("k1", 10, 130, correlation=10),
        cpu("aten::nonzero", 20, 10),
        cpu("train.py(12): step", 90, 80, cat="python_function"),
        cpu("model.py(5): forward", 95, 70, cat="python_function"),
        cpu("aten::item", 100, 60),
        cpu("aten::_local_scalar_dense", 105, 50),
        runtime("cudaMemcpyAsync", 110, 36, 11),
        gpu(
            "Memcpy DtoH (Device -> Pageable)", 141, 4, cat="gpu_memcpy", correlation=11
        ),
        runtime("cudaStreamSynchronize", 147, 3, 12),
        device_sync("Stream Sync", 147, 2, 12, 7),
        cpu("aten::add", 165, 13),
        runtime("cudaLaunchKernel", 170, 5, 13),
        gpu("k2", 180, 100, correlation=13),
        cpu("aten::relu", 290, 10),
        runtime("cudaLaunchKernel", 292, 5, 14),
        gpu("k3", 300, 300, correlation=14, stream=8),
        cpu("aten::copy_", 301, 5),
        runtime("cudaMemcpyAsync", 302, 2, 17),
        gpu("Memcpy DtoH (Device -> Pinned)", 600, 5, cat="gpu_memcpy", correlation=17),
        cpu("aten::to", 380, 80),
        cpu("aten::copy_", 385, 70),
        runtime("cudaMemcpyAsync", 390, 56, 15),
        gpu(
            "Memcpy DtoH (Device -> Pageable)",
            420,
            25,
            cat="gpu_memcpy",
            correlation=15,
        ),
        runtime("cudaStreamSynchronize", 447, 3, 16),
        device_sync("Stream Sync", 447, 2, 16, 7),
        runtime("cudaDeviceSynchronize", 650, 50, 20),
        device_sync("Context Sync", 651, 48, 20, -1),
        runtime("cudaEventQuery", 750, 2, 30),
        device_sync("Event Sync", 750, 1, 30, -1),
        runtime("cudaStreamWaitEvent", 760, 3, 31),
        device_sync("Stream Wait Event", 761, 1, 31, 7),
        device_sync("Event Sync", 800, 10, 40, -1),
        runtime("cudaLaunchKernel", 880, 5, 41),
        gpu("k4", 900, 40, correlation=41),
        runtime("cudaMemcpy", 950, 10, 42),
    ]
    return write_trace(path, events)
