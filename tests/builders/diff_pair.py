"""Two small captures of the same window, before and after a change, written
deterministically for the comparison screen's tests and pictures.

Each step of the window holds a data zone (`lecture_batch_cpu`), a copy and
a matmul with its kernel; the step times and the operators that differ are
chosen by the caller, so the verdict and the changes are known by
construction. `write_runs` writes several captures of one configuration,
each run's steps shifted by its own jitter, so a verdict across runs is known
too; a `stalls` entry puts a runtime stall (cudaMalloc) in one window step.
`raw_events` reads a written file back as plain JSON: the oracle the tests
compare the app with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.builders.traces import cpu, gpu, metadata, write_trace

# Step times (ms) of the window (steps 2..5); step 1 is start-up.
SLOW_MS = (10.0, 10.6, 10.2, 10.4)
FAST_MS = (8.0, 8.3, 8.1, 8.2)
OVERLAP_MS = (9.9, 10.8, 10.1, 10.3)
STARTUP_MS = 15.0
ACTIVE = (2, 3, 4, 5)


def _step(
    number: int,
    at_us: float,
    step_us: float,
    *,
    read_us: float,
    relus: int,
    extra: str | None,
    on_gpu: bool,
    kernel_us: float,
    stall_us: float = 0.0,
) -> list[dict[str, Any]]:
    corr = number * 100
    events = [
        cpu(f"ProfilerStep#{number}", at_us, step_us, cat="user_annotation"),
        cpu("lecture_batch_cpu", at_us + 10, read_us, cat="user_annotation"),
        cpu("aten::stack", at_us + 20, read_us / 2),
    ]
    t = at_us + read_us + 30
    events.append(cpu("aten::to", t, 60))
    if on_gpu:
        events += [
            cpu("cudaMemcpyAsync", t + 5, 20, cat="cuda_runtime", correlation=corr),
            gpu(
                "Memcpy HtoD (Pageable -> Device)",
                t + 30,
                40,
                cat="gpu_memcpy",
                correlation=corr,
            ),
        ]
    t += 100
    events.append(cpu("aten::mm", t, 200))
    if on_gpu:
        events += [
            cpu(
                "cudaLaunchKernel", t + 10, 10, cat="cuda_runtime", correlation=corr + 1
            ),
            gpu("gemm_kernel", t + 40, kernel_us, correlation=corr + 1),
        ]
    t += 250
    for index in range(relus):
        events.append(cpu("aten::relu", t + 40 * index, 25))
    if extra is not None:
        events.append(cpu(extra, t + 40 * relus + 10, 120))
    if stall_us:
        at_end = at_us + step_us - stall_us - 50
        events.append(cpu("cudaMalloc", at_end, stall_us, cat="cuda_runtime"))
    return events


def write_capture(
    path: Path,
    window_ms: tuple[float, ...] = SLOW_MS,
    *,
    read_us: float = 4000.0,
    relus: int = 6,
    extra: str | None = None,
    on_gpu: bool = True,
    kernel_us: float = 900.0,
    stalls: dict[int, float] | None = None,
    reads_us: dict[int, float] | None = None,
) -> Path:
    """A capture with one start-up step then one step per `window_ms` value;
    `stalls` maps a window step's index to a cudaMalloc's µs inside it,
    `reads_us` to its own data zone's µs (others: `read_us`)."""
    events: list[dict[str, Any]] = list(metadata())
    at = 0.0
    for number, step_ms in enumerate((STARTUP_MS, *window_ms), start=1):
        events += _step(
            number,
            at,
            step_ms * 1000,
            read_us=(reads_us or {}).get(number - 2, read_us),
            relus=relus,
            extra=extra,
            on_gpu=on_gpu,
            kernel_us=kernel_us,
            stall_us=(stalls or {}).get(number - 2, 0.0),
        )
        at += step_ms * 1000 + 50
    description = {
        "question": "is the GPU waiting for data?",
        "window": {"wait": 0, "warmup": 1, "active": len(window_ms)},
        "active_steps": list(range(2, 2 + len(window_ms))),
        "activities": {"requested": ["cpu", "cuda"] if on_gpu else ["cpu"]},
    }
    extra_keys: dict[str, Any] = {"steptrace": description}
    if on_gpu:
        extra_keys["deviceProperties"] = [{"id": 0, "name": "Fixture GPU"}]
    return write_trace(path, events, extra=extra_keys)


def write_pair(
    folder: Path, after_ms: tuple[float, ...] = FAST_MS
) -> tuple[Path, Path]:
    """Before (slow reads, one operator it alone has) and after (quicker reads, one added)."""
    before = write_capture(folder / "before.json", SLOW_MS, extra="aten::zero_")
    after = write_capture(
        folder / "after.json",
        after_ms,
        read_us=2000.0,
        relus=9,
        extra="aten::add_",
        kernel_us=600.0,
    )
    return before, after


def write_runs(
    folder: Path,
    name: str,
    window_ms: tuple[float, ...],
    jitters_ms: tuple[float, ...],
    *,
    read_us: float = 4000.0,
) -> list[Path]:
    """One capture per jitter, each the same configuration with every window step
    shifted by that run's jitter (ms)."""
    return [
        write_capture(
            folder / f"{name}-{index}.json",
            tuple(step + jitter for step in window_ms),
            read_us=read_us,
        )
        for index, jitter in enumerate(jitters_ms, start=1)
    ]


def raw_events(path: Path) -> list[dict[str, Any]]:
    """The complete events of a written capture, read back as plain JSON."""
    document: dict[str, Any] = orjson.loads(path.read_bytes())
    return [event for event in document["traceEvents"] if event.get("ph") == "X"]


def raw_steps_us(path: Path) -> dict[int, tuple[float, float]]:
    """Each step's (start, end) in µs, from the raw file."""
    steps = {}
    for event in raw_events(path):
        name = str(event["name"])
        if name.startswith("ProfilerStep#"):
            start = float(event["ts"])
            steps[int(name.split("#")[1])] = (start, start + float(event["dur"]))
    return steps
