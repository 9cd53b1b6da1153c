"""`steptrace diff` on real pairs, checked against a raw JSON parse of both files.

The oracle never goes through steptrace's loader: operator calls, kernel
counts and totals and step durations are counted from the JSON events.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import shared_traces as shared
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.nesting import FILTERED_NAMES
from tui.core.results.diff import DiffResult

TRACES = shared.FOLDER
BASE = TRACES / "trace_compare-base-base.json.gz"
TEST = TRACES / "trace_compare-test-test.json.gz"
CPU_ONLY = TRACES / "cpu_only-rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
GPU = TRACES / "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"
# CPU function categories key_averages() counts (both generations of names).
CPU_CATEGORIES = {
    "cpu_op",
    "user_annotation",
    "cuda_runtime",
    "cuda_driver",
    "python_function",
    "operator",
    "runtime",
}
STEP = re.compile(r"^ProfilerStep#\d+$")


def raw_events(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    document = orjson.loads(data)
    events = document["traceEvents"] if isinstance(document, dict) else document
    return [event for event in events if event.get("ph") == "X"]


def raw_op_calls(path: Path) -> Counter[str]:
    """Calls per operator row, as torch's key_averages() groups them."""
    calls: Counter[str] = Counter()
    for event in raw_events(path):
        if str(event.get("cat", "")).lower() not in CPU_CATEGORIES:
            continue
        name = event["name"]
        if name in FILTERED_NAMES:
            continue
        calls["ProfilerStep*" if STEP.match(name) else name] += 1
    return calls


def raw_kernels(path: Path) -> tuple[Counter[str], dict[str, float]]:
    counts: Counter[str] = Counter()
    totals: dict[str, float] = defaultdict(float)
    for event in raw_events(path):
        if event.get("cat") == "kernel":
            counts[event["name"]] += 1
            totals[event["name"]] += float(event["dur"])
    return counts, totals


def raw_step_durations_us(path: Path) -> list[float]:
    return sorted(
        float(event["dur"])
        for event in raw_events(path)
        if STEP.match(str(event.get("name")))
        and str(event.get("cat", "")).lower() in CPU_CATEGORIES
    )


def diff_json(before: Path, after: Path, **options: Any) -> dict[str, Any]:
    result = DiffResult.of(
        Analysis(load_trace(before)), Analysis(load_trace(after)), **options
    )
    return result.to_json()


def test_trace_compare_pair_counts_match_the_raw_files() -> None:
    result = diff_json(BASE, TEST)
    before_calls, after_calls = raw_op_calls(BASE), raw_op_calls(TEST)
    rows = {row["name"]: row for row in result["ops"]}
    assert set(rows) == set(before_calls) | set(after_calls)
    for name, row in rows.items():
        assert row["calls_before"] == before_calls.get(name, 0), name
        assert row["calls_after"] == after_calls.get(name, 0), name
        expected = (
            "both"
            if name in before_calls and name in after_calls
            else "removed"
            if name in before_calls
            else "added"
        )
        assert row["status"] == expected
        if row["status"] == "added":
            assert row["self_cpu_us_before"] == row["total_cpu_us_before"] == 0
        # Both captures hold GPU events: GPU columns are numbers on both sides.
        assert row["self_gpu_us_before"] is not None
        assert row["total_gpu_us_after"] is not None
    assert {"AddmmBackward0", "CatBackward0"} <= {
        name for name, row in rows.items() if row["status"] == "added"
    }

    for word, path in (("before", BASE), ("after", TEST)):
        counts, totals = raw_kernels(path)
        kernels = {row["name"]: row for row in result["kernels"]}
        for name, count in counts.items():
            assert kernels[name][f"count_{word}"] == count
            assert kernels[name][f"total_us_{word}"] == pytest.approx(totals[name])
        durations = raw_step_durations_us(path)
        side = result["steps"][word]
        assert side["n"] == len(durations) == 2
        assert side["min_us"] == pytest.approx(durations[0])
        assert side["max_us"] == pytest.approx(durations[-1])

    # The two windows hold the same step times, but not the same operators:
    # no change, and not identical.
    assert result["steps"]["verdict"] == "no_change"
    assert result["steps"]["change_pct"] == pytest.approx(0.0)
    assert result["steps"]["runs"] == {"before": 1, "after": 1}
    # No description on either side: a caveat, not a difference; two steps: a caveat.
    checks = {check["check"] for check in result["checks"]}
    assert checks == {"no_description", "few_steps"}
    assert result["comparable"] is True
    assert result["zone"]["before"]["total_gap_us"] is None


