"""Small hand-made run folders (one trace per rank) whose stragglers and waits are known by construction.

In every step of rank r, the rank reaches its collective `arrival[r][step]`
µs after its own step start and every rank leaves it at the same moment
(`COLLECTIVE_END` µs after the step start): so rank r's time in the
collective is `COLLECTIVE_END - arrival`, the straggler is the rank with
the latest arrival, and each other rank waits exactly the difference of the
arrivals. Clocks of different ranks are shifted on purpose (`clock_us`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.builders.traces import cpu, gpu, metadata, write_trace

STEP_US = 1000.0
COLLECTIVE_END = 900.0


def rank_events(
    arrivals: Sequence[float],
    *,
    first_step: int = 1,
    clock_us: float = 0.0,
    on_gpu: bool = False,
    zone_us: float = 100.0,
    collective_end: float = COLLECTIVE_END,
) -> list[dict[str, Any]]:
    """One rank's steps: a data zone, then one collective per step (CPU gloo op, or an NCCL kernel)."""
    events = list(metadata())
    for index, arrival in enumerate(arrivals):
        step = first_step + index
        at = clock_us + index * STEP_US
        events.append(cpu(f"ProfilerStep#{step}", at, STEP_US, cat="user_annotation"))
        events.append(cpu("lecture_batch_cpu", at + 5, zone_us, cat="user_annotation"))
        if on_gpu:
            correlation = 5000 + step
            events.append(
                cpu(
                    "cudaLaunchKernel",
                    at + arrival - 20,
                    5,
                    cat="cuda_runtime",
                    correlation=correlation,
                )
            )
            events.append(
                gpu(
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage)",
                    at + arrival,
                    COLLECTIVE_END - arrival,
                    correlation=correlation,
                )
            )
            events.append(gpu("gemm_kernel", at + 10, 50, correlation=9000 + step))
            events.append(
                cpu(
                    "cudaLaunchKernel",
                    at + 8,
                    1,
                    cat="cuda_runtime",
                    correlation=9000 + step,
                )
            )
        else:
            events.append(cpu("c10d::allreduce_", at + arrival, 5))
            events.append(
                cpu(
                    "gloo:all_reduce",
                    at + arrival + 2,
                    collective_end - arrival - 2,
                    cat="user_annotation",
                    tid=101,
                )
            )
    return events


def header(rank: int | None, world_size: int | None, **more: Any) -> dict[str, Any]:
    """Top-level keys before the events, as torch writes them."""
    if rank is None:
        return dict(more)
    info = {"backend": "gloo", "rank": rank, "world_size": world_size}
    return {"distributedInfo": info, **more}


def write_run(
    folder: Path,
    arrivals: Mapping[int, Sequence[float]],
    *,
    world_size: int | None = None,
    name: str = "rank-{rank}.pt.trace.json",
    on_gpu: Sequence[int] = (),
    zone_us: Mapping[int, float] | None = None,
    gz: bool = False,
    collective_end: Mapping[int, float] | None = None,
) -> Path:
    """A run folder: one trace per rank, with distributedInfo when `world_size` is given.

    `collective_end` moves where a rank's gloo ranges close (µs from its step
    start; past `STEP_US`, after its step ended).
    """
    folder.mkdir(parents=True, exist_ok=True)
    for rank, rank_arrivals in arrivals.items():
        write_trace(
            folder / name.format(rank=rank),
            rank_events(
                rank_arrivals,
                clock_us=1_000_000.0 * rank + 37.5,
                on_gpu=rank in on_gpu,
                zone_us=(zone_us or {}).get(rank, 100.0),
                collective_end=(collective_end or {}).get(rank, COLLECTIVE_END),
            ),
            gz=gz,
            extra=header(rank if world_size else None, world_size),
        )
    return folder
