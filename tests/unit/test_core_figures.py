"""Figures on hand-made traces whose answers are known by construction."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders.traces import (
    BASE_US,
    cpu,
    gpu,
    metadata,
    training_step_events,
    write_trace,
)
from tui.cli import main
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.core.model.trace import Kind


def two_steps(tmp_path: Path, *, with_gpu: bool = True) -> Path:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    if not with_gpu:
        events = [event for event in events if event.get("pid") != 0]
    return write_trace(tmp_path / "two-steps.json", events)


def op_rows(path: Path) -> dict[str, dict[str, float | int | None]]:
    table = Analysis(load_trace(path)).op_table()
    rows: dict[str, dict[str, float | int | None]] = {}
    for index, name in enumerate(table.names):
        rows[name] = {
            "calls": int(table.calls[index]),
            "self_cpu": int(table.self_cpu_ns[index]) / 1000,
            "total_cpu": int(table.total_cpu_ns[index]) / 1000,
            "self_gpu": None
            if table.self_gpu_ns is None
            else int(table.self_gpu_ns[index]) / 1000,
            "total_gpu": None
            if table.total_gpu_ns is None
            else int(table.total_gpu_ns[index]) / 1000,
        }
    return rows


def test_steps_and_zones(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(two_steps(tmp_path)))
    assert [(step.number, step.duration_ns) for step in analysis.steps] == [
        (1, 1_000_000),
        (2, 1_000_000),
    ]
    zones = {zone.name: zone.duration_ns for zone in analysis.zones_in(0, 1_000_000)}
    assert zones == {
        "lecture_batch_cpu": 300_000,
        "transfert": 100_000,
        "entrainement": 560_000,
    }


def test_operator_table_self_total_cpu_and_gpu(tmp_path: Path) -> None:
    rows = op_rows(two_steps(tmp_path))
    assert rows["aten::to"] == {
        "calls": 2,
        "self_cpu": 120,
        "total_cpu": 160,
        "self_gpu": 80,
        "total_gpu": 80,
    }
    assert rows["aten::mm"] == {
        "calls": 2,
        "self_cpu": 100,
        "total_cpu": 120,
        "self_gpu": 400,
        "total_gpu": 400,
    }
    assert rows["cudaLaunchKernel"] == {
        "calls": 4,
        "self_cpu": 40,
        "total_cpu": 40,
        "self_gpu": 0,
        "total_gpu": 0,
    }
    assert rows["entrainement"] == {
        "calls": 2,
        "self_cpu": 940,
        "total_cpu": 1120,
        "self_gpu": 0,
        "total_gpu": 500,
    }
    assert rows["transfert"]["self_cpu"] == 40 and rows["transfert"]["total_gpu"] == 80
    assert rows["lecture_batch_cpu"]["self_cpu"] == 500
    # Steps group as torch names them, and hold everything launched inside them.
    assert rows["ProfilerStep*"] == {
        "calls": 2,
        "self_cpu": 80,
        "total_cpu": 2000,
        "self_gpu": 0,
        "total_gpu": 580,
    }


def test_device_busy_is_a_union_not_a_sum(tmp_path: Path) -> None:
    events = (
        metadata()
        + training_step_events(1, 0)
        + [
            # A second stream overlapping the gemm kernel (470..670) must not add time.
            gpu("overlapping_kernel", 500, 100, stream=20, correlation=99),
        ]
    )
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    assert analysis.device_busy_ns() == (40 + 200 + 50) * 1000


def test_gaps_are_device_idle_time_inside_the_data_zone(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(two_steps(tmp_path)))
    gaps = [
        (gap.step, gap.start_ns, gap.duration_ns, gap.kind) for gap in analysis.gaps
    ]
    assert gaps == [
        (1, 10_000, 300_000, "gpu_idle"),
        (2, 1_010_000, 300_000, "gpu_idle"),
    ]


def test_gaps_split_around_device_work_and_nested_zones_count_once(
    tmp_path: Path,
) -> None:
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("lecture_batch_cpu", 10, 300, cat="user_annotation"),
        cpu(
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
            20,
            200,
            cat="user_annotation",
        ),
        cpu("lecture_batch_cpu", 30, 100, cat="user_annotation"),
        cpu("cudaLaunchKernel", 40, 5, cat="cuda_runtime", correlation=1),
        gpu("early_kernel", 100, 50, correlation=1),
    ]
    analysis = Analysis(load_trace(write_trace(tmp_path / "t.json", events)))
    assert [(gap.start_ns, gap.duration_ns) for gap in analysis.gaps] == [
        (10_000, 90_000),
        (150_000, 160_000),
    ]
    assert analysis.total_zone_ns == 300_000


def test_cpu_only_capture_reports_untraced_time_and_gpu_not_observed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = two_steps(tmp_path, with_gpu=False)
    analysis = Analysis(load_trace(path))
    # The wait is where the zone runs no child (aten::randn, 50 µs of its 300):
    # one interval before the child, one after it, in each step.
    assert {gap.kind for gap in analysis.gaps} == {"untraced"}
    assert [(gap.step, gap.start_ns, gap.duration_ns) for gap in analysis.gaps] == [
        (1, 10_000, 10_000),
        (1, 70_000, 240_000),
        (2, 1_010_000, 10_000),
        (2, 1_070_000, 240_000),
    ]
    assert main(["ops", str(path), "--json"]) == 0
    ops = orjson.loads(capsys.readouterr().out)
    assert ops["gpu_observed"] is False
    assert all(
        row["self_gpu_us"] is None and row["total_gpu_us"] is None for row in ops["ops"]
    )
    assert main(["summary", str(path)]) == 0
    text = capsys.readouterr().out
    assert (
        "GPU       not observed" in text
        and "untraced time" in text
        and "GPU idle" not in text
    )
    assert main(["gaps", str(path), "--json"]) == 0
    gaps = orjson.loads(capsys.readouterr().out)
    assert {gap["kind"] for gap in gaps["gaps"]} == {"untraced"}
    assert gaps["total_gap_us"] == 500.0


def test_kernels_link_by_correlation_when_external_ids_are_missing(
    tmp_path: Path,
) -> None:
    """PyTorch ≤ 1.10 names, no External id: kernel → runtime (correlation) → enclosing op."""
    events = [
        cpu("aten::add", 0, 100, cat="Operator"),
        cpu(
            "cudaLaunchKernel",
            10,
            20,
            cat="Runtime",
            correlation=7,
            **{"external id": 0},
        ),
        gpu("add_kernel", 50, 30, cat="Kernel", correlation=7, **{"external id": 0}),
    ]
    rows = op_rows(write_trace(tmp_path / "old.json", events))
    assert rows["aten::add"]["self_gpu"] == 30
    assert rows["aten::add"]["self_cpu"] == 80
    assert rows["cudaLaunchKernel"]["self_gpu"] == 0


def test_timestamps_keep_every_nanosecond(tmp_path: Path) -> None:
    """A child ending exactly at its parent's end at ns resolution stays a child."""
    text = (
        '{"traceEvents": ['
        f'{{"ph": "X", "cat": "cpu_op", "name": "parent", "pid": 1, "tid": 1, "ts": {BASE_US}.001, "dur": 10.000}},'
        f'{{"ph": "X", "cat": "cpu_op", "name": "child", "pid": 1, "tid": 1, "ts": {BASE_US + 5}.003, "dur": 4.998}}'
        "]}"
    )
    path = tmp_path / "ns.json"
    path.write_text(text)
    trace = load_trace(path)
    assert trace.origin_ns == BASE_US * 1000 + 1
    assert trace.start_ns.tolist() == [0, 5_002]
    rows = op_rows(path)
    assert rows["parent"]["self_cpu"] == pytest.approx(5.002)


