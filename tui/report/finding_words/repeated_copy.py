"""The repeated copy's words: the same host-to-device copy in every step."""

from __future__ import annotations

import dataclasses

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text
from tui.core.base.vocab import FindingId
from tui.core.findings.copies import CopyFigures
from tui.report.finding_words.wording import FindingText, Wording


def _reword(figures: CopyFigures, seen: bool, wording: Wording) -> Wording:
    """A seen copy may be the batch after all: the hypothesis says when it holds."""
    if not seen:
        return wording
    hypothesis = (
        "if this copy carries the same constant each time (not the batch), "
        + wording.hypothesis
    )
    return dataclasses.replace(wording, hypothesis=hypothesis)


def _copy_text(figures: CopyFigures, seen: bool) -> str:
    inputs = (
        f"; {plural(figures.input_copies, 'input copy', 'input copies')} (the batch,"
        " issued in or right after the data zone) left out"
        if figures.input_copies
        else ""
    )
    if not seen or not figures.copies:
        return (
            "no host-to-device copy of the same size from the same operator in all "
            f"{figures.steps} steps ({figures.distinct_copies} distinct copies"
            f" seen){inputs}"
        )
    first = figures.copies[0]
    size = "unknown size" if first.bytes is None else size_text(first.bytes)
    memory = "" if first.host_memory is None else f", {first.host_memory.value}"
    issuer = printable(" > ".join(first.path[-2:])) if first.path else "no operator"
    copy = (
        f"{size}{memory} from {issuer}, ×{first.count_per_step:g}"
        f" and {duration_text(first.ns_per_step)} per step"
    )
    if figures.repeated_copies == 1:
        return (
            f"the same host-to-device copy in each of the {figures.steps} steps:"
            f" {copy}{inputs}"
        )
    return (
        f"{figures.repeated_copies} host-to-device copies of the same size from the"
        f" same operator in each of the {figures.steps} steps,"
        f" {duration_text(figures.ns_per_step)} per step in all; costliest:"
        f" {copy}{inputs}"
    )


TEXT = FindingText(
    FindingId.REPEATED_COPY,
    CopyFigures,
    Wording(
        "The same host-to-device copy repeated each step",
        "its placement or lifetime may be wrong",
        "move it to the device once, then check the output is unchanged",
    ),
    _copy_text,
    _reword,
)
