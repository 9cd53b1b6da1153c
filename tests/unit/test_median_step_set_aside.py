"""The findings' median step sets a compiling window step aside, with its
reason said once (findings text and JSON, the report), while the compilation
finding still weighs the compile time over every window step."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.builders.compiling_steps import write_compiling_steps
from tui.cli import main
from tui.core.figures.compiled import Compilation
from tui.core.findings.weights import compiling_reason

DURATIONS_US = [1000.0, 1100.0, 40_000.0, 900.0, 1050.0]
REASON = "step 3 holds a recompilation (compile id 0/1): set aside from the median step"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_recompiling_step_is_set_aside_from_the_median_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = write_compiling_steps(tmp_path / "t.json", DURATIONS_US, {3: "0/1"})
    document = _json(capsys, "findings", str(trace))
    others = [d for number, d in enumerate(DURATIONS_US, 1) if number != 3]
    assert document["median_step_us"] == pytest.approx(statistics.median(others))
    assert document["steps"] == 5
    assert document["set_aside_steps"] == [
        {"step": 3, "duration_us": pytest.approx(40_000.0), "reason": REASON}
    ]
    # The compilation still costs its compile time over all five window steps.
    finding = next(f for f in document["findings"] if f["id"] == "compilation")
    per_step = finding["figures"]["compile_us"] / 5
    assert finding["figures"]["compile_us"] == pytest.approx(39_800.0)
    assert finding["figures"]["compile_us_per_step"] == pytest.approx(per_step)
    assert finding["cost_us_per_step"] == pytest.approx(
        min(per_step, statistics.median(others))
    )

    assert main(["findings", str(trace)]) == 0
    text = capsys.readouterr().out
    header = text.splitlines()[0]
    assert "over 4 of 5 window steps" in header and REASON in header
    assert text.count("set aside from the median step") == 1

    report = _json(capsys, "report", str(trace))
    assert report["findings_set_aside_steps"] == document["set_aside_steps"]
    assert main(["report", str(trace)]) == 0
    assert capsys.readouterr().out.count(REASON) == 1


@pytest.mark.parametrize(
    ("compiles", "why"),
    [({}, "no step compiles"), ({n: "0/0" for n in range(1, 6)}, "all compile")],
)
def test_no_step_is_set_aside_unless_some_step_compiles_and_another_not(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    compiles: dict[int, str],
    why: str,
) -> None:
    trace = write_compiling_steps(tmp_path / "t.json", DURATIONS_US, compiles)
    document = _json(capsys, "findings", str(trace))
    assert document["set_aside_steps"] == [], why
    assert document["median_step_us"] == pytest.approx(statistics.median(DURATIONS_US))
    assert main(["findings", str(trace)]) == 0
    assert "set aside" not in capsys.readouterr().out


def test_the_reason_names_each_compilation_and_its_id() -> None:
    first = Compilation("1/0", 0, 10, 5, 4, True)
    again = Compilation("0/1", 20, 10, 5, 4, True)
    unnamed = Compilation(None, 40, 10, 5, 4, True)
    assert compiling_reason(4, [first, again]) == (
        "step 4 holds a compilation and a recompilation (compile ids 1/0, 0/1):"
        " set aside from the median step"
    )
    assert compiling_reason(4, [unnamed, unnamed]) == (
        "step 4 holds 2 compilations: set aside from the median step"
    )
