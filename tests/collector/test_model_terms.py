"""The model's own terms on fresh CPU captures of a tiny model: its nn.Module
tree, its compiled regions and the compilation that happens in the window,
each checked against the trace's own ranges."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.builders.compile_captures import RECOMPILE_STEP, capture_tiny_model
from tui.cli import main

pytestmark = pytest.mark.torch

EVALUATE = "autograd::engine::evaluate_function: "


@pytest.fixture(scope="module")
def recompiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("recompiled")
    return capture_tiny_model(
        folder / "recompiled.json",
        compiled=True,
        with_stack=False,
        recompile_in_window=True,
    )


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _complete(trace: Path) -> list[dict[str, Any]]:
    events = json.loads(trace.read_text())["traceEvents"]
    return [e for e in events if e.get("ph") == "X"]


def _steps(events: list[dict[str, Any]]) -> list[tuple[float, float]]:
    return [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e["name"].startswith("ProfilerStep#")
    ]


def _inside(ts: float, spans: list[tuple[float, float]]) -> bool:
    return any(start <= ts < end for start, end in spans)


# -- modules -------------------------------------------------------------------


def test_the_module_tree_is_the_traces_own_ranges(
    eager: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "modules", str(eager))
    rows = {row["path"]: row for row in document["modules"]}
    assert document["modules_recorded"] and document["steps"] == 3
    assert list(rows)[:3] == [
        "Net_0",
        "Net_0/Sequential_0",
        "Net_0/Sequential_0/Block_0",
    ]
    assert {"Net_0/Sequential_0/Block_1/Linear_1", "Net_0/Linear_2"} <= set(rows)
    events = _complete(eager)
    steps = _steps(events)
    for name in ("Net_0", "Block_1", "Linear_2"):
        own = [e for e in events if e["name"] == f"nn.Module: {name}"]
        own = [e for e in own if _inside(e["ts"], steps)]
        path = next(path for path in rows if path.endswith(name))
        row = rows[path]
        assert row["calls_per_step"] == len(own) / 3 == 1
        expected = sum(e["dur"] for e in own) / 3
        assert row["total_cpu_us_per_step"] == pytest.approx(expected, rel=0.02)
    # A parent's self time is what its child modules leave.
    block = rows["Net_0/Sequential_0/Block_0"]
    children = [
        rows[f"Net_0/Sequential_0/Block_0/{name}"] for name in ("Linear_0", "ReLU_0")
    ]
    assert block["self_cpu_us_per_step"] == pytest.approx(
        block["total_cpu_us_per_step"]
        - sum(child["total_cpu_us_per_step"] for child in children),
        abs=0.01,
    )
    assert document["gpu_observed"] is False
    assert row["total_gpu_us_per_step"] is None


def test_backward_time_is_found_per_block_through_the_fwdbwd_flows(
    eager: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "modules", str(eager))
    rows = {row["path"]: row for row in document["modules"]}
    assert document["backward_linked"]
    for path in ("Net_0/Sequential_0/Block_0", "Net_0/Sequential_0/Block_1"):
        assert rows[path]["backward_cpu_us_per_step"] > 0
    # Net_0's backward: the backward functions whose flow starts in its ranges.
    raw = json.loads(eager.read_text())["traceEvents"]
    events = _complete(eager)
    steps = _steps(events)
    net = [
        (e["ts"], e["ts"] + e["dur"]) for e in events if e["name"] == "nn.Module: Net_0"
    ]
    starts = {
        e["id"]: e["ts"] for e in raw if e.get("cat") == "fwdbwd" and e["ph"] == "s"
    }
    ends = {
        e["id"]: e["ts"] for e in raw if e.get("cat") == "fwdbwd" and e["ph"] == "f"
    }
    wrappers = [e for e in events if e["name"].startswith(EVALUATE)]
    total = 0.0
    for flow, start in starts.items():
        if flow not in ends or not _inside(start, net):
            continue
        end = ends[flow]
        if not _inside(end, steps):
            continue
        wrapper = [w for w in wrappers if w["ts"] <= end < w["ts"] + w["dur"]]
        total += min(wrapper, key=lambda w: w["dur"])["dur"]
    assert total > 0
    assert rows["Net_0"]["backward_cpu_us_per_step"] == pytest.approx(
        total / 3, rel=0.02
    )
    # The loss's backward (sum, outside the model) is no module's.
    assert (
        rows["Net_0"]["backward_cpu_us_per_step"]
        < sum(w["dur"] for w in wrappers if _inside(w["ts"], steps)) / 3
    )


def test_without_module_ranges_the_command_says_how_to_record_them(
    recompiled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "modules", str(recompiled))
    assert document["modules_recorded"] is False and document["modules"] == []
    assert "with_stack=True" in document["message"]
    assert main(["modules", str(recompiled)]) == 0
    assert "with_stack=True" in capsys.readouterr().out


# -- compiled regions ----------------------------------------------------------


def _region_ranges(
    events: list[dict[str, Any]], steps: list[tuple[float, float]], compile_id: str
) -> list[dict[str, Any]]:
    name = f"Torch-Compiled Region: {compile_id}"
    return [e for e in events if e["name"] == name and _inside(e["ts"], steps)]


def test_compiled_regions_per_step_and_the_recompile(
    recompiled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "compiled", str(recompiled))
    regions = {region["compile_id"]: region for region in document["regions"]}
    assert set(regions) == {"0/0", "0/1"} and document["steps"] == 3
    events = _complete(recompiled)
    steps = _steps(events)
    for compile_id, step_numbers in (("0/0", [1]), ("0/1", [2, 3])):
        own = _region_ranges(events, steps, compile_id)
        region = regions[compile_id]
        assert region["calls_per_step"] == pytest.approx(len(own) / 3)
        assert region["time_us_per_step"] == pytest.approx(
            sum(e["dur"] for e in own) / 3, rel=0.01
        )
        assert region["steps"] == step_numbers
        assert region["graphs"] and all(
            graph["name"].startswith("CompiledFxGraph ") for graph in region["graphs"]
        )
    assert regions["0/0"]["recompile"] is False
    assert regions["0/1"]["recompile"] is True
    assert regions["0/1"]["compiled_in_step"] == RECOMPILE_STEP
    [compilation] = document["compilations"]
    dynamo = [e for e in events if e["name"] == "dynamo"]
    assert compilation["compile_id"] == "0/1" and compilation["recompile"]
    assert compilation["step"] == RECOMPILE_STEP and compilation["in_window"]
    assert compilation["time_us"] == pytest.approx(dynamo[0]["dur"], rel=1e-6)
    # The backend's outermost range: `backend_compile` around the user compiler.
    backend = [
        e["dur"]
        for e in events
        if e["name"]
        in ("backend_compile", "OutputGraph.call_user_compiler (dynamo_timed)")
    ]
    assert compilation["backend_us"] == pytest.approx(max(backend), rel=1e-6)
    per_step = {row["step"]: row for row in document["per_step"]}
    assert per_step[RECOMPILE_STEP]["compile_us"] == compilation["time_us"]
    assert per_step[1]["compile_us"] == 0 and per_step[1]["compile_ids"] == ["0/0"]
    assert all(row["graph_breaks"] == 0 for row in per_step.values())


def test_an_eager_capture_is_not_compiled(
    eager: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "compiled", str(eager))
    assert document["compiled"] is False and document["regions"] == []
    assert document["compilations"] == [] and "torch.compile" in document["message"]


# -- the compilation finding ---------------------------------------------------


def test_the_recompile_is_a_likely_compilation_finding(
    recompiled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "findings", str(recompiled))
    finding = next(f for f in document["findings"] if f["id"] == "compilation")
    figures = finding["figures"]
    assert finding["status"] == "likely"
    assert figures["steps_hit"] == [RECOMPILE_STEP]
    assert "0/1" in figures["compile_ids"] and "0/1" in figures["recompile_ids"]
    events = _complete(recompiled)
    steps = _steps(events)
    dynamo = sum(
        e["dur"]
        for e in events
        if e["name"] == "_compile.compile_inner (dynamo_timed)"
        and _inside(e["ts"], steps)
    )
    assert figures["compile_us"] >= 0.9 * dynamo
    assert finding["share_of_step_pct"] >= 10.0  # the status agrees with the share


def test_an_eager_capture_has_no_compilation_finding(
    eager: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "findings", str(eager))
    finding = next(f for f in document["findings"] if f["id"] == "compilation")
    assert finding["status"] == "not_seen" and finding["figures"]["compiled"] is False


# -- the median step without the compiling step --------------------------------


def _step_durations(trace: Path) -> dict[int, float]:
    """Each `ProfilerStep#N`'s duration (µs), from the trace itself."""
    return {
        int(e["name"].removeprefix("ProfilerStep#")): e["dur"]
        for e in _complete(trace)
        if e["name"].startswith("ProfilerStep#")
    }


