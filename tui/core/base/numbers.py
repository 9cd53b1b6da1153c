"""Exact parsing of JSON microsecond timestamps into integer nanoseconds.

Kineto writes absolute epochs such as `1712195495519689.047` µs: 19
significant digits, more than float64 holds. Parsing the decimal text
directly keeps every nanosecond, so nesting and gaps are decided on the
values torch recorded, not on rounded ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

_CHUNK_NUMBERS = 1 << 20
# Longest duration kept: 2**61 ns (73 years). With timestamps inside
# [MIN_TIMESTAMP_NS, MAX_TIMESTAMP_NS) every start relative to the earliest one
# plus its duration still fits int64, so no figure wraps around.
MAX_DURATION_US = 2**61 / 1000
MIN_TIMESTAMP_NS = -(2**60)
MAX_TIMESTAMP_NS = 2**62
# 10**k for k in 0..18, the exponents a nanosecond value in int64 can use.
_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)


def parse_us_to_ns(
    texts: Sequence[bytes | memoryview] | Sequence[object],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Parse JSON number texts (µs) to int64 ns, rounding half up below 1 ns.

    Returns the values and a mask of which texts were valid finite numbers.
    Texts that are not plain decimals (exponents, strings, null) go through a
    slow per-item path; strings and non-numbers are invalid.
    """
    count = len(texts)
    fixed = _parse_fixed_width(texts)  # type: ignore[arg-type]
    if fixed is None:
        fixed = _parse_trimmed(texts)  # type: ignore[arg-type]
    if fixed is not None:
        return fixed, np.ones(count, dtype=np.bool_)
    values = np.zeros(count, dtype=np.int64)
    valid = np.zeros(count, dtype=np.bool_)
    for begin in range(0, count, _CHUNK_NUMBERS):
        chunk = texts[begin : begin + _CHUNK_NUMBERS]
        chunk_values, chunk_valid, needs_slow = _parse_chunk(chunk)  # type: ignore[arg-type]
        values[begin : begin + len(chunk)] = chunk_values
        valid[begin : begin + len(chunk)] = chunk_valid
        for offset in np.flatnonzero(needs_slow).tolist():
            parsed = us_text_to_ns(bytes(chunk[offset]))  # type: ignore[call-overload]
            if parsed is not None:
                values[begin + offset] = parsed
                valid[begin + offset] = True
    return values, valid


_MAX_WIDTH = 32
# The most nanosecond digits a value may have and still fit int64 (with a
# leading digit below 9).
_MAX_NS_DIGITS = 19


def _parse_fixed_width(texts: Sequence[bytes]) -> npt.NDArray[np.int64] | None:
    """The usual case at C speed: every text as long as the others, all digits
    but for a dot before exactly three decimals (Kineto's epoch nanoseconds) or
    no dot at all (whole microseconds). None when the texts are anything else.
    """
    count = len(texts)
    if not count:
        return None
    width = len(texts[0])
    if not 0 < width <= _MAX_NS_DIGITS + 1:
        return None
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=count)
    if (lengths != width).any():
        return None
    matrix = np.frombuffer(b"".join(texts), dtype=np.uint8).reshape(count, width)
    has_dot = width > 4 and bool((matrix[:, width - 4] == ord(".")).all())
    if has_dot:
        matrix = np.delete(matrix, width - 4, axis=1)
    places = matrix.shape[1]
    digits = places + (0 if has_dot else 3)
    if digits > _MAX_NS_DIGITS:
        return None
    numbers = matrix - np.uint8(ord("0"))  # not a digit: wraps past 9
    if (numbers > 9).any():
        return None
    if digits == _MAX_NS_DIGITS and (numbers[:, 0] > 8).any():
        return None  # 9 followed by 18 digits may not fit int64
    # Every digit times its power of ten, summed: exact, the total fits int64.
    values: npt.NDArray[np.int64] = numbers.astype(np.int64) @ _POW10[places - 1 :: -1]
    if not has_dot:
        values *= 1000
    return values


def _parse_trimmed(texts: Sequence[bytes]) -> npt.NDArray[np.int64] | None:
    """The other usual case at C speed: the same integer digits in every text,
    then a dot and one to three decimals or nothing (torch's exporter drops a
    timestamp's trailing zeros: `…219.418`, `…219.41`, `…219`). None when the
    texts are anything else.
    """
    count = len(texts)
    if not count:
        return None
    parts = b"\n".join(texts).split(b"\n")
    if len(parts) != count:
        return None
    width = max(map(len, parts))
    if not 0 < width <= _MAX_NS_DIGITS + 1:
        return None
    # Padded on the right with NULs: a missing decimal reads as a 0.
    matrix = np.array(parts, dtype=f"S{width}").view(np.uint8).reshape(count, width)
    first = parts[0]
    point = first.find(b".") if b"." in first else len(first)
    if point == 0 or width - point - 1 > 3:
        return None
    digits = matrix - np.uint8(ord("0"))  # NUL and the dot wrap past 9
    whole = digits[:, :point]
    if (whole > 9).any():
        return None
    if point < width:
        dot = matrix[:, point]
        bare = dot == 0  # no dot: nothing after it either
        present = matrix[:, point + 1 :] != 0  # decimals written (NUL: dropped)
        if (
            not ((dot == ord(".")) | bare).all()
            or (bare[:, None] & present).any()
            or ((digits[:, point + 1 :] > 9) & present).any()
            or (present[:, 1:] & ~present[:, :-1]).any()  # only trailing ones dropped
            or (~bare & ~present[:, :1].any(axis=1)).any()  # `12.` is not JSON
        ):
            return None
    places = point + 3
    if places > _MAX_NS_DIGITS or (
        places == _MAX_NS_DIGITS and (whole[:, 0] > 8).any()
    ):
        return None
    column = np.zeros((count, places), dtype=np.int64)
    column[:, :point] = whole
    tail = digits[:, point + 1 :].astype(np.int64)
    tail[matrix[:, point + 1 :] == 0] = 0
    column[:, point : point + tail.shape[1]] = tail
    values: npt.NDArray[np.int64] = column @ _POW10[places - 1 :: -1]
    return values


