"""How sizes and durations read: one spelling everywhere (CLI, app, report)."""

from __future__ import annotations

_SIZE_UNITS = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def size_text(count: int) -> str:
    """A byte count in one system (binary units, 3 significant digits):
    `512 bytes`, `1.27 KiB`, `4 MiB`, `2.5 GiB`."""
    for unit, scale in _SIZE_UNITS:
        if abs(count) >= scale * 0.9995:
            return f"{_significant(count / scale, 3)} {unit}"
    return plural(count, "byte")


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 call`, `2 calls`, `1,234 occurrences` (`many`: an irregular plural)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def _significant(value: float, digits: int) -> str:
    """`value` with at most `digits` significant digits, no trailing zeros."""
    if value == 0:
        return "0"
    whole = len(str(int(abs(round(value, digits)))))
    decimals = max(digits - whole, 0)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


NOT_OBSERVED = "not observed"


_DURATION_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3))


def duration_text(nanoseconds: float | None) -> str:
    """A duration with the unit its size calls for and at most 4 significant
    digits, no trailing zeros: `13.34 s`, `182.1 ms`, `230 µs`, `850 ns`."""
    if nanoseconds is None:
        return NOT_OBSERVED
    value = float(nanoseconds)
    for unit, scale in _DURATION_UNITS:
        # 999.96 µs rounds to 1000 µs: it reads 1 ms
        if abs(value) >= scale * 0.99995:
            return f"{_significant(value / scale, 4)} {unit}"
    return f"{_significant(value, 4) if abs(value) < 1 else f'{value:.0f}'} ns"


def us(nanoseconds: int | float) -> float:
    """Nanoseconds to microseconds (JSON times)."""
    return float(nanoseconds) / 1000.0


def ms(nanoseconds: int | float) -> float:
    """Nanoseconds to milliseconds."""
    return float(nanoseconds) / 1e6


_SIZE_FACTORS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str) -> int | None:
    """A size as people write it (`8G`, `512M`, `1.5GiB`, `4096`) in bytes; None
    when it is not one, or not positive. Units are powers of 1024."""
    words = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = words[-1:] if words[-1:] in _SIZE_FACTORS else ""
    number = words[: len(words) - len(unit)].strip()
    try:
        value = float(number)
    except ValueError:
        return None
    if not value > 0 or value == float("inf"):
        return None
    return int(value * _SIZE_FACTORS[unit])
