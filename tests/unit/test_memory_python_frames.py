"""Memory per operator: Python frames nest (their callers keep no bytes of
their operators) but are no rows of the table."""

from __future__ import annotations

from pathlib import Path

from tests.builders.traces import BASE_US, CPU_PID, CPU_TID, cpu, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.figures.memory import memory_op_table
from tui.core.ingest.load import load_trace

MB = 1 << 20


def test_python_frames_are_no_rows_of_the_memory_table(tmp_path: Path) -> None:
    events = [
        cpu("aten::linear", 0.0, 1000.0),
        cpu("model.py(3): forward", 50.0, 500.0, "python_function"),
        cpu("aten::empty", 100.0, 100.0),
        {
            "ph": "i",
            "cat": "cpu_instant_event",
            "s": "t",
            "name": "[memory]",
            "pid": CPU_PID,
            "tid": CPU_TID,
            "ts": BASE_US + 150.0,
            "args": {"Bytes": MB, "Device Type": 0, "Device Id": -1},
        },
    ]
    analysis = Analysis(load_trace(write_trace(tmp_path / "m.json", events)))
    table = memory_op_table(analysis)
    assert "model.py(3): forward" not in table.names
    empty = table.names.index("aten::empty")
    linear = table.names.index("aten::linear")
    assert int(table.self_cpu[empty]) == MB
    assert int(table.total_cpu[linear]) == MB
    assert int(table.self_cpu[linear]) == 0
