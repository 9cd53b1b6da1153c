"""Words that are true: time in the data zone outside any
traced operator is untraced time, not "CPU wait" — nothing shows it waiting."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.cli import main
from tui.core.base.vocab import GapKind
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.view.status import gap_info


def _cpu_only(path: Path) -> Path:
    """Two steps, no GPU events: the data zone's gaps are untraced time."""
    events = metadata() + training_step_events(1, 0) + training_step_events(2, 1000)
    return write_trace(path, [event for event in events if event.get("pid") != 0])


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


def test_untraced_time_is_named_so_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = str(_cpu_only(tmp_path / "before.json"))
    after = str(_cpu_only(tmp_path / "after.json"))
    texts = {
        "summary": _run(["summary", before], capsys),
        "gaps": _run(["gaps", before], capsys),
        "report": _run(["report", before], capsys),
        "report --md": _run(["report", before, "--md"], capsys),
        "diff": _run(["diff", before, after], capsys),
    }
    for command, text in texts.items():
        assert "CPU wait" not in text, command
        assert "cpu_wait" not in text, command
    # Where it is first explained, it says what it is.
    assert (
        "time in the data zone when no traced operator runs inside it: "
        "not proven to be waiting"
    ) in " ".join(texts["summary"].split())
    definition = "when no traced operator runs inside it: not proven to be waiting"
    for command in ("summary", "gaps", "report", "report --md", "diff"):
        assert definition in " ".join(texts[command].split()), command
    assert "untraced time in the data zone" in texts["summary"]
    assert "untraced time" in texts["diff"]
    # JSON: the kind's value is "untraced" in every result that carries it.
    summary = orjson.loads(_run(["summary", before, "--json"], capsys))
    assert summary["gaps"]["kind"] == "untraced"
    gaps = orjson.loads(_run(["gaps", before, "--json"], capsys))
    assert gaps["kind"] == "untraced"
    assert {gap["kind"] for gap in gaps["gaps"]} == {"untraced"}
    report = _run(["report", before, "--json"], capsys)
    diff = _run(["diff", before, after, "--json"], capsys)
    for text in (report, diff):
        assert '"untraced"' in text and "cpu_wait" not in text


def test_the_status_line_names_a_gap_untraced(tmp_path: Path) -> None:
    analysis = Analysis(load_trace(_cpu_only(tmp_path / "t.json")))
    assert analysis.gap_kind is GapKind.UNTRACED
    assert GapKind.UNTRACED.label == "untraced time"
    line = gap_info(analysis, 0, analysis.trace.span_ns)
    assert "untraced" in line.plain and "CPU wait" not in line.plain
    # Narrow: the short form still says untraced.
    assert "untraced" in line.fit(30).plain
