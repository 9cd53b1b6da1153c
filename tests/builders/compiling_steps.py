"""Hand-made traces of a compiled model's steps, some of them compiling: the
oracles of the steps the findings' median step sets aside."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import cpu, write_trace


def write_compiling_steps(
    path: Path, durations_us: list[float], compiles: dict[int, str]
) -> Path:
    """Steps 1.. of these durations back to back, each calling its compiled
    region; step N in `compiles` holds a compilation of that compile id
    (`dynamo`, its `compile_id=` range, `compile_inner`) over most of it."""
    events = []
    start = 1000.0
    for number, duration in enumerate(durations_us, start=1):
        events.append(cpu(f"ProfilerStep#{number}", start, duration, "user_annotation"))
        compile_id = compiles.get(number)
        if compile_id is not None:
            compile_us = duration - 200.0
            events.append(cpu("dynamo", start + 10, compile_us))
            events.append(
                cpu(
                    f"dynamo_data: compile_id={compile_id}",
                    start + 11,
                    1.0,
                    "user_annotation",
                )
            )
            events.append(
                cpu(
                    "_compile.compile_inner (dynamo_timed)",
                    start + 13,
                    compile_us - 5,
                )
            )
        region = compile_id or "0/0"
        events.append(
            cpu(f"Torch-Compiled Region: {region}", start + duration - 150, 100.0)
        )
        start += duration
    return write_trace(path, events)