def test_the_recompiling_step_is_set_aside_from_the_median_step(
    recompiled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "findings", str(recompiled))
    durations = _step_durations(recompiled)
    assert document["steps"] == len(durations) == 3
    others = [dur for number, dur in durations.items() if number != RECOMPILE_STEP]
    assert document["median_step_us"] == pytest.approx(
        statistics.median(others), rel=1e-6
    )
    assert document["set_aside_steps"] == [
        {
            "step": RECOMPILE_STEP,
            "duration_us": pytest.approx(durations[RECOMPILE_STEP], rel=1e-6),
            "reason": f"step {RECOMPILE_STEP} holds a recompilation (compile id 0/1):"
            " set aside from the median step",
        }
    ]
    # The compile costs what it takes over every window step, capped at the step.
    finding = next(f for f in document["findings"] if f["id"] == "compilation")
    per_step = finding["figures"]["compile_us"] / len(durations)
    assert finding["cost_us_per_step"] == pytest.approx(
        min(per_step, document["median_step_us"]), rel=1e-6
    )
    # The diff's kept steps leave it out too, though it is no edge step; an
    # edge step may go as well, for the edge rule's own reasons.
    steps = _json(capsys, "diff", str(recompiled), str(recompiled))["steps"]
    assert RECOMPILE_STEP not in (min(durations), max(durations))
    aside = {entry["step"]: entry["why"] for entry in steps["before"]["set_aside"]}
    assert aside[RECOMPILE_STEP].startswith(f"compilation: step {RECOMPILE_STEP} holds")
    assert set(aside) <= {min(durations), RECOMPILE_STEP, max(durations)}
    assert RECOMPILE_STEP not in steps["before"]["kept"]


def test_an_eager_capture_sets_no_step_aside(
    eager: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _json(capsys, "findings", str(eager))
    durations = _step_durations(eager)
    assert document["set_aside_steps"] == []
    assert document["median_step_us"] == pytest.approx(
        statistics.median(durations.values()), rel=1e-6
    )
    steps = _json(capsys, "diff", str(eager), str(eager))["steps"]
    assert not any(
        entry["why"].startswith("compilation") for entry in steps["before"]["set_aside"]
    )
