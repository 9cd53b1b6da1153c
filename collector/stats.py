"""Small statistics shared by `bench` and `compare`; torch-free.

Raw values are always kept beside these figures: a median and a range say
little without the values they come from.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TypedDict


class Spread(TypedDict):
    """Min, median and max of some values, and how far apart the extremes are."""

    n: int
    min: float
    median: float
    max: float
    spread: float
    spread_pct: float | None


def spread_of(values: Sequence[float]) -> Spread:
    """Summarise `values` without averaging away their extremes."""
    if not values:
        raise ValueError("no values to summarise")
    low, high = min(values), max(values)
    middle = statistics.median(values)
    return {
        "n": len(values),
        "min": low,
        "median": middle,
        "max": high,
        "spread": high - low,
        "spread_pct": (high - low) / middle * 100.0 if middle else None,
    }


def ranges_overlap(first: Spread, second: Spread) -> bool:
    """Whether [min, max] of two summaries share any value: then no order can be claimed."""
    return first["min"] <= second["max"] and second["min"] <= first["max"]
