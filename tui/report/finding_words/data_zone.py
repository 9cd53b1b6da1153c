"""The data zone's words: the device idles (or time goes untraced) while the batch is read."""

from __future__ import annotations

import dataclasses

from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import DataLoading, FindingId, GapKind
from tui.core.findings.data_zone import IdleFigures
from tui.core.findings.weights import SLIVER_NS
from tui.report.finding_words.wording import FindingText, Wording, percent

_LOADING_CHECKS = {
    DataLoading.MAIN_THREAD: (
        "the batches are loaded on the main thread (DataLoader num_workers=0): load"
        " them in worker processes (num_workers > 0, pin_memory=True) and compare"
        " the step time"
    ),
    DataLoading.WORKERS: (
        "the batches come from worker processes: try more workers or a larger"
        " prefetch_factor (with pin_memory=True) and compare the step time"
    ),
}


_LOADING_WORDS = {
    DataLoading.MAIN_THREAD: "; the DataLoader loads on the main thread (num_workers=0)",
    DataLoading.WORKERS: "; the DataLoader loads in worker processes",
}


def _reword(figures: IdleFigures, seen: bool, wording: Wording) -> Wording:
    """Untraced time on a capture without GPU events; the next check by how the
    DataLoader loads."""
    if figures.kind is GapKind.UNTRACED:
        wording = dataclasses.replace(
            wording,
            title="Untraced time in the data zone (no GPU events)",
            hypothesis="the input pipeline may not keep up with the computation",
        )
    if figures.loading is not None:
        wording = dataclasses.replace(
            wording, next_check=_LOADING_CHECKS[figures.loading]
        )
    return wording


def _idle_text(figures: IdleFigures, seen: bool) -> str:
    loading = _LOADING_WORDS.get(figures.loading, "") if figures.loading else ""
    if figures.kind is GapKind.UNTRACED:
        return (
            f"{duration_text(figures.idle_ns)} of the {duration_text(figures.zone_ns)}"
            f" in the data zone ({percent(figures.share)}) ran outside any traced"
            " operator (time not proven to be waiting)" + loading
        )
    text = (
        f"the device was idle {duration_text(figures.idle_ns)} of the"
        f" {duration_text(figures.zone_ns)} spent in the data zone"
        f" ({percent(figures.share)})"
    )
    if not seen:
        return text + "; the device stayed busy while data was read" + loading
    if figures.gaps and figures.sizeable_gaps < figures.gaps:
        slivers = figures.gaps - figures.sizeable_gaps
        text += (
            f"; {plural(figures.sizeable_gaps, 'gap')} of {duration_text(SLIVER_NS)}"
            f" or more hold {percent(figures.sizeable_share)} of it"
            f" ({plural(slivers, 'sliver')} the rest)"
        )
    else:
        text += f", in {plural(figures.gaps, 'gap')}"
    return text + loading


TEXT = FindingText(
    FindingId.GPU_IDLE_DATA_ZONE,
    IdleFigures,
    Wording(
        "GPU idle during the data zone",
        "the input pipeline may not keep up with the device",
        "run the same computation with batches prepared in advance and compare "
        "the step time",
    ),
    _idle_text,
    _reword,
)
