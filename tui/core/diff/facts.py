"""What one trace says about where and how it ran, read from the trace itself.

Kineto writes the devices (`deviceProperties`), the process group
(`distributedInfo`) and some versions at the top level of the file; the events
say whether CUDA graphs or torch.compile ran; our capture description, when
present, adds the environment, the schedule and the question. Each fact is None
when the trace does not record it: a check on it then says "not recorded",
never "same".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tui.core.figures.shapes import shapes_in_trace
from tui.core.model.description import CaptureDescription
from tui.core.model.trace import Kind, Trace

GRAPH_LAUNCHES = frozenset({"cudaGraphLaunch", "hipGraphLaunch"})
COMPILED_MARKS = ("CompiledFunction", "Torch-Compiled Region", "triton_", "inductor")


@dataclass(frozen=True)
class Check:
    """One thing compared between two captures: both values, and whether they agree
    (None when a side does not record it)."""

    check: str
    before: object
    after: object

    @property
    def same(self) -> bool | None:
        """Whether both sides agree; None when either did not record it."""
        if self.before is None or self.after is None:
            return None
        return self.before == self.after


def _plain(value: object) -> object:
    """A JSON-ready scalar (lists become tuples so facts stay hashable)."""
    if isinstance(value, list):
        return tuple(_plain(item) for item in value)
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _devices(metadata: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    devices = metadata.get("deviceProperties")
    if not isinstance(devices, list):
        return []
    return [device for device in devices if isinstance(device, Mapping)]


def _one_or_all(values: list[object]) -> object:
    """One value when every device agrees, else all of them."""
    if not values or any(value is None for value in values):
        return None
    distinct = list(dict.fromkeys(values))
    return distinct[0] if len(distinct) == 1 else ", ".join(map(str, distinct))


def _capability(device: Mapping[str, Any]) -> str | None:
    major, minor = device.get("computeMajor"), device.get("computeMinor")
    if major is None:
        return None
    return f"{major}.{minor if minor is not None else 0}"


def _steps_recorded(numbers: tuple[int, ...]) -> int | None:
    return len(numbers) if numbers else None


def _window_steps(numbers: tuple[int, ...]) -> str | None:
    """Where the window sits in the run: its first and last step numbers."""
    if not numbers:
        return None
    return f"{min(numbers)}–{max(numbers)}"


def _recorded(metadata: Mapping[str, Any], key: str, seen: bool) -> bool:
    """An instrumentation option as the trace's top level says it (newer torch),
    else as its events show it."""
    value = metadata.get(key)
    return bool(value) if isinstance(value, bool | int) else seen


@dataclass(frozen=True)
class TraceFacts:
    """Where and how one capture ran, as far as the trace records it."""

    values: tuple[tuple[str, object], ...]

    @classmethod
    def of(cls, trace: Trace, window_steps: tuple[int, ...]) -> TraceFacts:
        """Read the facts of a trace (its top level, event names and description)."""
        metadata = trace.metadata
        devices = _devices(metadata)
        info = metadata.get("distributedInfo")
        info = info if isinstance(info, Mapping) else {}
        capture: CaptureDescription = trace.capture
        environment = capture.environment if capture.present else {}
        names = trace.names
        window = capture.window if capture.present else None
        values: list[tuple[str, object]] = [
            ("device model", _one_or_all([device.get("name") for device in devices])),
            ("device count", len(devices) or None),
            (
                "device memory",
                _one_or_all([device.get("totalGlobalMem") for device in devices]),
            ),
            ("compute capability", _one_or_all([_capability(d) for d in devices])),
            ("world size", info.get("world_size")),
            ("rank", info.get("rank")),
            ("backend", info.get("backend")),
            ("torch version", environment.get("torch")),
            (
                "CUDA runtime version",
                metadata.get("cuda_runtime_version", environment.get("cuda")),
            ),
            (
                "CUDA driver version",
                metadata.get("cuda_driver_version", environment.get("driver")),
            ),
            ("trace schema version", metadata.get("schemaVersion")),
            ("CUDA graphs", any(name in GRAPH_LAUNCHES for name in names)),
            (
                "torch.compile",
                any(mark in name for name in names for mark in COMPILED_MARKS),
            ),
            ("GPU observed", trace.gpu_observed),
            ("steps recorded", _steps_recorded(window_steps)),
            ("window steps", _window_steps(window_steps)),
            (
                "shapes recorded",
                _recorded(metadata, "record_shapes", shapes_in_trace(trace)),
            ),
            (
                "stack recorded",
                _recorded(
                    metadata, "with_stack", bool((trace.kind == Kind.PYTHON).any())
                ),
            ),
            (
                "memory recorded",
                _recorded(metadata, "profile_memory", len(trace.memory) > 0),
            ),
            (
                "schedule",
                None
                if window is None
                else f"wait {window.wait}, warmup {window.warmup}, active {window.active}",
            ),
        ]
        if capture.present:
            values += [
                ("question", capture.question),
                (
                    "batch size",
                    capture.scenario.batch_size or capture.samples_per_step,
                ),
                ("record_shapes", capture.options.record_shapes),
                ("with_stack", capture.options.with_stack),
                ("profile_memory", capture.options.profile_memory),
            ]
        return cls(tuple((name, _plain(value)) for name, value in values))

    def get(self, name: str) -> object:
        """One fact (None when not recorded or not read)."""
        return dict(self.values).get(name)


# The checks whose difference means one machine's capture is set against another's.
HARDWARE_CHECKS = ("device model", "device count", "world size")
# The checks whose difference is a caveat on how the captures were taken, with
# what it may change.
CAPTURE_CHECKS = {
    "window steps": "the window sits elsewhere in the run (warm-up, caches, data order)",
    "steps recorded": "the windows hold different numbers of steps",
    "shapes recorded": "recording shapes costs time and can keep tensors alive",
    "stack recorded": "recording stacks costs time on the host",
    "memory recorded": "recording memory costs time on the host",
    "torch version": "another torch runs other code",
    "CUDA runtime version": "another CUDA runtime runs other code",
    "CUDA driver version": "another driver runs other code",
}


def checks(before: TraceFacts, after: TraceFacts) -> list[Check]:
    """Every fact either side read, in reading order, with both values."""
    names = list(dict.fromkeys([name for name, _ in (*before.values, *after.values)]))
    return [Check(name, before.get(name), after.get(name)) for name in names]
