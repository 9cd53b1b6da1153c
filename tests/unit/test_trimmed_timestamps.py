"""Timestamps whose trailing zeros torch dropped (`…219.41`, `…219`) parse at C
speed to the same nanoseconds as the exact per-text rule (Decimal)."""

from __future__ import annotations

import numpy as np
import pytest

from tui.core.base import numbers
from tui.core.base.numbers import parse_us_to_ns, us_text_to_ns


def _torch_texts(seed: int, count: int = 3000) -> list[bytes]:
    """Epoch-like µs with 3 decimals, trailing zeros dropped as torch writes them."""
    rng = np.random.default_rng(seed)
    texts = []
    for value in rng.integers(10**15, 10**16, count).tolist():
        if rng.random() < 0.3:
            value -= value % 10 ** int(rng.integers(1, 4))  # one to three zeros
        whole, fraction = divmod(value, 1000)
        decimals = f"{fraction:03d}".rstrip("0")
        texts.append(
            f"{whole}.{decimals}".encode() if decimals else str(whole).encode()
        )
    return texts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trimmed_timestamps_read_as_the_exact_rule(seed: int) -> None:
    texts = _torch_texts(seed)
    assert len({len(text) for text in texts}) > 1  # not the fixed-width case
    assert numbers._parse_trimmed(texts) is not None  # the fast path reads them
    values, valid = parse_us_to_ns(texts)
    assert valid.all()
    assert values.tolist() == [us_text_to_ns(text) for text in texts]


@pytest.mark.parametrize(
    "odd",
    [
        b"123456789012.4",
        b"1234567890123.4567",
        b"1234567890123.",
        b"-1234567890123.5",
        b"1.234567890123e12",
        b"12345678901234",
    ],
    ids=[
        "shorter whole",
        "four decimals",
        "a bare dot",
        "negative",
        "exponent",
        "longer whole",
    ],
)
def test_anything_else_takes_the_exact_path(odd: bytes) -> None:
    texts = [b"1234567890123.418", b"1234567890123.41", odd]
    assert numbers._parse_trimmed(texts) is None
    values, valid = parse_us_to_ns(texts)
    assert valid[:2].all()  # the ordinary ones still read by the exact rule
    assert values[:2].tolist() == [us_text_to_ns(text) for text in texts[:2]]
