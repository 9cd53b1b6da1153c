"""A constructed capture whose launch queue is known by construction.

Stream 7: three kernels launched at 0, 10 and 20 µs start at 100, 150 and
200 µs: the queue reads 1, 2, 3, 2, 1, 0 (HTA's rule: +1 at the launch
call's start, -1 at the op's start). Stream 20: a copy launched at 250
starts at 300, the very time the next kernel's launch call starts
(launched 300, started 320): the launch counts first, 1, 2, 1, 0. Left out
of every queue: a kernel whose launch call is not in the capture and a
kernel a CUDA graph replays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders.traces import cpu, gpu, metadata, write_trace

# (stream, call name, call start, op category, op name, op start, op duration), µs
OPS = (
    (7, "cudaLaunchKernel", 0, "kernel", "k0", 100, 50),
    (7, "cudaLaunchKernel", 10, "kernel", "k1", 150, 50),
    (7, "cudaLaunchKernel", 20, "kernel", "k2", 200, 50),
    (
        20,
        "cudaMemcpyAsync",
        250,
        "gpu_memcpy",
        "Memcpy HtoD (Pinned -> Device)",
        300,
        20,
    ),
    (20, "cudaLaunchKernel", 300, "kernel", "k3", 320, 10),
)
STREAM_7 = [1, 2, 3, 2, 1, 0]
STREAM_20 = [1, 2, 1, 0]


def _events() -> list[dict[str, Any]]:
    events = [cpu("aten::work", 0, 400)]
    for correlation, (stream, call, at, cat, name, start, dur) in enumerate(OPS, 1):
        events.append(
            cpu(call, at, 5, cat="cuda_runtime", correlation=correlation, cbid=211)
        )
        events.append(
            gpu(name, start, dur, cat=cat, stream=stream, correlation=correlation)
        )
    # No launch call in the capture for this one.
    events.append(gpu("orphan", 400, 10, stream=7, correlation=98))
    # A graph replay: one cudaGraphLaunch, its kernel has no launch of its own.
    events.append(cpu("cudaGraphLaunch", 380, 5, cat="cuda_runtime", correlation=99))
    events.append(gpu("replayed", 420, 10, stream=7, correlation=99))
    return metadata() + events


def write_queue_trace(path: Path) -> Path:
    """Write the capture (see the module's layout)."""
    return write_trace(path, _events())
