"""A hand-made profile_memory capture: the training fixture plus `[memory]` events.

Written like torch writes them (instant events named `[memory]` with `Bytes`,
`Total Allocated`, `Total Reserved`, `Device Type`, `Device Id`), with totals
kept by the writer itself: the ground truth tests compare with. PyTorch 1.9
wrote no totals (`totals=False`): `Bytes` and the device only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.builders.app_traces import BASE_US, metadata_events, training_events

MB = 1 << 20
STEP_US = 10_000.0


def memory_events(steps: int = 3, *, totals: bool = True) -> list[dict[str, Any]]:
    """Per step: a CPU buffer while the batch is read, the batch on the device,
    then activations growing with the step, all freed before the next step.
    `totals`: write the allocator's totals (torch >= 1.10), else Bytes only."""
    allocated = {(0, -1): 0, (1, 0): 0}
    events: list[dict[str, Any]] = []

    def record(at_us: float, device: tuple[int, int], size: int) -> None:
        allocated[device] += size
        written = {
            "Total Reserved": 64 * MB,
            "Total Allocated": allocated[device],
            "Bytes": size,
            "Addr": 1000 + len(events),
            "Device Type": device[0],
            "Device Id": device[1],
        }
        if not totals:
            del written["Total Reserved"], written["Total Allocated"]
        events.append(
            {
                "ph": "i",
                "cat": "cpu_instant_event",
                "s": "t",
                "name": "[memory]",
                "pid": 100,
                "tid": 11,
                "ts": BASE_US + at_us,
                "args": written,
            }
        )

    for index in range(steps):
        t = index * STEP_US
        record(t + 150, (0, -1), 2 * MB)
        record(t + 3000, (0, -1), -2 * MB)
        record(t + 3760, (1, 0), 4 * MB)
        activations = [(index + 1) * MB] * 4
        for k, size in enumerate(activations):
            record(t + 4610 + 100 * k, (1, 0), size)
        for k, size in enumerate(activations):
            record(t + 8200 + 100 * k, (1, 0), -size)
        record(t + 9500, (1, 0), -4 * MB)
    return events


def write_memory_trace(path: Path, *, steps: int = 3, totals: bool = True) -> Path:
    """The CUDA training fixture with memory events (`totals`: see
    `memory_events`); its description says profile_memory."""
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "traceEvents": metadata_events(True)
        + training_events(steps, True)
        + memory_events(steps, totals=totals),
        "displayTimeUnit": "ms",
        "deviceProperties": [{"id": 0, "name": "Fixture GPU"}],
        "steptrace": {
            "question": "how much memory does a step hold?",
            "window": {"wait": 1, "warmup": 1, "active": steps},
            "active_steps": list(range(1, steps + 1)),
            "activities": {"requested": ["cpu", "cuda"]},
            "options": {"profile_memory": True},
        },
    }
    path.write_text(json.dumps(document))
    return path
