"""The pageable copies' words: host-to-device copies the driver stages from pageable memory."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text
from tui.core.base.vocab import FindingId
from tui.core.findings.copies import PageableFigures
from tui.report.finding_words.wording import FindingText, Wording, percent


def _pageable_text(figures: PageableFigures) -> str:
    moved = (
        "copies of unknown size from pageable host memory"
        if figures.bytes_per_step is None
        else f"{size_text(figures.bytes_per_step)} copied from pageable host memory"
    )
    rate = (
        ""
        if figures.bytes_per_s is None
        else f" at {figures.bytes_per_s / 1e9:.1f} GB/s"
    )
    scope = (
        f"per step (over {plural(figures.steps, 'step')})"
        if figures.steps
        else "in the capture (no steps)"
    )
    text = (
        f"{moved} {scope}{rate},"
        f" {duration_text(figures.ns_per_step)} of device time per step in"
        f" {figures.count_per_step:g} cop{'y' if figures.count_per_step == 1 else 'ies'}"
    )
    if figures.input_share >= 0.5:
        text += f"; {percent(figures.input_share)} of it moves the batch (input copies)"
    issuer = printable(" > ".join(figures.path[-2:])) if figures.path else ""
    if issuer:
        text += f"; costliest from {issuer}"
    return text


TEXT = FindingText(
    FindingId.PAGEABLE_COPY,
    PageableFigures,
    Wording(
        "Host-to-device copies from pageable memory",
        "these copies may hold the host: from pageable memory the driver stages"
        " each one and the host waits until it is done",
        "pin the host memory (DataLoader pin_memory=True) and copy with"
        " non_blocking=True, then compare the step time",
    ),
    lambda figures, _seen: _pageable_text(figures),
)
