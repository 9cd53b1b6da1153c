"""The findings of a big capture, computed once the main screen shows.

On a capture of many events the readings take a while (0.87 s on the real
138k-event MTIA capture, 0.30 s at 45k: the critical path follows the call
stacks more than the count), so the loading worker leaves them out and the
main screen shows first; this worker computes the same `compute_findings`
and the Findings tab fills in. Small captures (under 0.1 s of readings) get
them with the load, and show them at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.screen import Screen

from tui.app.widgets.findings_panel import FindingsPanel
from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.core.model.trace import Trace

LATER_AT_EVENTS = 10_000
"""Captures of at least this many events get their findings after the main screen
shows (4.8k events: 48 ms of readings; MTIA's first frame 1.15 -> 0.24 s)."""


def after_the_screen(trace: Trace) -> bool:
    """Whether the findings of this capture are computed once the main screen shows."""
    return trace.event_count >= LATER_AT_EVENTS


@dataclass
class FindingsRead(Message):
    """A worker computed the findings of `analysis` (None: it failed, `problem` says why)."""

    analysis: Analysis
    findings: list[Finding] | None
    problem: str | None = None


def start(host: Screen[Any], analysis: Analysis) -> None:
    """Compute the findings of `analysis` in a worker of `host`, which is
    posted `FindingsRead` and hands it to `read`."""

    def compute() -> None:
        from tui.core.findings.readings import compute_findings

        try:
            findings = compute_findings(analysis)
        except Exception as error:  # the screen stays usable; the tab says why
            host.post_message(
                FindingsRead(
                    analysis,
                    None,
                    f"could not compute the findings: {type(error).__name__}: "
                    f"{error} (a steptrace bug: please report it)",
                )
            )
            return
        host.post_message(FindingsRead(analysis, findings))

    host.run_worker(
        compute, thread=True, exclusive=True, exit_on_error=False, group="findings"
    )


def read(
    message: FindingsRead, analysis: Analysis, panel: FindingsPanel
) -> list[Finding] | None:
    """Show the findings computed in `panel`, unless another data zone than
    `analysis` (the one shown) brought its own since; the findings shown, if any."""
    if message.analysis is not analysis:
        return None
    if message.findings is None:
        panel.show_problem(message.problem or "could not compute the findings")
        return None
    panel.follow_analysis(message.analysis, message.findings)
    return message.findings
