"""`steptrace diff --group-by shape`: operators matched by (name, input shapes) when
both captures recorded shapes, by name with a caveat otherwise. The calls per
(name, shapes) are those the fixtures are built with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.builders.traces import cpu, write_trace
from tui.cli import main

SMALL = [[2, 3], [3, 4]]
SQUARE = [[8, 8], [8, 8]]
LARGE = [[16, 16], [16, 16]]


def mm_trace(path: Path, shapes: list[list[list[int]] | None]) -> Path:
    """One step holding one aten::mm per entry (None: no shapes recorded)."""
    events = [cpu("ProfilerStep#1", 0, 1000, cat="user_annotation")]
    for index, dims in enumerate(shapes):
        args: dict[str, Any] = {} if dims is None else {"Input Dims": dims}
        events.append(cpu("aten::mm", 10 + 100 * index, 50, **args))
    return write_trace(path, events)


def diff(
    capsys: pytest.CaptureFixture[str], before: Path, after: Path, *extra: str
) -> dict[str, Any]:
    assert main(["diff", str(before), str(after), "--json", *extra]) == 0
    payload: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return payload


def test_rows_are_matched_by_name_and_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = mm_trace(tmp_path / "before.json", [SMALL, SMALL, SQUARE])
    after = mm_trace(tmp_path / "after.json", [SMALL, LARGE])
    result = diff(capsys, before, after, "--group-by", "shape")
    assert result["group_by"] == "shape"
    rows = {
        str(row["input_shapes"]): row
        for row in result["ops"]
        if row["name"] == "aten::mm"
    }
    assert set(rows) == {str(SMALL), str(SQUARE), str(LARGE)}
    assert (rows[str(SMALL)]["calls_before"], rows[str(SMALL)]["calls_after"]) == (2, 1)
    assert rows[str(SQUARE)]["status"] == "removed"
    assert rows[str(LARGE)]["status"] == "added"
    assert rows[str(LARGE)]["self_cpu_us_after"] == 50.0
    assert "shapes" not in {check["check"] for check in result["checks"]}

    by_name = diff(capsys, before, after)
    assert by_name["group_by"] == "name"
    [mm] = [row for row in by_name["ops"] if row["name"] == "aten::mm"]
    assert (mm["calls_before"], mm["calls_after"]) == (3, 2)
    assert "input_shapes" not in mm

    assert main(["diff", str(before), str(after), "--group-by", "shape"]) == 0
    text = capsys.readouterr().out
    assert "operators and input shapes by change" in text
    assert "aten::mm [[16, 16], [16, 16]]" in text


def test_without_shapes_on_one_side_rows_are_matched_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = mm_trace(tmp_path / "before.json", [SMALL, SQUARE])
    after = mm_trace(tmp_path / "after.json", [None, None, None])
    result = diff(capsys, before, after, "--group-by", "shape")
    assert result["group_by"] == "name"
    [mm] = [row for row in result["ops"] if row["name"] == "aten::mm"]
    assert (mm["calls_before"], mm["calls_after"]) == (2, 3)
    [check] = [check for check in result["checks"] if check["check"] == "shapes"]
    assert check["breaks_comparability"] is False
    assert "matched by name" in check["message"]
