"""Reading back an exported trace: which activities and steps it really holds.

The profiler can be asked for GPU events and record none; the description must
say what is in the file, not what was asked for. Torch-free (orjson only).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

# Events a device runs: kernels, copies and sets. Their presence is what
# "GPU observed" means; runtime calls (cudaLaunchKernel…) are CPU-side.
GPU_EVENT_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
_STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")


def load_trace(path: Path) -> dict[str, Any]:
    """Parse a Chrome-trace JSON file (optionally gzip-compressed)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data = orjson.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a Chrome trace object")
    return data


def dump_trace(data: dict[str, Any], compress: bool) -> bytes:
    """Serialise a trace, gzip-compressed when its name asks for it."""
    raw = orjson.dumps(data)
    return gzip.compress(raw) if compress else raw


def trace_events(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The `traceEvents` list, or an empty one."""
    events = data.get("traceEvents")
    return (
        [event for event in events if isinstance(event, dict)]
        if isinstance(events, list)
        else []
    )


def observed_activities(events: Iterable[dict[str, Any]]) -> list[str]:
    """`cpu` and/or `cuda`, by the events really present (ROCm kernels are `cuda` too)."""
    cpu = gpu = False
    for event in events:
        if event.get("ph") != "X":
            continue
        if event.get("cat") in GPU_EVENT_CATEGORIES:
            gpu = True
        else:
            cpu = True
        if cpu and gpu:
            break
    return [name for name, seen in (("cpu", cpu), ("cuda", gpu)) if seen]


def recorded_steps(events: Iterable[dict[str, Any]]) -> list[int]:
    """The ProfilerStep numbers present in the trace, in order."""
    steps: set[int] = set()
    for event in events:
        name = event.get("name")
        if event.get("ph") == "X" and isinstance(name, str):
            match = _STEP_NAME.match(name)
            if match:
                steps.add(int(match.group(1)))
    return sorted(steps)
