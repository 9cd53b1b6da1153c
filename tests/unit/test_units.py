"""One spelling for each kind of number."""

from __future__ import annotations

import pytest

from tui.core.base.units import duration_text, plural, size_text


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        (230_000, "230 µs"),  # whole microseconds: no ".000"
        (182_114_000, "182.1 ms"),  # 4 significant digits, not 182.11400
        (493_000, "493 µs"),
        (1_663_199, "1.663 ms"),
        (49_313_000, "49.31 ms"),
        (9_950_000, "9.95 ms"),
        (850, "850 ns"),
        (999_960, "1 ms"),  # rounding up moves to the next unit
        (13_336_000_000, "13.34 s"),
        (-1_500_000, "-1.5 ms"),
        (0, "0 ns"),
    ],
)
def test_durations_keep_four_significant_digits(nanoseconds: int, text: str) -> None:
    assert duration_text(nanoseconds) == text


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (1, "1 byte"),
        (1_296, "1.27 KiB"),
        (4_194_304, "4 MiB"),
        (4_194_000, "4 MiB"),
        (512, "512 bytes"),
        (3 * 1024**3, "3 GiB"),
        (157 * 1024**2 + 300 * 1024, "157 MiB"),
    ],
)
def test_sizes_are_binary_units(count: int, text: str) -> None:
    assert size_text(count) == text


def test_plurals() -> None:
    assert plural(1, "call") == "1 call"
    assert plural(2, "call") == "2 calls"
    assert plural(1_234, "occurrence") == "1,234 occurrences"
    assert plural(0, "match", "matches") == "0 matches"


def test_labels_are_cut_after_a_whole_word() -> None:
    from tui.report.fit import fit_words

    cut = fit_words("CPU time: some thread runs an operator or runtime call", 38)
    assert cut == "CPU time: some thread runs an…"
    assert fit_words("waiting: GPU idle", 38) == "waiting: GPU idle"


def test_the_verdicts_reasons_spell_durations_alike() -> None:
    from tui.core.diff.kept import kept_steps
    from tui.core.diff.stalls import StepExtra
    from tui.core.diff.steps import kept_verdict

    extras = tuple(
        StepExtra(step, stall, 0, 0, stall, ("cudaMalloc",) if stall else ())
        for step, stall in ((1, 20_000_000), (2, 0), (3, 0), (4, 0))
    )
    before = kept_steps(
        (1, 2, 3, 4), (30_000_000, 10_000_000, 10_400_000, 10_200_000), extras
    )
    assert before.set_aside[0].why.startswith(
        "runtime stall: the window's first step is 19.8 ms above the median of "
        "the others (10.2 ms), 20 ms of it in runtime stall (cudaMalloc)"
    )
    after = kept_steps((1, 2, 3), (10_100_000, 10_300_000, 10_500_000))
    reason = kept_verdict(before, after).reason
    assert "ranges overlap: 10 ms–10.4 ms before, 10.1 ms–10.5 ms after" in reason
