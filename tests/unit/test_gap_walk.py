"""g and G skip gaps under the threshold J walks, and each move fits a view that
shows the gap (so the view moves even between slivers of one zone occurrence)."""

from __future__ import annotations

from tui.view.gap_walk import (
    DEFAULT_GAP_THRESHOLD_NS,
    GAP_THRESHOLDS_NS,
    gap_view,
    next_gap,
    next_threshold,
    threshold_words,
)

US = 1_000
SLIVERS_AND_GAPS = [2 * US, 1 * US, 500 * US, 2 * US, 40 * US, 1 * US]


def test_slivers_under_the_threshold_are_skipped() -> None:
    walk, index = [], None
    for _ in range(3):
        index = next_gap(SLIVERS_AND_GAPS, index, 1, DEFAULT_GAP_THRESHOLD_NS)
        walk.append(index)
    assert walk == [2, 4, 2]  # wraps, never a 1-2 µs sliver
    assert next_gap(SLIVERS_AND_GAPS, None, -1, DEFAULT_GAP_THRESHOLD_NS) == 4
    assert next_gap(SLIVERS_AND_GAPS, 4, -1, DEFAULT_GAP_THRESHOLD_NS) == 2


def test_no_threshold_walks_every_gap() -> None:
    assert next_gap(SLIVERS_AND_GAPS, None, 1, 0) == 0
    assert next_gap(SLIVERS_AND_GAPS, 0, 1, 0) == 1
    assert next_gap(SLIVERS_AND_GAPS, 5, 1, 0) == 0


def test_none_long_enough_is_none() -> None:
    assert next_gap(SLIVERS_AND_GAPS, None, 1, 1_000 * US) is None
    assert next_gap([], None, 1, 0) is None


def test_j_walks_the_thresholds_and_wraps_to_none() -> None:
    seen = [DEFAULT_GAP_THRESHOLD_NS]
    for _ in GAP_THRESHOLDS_NS:
        seen.append(next_threshold(seen[-1]))
    assert seen[-1] == DEFAULT_GAP_THRESHOLD_NS
    assert 0 in seen and max(seen) == GAP_THRESHOLDS_NS[-1]
    assert threshold_words(0) == "every gap walked"
    assert threshold_words(100 * US) == "gaps under 100 µs skipped"


def test_a_visible_gap_fits_its_zone_occurrence() -> None:
    zone = (1_000 * US, 2_000 * US)
    assert gap_view((1_200 * US, 1_400 * US), zone) == (900 * US, 2_100 * US)


def test_a_sliver_fits_around_itself_so_the_view_moves() -> None:
    zone = (1_000 * US, 2_000 * US)
    first = gap_view((1_100 * US, 1_102 * US), zone)
    second = gap_view((1_500 * US, 1_502 * US), zone)
    assert first == (1_096 * US, 1_106 * US)
    assert second != first and second[0] < 1_500 * US < 1_502 * US < second[1]
