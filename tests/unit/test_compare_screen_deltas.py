"""The comparison screen's Δ is the change per kept step, as `steptrace diff`
says it; the whole trace's change is one key away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.diff_pair import write_pair
from tui.cli import main
from tui.core.base.vocab import SortKey, TimeDevice
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.results.diff import DiffResult
from tui.view.comparison import ops_title, time_cells


def _signed_ms(cell: str) -> float:
    value, unit = cell.split()
    return float(value) * {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def test_the_screens_delta_is_the_clis_per_step_delta(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = write_pair(tmp_path)
    result = DiffResult.of(
        Analysis(load_trace(before)), Analysis(load_trace(after)), device="cpu"
    )
    ops = result.diff.ops
    assert ops.per_step
    assert main(["diff", str(before), str(after), "--json", "--device", "cpu"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["ops"]}
    row = ops.names.index("aten::relu")
    cli = rows["aten::relu"]
    per_step_us = cli["self_cpu_us_per_step_after"] - cli["self_cpu_us_per_step_before"]
    whole_us = cli["self_cpu_us_after"] - cli["self_cpu_us_before"]
    assert abs(per_step_us - whole_us) > 1.0  # the two readings differ here
    _, _, delta = time_cells(ops, row, SortKey.SELF, TimeDevice.CPU)
    assert _signed_ms(delta) == pytest.approx(per_step_us / 1000, rel=1e-3)
    _, _, whole = time_cells(ops, row, SortKey.SELF, TimeDevice.CPU, per_step=False)
    assert _signed_ms(whole) == pytest.approx(whole_us / 1000, rel=1e-3)
    title = ops_title(result, SortKey.SELF, TimeDevice.CPU)
    assert "Δ per kept step (w: whole trace)" in title
    assert "Δ over the whole trace (w: per kept step)" in ops_title(
        result, SortKey.SELF, TimeDevice.CPU, per_step=False
    )
