"""The status line's parts give way by rank."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from tests.builders.traces import cpu, gpu, metadata, write_trace
from tui.core.figures.analysis import Analysis
from tui.core.ingest.load import load_trace
from tui.view.status import ALWAYS, Part, StatusLine, event_info


def _line() -> StatusLine:
    return StatusLine(
        (
            Part(Text("step 5"), ALWAYS),
            Part(Text(" (active)"), 6),
            Part(Text("  9.950 ms"), 7),
            Part(Text("  GPU busy 2.896 ms"), 5),
            Part(
                Text("  lecture_batch_cpu_with_a_long_name 3.000 ms"),
                3,
                Text("  lecture…name 3.000 ms"),
            ),
            Part(Text("  Enter: details"), 0),
        )
    )


def test_the_whole_line_when_it_fits() -> None:
    line = _line()
    assert line.fit(200).plain == line.plain
    assert line.fit(0).plain == line.plain  # width unknown


def test_the_lowest_ranked_parts_are_shortened_then_dropped() -> None:
    line = _line()
    assert line.fit(60).plain == "step 5 (active)  9.950 ms  GPU busy 2.896 ms"
    assert line.fit(70).plain == (
        "step 5 (active)  9.950 ms  GPU busy 2.896 ms  lecture…name 3.000 ms"
    )
    assert line.fit(26).plain == "step 5 (active)  9.950 ms"


def test_what_must_stay_is_cut_at_a_word_end() -> None:
    line = StatusLine((Part(Text("launched by aten::addmm  ampere_sgemm"), ALWAYS),))
    assert line.fit(20).plain == "launched by…"


def test_a_kernel_reads_as_in_the_kernel_tables(tmp_path: Path) -> None:
    """The status line names a kernel as every table does."""
    raw = (
        "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
        "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
    )
    path = write_trace(
        tmp_path / "k.json",
        [*metadata(), cpu("aten::fill_", 0, 50), gpu(raw, 10, 20)],
    )
    analysis = Analysis(load_trace(path))
    trace = analysis.trace
    kernel = next(i for i in range(trace.event_count) if trace.event_name(i) == raw)
    line = event_info(analysis, kernel, trace.span_ns).plain
    assert line.startswith(
        "vectorized_elementwise_kernel<4, FillFunctor<float>, Array<char*, 1>>  20 µs"
    ), line
