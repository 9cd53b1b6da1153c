"""The words of a load in progress: the CLI's one line, the loading screen's phase,
and a rank's phase in a run (the CLI's line and the run loading screen alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.core.base.units import size_text

if TYPE_CHECKING:
    from tui.core.ingest.load import LoadProgress
    from tui.core.runs.pool import RankProgress

LINE_WIDTH = 79
SHOWN_WORKERS = 12


def load_line(step: LoadProgress) -> str:
    """What a load is doing, in one line of at most 79 columns (the CLI's stderr)."""
    if step.workers:
        percent = 100 * step.bytes_read / max(step.bytes_total, 1)
        # Each worker's part of the whole: they add up to the percentage.
        shares = " ".join(
            f"{100 * done / max(step.bytes_total, 1):.0f}%"
            for done, _taken in step.workers[:SHOWN_WORKERS]
        )
        more = " …" if len(step.workers) > SHOWN_WORKERS else ""
        line = f"decoding {percent:5.1f}% ({len(step.workers)} workers: {shares}{more})"
    elif step.bytes_total and step.phase.counts_bytes:
        line = f"{step.text} {100 * step.bytes_read / step.bytes_total:5.1f}%"
    elif step.events_total:
        line = f"{step.text} {step.events_done:,} of {step.events_total:,}"
    else:
        line = step.text
    return f"steptrace: {line}"[:LINE_WIDTH]


def load_status(step: LoadProgress) -> str:
    """What a load is doing, under a loading bar (the loading screen's, the comparison's)."""
    total = size_text(step.bytes_total)
    if step.phase.counts_bytes:
        return f"{step.text}: {size_text(step.bytes_read)} of {total}"
    if step.events_total:
        return (
            f"{step.text}: {step.events_done:,} of {step.events_total:,} ({total} read)"
        )
    return f"{step.text} ({total} read)"


def rank_phase(progress: RankProgress) -> str:
    """Where one rank's loading stands (`decoding 40%`)."""
    shown = str(progress.phase)
    if progress.fraction is not None:
        shown += f" {100 * progress.fraction:.0f}%"
    return shown