def test_gzip_is_detected_by_content_not_name(tmp_path: Path) -> None:
    events = metadata() + training_step_events(1, 0)
    gz_named_json = write_trace(tmp_path / "really-gzip.json", events, gz=True)
    json_named_gz = write_trace(tmp_path / "really-json.json.gz", events)
    assert (
        load_trace(gz_named_json).event_count
        == load_trace(json_named_gz).event_count
        == 14
    )


def test_array_form_and_begin_end_pairs(tmp_path: Path) -> None:
    events = [
        {"ph": "B", "name": "outer", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 100},
        {"ph": "B", "name": "inner", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 110},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 120},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 200},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 300},
    ]
    path = tmp_path / "array.json"
    path.write_bytes(orjson.dumps(events))
    trace = load_trace(path)
    assert sorted(trace.event_name(i) for i in range(trace.event_count)) == [
        "inner",
        "outer",
    ]
    assert sorted(trace.duration_ns.tolist()) == [10_000, 100_000]
    assert any(
        "end events without a matching begin" in warning for warning in trace.warnings
    )


def test_bad_events_are_dropped_counted_and_not_summed(tmp_path: Path) -> None:
    events = [
        *metadata(),
        cpu("aten::good", 0, 10),
        {**cpu("aten::negative", 20, 10), "dur": -5},
        {
            key: value
            for key, value in cpu("aten::no_dur", 40, 10).items()
            if key != "dur"
        },
        {**cpu("aten::string_ts", 60, 10), "ts": "123"},
    ]
    trace = load_trace(write_trace(tmp_path / "bad.json", events))
    rows = op_rows(trace.path)
    assert set(rows) == {"aten::good"}
    joined = " | ".join(trace.warnings)
    assert (
        "negative duration" in joined
        and "missing or non-numeric duration" in joined
        and "timestamp" in joined
    )


