"""`steptrace sql`: the documented tables agree with the other commands, the
query reads nothing but the trace, and every refusal is one line, status 2."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests import shared_traces as shared
from tui.cli import main

TRACES = shared.FOLDER
CPU_ADDMM = TRACES / "distributed_info_unavailable-distributed_info_not_found.json.gz"
GPU = TRACES / "critical_path-alexnet-benchmark_result_2869224_1695835535_trace.json.gz"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _rows(capsys: pytest.CaptureFixture[str], trace: Path, query: str) -> Any:
    status, out, err = _run(capsys, "sql", str(trace), query, "--json")
    assert status == 0, err
    return json.loads(out)["rows"]


def _ops_calls(capsys: pytest.CaptureFixture[str], trace: Path) -> dict[str, int]:
    status, out, _ = _run(capsys, "ops", str(trace), "--json")
    assert status == 0
    return {row["name"]: row["calls"] for row in json.loads(out)["ops"]}


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize("trace", [CPU_ADDMM, GPU], ids=["cpu", "gpu"])
def test_counting_an_operator_equals_ops_calls(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    calls = _ops_calls(capsys, trace)
    busiest = max(
        (name for name in calls if name != "ProfilerStep*"), key=calls.__getitem__
    )
    for name in ("aten::addmm", busiest):
        query = f"select count(*) from events where name = '{name}'"
        assert _rows(capsys, trace, query) == [[calls[name]]]


@pytest.mark.usefixtures("shared_traces")
def test_kernels_and_flows_match_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    raw = json.loads(gzip.decompress(GPU.read_bytes()))["traceEvents"]
    kernels = sum(
        1 for event in raw if event.get("cat") == "kernel" and event.get("ph") == "X"
    )
    assert _rows(capsys, GPU, "select count(*) from kernels") == [[kernels]]
    # Each ac2g flow reaching a kernel starts at a launch call with the
    # kernel's correlation id.
    linked = _rows(
        capsys,
        GPU,
        "select l.kind, l.correlation = k.correlation from flows f "
        "join events l on l.id = f.source_event "
        "join kernels k on k.id = f.target_event where f.category = 'ac2g'",
    )
    assert len(linked) == kernels
    assert {tuple(row) for row in linked} == {("runtime", True)}
    # Times in µs as the file writes them.
    first = min(event["ts"] for event in raw if event.get("ph") == "X")
    assert _rows(capsys, GPU, "select min(ts_us) from events") == [[first]]


@pytest.mark.usefixtures("shared_traces")
def test_csv_and_text_hold_the_same_rows(capsys: pytest.CaptureFixture[str]) -> None:
    query = "select name, count(*) as n from events group by name order by n desc, name limit 4"
    status, out, _ = _run(capsys, "sql", str(GPU), query, "--csv")
    assert status == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0] == ["name", "n"]
    assert [[row[0], int(row[1])] for row in table[1:]] == _rows(capsys, GPU, query)
    status, out, _ = _run(capsys, "sql", str(GPU), query)
    lines = out.splitlines()
    assert lines[0].split() == ["name", "n"]
    assert lines[-1] == "4 rows"
    assert lines[2].split()[0] == table[1][0]


@pytest.mark.usefixtures("shared_traces")
@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("COPY events TO '/tmp/steptrace-sql-copy.csv'", "not COPY"),
        ("ATTACH '/tmp/steptrace-sql.db'", "not ATTACH"),
        ("INSTALL httpfs", "only SELECT"),
        ("SET enable_external_access = true", "not SET"),
        ("select * from read_csv('/etc/passwd')", "Permission Error"),
        ("select * from read_text('/etc/hostname')", "Permission Error"),
        ("select 1; select 2", "one SQL statement"),
        ("selec 1", "syntax error"),
        ("select nothere from events", "nothere"),
        ("", "no SQL query"),
    ],
)
def test_a_query_reads_only_the_trace(
    capsys: pytest.CaptureFixture[str], query: str, said: str, tmp_path: Path
) -> None:
    status, out, err = _run(capsys, "sql", str(CPU_ADDMM), query)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("steptrace: ")
    assert said in err
    assert "Traceback" not in err
    assert not Path("/tmp/steptrace-sql-copy.csv").exists()


@pytest.mark.usefixtures("shared_traces")
def test_steps_and_tracks_are_the_summarys(capsys: pytest.CaptureFixture[str]) -> None:
    trace = TRACES / "ns_resolution_trace-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
    status, out, _ = _run(capsys, "summary", str(trace), "--json")
    assert status == 0
    steps = json.loads(out)["steps"]
    assert steps
    rows = _rows(
        capsys,
        trace,
        "with named as (select s.step, s.start_ns, s.dur_ns, e.name from steps s "
        "join events e on e.id = s.event) select * from named order by step",
    )
    assert [row[0] for row in rows] == [step["step"] for step in steps]
    assert [row[1] / 1e3 for row in rows] == [step["start_us"] for step in steps]
    assert [row[2] / 1e6 for row in rows] == [step["duration_ms"] for step in steps]
    assert all(row[3] == f"ProfilerStep#{row[0]}" for row in rows)
    kinds = _rows(
        capsys, GPU, "select track_kind, count(*) from tracks group by 1 order by 1"
    )
    assert kinds == [["cpu", 1], ["device", 3], ["other", 1]]


@pytest.mark.usefixtures("shared_traces")
def test_event_args_hold_each_events_args(capsys: pytest.CaptureFixture[str]) -> None:
    """`event_args` is each event's args as JSON: its External id is the column's,
    and its shapes are the file's."""
    differ = _rows(
        capsys,
        GPU,
        "select count(*) from events e join event_args a using (id) where "
        "coalesce(TRY_CAST(a.args->>'$.\"External id\"' AS BIGINT), -1) "
        "<> coalesce(e.external_id, -1)",
    )
    assert differ == [[0]]
    trace = CPU_ADDMM
    raw = json.loads(gzip.decompress(trace.read_bytes()))["traceEvents"]
    dims = sorted(
        json.dumps(event["args"]["Input Dims"], separators=(",", ":"))
        for event in raw
        if event.get("name") == "aten::addmm" and event.get("ph") == "X"
    )
    rows = _rows(
        capsys,
        trace,
        "select a.args->'$.\"Input Dims\"' from events e join event_args a "
        "using (id) where e.name = 'aten::addmm'",
    )
    assert sorted(row[0] for row in rows) == dims


@pytest.mark.usefixtures("shared_traces")
def test_rows_past_the_limit_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    query = "select id from events"
    count = _rows(capsys, GPU, "select count(*) from events")[0][0]
    status, out, _ = _run(capsys, "sql", str(GPU), query, "--max-rows", str(count))
    assert status == 0
    assert out.splitlines()[-1] == f"{count:,} rows"
    status, out, err = _run(
        capsys, "sql", str(GPU), query, "--max-rows", str(count - 1)
    )
    assert status == 2
    assert out == ""
    assert f"more than {count - 1:,} rows" in err
    assert len(err.splitlines()) == 1


@pytest.mark.usefixtures("shared_traces")
def test_a_query_past_the_memory_budget_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    query = "select count(*) from (select repeat('x', 100000) s from range(3000) order by s)"
    status, out, err = _run(capsys, "sql", str(CPU_ADDMM), query, "--max-memory", "64M")
    assert status == 2
    assert out == ""
    assert "Out of Memory" in err
    assert len(err.splitlines()) == 1
    status, out, _ = _run(capsys, "sql", str(CPU_ADDMM), query, "--max-memory", "2G")
    assert status == 0
