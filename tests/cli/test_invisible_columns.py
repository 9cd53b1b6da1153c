"""`steptrace ops` keeps its columns in line when names hold invisible format
characters (Unicode tags, soft hyphens, invisible operators): each is shown as
a visible escape, which takes the cells it is counted for."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.builders.traces import cpu, metadata, write_trace
from tui.cli import main

TAGS = "".join(chr(0xE0000 + ord(letter)) for letter in "evil")


def test_ops_rows_stay_in_line(
    tmp_path: Path,
    isolated_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    events = [
        *metadata(),
        cpu("ProfilerStep#1", 0, 1000, cat="user_annotation"),
        cpu("aten::mm" + TAGS, 10, 100),
        cpu("aten::add\u00ad\u2063", 200, 50),
        cpu("aten::relu", 300, 20),
    ]
    trace = write_trace(tmp_path / "tags.json", events)
    assert main(["ops", str(trace)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "aten::" in line]
    assert len(rows) == 3
    assert [c for row in rows for c in row if unicodedata.category(c) == "Cf"] == []
    assert len({cell_len(row) for row in rows}) == 1, rows
