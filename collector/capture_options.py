"""What a capture is asked to do: the keywords of `Capture`, checked in one place.

Importing this module does not import torch: it names torch's types only for
the type checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from collector.errors import InvalidSettingError
from collector.schema import DATA_ZONE, KINDS, UNITS, Scenario, Window

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class CaptureOptions:
    """A capture's settings as the caller gave them; refused when made if any is wrong.

    Only the settings themselves are checked here; what depends on the machine
    (the device, the GPU tracer, the output path) is checked by the capture.
    """

    question: str
    window: Window | None = None
    scenario: Scenario | None = None
    kind: str = "train"
    step_contents: Sequence[str] | None = None
    device: str | torch.device | None = None
    model: torch.nn.Module | None = None
    data_zone: str = DATA_ZONE
    zones: Sequence[str] = ()
    unit: str = "ms/step"
    samples_per_step: int | None = None
    record_shapes: bool = False
    with_stack: bool = False
    profile_memory: bool = False
    include_host_name: bool = False
    startup_began: float | None = None
    command: Sequence[str] | None = None
    progress: bool = False
    stream: TextIO | None = None
    rank: int | None = None
    launcher: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.question, str) or not self.question.strip():
            raise InvalidSettingError(
                "a capture answers a question: pass question='…' (e.g. 'is the GPU waiting for data?')"
            )
        if self.kind not in KINDS:
            raise InvalidSettingError(
                f"kind must be 'train' or 'inference', got {self.kind!r}"
            )
        if self.unit not in UNITS:
            raise InvalidSettingError(
                f"unit must be 'ms/step' or 'samples/s', got {self.unit!r}"
            )
        samples_per_step = self.step_samples()
        if samples_per_step is None and self.unit == "samples/s":
            raise InvalidSettingError(
                "unit samples/s needs samples_per_step (or a scenario batch_size)"
            )
        if samples_per_step is not None and (
            not isinstance(samples_per_step, int) or samples_per_step < 1
        ):
            raise InvalidSettingError(
                f"samples_per_step must be a positive integer, got {samples_per_step!r}"
            )
        for name in (self.data_zone, *self.zones):
            check_zone_name(name)

    def step_samples(self) -> int | None:
        """Samples one step holds: as given, else the scenario's batch size when the unit counts samples."""
        if self.samples_per_step is None and self.unit == "samples/s":
            return self.scenario.batch_size if self.scenario is not None else None
        return self.samples_per_step

    def profiler_options(self) -> dict[str, bool]:
        """The profiler's costly options by name, as the description records them."""
        return {
            "record_shapes": self.record_shapes,
            "with_stack": self.with_stack,
            "profile_memory": self.profile_memory,
        }


def check_zone_name(name: object) -> None:
    """Refuse a zone name that is not a non-empty string."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidSettingError(
            f"a zone name must be a non-empty string, got {name!r}"
        )
