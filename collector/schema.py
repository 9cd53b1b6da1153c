"""The capture description's schema and the settings a capture is made with.

Torch-free: the CLI, `compare` and the explorer's tests can import it without
torch. The description is the contract with the explorer, which reads the
top-level `steptrace` key of a trace file; `validate_description` checks it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from collector.errors import InvalidSettingError

SCHEMA_VERSION = 1
# A bench result (RESULT.json) carries this key with its format version.
BENCH_FORMAT_KEY = "steptrace_bench"
BENCH_FORMAT = 1
METADATA_KEY = "steptrace"
DATA_ZONE = "lecture_batch_cpu"
TRAIN_STEP_CONTENTS: tuple[str, ...] = (
    "read",
    "transfer",
    "forward",
    "backward",
    "optimizer",
)
INFERENCE_STEP_CONTENTS: tuple[str, ...] = ("load (kept apart)", "request")
KINDS = ("train", "inference")
UNITS = ("ms/step", "samples/s")
MODES = ("train", "eval")

Phase = Literal["wait", "warmup", "active", "after"]


@dataclass(frozen=True)
class Window:
    """The profiler schedule: skip_first, then (wait → warmup → active) × repeat.

    The teaching default is wait 1, warmup 1, active 2, repeat 1: four steps
    show the mechanism. `repeat` must be at least 1 so a capture always ends.
    """

    wait: int = 1
    warmup: int = 1
    active: int = 2
    repeat: int = 1
    skip_first: int = 0

    def __post_init__(self) -> None:
        for name in ("wait", "warmup", "active", "repeat", "skip_first"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidSettingError(
                    f"window {name} must be an integer, got {value!r}"
                )
        if self.wait < 0 or self.warmup < 0 or self.skip_first < 0:
            raise InvalidSettingError(
                "window wait, warmup and skip_first must be 0 or more"
            )
        if self.active < 1:
            raise InvalidSettingError("window active must be at least 1 step")
        if self.repeat < 1:
            raise InvalidSettingError(
                "window repeat must be at least 1 (a capture must end)"
            )

    @classmethod
    def parse(cls, text: str) -> Window:
        """Read `WAIT,WARMUP,ACTIVE[,REPEAT[,SKIP_FIRST]]`, as typed on the command line."""
        parts = [part.strip() for part in text.split(",")]
        if not 3 <= len(parts) <= 5:
            raise InvalidSettingError(
                f"window {text!r}: expected WAIT,WARMUP,ACTIVE[,REPEAT[,SKIP_FIRST]], e.g. 1,1,2"
            )
        try:
            numbers = [int(part) for part in parts]
        except ValueError:
            raise InvalidSettingError(
                f"window {text!r}: every part must be a whole number, e.g. 1,1,2"
            ) from None
        return cls(*numbers)

    @property
    def cycle_length(self) -> int:
        """Steps in one wait → warmup → active cycle."""
        return self.wait + self.warmup + self.active

    @property
    def total_steps(self) -> int:
        """Steps the loop must run for every cycle of the window to be recorded."""
        return self.skip_first + self.cycle_length * self.repeat

    def phase_of(self, step: int) -> Phase:
        """The schedule's phase for a step, mirroring torch.profiler.schedule."""
        if step < self.skip_first:
            return "wait"
        offset = step - self.skip_first
        if offset >= self.cycle_length * self.repeat:
            return "after"
        position = offset % self.cycle_length
        if position < self.wait:
            return "wait"
        if position < self.wait + self.warmup:
            return "warmup"
        return "active"

    def cycle_of(self, step: int) -> int:
        """0-based cycle a step belongs to (skipped steps count as cycle 0)."""
        return max(step - self.skip_first, 0) // self.cycle_length

    def active_steps(self, cycle: int = 0) -> list[int]:
        """The ProfilerStep numbers recorded in one cycle."""
        first = self.skip_first + cycle * self.cycle_length + self.wait + self.warmup
        return list(range(first, first + self.active))

    @property
    def first_active_step(self) -> int:
        """The first recorded step: every step before it is start-up."""
        return self.active_steps(0)[0]

    def to_dict(self) -> dict[str, int]:
        """The `window` object of the description."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        text = f"wait {self.wait}, warmup {self.warmup}, active {self.active}, repeat {self.repeat}"
        if self.skip_first:
            text += f", skip_first {self.skip_first}"
        return text


@dataclass(frozen=True)
class Scenario:
    """What the captured step ran on; unknown fields stay None.

    A simplified input isolates a behaviour but no longer represents the full
    load: `inputs_simplified` makes the report say so.
    """

    shapes: str | None = None
    batch_size: int | None = None
    precision: str | None = None
    mode: str | None = None
    compiled: bool | None = None
    data_source: str | None = None
    inputs_simplified: bool = False
    simplified_note: str | None = None

    def __post_init__(self) -> None:
        if self.batch_size is not None and (
            not isinstance(self.batch_size, int)
            or isinstance(self.batch_size, bool)
            or self.batch_size < 1
        ):
            raise InvalidSettingError(
                f"scenario batch_size must be a positive integer, got {self.batch_size!r}"
            )
        if self.mode is not None and self.mode not in MODES:
            raise InvalidSettingError(
                f"scenario mode must be 'train' or 'eval', got {self.mode!r}"
            )
        if self.compiled is not None and not isinstance(self.compiled, bool):
            raise InvalidSettingError(
                f"scenario compiled must be true or false, got {self.compiled!r}"
            )
        if not isinstance(self.inputs_simplified, bool):
            raise InvalidSettingError(
                "scenario inputs_simplified must be true or false"
            )

    @classmethod
    def from_pairs(cls, pairs: Iterable[str]) -> Scenario:
        """Build from `KEY=VALUE` strings, as given with `--scenario` on the command line."""
        fields = {field.name for field in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for pair in pairs:
            key, separator, raw = pair.partition("=")
            key = key.strip()
            if not separator or key not in fields:
                raise InvalidSettingError(
                    f"scenario {pair!r}: expected KEY=VALUE with KEY one of {', '.join(sorted(fields))}"
                )
            values[key] = _scenario_value(key, raw.strip())
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The `scenario` object of the description."""
        return dataclasses.asdict(self)


