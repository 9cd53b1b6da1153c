"""The host syncs' words: the host waits on the device, then the device on the host."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.base.vocab import FindingId
from tui.core.findings.syncs import SyncFigures
from tui.report.finding_words.wording import FindingText, Wording, over_steps


def _sync_text(figures: SyncFigures) -> str:
    scope = over_steps(figures.steps)
    text = (
        f"{plural(figures.syncs, 'host synchronisation')} {scope}"
        f" ({figures.syncs_per_step:.3g} per step):"
        f" the host waited {duration_text(figures.blocked_ns_per_step)} per step,"
        " then the device idled"
        f" {duration_text(figures.idle_after_ns_per_step)} per step before its"
        f" next work; the costliest is a {printable(figures.name)}"
        f" ({figures.kind.value})"
    )
    if figures.operator is not None:
        text += (
            f"; {printable(figures.operator)}'s syncs cost"
            f" {duration_text(figures.operator_ns_per_step)} per step"
        )
    return text


TEXT = FindingText(
    FindingId.HOST_SYNC,
    SyncFigures,
    Wording(
        "The host waits on the device (synchronisations)",
        "these synchronisations may hold the step: the host waits until the"
        " device's queue is drained, then the device may idle until the host"
        " launches work again",
        "remove the .item()/sync or move it off the step's critical path, e.g."
        " log metrics every N steps, then compare the step time"
        " (steptrace syncs lists each sync with its operator)",
    ),
    lambda figures, _seen: _sync_text(figures),
    without_figures="no host synchronisation in the window",
)
