"""Markdown report and terminal text of notes."""

from __future__ import annotations

from typing import Any

from tui.core.base.vocab import GapKind, StepPhase, ZoneSource
from tui.core.figures.zones import ZoneSummary
from tui.core.model.description import CaptureDescription
from tui.core.model.steps import StepStats
from tui.core.results.summary import StepRow, SummaryResult
from tui.notes.model import Anchor, Note, Result, Status
from tui.report.notes import md_cell, render_markdown, render_text

WHEN = "2024-05-01T12:00:00.000000+00:00"
LATER = "2024-05-01T12:05:00.000000+00:00"


def _summary(
    description: dict[str, Any] | None = None, *, gpu_observed: bool = False
) -> SummaryResult:
    if description is None:
        description = {
            "question": "Is compute waiting for data?",
            "scenario": {
                "shapes": "32, 3, 224, 224",
                "batch_size": 32,
                "precision": "bf16",
                "mode": "train",
                "compiled": False,
                "data_source": "synthetic",
                "inputs_simplified": True,
                "simplified_note": "random tensors instead of JPEG decoding",
            },
            "unit": {"name": "samples/s", "samples_per_step": 32},
            "window": {"wait": 1, "warmup": 1, "active": 2},
        }
    steps = [
        (0, StepPhase.STARTUP, 812_400_000),
        (2, StepPhase.ACTIVE, 12_300_000),
        (3, StepPhase.ACTIVE, 12_714_000),
    ]
    return SummaryResult(
        trace_path="/data/run.pt.trace.json.gz",
        capture=CaptureDescription.parse(description or None),
        gpu_observed=gpu_observed,
        gpu_missing_reason=None if gpu_observed else "CPU-only capture",
        events=10,
        span_ns=900_000_000,
        steps=[
            StepRow(number, phase, 0, duration, None, (), None, 0, None)
            for number, phase, duration in steps
        ],
        stats=StepStats.of([12_300_000, 12_714_000]),
        device_busy_ns=None,
        zone=ZoneSummary(GapKind.UNTRACED, (), ZoneSource.NONE, 0, None),
        warnings=["clock \x1b[2Jskew"],
    )


def _notes() -> list[Note]:
    return [
        Note(
            id="a" * 32,
            created=WHEN,
            updated=LATER,
            observation="GPU idle while lecture_batch_cpu runs",
            hypothesis="the input pipeline | does not keep up",
            next_check="same computation,\nbatches prepared in advance",
            status=Status.CONFIRMED,
            anchor=Anchor.at_step(3),
            result=Result(
                "idle gone", before=(12.3, 12.7), after=(9.1, 9.3), unit="ms"
            ),
            revision=4,
        ),
        Note(
            id="b" * 32,
            created=LATER,
            updated=LATER,
            observation="\x1b]0;owned\x07 the same constant copied every step",
            hypothesis="placement is wrong",
            next_check="move it once",
            conflict_of="c" * 32,
        ),
        Note(
            id="d" * 32,
            created=LATER,
            updated=LATER,
            hypothesis="withdrawn idea",
            deleted=True,
        ),
    ]


def test_markdown_report() -> None:
    report = render_markdown(_notes(), _summary(), trace_name="run.pt.trace.json.gz")
    expected = "\n".join(
        [
            "# Notes — run.pt.trace.json.gz",
            "",
            "## Capture",
            "",
            "- **Question:** Is compute waiting for data?",
            "- **Scenario:** shapes 32, 3, 224, 224; batch size 32; precision bf16; "
            "mode train; compiled no; data source synthetic",
            "- **Inputs simplified:** yes (random tensors instead of JPEG decoding). "
            "A simplified input isolates behaviour but no longer represents the full "
            "load.",
            "- **Unit:** samples/s; one step = 32 samples; the figures below are in "
            "ms/step",
            "",
            "## Window",
            "",
            "| step | phase | time |",
            "|---:|---|---:|",
            "| 0 | startup | 812.4 ms |",
            "| 2 | active | 12.3 ms |",
            "| 3 | active | 12.71 ms |",
            "",
            "Active window: 2 steps, median 12.51 ms per step, range 12.3 ms–12.71 ms. "
            "A few steps show the mechanism; they do not establish a distribution.",
            "Start-up steps are kept apart and are not in these figures.",
            "GPU activity: not observed — CPU-only capture. GPU figures read "
            "“not observed”, never 0.",
            "",
            "Warnings:",
            "- clock \\x1b\\[2Jskew",
            "",
            "## Notes",
            "",
            "2 notes, 1 open.",
            "",
            "| observation | hypothesis | next check | status | result |",
            "|---|---|---|---|---|",
            "| step 3 — GPU idle while lecture_batch_cpu runs "
            "| the input pipeline \\| does not keep up "
            "| same computation,<br>batches prepared in advance "
            "| confirmed "
            "| idle gone; before: 12.3, 12.7 ms (median 12.5, range 12.3–12.7 ms); "
            "after: 9.1, 9.3 ms (median 9.2, range 9.1–9.3 ms) |",
            "| \\x1b\\]0;owned\\x07 the same constant copied every step "
            "| placement is wrong | move it once "
            "| open (conflict copy of cccccccc) |  |",
            "",
        ]
    )
    assert report == expected


def test_markdown_without_figures_still_lists_notes() -> None:
    report = render_markdown(
        _notes(), None, trace_name="x.json", figures_unavailable="not a trace"
    )
    assert "Capture figures unavailable (not a trace)." in report
    assert "## Window" not in report
    assert "| placement is wrong |" in report
    assert "withdrawn idea" not in report


def test_markdown_without_description_or_notes() -> None:
    summary = _summary({}, gpu_observed=True)
    report = render_markdown([], summary)
    assert report.startswith("# Notes — /data/run.pt.trace.json.gz\n")
    assert "question, scenario and unit were not recorded" in report
    assert "GPU activity: observed." in report
    assert report.endswith("## Notes\n\nNo notes yet.\n")


def test_md_cell_cannot_end_the_cell() -> None:
    assert md_cell("a|b") == "a\\|b"
    assert md_cell("a\\|b") == "a\\\\\\|b"
    assert md_cell("one\r\ntwo") == "one<br>two"
    assert md_cell("\x1b[31mred\u202e") == "\\x1b\\[31mred\\u202e"


def test_text_escapes_and_never_interprets_markup() -> None:
    text = render_text(_notes())
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;owned\\x07" in text
    assert "aaaaaaaa  [confirmed]  step 3" in text
    assert "(conflict copy of cccccccc)" in text
    assert "  next check:  same computation,\n               batches prepared" in text
    assert "withdrawn idea" not in text
