"""`steptrace report`: the Markdown document of a fixture trace whose figures are
known by construction, compared with an expected file reviewed line by line.

The fixture: four steps of `builders.traces.training_step_events` (steps 0 and 1
are start-up, 2 and 3 the window), 1000 µs each except step 3 (1200 µs); the data
zone `lecture_batch_cpu` reads 300, 300, 200 and 400 µs with no device work
inside it; each step runs a 40 µs copy and kernels of 200 and 50 µs (290 µs of
device work), and CPU operators covering 220 µs (randn 50, to 80, mm 60, relu
30). So over the window (2200 µs): CPU 440 µs (20%), GPU 580 µs (26%), data
zone and its GPU idle 600 µs (27%).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from tests.builders.traces import metadata, training_step_events, write_trace
from tui.cli import main
from tui.core.base.vocab import Verdict
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.notes.model import Anchor, Note, Result, Status, TestedBy
from tui.report.report import ReportResult
from tui.report.report_markdown import markdown_report, report_markdown
from tui.report.report_text import report_text

EXPECTED = Path(__file__).parents[1] / "fixtures" / "report" / "expected_report.md"
WHEN = "2024-05-01T12:00:00.000000+00:00"
READS_US = (300.0, 300.0, 200.0, 400.0)
STEP_AT_US = 1500.0
DESCRIPTION: dict[str, Any] = {
    "schema": 1,
    "question": "is the GPU waiting for data?",
    "kind": "train",
    "step_contents": ["read", "transfer", "forward", "backward", "optimizer"],
    "scenario": {
        "shapes": "inputs [32, 256] float32",
        "batch_size": 32,
        "precision": "float32",
        "mode": "train",
        "compiled": False,
        "data_source": "synthetic",
        "inputs_simplified": True,
        "simplified_note": "random tensors instead of decoded images",
    },
    "window": {"wait": 1, "warmup": 1, "active": 2, "repeat": 1, "skip_first": 0},
    "active_steps": [2, 3],
    "options": {"record_shapes": False, "with_stack": False, "profile_memory": False},
    "unit": {"name": "ms/step", "samples_per_step": 32},
    "zones": {
        "data": "lecture_batch_cpu",
        "declared": ["lecture_batch_cpu", "transfert", "entrainement"],
    },
    "activities": {"requested": ["cpu", "cuda"], "observed": ["cpu", "cuda"]},
    "environment": {"torch": "2.13.0", "device_name": "Some GPU"},
    "startup": {"before_first_step_ms": 812.5, "steps": []},
}


def fixture_trace(path: Path) -> Path:
    events = metadata()
    for step, read_us in enumerate(READS_US):
        step_events = training_step_events(step, step * STEP_AT_US, read_us=read_us)
        if step == 3:
            step_events[0]["dur"] = 1200
        events += step_events
    return write_trace(path, events, extra={"steptrace": DESCRIPTION})


def fixture_notes() -> list[Note]:
    return [
        Note(
            id="a" * 32,
            created=WHEN,
            updated=WHEN,
            observation="GPU idle while lecture_batch_cpu runs",
            hypothesis="the input | pipeline does not keep up",
            next_check="batches prepared in advance",
            anchor=Anchor.on_finding("gpu_idle_data_zone"),
        ),
        Note(
            id="b" * 32,
            created=WHEN,
            updated=WHEN,
            hypothesis="the copy is pageable",
            status=Status.CONFIRMED,
            result=Result(
                "pinned memory",
                tested_by=TestedBy(
                    path="../after/run.json",
                    name="run.json",
                    verdict=Verdict.INCONCLUSIVE,
                    comparable=True,
                    before_ms=(1.0, 1.2),
                    after_ms=(0.9, 1.1),
                    change_pct=-9.1,
                ),
            ),
        ),
        Note(id="c" * 32, created=WHEN, updated=WHEN, hypothesis="gone", deleted=True),
    ]


@pytest.fixture
def analysis(tmp_path: Path) -> Analysis:
    return Analysis(load_trace(fixture_trace(tmp_path / "run.pt.trace.json")))


def test_markdown_matches_the_reviewed_expected_file(analysis: Analysis) -> None:
    report = markdown_report(analysis, fixture_notes(), trace_name="run.pt.trace.json")
    assert report == EXPECTED.read_text(encoding="utf-8")


def test_the_figures_are_those_of_the_construction(analysis: Analysis) -> None:
    payload = ReportResult.of(analysis, fixture_notes()).to_json()
    time = payload["time"]
    assert time["steps"] == [2, 3]
    assert time["step_us"] == [1000.0, 1200.0]
    assert time["cpu_us"] == [220.0, 220.0]
    assert time["gpu_us"] == [290.0, 290.0]
    assert time["zone_us"] == [200.0, 400.0]
    assert time["wait_us"] == [200.0, 400.0]
    assert time["wait_kind"] == "gpu_idle"
    resources = payload["resources"]
    assert resources["host_cpu_share"] == pytest.approx(440 / 2200)
    assert resources["device_busy_share"] == pytest.approx(580 / 2200)
    assert resources["data_zone_share"] == pytest.approx(600 / 2200)
    assert [step["phase"] for step in payload["window"]["steps"]] == [
        "startup",
        "startup",
        "active",
        "active",
    ]
    assert payload["window"]["step_stats"]["median_ms"] == pytest.approx(1.1)
    # Costliest first; the data zone's idle is its zone time per window step,
    # the host wait outside it the rest of the stream's idle.
    findings = {finding["id"]: finding for finding in payload["findings"]}
    assert [finding["status"] for finding in payload["findings"]] == [
        "likely",
        "likely",
        "likely",
        "possible",  # the critical path covers 37 % of the step: possible at most
        "possible",
        "minor",  # the Tensor Cores' GEMM is the dominant operator's, claimed above
        "not_seen",
        "not_seen",
        "not_seen",
        "not_seen",
        "not_seen",
        "not_seen",
    ]
    # Launches and copies only, no call that waits for the device.
    assert findings["host_sync"]["status"] == "not_seen"
    costs = [
        f["cost_us_per_step"] for f in payload["findings"] if f["cost_us_per_step"]
    ]
    assert costs == sorted(costs, reverse=True)
    idle = findings["gpu_idle_data_zone"]
    assert idle["cost_us_per_step"] == pytest.approx((200 + 400) / 2)
    assert idle["share_of_step_pct"] == pytest.approx(100 * 300 / 1100)
    assert payload["findings_median_step_us"] == pytest.approx(1100)
    assert findings["dominant_op"]["cost_us_per_step"] == pytest.approx(400 / 2)
    # aten::mm's gemm_kernel (200 µs a step) is no Tensor-Core name: eligible time
    # off them, 100 µs at a 2x speed-up; that kernel is aten::mm's, the dominant
    # operator ranked above: nothing is left to the Tensor Cores.
    assert findings["tensor_cores"]["cost_us_per_step"] == pytest.approx(0)
    bound = findings["tensor_cores"]["cost_bound"]
    assert bound["read_us_per_step"] == pytest.approx(100)
    assert bound["held_by"] == ["dominant_op"]
    assert findings["tensor_cores"]["figures"]["eligible_share"] == pytest.approx(
        200 / 250
    )
    # HTA 0.5.0's critical_path_analysis on this trace: each step's path is
    # 400 µs, 120 µs of it cpu_bound (the largest overhead), 250 µs of kernels.
    critical = findings["critical_path"]
    assert critical["cost_us_per_step"] == pytest.approx(120)
    assert critical["figures"]["path_us_per_step"] == pytest.approx(400)
    assert critical["figures"]["bound_by"] == "gpu_compute_bound"
    assert critical["figures"]["flags"] == ["low_coverage"]
    # The costs that fire hold at most the median step (1100 µs).
    assert sum(costs) == pytest.approx(315 + 300 + 200 + 120 + 40)
    assert [note["id"][0] for note in payload["notes"]] == ["a", "b"]
    assert payload["instrumentation"]["record_shapes"] is False


def test_the_markdown_renders_cleanly_in_the_methods_order(analysis: Analysis) -> None:
    report = markdown_report(analysis, fixture_notes(), trace_name="run.pt.trace.json")
    tokens = MarkdownIt("commonmark").enable("table").parse(report)
    headings = [
        tokens[index + 1].content
        for index, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag == "h2"
    ]
    assert headings == [
        "Capture",
        "Window and start-up",
        "CPU time, GPU work and waiting",
        "Step time as TensorBoard splits it",
        "Findings",
        "Notes",
        "Instrumentation",
        "Resources",
    ]
    # Every table row has as many cells as its header: no untrusted `|` broke one.
    rows: list[int] = []
    widths: list[list[int]] = []
    for token in tokens:
        if token.type == "table_open":
            widths.append([])
        elif token.type == "tr_open":
            rows.append(0)
        elif token.type in ("th_open", "td_open"):
            rows[-1] += 1
        elif token.type == "tr_close":
            widths[-1].append(rows.pop())
    assert len(widths) == 4  # steps, CPU/GPU/waiting, TensorBoard's split, notes
    assert all(len(set(table)) == 1 for table in widths), widths
    html = MarkdownIt("commonmark").enable("table").render(report)
    assert '<a href="../after/run.json">run.json</a>' in html


def test_text_fits_80_columns_and_says_the_same(
    analysis: Analysis, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = report_text(ReportResult.of(analysis, fixture_notes()))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "inconclusive (the ranges of step times overlap)" in " ".join(text.split())
    assert "-9.1%" not in text
    trace = fixture_trace(tmp_path / "cli.json")
    assert main(["report", str(trace), "--md"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("# Report — cli.json\n")
    assert "No notes yet." in markdown
    assert main(["report", str(trace), "--json"]) == 0
    assert '"host_cpu_share": 0.2' in capsys.readouterr().out
    assert main(["report", str(trace), "--zone", "nope"]) == 2


def test_a_trace_without_description_or_steps_still_reports(
    tmp_path: Path,
) -> None:
    trace = write_trace(tmp_path / "bare.json", [])
    result = ReportResult.of(Analysis(load_trace(trace)))
    markdown = report_markdown(result)
    assert "No capture description in this trace" in markdown
    assert "Active window: no complete step was recorded." in markdown
    assert "| step time | no step in the window | no step in the window | – |" in (
        markdown
    )
    assert "Not recorded (no capture description)" in markdown
    assert result.to_json()["resources"]["device_busy_share"] is None


HOSTILE = (
    "![p](http://evil.example/q.png) <script>alert(1)</script> "
    '<img src="http://evil.example/i.png"> [x](javascript:alert(1)) \\[y\\]'
)


def test_markdown_and_html_from_the_trace_and_notes_load_nothing(
    tmp_path: Path,
) -> None:
    """Untrusted text reads as text once rendered: no image, no HTML, no link made
    from a trace string or a note."""
    hostile_description = dict(DESCRIPTION, question=HOSTILE)
    hostile_description["scenario"] = dict(
        DESCRIPTION["scenario"], simplified_note=HOSTILE
    )
    events = metadata()
    for step, read_us in enumerate(READS_US):
        events += training_step_events(step, step * STEP_AT_US, read_us=read_us)
    trace = write_trace(
        tmp_path / "hostile.json", events, extra={"steptrace": hostile_description}
    )
    notes = [
        Note(
            id="d" * 32,
            created=WHEN,
            updated=WHEN,
            observation=HOSTILE,
            hypothesis=HOSTILE,
            next_check=HOSTILE,
            anchor=Anchor.on_op(HOSTILE),
        )
    ]
    report = markdown_report(
        Analysis(load_trace(trace)), notes, trace_name=HOSTILE + ".json"
    )
    html = MarkdownIt("commonmark").enable("table").render(report)
    assert "<img" not in html
    assert "<script" not in html
    assert 'href="javascript' not in html
    assert 'href="http://evil' not in html
    # The text itself is kept, shown as text.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "![p](http://evil.example/q.png)" in html
