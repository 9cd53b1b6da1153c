"""Plain-text layout shared by every text result: 80 columns, untrusted text escaped."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Protocol

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.report.fit import fit_end, fit_middle

TEXT_WIDTH = 80

UNTRACED_MEANS = (
    "time in the data zone when no traced operator runs inside it: "
    "not proven to be waiting"
)
"""What untraced time (a gap without GPU events) is, said where it is first shown."""


class StartupStepLike(Protocol):
    """A timed step before the window (the capture's own or a diff side's)."""

    @property
    def step(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def ms(self) -> float: ...


def startup_parts(
    before_first_step_ms: float | None, steps: Iterable[StartupStepLike]
) -> list[str]:
    """Start-up in words, one part per figure ("12.0 ms before the first step",
    "step 3 (warmup) 40.1 ms"): the report's and the diff's text share them."""
    parts = []
    if before_first_step_ms is not None:
        parts.append(
            f"{duration_text(before_first_step_ms * 1e6)} before the first step"
        )
    parts += [
        f"step {entry.step} ({printable(entry.phase)}) {duration_text(entry.ms * 1e6)}"
        for entry in steps
    ]
    return parts


# A per-step table in text lists at most this many steps; the rest are in --json.
STEP_ROWS_SHOWN = 40


def more_steps_line(total: int, shown: int) -> list[str]:
    """The line under a per-step table cut at `shown` rows (none when nothing is cut)."""
    if total <= shown:
        return []
    return [f"  … {total - shown:,} more steps (every step in --json)"]


def per_step_scope(steps: int) -> str:
    """What per-step figures are averaged over: the window's steps, or the whole
    capture when it has none (`modules`, `compiled`)."""
    return f"per step, mean of {plural(steps, 'step')}" if steps else "whole capture"


def fill(text: str, first: str = "", rest: str = " " * 10) -> list[str]:
    """Wrap `text` at 80 columns after a label; long paths break anywhere."""
    return textwrap.wrap(
        text,
        width=TEXT_WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def cut_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells keeping both ends; the CLI's text gives
    two thirds of the room to the start (the app's columns give half)."""
    return fit_middle(text, width, head=(width - 1) * 2 // 3)


def distinct_cuts(names: list[str], width: int) -> list[str]:
    """Names cut to `width` cells; names whose end-cuts collide keep their distinguishing end instead."""
    cut = [fit_end(name, width) for name in names]
    seen: dict[str, int] = {}
    for shown in cut:
        seen[shown] = seen.get(shown, 0) + 1
    return [
        cut_middle(name, width) if seen[shown] > 1 and shown != name else shown
        for name, shown in zip(names, cut, strict=True)
    ]
