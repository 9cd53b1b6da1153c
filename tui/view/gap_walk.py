"""Walking the data zone's gaps (g / G): which gap is next, and the view that shows it.

Gaps shorter than a threshold the user cycles through (`J`) are skipped, so
that `g` does not walk slivers of a microsecond or two; and the view fits a
gap too small to see in its zone occurrence around the gap itself, so each
`g` moves the view.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.core.base.units import duration_text

GAP_THRESHOLDS_NS = (0, 10_000, 100_000, 1_000_000, 10_000_000)
"""The shortest gap g and G stop at, in the order J walks them."""
DEFAULT_GAP_THRESHOLD_NS = 10_000
VISIBLE_SHARE = 0.05
"""A gap at least this share of its zone occurrence shows when the view fits it."""
CONTEXT_SPANS = 2
"""How many of its own lengths a small gap is shown with on each side."""


def next_threshold(threshold_ns: int) -> int:
    """The threshold after `threshold_ns` (after the last: none)."""
    later = [value for value in GAP_THRESHOLDS_NS if value > threshold_ns]
    return later[0] if later else GAP_THRESHOLDS_NS[0]


def threshold_words(threshold_ns: int) -> str:
    """`gaps under 10 µs skipped`, or that every gap is walked."""
    if threshold_ns <= 0:
        return "every gap walked"
    return f"gaps under {duration_text(threshold_ns)} skipped"


def next_gap(
    durations_ns: Sequence[int], current: int | None, delta: int, threshold_ns: int
) -> int | None:
    """The next (`delta` > 0) or previous gap at least `threshold_ns` long after
    `current` (None: from the start, or the end), wrapping; None when none is."""
    count = len(durations_ns)
    if count == 0:
        return None
    step = 1 if delta > 0 else -1
    if current is None:
        start = 0 if step > 0 else count - 1
    else:
        start = (current + step) % count
    for offset in range(count):
        index = (start + step * offset) % count
        if durations_ns[index] >= threshold_ns:
            return index
    return None


def gap_view(gap: tuple[int, int], zone: tuple[int, int]) -> tuple[int, int]:
    """The view showing a gap: its zone occurrence with a margin when the gap is
    visible there, else the gap with `CONTEXT_SPANS` of its length each side."""
    gap_start, gap_end = gap
    zone_start, zone_end = zone
    gap_ns = max(gap_end - gap_start, 1)
    zone_ns = max(zone_end - zone_start, 1)
    if gap_ns >= VISIBLE_SHARE * zone_ns:
        margin = max(zone_ns // 10, 1)
        return max(zone_start - margin, 0), zone_end + margin
    context = CONTEXT_SPANS * gap_ns
    return max(gap_start - context, 0), gap_end + context