def _scenario_value(key: str, raw: str) -> Any:
    """Convert one command-line scenario value to its field's type."""
    if key == "batch_size":
        try:
            return int(raw)
        except ValueError:
            raise InvalidSettingError(
                f"scenario batch_size must be a whole number, got {raw!r}"
            ) from None
    if key in ("compiled", "inputs_simplified"):
        lowered = raw.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise InvalidSettingError(f"scenario {key} must be true or false, got {raw!r}")
    return raw or None


def default_step_contents(kind: str) -> list[str]:
    """What one step holds, by kind: training steps or inference requests."""
    return list(TRAIN_STEP_CONTENTS if kind == "train" else INFERENCE_STEP_CONTENTS)


# Field → accepted JSON types, for validate_description. "int|None" style
# entries list every accepted type; bool is never accepted where int is asked.
_SCENARIO_TYPES: dict[str, tuple[type, ...]] = {
    "shapes": (str, type(None)),
    "batch_size": (int, type(None)),
    "precision": (str, type(None)),
    "mode": (str, type(None)),
    "compiled": (bool, type(None)),
    "data_source": (str, type(None)),
    "inputs_simplified": (bool,),
    "simplified_note": (str, type(None)),
}
_ENVIRONMENT_TYPES: dict[str, tuple[type, ...]] = {
    "torch": (str,),
    "cuda": (str, type(None)),
    "hip": (str, type(None)),
    "driver": (str, type(None)),
    "device_name": (str, type(None)),
    "cpu_model": (str, type(None)),
    "cpu_cores": (int, type(None)),
    "python": (str,),
    "platform": (str,),
    "host_name": (str, type(None)),
}

_DISTRIBUTED_TYPES: dict[str, tuple[type, ...]] = {
    "world_size": (int, type(None)),
    "rank": (int,),
    "backend": (str, type(None)),
    "launcher": (str, type(None)),
}