def test_operators_are_sorted_by_the_largest_absolute_change() -> None:
    for sort, column in (("self", "self_gpu_us"), ("total", "total_gpu_us")):
        rows = diff_json(BASE, TEST, sort=sort)["ops"]
        changes = [
            abs(row[f"{column}_after"] - row[f"{column}_before"]) for row in rows
        ]
        assert changes == sorted(changes, reverse=True)
    rows = diff_json(BASE, TEST, sort="calls", device="cpu")["ops"]
    changes = [abs(row["calls_after"] - row["calls_before"]) for row in rows]
    assert changes == sorted(changes, reverse=True)
    assert changes[0] > 0


@pytest.mark.parametrize("path", [BASE, CPU_ONLY, GPU], ids=lambda p: p.name[:14])
def test_a_capture_against_itself_is_identical_with_every_delta_zero(
    path: Path,
) -> None:
    result = diff_json(path, path)
    assert result["steps"]["verdict"] == "identical"
    assert result["steps"]["reason"] == "the same file on both sides"
    assert all(not entry["moved"] for entry in result["mechanisms"])
    assert all(
        entry["change_us_per_step"] in (0.0, None) for entry in result["mechanisms"]
    )
    if result["steps"]["before"]["n"]:
        assert result["steps"]["change_pct"] == 0.0
    assert result["steps"]["before"] == result["steps"]["after"]
    assert result["ops"], "the trace has operators"
    for row in result["ops"]:
        assert row["status"] == "both"
        for key in row:
            if key.endswith("_before"):
                assert row[key] == row[key.replace("_before", "_after")], key
    for row in result["kernels"]:
        assert row["count_before"] == row["count_after"]
        assert row["total_us_before"] == row["total_us_after"]
    assert result["zone"]["before"] == result["zone"]["after"]
    assert result["comparable"] is True


def test_a_cpu_capture_against_a_gpu_one_is_not_comparable_and_its_gpu_side_is_null() -> (
    None
):
    result = diff_json(CPU_ONLY, GPU)
    assert result["comparable"] is False
    assert result["gpu_observed"] == {"before": False, "after": True}
    gpu_checks = [check for check in result["checks"] if check["check"] == "gpu"]
    assert len(gpu_checks) == 1 and gpu_checks[0]["breaks_comparability"]
    assert "null" in gpu_checks[0]["message"]
    assert result["sort"]["device"] == "cpu"
    before_calls, after_calls = raw_op_calls(CPU_ONLY), raw_op_calls(GPU)
    assert {row["name"] for row in result["ops"]} == set(before_calls) | set(
        after_calls
    )
    for row in result["ops"]:
        assert row["calls_before"] == before_calls.get(row["name"], 0)
        assert row["calls_after"] == after_calls.get(row["name"], 0)
    for row in result["ops"]:
        for column in ("self_gpu_us", "total_gpu_us"):
            assert row[f"{column}_before"] is None
            assert row[f"{column}_after"] is not None
    counts, _ = raw_kernels(GPU)
    kernels = {row["name"]: row for row in result["kernels"]}
    assert set(kernels) == set(counts)
    for name, row in kernels.items():
        assert row["count_before"] is None and row["total_us_before"] is None
        assert row["count_after"] == counts[name]
        assert row["status"] == "added"
    # The other way round, the after side is the null one.
    reverse = diff_json(GPU, CPU_ONLY)
    assert all(row["self_gpu_us_after"] is None for row in reverse["ops"])
    assert all(row["count_after"] is None for row in reverse["kernels"])


