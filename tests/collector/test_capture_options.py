"""CaptureOptions: a capture's settings are checked when the options are made, without torch."""

from __future__ import annotations

import pytest

from collector.capture_options import CaptureOptions
from collector.errors import InvalidSettingError
from collector.schema import Scenario


def test_settings_that_hold_are_kept_as_given() -> None:
    options = CaptureOptions(question="is the GPU waiting?", zones=("load",))
    assert options.kind == "train"
    assert options.step_samples() is None
    assert options.profiler_options() == {
        "record_shapes": False,
        "with_stack": False,
        "profile_memory": False,
    }


@pytest.mark.parametrize(
    ("settings", "refusal"),
    [
        ({"question": "  "}, "answers a question"),
        ({"question": "q", "kind": "eval"}, "kind must be"),
        ({"question": "q", "unit": "steps"}, "unit must be"),
        ({"question": "q", "unit": "samples/s"}, "needs samples_per_step"),
        ({"question": "q", "samples_per_step": 0}, "positive integer"),
        ({"question": "q", "zones": ("",)}, "zone name"),
    ],
)
def test_a_wrong_setting_is_refused(settings: dict[str, object], refusal: str) -> None:
    with pytest.raises(InvalidSettingError, match=refusal):
        CaptureOptions(**settings)  # type: ignore[arg-type]


def test_samples_per_step_defaults_to_the_scenario_batch_size() -> None:
    options = CaptureOptions(
        question="q", unit="samples/s", scenario=Scenario(batch_size=32)
    )
    assert options.step_samples() == 32
    given = CaptureOptions(
        question="q",
        unit="samples/s",
        samples_per_step=8,
        scenario=Scenario(batch_size=32),
    )
    assert given.step_samples() == 8
