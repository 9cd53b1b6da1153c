"""How sizes and durations read: one spelling everywhere (CLI, app, report)."""

from __future__ import annotations


def size_text(count: int) -> str:
    """A byte count people read at a glance."""
    if count < 10_000:
        return f"{count} bytes"
    if count < 10_000_000:
        return f"{count / 1e3:.0f} kB"
    if count < 10_000_000_000:
        return f"{count / 1e6:.0f} MB"
    return f"{count / 1e9:.1f} GB"


NOT_OBSERVED = "not observed"


def duration_text(nanoseconds: float | None) -> str:
    """A duration with a unit that keeps 3-4 significant digits: `13.336 s`, `35.116 ms`, `850 ns`."""
    if nanoseconds is None:
        return NOT_OBSERVED
    value = float(nanoseconds)
    if abs(value) >= 1e9:
        return f"{value / 1e9:.3f} s"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3f} ms"
    if abs(value) >= 1e3:
        return f"{value / 1e3:.3f} µs"
    return f"{value:.0f} ns"


def us(nanoseconds: int | float) -> float:
    """Nanoseconds to microseconds (JSON times)."""
    return float(nanoseconds) / 1000.0


def ms(nanoseconds: int | float) -> float:
    """Nanoseconds to milliseconds."""
    return float(nanoseconds) / 1e6
