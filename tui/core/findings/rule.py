"""A finding declared once: its id, its figures, where it points, how it is read.

Each finding's module holds its `FindingRule`; `registry.py` lists them in
the order they are read, and `readings.compute_findings` runs them. A new
finding is its module and one line of the registry: nothing else keys on
its id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.core.base.vocab import FindingId
from tui.core.findings.finding import Figures, Finding, Show

if TYPE_CHECKING:
    from tui.core.figures.analysis import Analysis
    from tui.core.findings.weights import Scale

Read = Callable[["Analysis", "Scale"], Finding]
"""A capture's reading: the finding, weighed against the scale of its steps."""


@dataclass(frozen=True)
class FindingRule:
    """One finding: its id, the figures it carries, the kinds of place it points
    to, and its reading of one capture."""

    id: FindingId
    figures: type[Figures]
    anchors: tuple[type[Show], ...]
    read: Read | None
    """None: read on a run of ranks, not on one capture (`tui.core.runs`)."""