def _type_ok(value: Any, accepted: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in accepted:
        return False
    if isinstance(value, int) and not isinstance(value, bool) and float in accepted:
        return True
    return isinstance(value, accepted)


def _check_fields(
    problems: list[str], where: str, value: Any, types: Mapping[str, tuple[type, ...]]
) -> None:
    if not isinstance(value, dict):
        problems.append(f"{where}: expected an object")
        return
    for name, accepted in types.items():
        if name not in value:
            problems.append(f"{where}.{name}: missing")
        elif not _type_ok(value[name], accepted):
            problems.append(
                f"{where}.{name}: unexpected type {type(value[name]).__name__}"
            )


def _check_str_list(problems: list[str], where: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(f"{where}: expected a list of strings")


_DESCRIPTION_TYPES: dict[str, tuple[type, ...]] = {
    "schema": (int,),
    "created_utc": (str,),
    "question": (str,),
    "kind": (str,),
    "step_contents": (list,),
    "scenario": (dict,),
    "window": (dict,),
    "active_steps": (list,),
    "options": (dict,),
    "unit": (dict,),
    "zones": (dict,),
    "activities": (dict,),
    "environment": (dict,),
    "startup": (dict,),
    "command": (list,),
    "warnings": (list,),
}
_WINDOW_TYPES: dict[str, tuple[type, ...]] = {
    name: (int,) for name in Window().to_dict()
}
_OPTIONS_TYPES: dict[str, tuple[type, ...]] = {
    "record_shapes": (bool,),
    "with_stack": (bool,),
    "profile_memory": (bool,),
}
_UNIT_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "samples_per_step": (int, type(None)),
}
_ZONES_TYPES: dict[str, tuple[type, ...]] = {"data": (str,), "declared": (list,)}
_ACTIVITIES_TYPES: dict[str, tuple[type, ...]] = {
    "requested": (list,),
    "observed": (list,),
    "gpu_missing_reason": (str, type(None)),
}
_STARTUP_TYPES: dict[str, tuple[type, ...]] = {
    "before_first_step_ms": (float, type(None)),
    "steps": (list,),
}
_STARTUP_STEP_TYPES: dict[str, tuple[type, ...]] = {
    "step": (int,),
    "phase": (str,),
    "ms": (float,),
}


def validate_description(description: Any) -> list[str]:
    """Every way a description departs from schema 1; empty when it conforms.

    The top-level fields are checked first; only when all are there, of the
    right type, is each section checked in turn.
    """
    problems: list[str] = []
    if not isinstance(description, dict):
        return ["description: expected an object"]
    _check_fields(problems, "steptrace", description, _DESCRIPTION_TYPES)
    if problems:
        return problems
    _check_question(problems, description)
    _check_window(problems, description)
    _check_settings(problems, description)
    _check_activities(problems, description["activities"])
    _check_fields(
        problems, "environment", description["environment"], _ENVIRONMENT_TYPES
    )
    _check_startup(problems, description["startup"])
    _check_str_list(problems, "command", description["command"])
    _check_str_list(problems, "warnings", description["warnings"])
    # Absent in captures made before distributed runs were described; null for one process.
    run = description.get("distributed")
    if run is not None:
        _check_fields(problems, "distributed", run, _DISTRIBUTED_TYPES)
    return problems


def _check_question(problems: list[str], description: dict[str, Any]) -> None:
    """The schema version, and what was asked of what: kind, step contents, scenario."""
    if description["schema"] != SCHEMA_VERSION:
        problems.append(
            f"schema: expected {SCHEMA_VERSION}, got {description['schema']}"
        )
    if description["kind"] not in KINDS:
        problems.append(f"kind: expected one of {KINDS}")
    _check_str_list(problems, "step_contents", description["step_contents"])
    _check_fields(problems, "scenario", description["scenario"], _SCENARIO_TYPES)
    mode = description["scenario"].get("mode")
    if mode is not None and mode not in MODES:
        problems.append(f"scenario.mode: expected one of {MODES} or null")


def _check_window(problems: list[str], description: dict[str, Any]) -> None:
    """The schedule, and the steps it made active."""
    _check_fields(problems, "window", description["window"], _WINDOW_TYPES)
    active_steps = description["active_steps"]
    if not all(
        isinstance(step, int) and not isinstance(step, bool) for step in active_steps
    ):
        problems.append("active_steps: expected a list of integers")


def _check_settings(problems: list[str], description: dict[str, Any]) -> None:
    """The profiler options, the unit figures are told in, and the zones."""
    _check_fields(problems, "options", description["options"], _OPTIONS_TYPES)
    _check_fields(problems, "unit", description["unit"], _UNIT_TYPES)
    if description["unit"].get("name") not in UNITS:
        problems.append(f"unit.name: expected one of {UNITS}")
    zones = description["zones"]
    _check_fields(problems, "zones", zones, _ZONES_TYPES)
    if isinstance(zones.get("declared"), list):
        _check_str_list(problems, "zones.declared", zones["declared"])


def _check_activities(problems: list[str], activities: dict[str, Any]) -> None:
    """What was asked of the profiler, what the trace holds, and why GPU is missing."""
    _check_fields(problems, "activities", activities, _ACTIVITIES_TYPES)
    for key in ("requested", "observed"):
        if isinstance(activities.get(key), list):
            _check_str_list(problems, f"activities.{key}", activities[key])


def _check_startup(problems: list[str], startup: dict[str, Any]) -> None:
    """The time before the first step, and each wait or warmup step's."""
    _check_fields(problems, "startup", startup, _STARTUP_TYPES)
    entries = startup.get("steps")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        _check_fields(problems, f"startup.steps[{index}]", entry, _STARTUP_STEP_TYPES)
        if isinstance(entry, dict) and entry.get("phase") not in ("wait", "warmup"):
            problems.append(
                f"startup.steps[{index}].phase: expected 'wait' or 'warmup'"
            )


def scenario_or_default(scenario: Scenario | None) -> Scenario:
    """The scenario to record: an unknown scenario is all nulls, not a guess."""
    return scenario if scenario is not None else Scenario()


def zones_in_order(*groups: Sequence[str]) -> list[str]:
    """Distinct zone names, first appearance first."""
    seen: dict[str, None] = {}
    for group in groups:
        for name in group:
            seen.setdefault(name, None)
    return list(seen)
