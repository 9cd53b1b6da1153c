"""How sizes read in messages: one spelling everywhere."""

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
