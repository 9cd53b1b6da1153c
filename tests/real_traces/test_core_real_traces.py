"""Every real trace in ../shared/traces loads, and its figures match an independent count."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tui.cli import main
from tui.core.figures.analysis import FILTERED_NAMES, Analysis
from tui.core.ingest.load import load_trace

TRACES = shared.FOLDER
ALL = shared.paths()
BIG = "mtia_trace_single_rank"
SMALL = [path for path in ALL if BIG not in path.name]
DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
CPU_CATEGORIES = {
    "cpu_op",
    "operator",
    "user_annotation",
    "python_function",
    "cuda_runtime",
    "runtime",
    "cuda_driver",
}


def read_reference(path: Path) -> list[dict[str, Any]]:
    """The events, parsed independently with exact decimals."""
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as handle:
        document = json.load(handle, parse_float=Decimal)
    events = document["traceEvents"] if isinstance(document, dict) else document
    return [event for event in events if isinstance(event, dict)]


def union_us(intervals: list[tuple[Decimal, Decimal]]) -> Decimal:
    total = Decimal(0)
    current_start: Decimal | None = None
    current_end = Decimal(0)
    for start, end in sorted(intervals):
        if current_start is None or start > current_end:
            if current_start is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_start is not None:
        total += current_end - current_start
    return total


@pytest.mark.parametrize(
    "path", ALL, ids=[path.name.split(".")[0][:40] for path in ALL]
)
@pytest.mark.slow
def test_every_shared_trace_loads(path: Path) -> None:
    trace = load_trace(path)
    assert trace.event_count > 0
    assert trace.start_ns.min() == 0
    analysis = Analysis(trace)
    table = analysis.op_table()
    assert len(table) > 0
    assert (table.self_cpu_ns <= table.total_cpu_ns).all()
    assert (table.self_cpu_ns >= 0).all()


@pytest.mark.parametrize(
    "path", SMALL, ids=[path.name.split(".")[0][:40] for path in SMALL]
)
@pytest.mark.slow
def test_figures_match_an_independent_count(path: Path) -> None:
    reference = read_reference(path)
    complete = [
        event
        for event in reference
        if event.get("ph") == "X" and "ts" in event and "dur" in event
    ]
    trace = load_trace(path)
    analysis = Analysis(trace)
    assert trace.event_count == len(complete)

    # Steps: the ProfilerStep#N ranges of the main thread, with their exact durations.
    step_events = [
        event
        for event in complete
        if re.match(r"^ProfilerStep#\d+$", str(event.get("name")))
        and event.get("cat") != "gpu_user_annotation"
    ]
    assert sorted(step.duration_ns for step in analysis.steps) == sorted(
        int(Decimal(e["dur"]) * 1000) for e in step_events
    )

    # Device busy: the union of kernels, copies and sets across streams.
    device = [
        (Decimal(e["ts"]), Decimal(e["ts"]) + Decimal(e["dur"]))
        for e in complete
        if str(e.get("cat", "")).lower() in DEVICE_CATEGORIES
    ]
    busy = analysis.device_busy_ns()
    if device:
        assert busy == int(union_us(device) * 1000)
    else:
        assert busy is None and not trace.gpu_observed

    # Operator calls: CPU-thread function events, torch's filtered names left out, steps grouped.
    expected_calls: Counter[str] = Counter()
    for event in complete:
        if str(event.get("cat", "")).lower() not in CPU_CATEGORIES:
            continue
        if not (
            isinstance(event.get("pid"), int) and isinstance(event.get("tid"), int)
        ):
            continue
        name = str(event.get("name"))
        if name in FILTERED_NAMES:
            continue
        expected_calls[re.sub(r"^ProfilerStep#\d+$", "ProfilerStep*", name)] += 1
    table = analysis.op_table()
    ours = dict(zip(table.names, (int(calls) for calls in table.calls), strict=False))
    for name, calls in expected_calls.items():
        assert ours.get(name) == calls, name


def test_cpu_only_trace_says_not_observed(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(path for path in ALL if path.name.startswith("cpu_only"))
    assert main(["summary", str(path), "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)
    assert summary["gpu_observed"] is False
    assert summary["device_busy_us"] is None
    assert summary["gaps"]["kind"] == "untraced"
    assert "not recorded" in summary["gpu_missing_reason"]


def test_rocm_trace_is_gpu_work_although_named_cuda() -> None:
    path = next(path for path in ALL if path.name.startswith("amd_trace"))
    trace = load_trace(path)
    analysis = Analysis(trace)
    assert trace.gpu_observed
    table = analysis.op_table()
    gpu_total = dict(zip(table.names, table.total_gpu_ns.tolist(), strict=False))  # type: ignore[union-attr]
    assert gpu_total["ProfilerStep*"] > 0
    assert analysis.unlinked_device_events == 0


def test_old_category_names_link_kernels() -> None:
    path = next(path for path in ALL if path.name.startswith("trace_file_list"))
    analysis = Analysis(load_trace(path))
    assert analysis.unlinked_device_events == 0
    table = analysis.op_table()
    self_gpu = dict(zip(table.names, table.self_gpu_ns.tolist(), strict=False))  # type: ignore[union-attr]
    assert self_gpu["cudaLaunchKernel"] > 0


def test_ns_resolution_timestamps_are_exact() -> None:
    path = next(path for path in ALL if path.name.startswith("ns_resolution"))
    trace = load_trace(path)
    raw = gzip.decompress(path.read_bytes())
    first_ts = re.search(rb'"ts": (\d+\.\d{3})', raw)
    assert first_ts is not None
    absolute_ns = int(Decimal(first_ts.group(1).decode()) * 1000)
    assert ((trace.start_ns + trace.origin_ns) == absolute_ns).any()


def test_json_outputs_have_the_documented_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = next(path for path in ALL if path.name.startswith("ns_resolution"))
    assert (
        main(
            [
                "ops",
                str(path),
                "--json",
                "--limit",
                "5",
                "--sort",
                "self",
                "--device",
                "gpu",
            ]
        )
        == 0
    )
    ops = orjson.loads(capsys.readouterr().out)
    assert set(ops) == {"gpu_observed", "sort", "device", "ops"}
    assert (ops["sort"], ops["device"]) == ("self", "gpu") and len(ops["ops"]) == 5
    assert set(ops["ops"][0]) == {
        "name",
        "calls",
        "self_cpu_us",
        "total_cpu_us",
        "self_gpu_us",
        "total_gpu_us",
    }
    self_gpu = [row["self_gpu_us"] for row in ops["ops"]]
    assert self_gpu == sorted(self_gpu, reverse=True)
    assert main(["gaps", str(path), "--json"]) == 0
    gaps = orjson.loads(capsys.readouterr().out)
    assert set(gaps) >= {
        "gpu_observed",
        "zones",
        "total_zone_us",
        "total_gap_us",
        "gaps",
    }
    assert main(["summary", str(path), "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)
    assert summary["step_stats"]["count"] == 5
    assert summary["steps"][0]["duration_ms"] == pytest.approx(35.116, abs=0.001)


@pytest.mark.parametrize("command", ["summary", "ops", "gaps"])
@pytest.mark.slow
def test_text_output_fits_80_columns(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in SMALL:
        assert main([command, str(path)]) == 0
        lines = capsys.readouterr().out.splitlines()
        too_wide = [line for line in lines if len(line) > 80]
        assert not too_wide, (path.name, too_wide[:3])
