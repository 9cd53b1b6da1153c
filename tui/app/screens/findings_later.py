"""The findings of a big capture, computed once the main screen shows.

On a capture of many events the readings take a while (about half a second at
3M events), so the loading worker leaves them out and the main screen shows
first; this worker computes the same `compute_findings` and the Findings tab
fills in. Smaller captures get them with the load, and show them at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.messages import FindingsRead
from tui.app.widgets.findings_panel import FindingsPanel
from tui.core.model.trace import Trace

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen

LATER_AT_EVENTS = 500_000
"""Captures of at least this many events get their findings after the main screen shows."""


def after_the_screen(trace: Trace) -> bool:
    """Whether the findings of this capture are computed once the main screen shows."""
    return trace.event_count >= LATER_AT_EVENTS


def start(screen: MainScreen) -> None:
    """Compute the screen's findings in a worker; `read` shows them."""
    analysis = screen.analysis

    def compute() -> None:
        from tui.core.findings.readings import compute_findings

        try:
            findings = compute_findings(analysis)
        except Exception as error:  # the screen stays usable; the tab says why
            screen.post_message(
                FindingsRead(
                    analysis,
                    None,
                    f"could not compute the findings: {type(error).__name__}: "
                    f"{error} (a steptrace bug: please report it)",
                )
            )
            return
        screen.post_message(FindingsRead(analysis, findings))

    screen.run_worker(
        compute, thread=True, exclusive=True, exit_on_error=False, group="findings"
    )


def read(screen: MainScreen, message: FindingsRead) -> None:
    """Show the findings computed, unless another data zone brought its own since."""
    if message.analysis is not screen.analysis:
        return
    panel = screen.query_one(FindingsPanel)
    if message.findings is None:
        panel.show_problem(message.problem or "could not compute the findings")
        return
    screen.findings = message.findings
    panel.follow_analysis(message.analysis, message.findings)
