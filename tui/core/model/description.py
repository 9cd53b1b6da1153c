"""The capture description (the trace's top-level `steptrace` key), read once into types.

The collector writes it; any other tool's trace has none. Reading is
tolerant field by field: a field of the wrong type reads as unknown (None),
never as a guess and never as an error, so a hand-edited or older description
still shows what it can.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_UNIT = "ms/step"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _whole(value: Any) -> int | None:
    return value if type(value) is int else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _texts(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str))


@dataclass(frozen=True)
class Scenario:
    """What the captured step ran on; unknown fields are None."""

    shapes: str | None = None
    batch_size: int | None = None
    precision: str | None = None
    mode: str | None = None
    compiled: bool | None = None
    data_source: str | None = None
    inputs_simplified: bool = False
    simplified_note: str | None = None


@dataclass(frozen=True)
class Window:
    """The profiler schedule the capture used."""

    wait: int | None = None
    warmup: int | None = None
    active: int | None = None
    repeat: int | None = None
    skip_first: int | None = None

    def short(self) -> str:
        """`W1 U1 A2`, with `?` for what is unknown."""

        def shown(value: int | None) -> str:
            return "?" if value is None else str(value)

        return f"W{shown(self.wait)} U{shown(self.warmup)} A{shown(self.active)}"


@dataclass(frozen=True)
class Options:
    """Instrumentation options: each adds cost, and shapes can keep tensors alive."""

    record_shapes: bool | None = None
    with_stack: bool | None = None
    profile_memory: bool | None = None


@dataclass(frozen=True)
class Activities:
    """What the capture asked the profiler for and what it really got."""

    requested: tuple[str, ...] | None = None
    observed: tuple[str, ...] | None = None
    gpu_missing_reason: str | None = None


@dataclass(frozen=True)
class StartupStep:
    """A step before the window (wait or warm-up), timed by the collector."""

    step: int
    phase: str
    ms: float


@dataclass(frozen=True)
class Startup:
    """Start-up, kept as its own observation and never averaged into the window."""

    before_first_step_ms: float | None = None
    steps: tuple[StartupStep, ...] = ()


@dataclass(frozen=True)
class Distributed:
    """Where a rank's capture sits in its job."""

    world_size: int | None = None
    rank: int | None = None
    backend: str | None = None
    launcher: str | None = None


@dataclass(frozen=True)
class CaptureDescription:
    """The typed description; `present` is False for a trace without one."""

    present: bool = False
    raw: Mapping[str, Any] | None = None
    question: str | None = None
    kind: str | None = None
    step_contents: tuple[str, ...] = ()
    scenario: Scenario = field(default_factory=Scenario)
    window: Window | None = None
    active_steps: frozenset[int] | None = None
    options: Options = field(default_factory=Options)
    unit_name: str = DEFAULT_UNIT
    samples_per_step: int | None = None
    data_zone: str | None = None
    declared_zones: tuple[str, ...] = ()
    activities: Activities = field(default_factory=Activities)
    environment: Mapping[str, str | int | None] = field(default_factory=dict)
    startup: Startup = field(default_factory=Startup)
    command: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    distributed: Distributed | None = None

    @classmethod
    def parse(cls, raw: Any) -> CaptureDescription:
        """Read a description dict; anything malformed reads as unknown."""
        if not isinstance(raw, Mapping):
            return cls()
        scenario = _scenario_of(_object(raw.get("scenario")))
        unit_raw = _object(raw.get("unit"))
        samples = _whole(unit_raw.get("samples_per_step"))
        if not (samples and samples > 0):
            samples = scenario.batch_size
        options_raw = _object(raw.get("options"))
        zones_raw = _object(raw.get("zones"))
        activities_raw = _object(raw.get("activities"))
        return cls(
            present=True,
            raw=raw,
            question=_text(raw.get("question")) or None,
            kind=_text(raw.get("kind")),
            step_contents=_texts(raw.get("step_contents")) or (),
            scenario=scenario,
            window=_window_of(raw.get("window")),
            active_steps=_active_steps_of(raw.get("active_steps")),
            options=Options(
                _flag(options_raw.get("record_shapes")),
                _flag(options_raw.get("with_stack")),
                _flag(options_raw.get("profile_memory")),
            ),
            unit_name=_text(unit_raw.get("name")) or DEFAULT_UNIT,
            samples_per_step=samples,
            data_zone=_text(zones_raw.get("data")) or None,
            declared_zones=_texts(zones_raw.get("declared")) or (),
            activities=Activities(
                _texts(activities_raw.get("requested")),
                _texts(activities_raw.get("observed")),
                _text(activities_raw.get("gpu_missing_reason")),
            ),
            environment=_environment_of(_object(raw.get("environment"))),
            startup=_startup_of(_object(raw.get("startup"))),
            command=_texts(raw.get("command")) or (),
            warnings=_texts(raw.get("warnings")) or (),
            distributed=_distributed_of(raw.get("distributed")),
        )


def _scenario_of(scenario_raw: Mapping[str, Any]) -> Scenario:
    """The scenario; a batch size that is not a positive whole number is unknown."""
    batch_size = _whole(scenario_raw.get("batch_size"))
    return Scenario(
        shapes=_text(scenario_raw.get("shapes")),
        batch_size=batch_size if batch_size and batch_size > 0 else None,
        precision=_text(scenario_raw.get("precision")),
        mode=_text(scenario_raw.get("mode")),
        compiled=_flag(scenario_raw.get("compiled")),
        data_source=_text(scenario_raw.get("data_source")),
        inputs_simplified=scenario_raw.get("inputs_simplified") is True,
        simplified_note=_text(scenario_raw.get("simplified_note")),
    )


def _window_of(window_raw: Any) -> Window | None:
    """The schedule; None when the description has no (or an empty) window."""
    if not (isinstance(window_raw, Mapping) and window_raw):
        return None
    return Window(
        *(
            _whole(window_raw.get(name))
            for name in ("wait", "warmup", "active", "repeat", "skip_first")
        )
    )


def _active_steps_of(active_raw: Any) -> frozenset[int] | None:
    """The steps the profiler recorded, whole numbers only; None when not a list."""
    if not isinstance(active_raw, list):
        return None
    return frozenset(value for value in active_raw if type(value) is int)


def _environment_of(
    environment_raw: Mapping[str, Any],
) -> dict[str, str | int | None]:
    """The environment's texts, whole numbers and nulls, by name; other values left out."""
    return {
        str(key): value
        for key, value in environment_raw.items()
        if value is None or isinstance(value, str) or type(value) is int
    }


def _startup_of(startup_raw: Mapping[str, Any]) -> Startup:
    """Start-up time, and each timed step before the window (those without a time left out)."""
    startup_steps = []
    entries = startup_raw.get("steps")
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, Mapping):
            continue
        milliseconds = _number(entry.get("ms"))
        step = _whole(entry.get("step"))
        if milliseconds is None:
            continue
        startup_steps.append(
            StartupStep(
                -1 if step is None else step,
                _text(entry.get("phase")) or "?",
                milliseconds,
            )
        )
    return Startup(
        _number(startup_raw.get("before_first_step_ms")), tuple(startup_steps)
    )


def _distributed_of(distributed_raw: Any) -> Distributed | None:
    """Where the rank sits in its job; None for a single process (or no such key)."""
    if not isinstance(distributed_raw, Mapping):
        return None
    return Distributed(
        _whole(distributed_raw.get("world_size")),
        _whole(distributed_raw.get("rank")),
        _text(distributed_raw.get("backend")),
        _text(distributed_raw.get("launcher")),
    )
