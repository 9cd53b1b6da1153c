"""Small Kineto-like traces written on the fly for the explorer's tests.

The training trace follows the method's seed example: each ProfilerStep#N
holds `lecture_batch_cpu` (CPU only, so the GPU idles), `transfert` (one
host-to-device copy of the same size every step) and `entrainement` (kernels
linked to their launches by correlation and External id).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

HOSTILE_NAMES = (
    "aten::foo [/]",
    "[@click=app.quit]",
    "[link=file:///etc/passwd]x[/link]",
    "\x1b[2J",
    "\x1b]52;c;ZXZpbA==\x07",
    "\u202eevil",
    "\x9b31m",
)

BASE_US = 1_700_000_000_000.0


class _Writer:
    """Collects events with times in microseconds from the first step."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.correlation = 1000
        self.external = 1

    def cpu(
        self,
        name: str,
        start: float,
        dur: float,
        cat: str = "cpu_op",
        tid: int = 11,
        args: dict[str, Any] | None = None,
    ) -> None:
        self.events.append(
            {
                "ph": "X",
                "cat": cat,
                "name": name,
                "pid": 100,
                "tid": tid,
                "ts": BASE_US + start,
                "dur": dur,
                "args": {"External id": self.external, **(args or {})},
            }
        )
        self.external += 1

    def launch(
        self,
        op: str,
        start: float,
        kernel: str,
        k_start: float,
        k_dur: float,
        cat: str = "kernel",
        runtime: str = "cudaLaunchKernel",
        extra: dict[str, Any] | None = None,
    ) -> None:
        """A CPU op, its runtime call and the device work it launches."""
        external = self.external
        self.cpu(op, start, 6.0, args={"Input Dims": [[64, 128], [128, 128]]})
        self.correlation += 1
        self.events.append(
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": runtime,
                "pid": 100,
                "tid": 11,
                "ts": BASE_US + start + 1.0,
                "dur": 3.0,
                "args": {"correlation": self.correlation, "External id": external},
            }
        )
        self.events.append(
            {
                "ph": "X",
                "cat": cat,
                "name": kernel,
                "pid": 0,
                "tid": 7,
                "ts": BASE_US + k_start,
                "dur": k_dur,
                "args": {
                    "device": 0,
                    "stream": 7,
                    "correlation": self.correlation,
                    "External id": external,
                    **(extra or {}),
                },
            }
        )


def training_events(
    steps: int = 3, gpu: bool = True, names: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Events of a small training window (times in µs)."""
    writer = _Writer()
    step_us = 10_000.0
    for index in range(steps):
        t = index * step_us
        writer.cpu(f"ProfilerStep#{index + 1}", t, step_us - 50, cat="user_annotation")
        # lecture_batch_cpu: CPU only, the device waits.
        writer.cpu("lecture_batch_cpu", t + 100, 3000 + 500 * index, "user_annotation")
        writer.cpu("aten::stack", t + 200, 1200)
        writer.cpu("aten::cat", t + 300, 800)
        for offset, name in enumerate(names):
            writer.cpu(name, t + 1500 + 100 * offset, 50)
        # transfert: one host-to-device copy, same size every step.
        writer.cpu("transfert", t + 3700, 700, "user_annotation")
        if gpu:
            writer.launch(
                "aten::copy_",
                t + 3750,
                "Memcpy HtoD (Pageable -> Device)",
                t + 3800,
                300,
                cat="gpu_memcpy",
                runtime="cudaMemcpyAsync",
                extra={"bytes": 4_194_304},
            )
        else:
            writer.cpu("aten::copy_", t + 3750, 300)
        # entrainement: one big matmul and many small element-wise kernels.
        writer.cpu("entrainement", t + 4500, 5300, "user_annotation")
        if gpu:
            writer.launch(
                "aten::addmm", t + 4600, "ampere_sgemm_128x64_nn", t + 4620, 2500
            )
            for k in range(12):
                writer.launch(
                    "aten::relu",
                    t + 4700 + 20 * k,
                    "elementwise_kernel<relu>",
                    t + 7200 + 15 * k,
                    8,
                )
        else:
            writer.cpu("aten::addmm", t + 4600, 2500)
            for k in range(12):
                writer.cpu("aten::relu", t + 7200 + 20 * k, 15)
        writer.cpu("Optimizer.step#Adam.step", t + 8000, 1500, "user_annotation")
        writer.cpu("aten::add_", t + 8100, 900)
    return writer.events


def metadata_events(gpu: bool) -> list[dict[str, Any]]:
    """Process and thread names."""
    events: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": 100, "args": {"name": "python"}},
        {
            "ph": "M",
            "name": "thread_name",
            "pid": 100,
            "tid": 11,
            "args": {"name": "thread 11 (python)"},
        },
    ]
    if gpu:
        events += [
            {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
            {
                "ph": "M",
                "name": "thread_name",
                "pid": 0,
                "tid": 7,
                "args": {"name": "stream 7"},
            },
        ]
    return events


def write_training_trace(
    path: Path,
    *,
    steps: int = 3,
    gpu: bool = True,
    names: tuple[str, ...] = (),
    description: bool = True,
) -> Path:
    """Write a Kineto-like training trace (gzip when the name ends in .gz)."""
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "traceEvents": metadata_events(gpu) + training_events(steps, gpu, names),
        "displayTimeUnit": "ms",
    }
    if gpu:
        document["deviceProperties"] = [{"id": 0, "name": "Fixture GPU"}]
    if description:
        document["steptrace"] = {
            "question": "is the GPU waiting for data?"
            if gpu
            else "is compute waiting for data?",
            "unit": {"samples_per_step": 32},
            "window": {"wait": 1, "warmup": 1, "active": steps},
            "active_steps": list(range(1, steps + 1)),
            "activities": {
                "requested": ["cpu", "cuda"] if gpu else ["cpu"],
                **(
                    {}
                    if gpu
                    else {"gpu_missing_reason": "CUDA is not available on this machine"}
                ),
            },
        }
    data = json.dumps(document).encode()
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    return path


def write_hostile_trace(path: Path) -> Path:
    """A training trace whose operator names try markup, escapes and bidi tricks."""
    return write_training_trace(path, steps=2, names=HOSTILE_NAMES)


def write_bad_trace(path: Path) -> Path:
    """A file that is not a trace."""
    path.write_text("this is not { a trace")
    return path
