"""The status line's parts give way by rank (issue 23, item 13)."""

from __future__ import annotations

from rich.text import Text

from tui.view.status import ALWAYS, Part, StatusLine


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
