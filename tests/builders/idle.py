"""A trace whose GPU idle causes are known by construction (HTA 0.5.0's rules).

A gap before an op on its stream is host wait when the op's launching call
started after the stream went idle, else kernel wait when shorter than
30 µs, else other. Two steps of 1,000 µs; stream 7 and stream 8 on GPU 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.builders.traces import cpu, gpu, metadata, write_trace

# (stream, kernel start, kernel end, launching call's start), µs from the trace start.
KERNELS = [
    (7, 100, 200, 50),  # first op of the stream: no gap
    (7, 210, 300, 60),  # gap 10, launched before it began: kernel wait 10
    (7, 400, 500, 150),  # gap 100, launched before it: other 100
    (7, 700, 800, 650),  # gap 200, launched after it began: host wait 200
    (7, 1100, 1200, 1050),  # gap 800..1100, host wait: 200 in step 1, 100 in step 2
    (7, 1220, 1300, 1060),  # gap 20: kernel wait 20
    (7, 1500, 1600, 1070),  # gap 200: other 200
    (8, 300, 350, 280),  # first op of stream 8
    (8, 360, 400, 290),  # gap 10: kernel wait 10
]


def idle_trace(path: Path) -> Path:
    """Write the trace of `KERNELS`, each launched by its own cudaLaunchKernel."""
    events: list[dict[str, Any]] = list(metadata())
    events.append(cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"))
    events.append(cpu("ProfilerStep#2", 1000, 1000, cat="user_annotation"))
    for number, (stream, start, end, launch) in enumerate(KERNELS, start=1):
        events.append(
            cpu("cudaLaunchKernel", launch, 5, cat="cuda_runtime", correlation=number)
        )
        events.append(
            gpu(
                f"kernel_{number}",
                start,
                end - start,
                stream=stream,
                correlation=number,
            )
        )
    return write_trace(path, events)