def test_the_json_has_every_documented_key() -> None:
    result = diff_json(BASE, TEST)
    assert isinstance(result["comparable"], bool)
    assert all(isinstance(warning, str) for warning in result["warnings"])
    for word in ("before", "after"):
        assert {"n", "median_us", "min_us", "max_us"} <= set(result["steps"][word])
        assert {"total_zone_us", "total_gap_us"} <= set(result["zone"][word])
    assert {"change_pct", "verdict"} <= set(result["steps"])
    op_keys = {
        "name",
        "calls_before",
        "calls_after",
        *(
            f"{column}_us_{word}"
            for column in ("self_cpu", "total_cpu", "self_gpu", "total_gpu")
            for word in ("before", "after")
        ),
    }
    assert all(op_keys <= set(row) for row in result["ops"])
    kernel_keys = {
        "name",
        "count_before",
        "count_after",
        "total_us_before",
        "total_us_after",
    }
    assert result["kernels"] and all(
        kernel_keys <= set(row) for row in result["kernels"]
    )


def test_cli_text_fits_80_columns_and_json_parses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", str(CPU_ONLY), str(GPU), "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "comparable NO" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert main(["diff", str(BASE), str(TEST), "--json"]) == 0
    payload = orjson.loads(capsys.readouterr().out)
    assert payload["steps"]["verdict"] == "no_change"


def test_cli_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["diff", str(BASE), str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("steptrace: ") and err.count("\n") == 1
    assert main(["diff", str(BASE), str(TEST), "--zone", "no_such_zone"]) == 2
    err = capsys.readouterr().err
    assert "no_such_zone" in err and "either capture" in err
    assert main(["diff", str(BASE), str(TEST), "--limit", "-1"]) == 2


def test_trace_compare_pair_lists_its_checks_with_both_values() -> None:
    """The checks read from the traces themselves, with both sides' values;
    the pair records its rank (1 on both) and no device, so those say null."""
    payload = DiffResult.of(
        Analysis(load_trace(BASE)), Analysis(load_trace(TEST))
    ).to_json()
    checks = {entry["check"]: entry for entry in payload["comparability"]}
    assert checks["rank"] == {"check": "rank", "before": 1, "after": 1, "same": True}
    assert checks["device model"] == {
        "check": "device model",
        "before": None,
        "after": None,
        "same": None,
    }
    assert checks["world size"]["same"] is None
    assert checks["GPU observed"]["same"] is True
    assert checks["CUDA graphs"] == {
        "check": "CUDA graphs",
        "before": False,
        "after": False,
        "same": True,
    }
    assert set(checks) >= {
        "device count",
        "device memory",
        "compute capability",
        "backend",
        "CUDA runtime version",
        "torch.compile",
        "steps recorded",
    }
    assert all(
        set(entry) == {"check", "before", "after", "same"} for entry in checks.values()
    )


def test_the_real_pair_as_runs_names_its_runs_and_what_moved() -> None:
    """Two runs a side of the real pair (each file read twice): run figures and
    mechanisms per run pair, and no order from runs that hold the same steps."""
    before, after = Analysis(load_trace(BASE)), Analysis(load_trace(TEST))
    payload = DiffResult.of_runs((before, before), (after, after)).to_json()
    steps = payload["steps"]
    assert steps["runs"] == {"before": 2, "after": 2}
    assert [run["trace"] for run in steps["run_figures"]["before"]] == [str(BASE)] * 2
    medians = raw_step_durations_us(BASE)
    assert steps["run_figures"]["after"][0]["median_us_of_kept"] == pytest.approx(
        sum(medians) / 2
    )
    assert steps["verdict"] == "no_change"
    ids = {entry["id"] for entry in payload["mechanisms"]}
    assert ids and all(
        entry["moved_in"].endswith("/2") for entry in payload["mechanisms"]
    )
