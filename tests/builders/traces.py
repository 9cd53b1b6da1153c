"""Small hand-made Kineto traces whose figures are known by construction."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import orjson

CPU_PID = 100
CPU_TID = 100
BASE_US = 1_712_195_495_000_000  # an absolute epoch in µs, as Kineto writes


def cpu(
    name: str,
    ts: float,
    dur: float,
    cat: str = "cpu_op",
    tid: int = CPU_TID,
    external_id: int | None = None,
    **args: Any,
) -> dict[str, Any]:
    """A CPU-side complete event; `ts` is relative µs; `external_id` is its
    "External id" argument, which ties an operator to its launches."""
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": CPU_PID,
        "tid": tid,
        "ts": BASE_US + ts,
        "dur": dur,
        "args": _with_external_id(args, external_id),
    }


def gpu(
    name: str,
    ts: float,
    dur: float,
    cat: str = "kernel",
    stream: int = 7,
    external_id: int | None = None,
    **args: Any,
) -> dict[str, Any]:
    """A device-side complete event on GPU 0 (`external_id` as for `cpu`)."""
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": 0,
        "tid": stream,
        "ts": BASE_US + ts,
        "dur": dur,
        "args": {"device": 0, "stream": stream, **_with_external_id(args, external_id)},
    }


def _with_external_id(args: dict[str, Any], external_id: int | None) -> dict[str, Any]:
    """The event's arguments, with "External id" when one is given."""
    if external_id is None:
        return args
    return {**args, "External id": external_id}


def metadata() -> list[dict[str, Any]]:
    """Process and thread names as Kineto writes them."""
    return [
        {
            "ph": "M",
            "name": "process_name",
            "pid": CPU_PID,
            "tid": 0,
            "args": {"name": "python"},
        },
        {
            "ph": "M",
            "name": "thread_name",
            "pid": CPU_PID,
            "tid": CPU_TID,
            "args": {"name": "thread 100 (python)"},
        },
        {
            "ph": "M",
            "name": "process_name",
            "pid": 0,
            "tid": 0,
            "args": {"name": "GPU 0"},
        },
        {
            "ph": "M",
            "name": "thread_name",
            "pid": 0,
            "tid": 7,
            "args": {"name": "stream 7"},
        },
    ]


def write_trace(
    path: Path,
    events: list[dict[str, Any]],
    *,
    gz: bool = False,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write a trace in the object form (optionally gzip) and return its path."""
    document = {"schemaVersion": 1, **(extra or {}), "traceEvents": events}
    data = orjson.dumps(document)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def training_step_events(
    step: int, at: float, *, read_us: float = 300.0
) -> list[dict[str, Any]]:
    """One step: a data zone with no GPU work, a copy, then two launched kernels.

    Layout (µs, relative to `at`):
      ProfilerStep#N     0 .. 1000
      lecture_batch_cpu  10 .. 10+read_us      (the GPU is idle here but for a late kernel)
      transfert          read_end+10 .. +100   aten::to → cudaMemcpyAsync → memcpy on GPU
      entrainement       .. 990                aten::mm → cudaLaunchKernel → kernel
    """
    ext = step * 100
    corr = step * 1000
    read_end = 10 + read_us
    t0 = read_end + 10
    return [
        cpu(
            f"ProfilerStep#{step}",
            at,
            1000,
            cat="user_annotation",
            external_id=ext,
        ),
        cpu(
            "lecture_batch_cpu",
            at + 10,
            read_us,
            cat="user_annotation",
            external_id=ext + 1,
        ),
        cpu("aten::randn", at + 20, 50, external_id=ext + 2),
        cpu("transfert", at + t0, 100, cat="user_annotation", external_id=ext + 3),
        cpu("aten::to", at + t0 + 5, 80, external_id=ext + 4),
        cpu(
            "cudaMemcpyAsync",
            at + t0 + 10,
            20,
            cat="cuda_runtime",
            correlation=corr + 1,
            external_id=ext + 4,
        ),
        gpu(
            "Memcpy HtoD (Pageable -> Device)",
            at + t0 + 30,
            40,
            cat="gpu_memcpy",
            correlation=corr + 1,
            external_id=ext + 4,
        ),
        cpu(
            "entrainement",
            at + t0 + 110,
            990 - (t0 + 110),
            cat="user_annotation",
            external_id=ext + 5,
        ),
        cpu("aten::mm", at + t0 + 120, 60, external_id=ext + 6),
        cpu(
            "cudaLaunchKernel",
            at + t0 + 130,
            10,
            cat="cuda_runtime",
            correlation=corr + 2,
            external_id=ext + 6,
        ),
        gpu(
            "gemm_kernel",
            at + t0 + 150,
            200,
            correlation=corr + 2,
            external_id=ext + 6,
        ),
        cpu("aten::relu", at + t0 + 200, 30, external_id=ext + 7),
        cpu(
            "cudaLaunchKernel",
            at + t0 + 205,
            10,
            cat="cuda_runtime",
            correlation=corr + 3,
            external_id=ext + 7,
        ),
        gpu(
            "relu_kernel",
            at + t0 + 360,
            50,
            correlation=corr + 3,
            external_id=ext + 7,
        ),
    ]


def training_steps(count: int) -> list[dict[str, Any]]:
    """The metadata and `count` training steps (numbered from 1, 1 ms apart)."""
    events = metadata()
    for step in range(1, count + 1):
        events += training_step_events(step, (step - 1) * 1000)
    return events


def cpu_only_steps(zone: str, count: int = 3) -> list[dict[str, Any]]:
    """The metadata and `count` 1 ms steps on the CPU alone: each a user zone
    `zone` of 0.4 ms, then an aten::mm of 0.3 ms; no GPU event."""
    events = metadata()
    for step in range(count):
        at = step * 1000.0
        events += [
            cpu(f"ProfilerStep#{step + 1}", at, 1000, cat="user_annotation"),
            cpu(zone, at + 10, 400, cat="user_annotation"),
            cpu("aten::mm", at + 500, 300),
        ]
    return events
