"""Run folders whose step times differ by rank and step, known by construction.

Built on `builders.runs.rank_events` (one collective per step): step i of
rank r is stretched by `scales[r][i]`, so its duration is `STEP_US * scale`
and it reaches the collective `arrival * scale` µs after its own step
start. The straggler of a step is the rank with the latest stretched
arrival; when a step's scales are equal on every rank, everyone leaves the
collective together and each other rank waits the difference of arrivals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.builders.runs import STEP_US, header, rank_events
from tests.builders.traces import BASE_US, write_trace


def stretched(
    events: list[dict[str, Any]], clock_us: float, scales: Sequence[float]
) -> list[dict[str, Any]]:
    """The events with step i's time stretched by scales[i] (steps stay back to back)."""
    starts = [0.0]
    for scale in scales:
        starts.append(starts[-1] + STEP_US * scale)
    out = []
    for event in events:
        if "ts" not in event:
            out.append(event)
            continue
        relative = event["ts"] - BASE_US - clock_us
        index = min(int(relative // STEP_US), len(scales) - 1)
        scale = scales[index]
        moved = dict(event)
        moved["ts"] = (
            BASE_US + clock_us + starts[index] + (relative - index * STEP_US) * scale
        )
        moved["dur"] = event["dur"] * scale
        out.append(moved)
    return out


def write_heat_run(
    folder: Path,
    arrivals: Mapping[int, Sequence[float]],
    scales: Mapping[int, Sequence[float]],
    *,
    world_size: int | None = None,
    on_gpu: Sequence[int] = (),
    first_step: int = 1,
) -> Path:
    """A run folder like `builders.runs.write_run`, with each rank's steps stretched."""
    folder.mkdir(parents=True, exist_ok=True)
    for rank, rank_arrivals in arrivals.items():
        clock = 1_000_000.0 * rank + 37.5
        events = rank_events(
            rank_arrivals, first_step=first_step, clock_us=clock, on_gpu=rank in on_gpu
        )
        write_trace(
            folder / f"rank-{rank}.pt.trace.json",
            stretched(events, clock, scales[rank]),
            extra=header(rank if world_size else None, world_size),
        )
    return folder


def stretched_arrival(
    arrivals: Mapping[int, Sequence[float]],
    scales: Mapping[int, Sequence[float]],
    rank: int,
    index: int,
) -> float:
    """When rank `rank` reaches step `index`'s collective, in µs from its step start."""
    return arrivals[rank][index] * scales[rank][index]


def straggler_of(
    arrivals: Mapping[int, Sequence[float]],
    scales: Mapping[int, Sequence[float]],
    index: int,
) -> int:
    """The rank with the latest stretched arrival in step `index` (lowest rank on a tie)."""
    return min(
        arrivals,
        key=lambda rank: (-stretched_arrival(arrivals, scales, rank, index), rank),
    )
