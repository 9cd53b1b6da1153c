"""Operators by input shape agree with torch's own key_averages(group_by_input_shape=True)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.torch_captures import capture_training
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.figures.shapes import shape_op_table, shapes_in_trace, torch_input_shapes
from tui.core.ingest.load import load_trace

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    path = tmp_path_factory.mktemp("shapes") / "capture.json"
    averages = capture_training(path, record_shapes=True, group_by_input_shape=True)
    return path, averages


def test_rows_are_torchs_rows(shaped: tuple[Path, object]) -> None:
    path, averages = shaped
    expected = {
        (event.key, str(event.input_shapes)): (
            event.count,
            event.self_cpu_time_total,
            event.cpu_time_total,
        )
        for event in averages  # type: ignore[attr-defined]
    }
    table = shape_op_table(Analysis(load_trace(path)))
    ours = {
        (table.names[row], table.shapes_text(row)): (
            int(table.calls[row]),
            float(table.self_cpu_ns[row]) / 1000,
            float(table.total_cpu_ns[row]) / 1000,
        )
        for row in range(len(table))
    }
    assert set(ours) == set(expected)
    # Several shapes per operator really occur (two batch sizes, a tensor list).
    names = [name for name, _ in expected]
    assert any(names.count(name) > 1 for name in names)
    assert ("aten::cat", "[[], []]") in expected
    for key, (calls, self_us, total_us) in expected.items():
        our_calls, our_self, our_total = ours[key]
        assert our_calls == calls, key
        # torch keeps ns; the trace writes µs with 3 decimals.
        assert our_total == pytest.approx(total_us, abs=0.002 * calls + 1e-6), key
        assert our_self == pytest.approx(self_us, abs=0.002 * calls + 1e-6), key


def test_cli_rows_add_input_shapes(
    shaped: tuple[Path, object], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = shaped
    assert main(["ops", str(path), "--group-by", "shape", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["group_by"] == "shape" and document["shapes_recorded"] is True
    linear = [row for row in document["ops"] if row["name"] == "aten::linear"]
    assert sorted(str(row["input_shapes"]) for row in linear) == sorted(
        [
            "[[8, 32], [64, 32], [64]]",
            "[[8, 64], [4, 64], [4]]",
            "[[16, 32], [64, 32], [64]]",
            "[[16, 64], [4, 64], [4]]",
        ]
    )
    assert main(["ops", str(path), "--group-by", "shape"]) == 0
    text = capsys.readouterr().out
    assert "shapes [[16, 32], [64, 32], [64]]" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_default_ops_output_is_unchanged(
    shaped: tuple[Path, object], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = shaped
    assert main(["ops", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"gpu_observed", "sort", "device", "ops"}
    assert all("input_shapes" not in row for row in document["ops"])
    assert len({row["name"] for row in document["ops"]}) == len(document["ops"])


def test_without_shapes_the_command_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.json"
    capture_training(path, record_shapes=False)
    assert not shapes_in_trace(load_trace(path))
    assert main(["ops", str(path), "--group-by", "shape"]) == 0
    text = capsys.readouterr().out
    assert "record_shapes was off for this capture" in text
    assert "aten::" not in text
    assert main(["ops", str(path), "--group-by", "shape", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["shapes_recorded"] is False and document["ops"] is None


@pytest.mark.parametrize(
    ("dims", "expected"),
    [
        ([[16, 32], [64, 32], [64]], [[16, 32], [64, 32], [64]]),
        ([[[3, 4], [2, 4]], []], [[], []]),  # a tensor list reads [] in torch
        ([[], [1]], [[], [1]]),
        (None, []),
        ("[16, 32]", []),
    ],
    ids=["tensors", "tensor-list", "scalars", "missing", "not-a-list"],
)
def test_torch_spelling_of_input_shapes(dims: object, expected: object) -> None:
    assert torch_input_shapes(dims) == expected
