"""A hand-edited capture description with a number where a list belongs is read
as unknown (and named by the collector's check), never a TypeError."""

from __future__ import annotations

from typing import Any

import pytest

from collector.schema import validate_description
from tui.core.model.description import CaptureDescription


@pytest.mark.parametrize("steps", [5, True, 2.5, "wait", {"a": 1}])
def test_startup_steps_that_are_not_a_list(steps: Any) -> None:
    description = {"startup": {"steps": steps, "before_first_step_ms": 3.0}}
    parsed = CaptureDescription.parse(description)
    assert parsed.startup.steps == ()
    assert parsed.startup.before_first_step_ms == 3.0
    assert validate_description(description)  # problems listed, nothing raised
