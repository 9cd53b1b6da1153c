"""What a finding's words are made of: its wording, and its observation of its figures.

Each finding's module declares one `FindingText` (`registry` lists them);
`report/findings.py` and `report/observations.py` read them by the finding's
id, so no other module keys on an id or on a kind of figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tui.core.base.units import plural
from tui.core.base.vocab import FindingId
from tui.core.findings.finding import Figures, Finding

F = TypeVar("F", bound=Figures)


@dataclass(frozen=True)
class Wording:
    """What a finding says besides its observation: title, hypothesis, next check."""

    title: str
    hypothesis: str
    next_check: str


@dataclass(frozen=True)
class FindingText(Generic[F]):
    """One finding's words.

    `observe` words its figures (and whether the pattern is seen) as the
    observation; `reword` adapts the wording to what the figures say (None:
    always `wording`); `without_figures` is the observation of a finding that
    carries none (not seen, and nothing measured).
    """

    id: FindingId
    figures: type[F]
    wording: Wording
    observe: Callable[[F, bool], str]
    reword: Callable[[F, bool, Wording], Wording] | None = None
    without_figures: str = ""

    def said(self, finding: Finding) -> Wording:
        """Title, hypothesis and next check of this finding, as its figures adapt them."""
        figures = finding.figures
        if self.reword is None or not isinstance(figures, self.figures):
            return self.wording
        return self.reword(figures, finding.seen, self.wording)

    def observation(self, finding: Finding) -> str:
        """What the capture shows for this finding, with its figures."""
        figures = finding.figures
        if isinstance(figures, self.figures):
            return self.observe(figures, finding.seen)
        return self.without_figures


def percent(share: float) -> str:
    """A share as a percentage; small ones keep decimals so they do not read 0%."""
    if share < 0.01:
        return f"{share:.2%}"
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"


def over_steps(steps: int) -> str:
    """Where a per-step figure was read: over N steps, or the whole capture."""
    return f"over {plural(steps, 'step')}" if steps else "in the capture (no steps)"