def _parse_chunk(
    texts: Sequence[bytes],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Parse plain decimals column by column over a fixed-width byte matrix."""
    count = len(texts)
    parts = b"\n".join(texts).split(b"\n")
    if len(parts) != count:  # a text held a newline: not a number anyway
        parts = [bytes(text) if b"\n" not in bytes(text) else b"x" for text in texts]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=count)
    width = int(min(max(int(lengths.max(initial=1)), 1), _MAX_WIDTH))
    too_long = lengths > _MAX_WIDTH
    if too_long.any():
        parts = [b"x" if len(part) > _MAX_WIDTH else part for part in parts]
    matrix = np.array(parts, dtype=f"S{width}").view(np.uint8).reshape(count, width)
    is_digit = (matrix >= 48) & (matrix <= 57)
    is_dot = matrix == 46
    leading_minus = matrix[:, 0] == 45
    allowed = is_digit | is_dot | (matrix == 0)
    allowed[:, 0] |= leading_minus
    has_dot = is_dot.any(axis=1)
    simple = (
        allowed.all(axis=1)
        & (is_dot.sum(axis=1) <= 1)
        & is_digit.any(axis=1)
        & ~too_long
        & (lengths > 0)
    )
    dot_at = np.where(has_dot, is_dot.argmax(axis=1), lengths)
    values = np.zeros(count, dtype=np.int64)
    for column in range(width):
        digit_here = is_digit[:, column]
        if not digit_here.any():
            continue
        # Exponent of 10 of this digit in nanoseconds (integer digits are µs).
        exponent = np.where(column < dot_at, dot_at - column + 2, dot_at - column + 3)
        simple &= ~(digit_here & (exponent > 18))
        counted = digit_here & (exponent >= 0) & (exponent <= 18)
        digit_value = matrix[:, column].astype(np.int64) - 48
        values += np.where(counted, digit_value * _POW10[np.clip(exponent, 0, 18)], 0)
        # Round half up on the first digit below one nanosecond.
        values += digit_here & (exponent == -1) & (digit_value >= 5)
    values = np.where(leading_minus, -values, values)
    values[~simple] = 0
    needs_slow = ~simple & (lengths > 0)
    return values, simple, needs_slow


def us_text_to_ns(text: bytes | str) -> int | None:
    """One µs number's text as int64 ns, by the rule of every timestamp: its
    decimal digits (never a binary float times 1000), half up below 1 ns.

    None for what is not a finite number, or does not fit int64 ns. The slow
    path of `parse_us_to_ns` (exponent forms and other rarities) and the way
    notes read microseconds typed by hand.
    """
    import decimal

    try:
        raw = text.decode("ascii") if isinstance(text, bytes) else text
        value = decimal.Decimal(raw.strip())
    except (decimal.InvalidOperation, UnicodeDecodeError, ValueError):
        return None
    if not value.is_finite():
        return None
    # Beyond 10**20 µs nothing fits int64 ns; checking first keeps `1e999999999`
    # from overflowing the decimal context or building a huge integer.
    if value and value.adjusted() > 20:
        return None
    nanoseconds = (value * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP)
    result = int(nanoseconds)
    if abs(result) >= 2**63:
        return None
    return result


def duration_us_to_ns(
    values: Sequence[object],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Durations (µs numbers, small enough for float64) to int64 ns; invalid where not a finite number."""
    # numpy would turn True into 1.0 and "5" into 5.0: only plain numbers pass.
    if set(map(type, values)) <= {int, float}:
        try:
            as_float = np.array(values, dtype=np.float64)
        except OverflowError:
            as_float = np.array(
                [_float_or_nan(value) for value in values], dtype=np.float64
            )
    else:
        as_float = np.array(
            [_float_or_nan(value) for value in values], dtype=np.float64
        )
    valid = np.isfinite(as_float) & (np.abs(as_float) < MAX_DURATION_US)
    nanoseconds = np.zeros(len(as_float), dtype=np.int64)
    nanoseconds[valid] = np.rint(as_float[valid] * 1000.0).astype(np.int64)
    return nanoseconds, valid


def _float_or_nan(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.nan