def test_unknown_device_category_is_device_work_only_on_a_device_track(
    tmp_path: Path,
) -> None:
    events = [
        {
            "ph": "M",
            "name": "process_name",
            "pid": 9,
            "tid": 0,
            "args": {"name": "MTIA 9"},
        },
        {
            "ph": "X",
            "cat": "accel_events",
            "name": "dma",
            "pid": 9,
            "tid": 4,
            "ts": 10,
            "dur": 5,
        },
        {
            "ph": "X",
            "cat": "accel_events",
            "name": "host_side",
            "pid": 1,
            "tid": 1,
            "ts": 10,
            "dur": 5,
        },
    ]
    trace = load_trace(write_trace(tmp_path / "accel.json", events))
    kinds = {
        trace.event_name(i): Kind(int(trace.kind[i])) for i in range(trace.event_count)
    }
    assert kinds == {"dma": Kind.DEVICE_OTHER, "host_side": Kind.CPU_OTHER}
    assert trace.gpu_observed
    assert any(
        "accel_events" in warning and "device work" in warning
        for warning in trace.warnings
    )


def test_capture_description_is_read_and_malformed_one_ignored(tmp_path: Path) -> None:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    description = {
        "schema": 1,
        "question": "is the GPU waiting for data?",
        "active_steps": [2],
        "unit": {"name": "ms/step", "samples_per_step": 32},
    }
    good = load_trace(
        write_trace(tmp_path / "good.json", events, extra={"steptrace": description})
    )
    analysis = Analysis(good)
    assert (
        good.description is not None
        and good.description["question"] == "is the GPU waiting for data?"
    )
    assert [(step.number, step.phase) for step in analysis.steps] == [
        (1, "startup"),
        (2, "active"),
    ]
    bad = load_trace(
        write_trace(tmp_path / "bad.json", events, extra={"steptrace": [1, 2]})
    )
    assert bad.description is None
    assert any("malformed" in warning for warning in bad.warnings)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"   \n\t ", "empty"),
        (b"hello world", "not JSON"),
        (b'{"foo": 1}', "without 'traceEvents'"),
        (b'{"traceEvents": 5}', "not a list"),
        (b"\x1f\x8bnot really gzip", "gzip"),
    ],
    ids=[
        "empty",
        "whitespace",
        "not-json",
        "no-trace-events",
        "events-not-list",
        "bad-gzip",
    ],
)
def test_bad_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_missing_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ops", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cut_off_file_keeps_complete_events(tmp_path: Path) -> None:
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    full = orjson.dumps({"traceEvents": events}, option=orjson.OPT_INDENT_2)
    cut = full[: full.rfind(b'"name": "relu_kernel"')]
    path = tmp_path / "cut.json"
    path.write_bytes(cut)
    trace = load_trace(path)
    assert trace.event_count == 27  # every complete event but the cut-off last kernel
    assert any(
        "cut off" in warning and "unknown" in warning for warning in trace.warnings
    )
    assert trace.cut_off


def test_untraced_time_on_several_threads_never_exceeds_zone_time(
    tmp_path: Path,
) -> None:
    """Two threads read at the same time: the zone is their union, and it waits only
    where no thread that has it open runs a child of it."""
    events = [
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("lecture_batch_cpu", 10, 300, cat="user_annotation"),
        cpu("aten::copy_", 20, 100),
        cpu("lecture_batch_cpu", 10, 300, cat="user_annotation", tid=200),
    ]
    analysis = Analysis(load_trace(write_trace(tmp_path / "threads.json", events)))
    assert [(gap.start_ns, gap.duration_ns) for gap in analysis.gaps] == [
        (10_000, 10_000),
        (120_000, 190_000),
    ]
    assert analysis.total_zone_ns == 300_000
    assert sum(gap.duration_ns for gap in analysis.gaps) <= analysis.total_zone_ns
