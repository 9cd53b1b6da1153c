"""The method's readings, computed from a capture: figures, cost and a place to show, no words.

Each reading is a *possible* observation, never a proven cause, weighed by
what it costs per step (`weights`). When the capture lacks what a reading
needs (no GPU events, no steps, no data zone) it is NOT_OBSERVED with the
reason, instead of reporting zero. The rules are registered once, in their
order (`registry.py`); the wording lives on the report floor
(`report/findings.py`), so the app, the CLI and the report word them alike
and never branch on ids to find figures.
"""

from __future__ import annotations

from tui.core.figures.analysis import Analysis
from tui.core.findings.finding import Finding
from tui.core.findings.ranking import disjoint_costs
from tui.core.findings.registry import RULES
from tui.core.findings.weights import DEFAULT_MIN_SHARE, scale_of


def compute_findings(
    analysis: Analysis, min_share: float = DEFAULT_MIN_SHARE
) -> list[Finding]:
    """Every reading of one capture (each registered rule), costliest first, with
    costs made disjoint (`ranking.py`): together they hold at most the median step."""
    scale = scale_of(analysis, min_share)
    read = [rule.read(analysis, scale) for rule in RULES if rule.read]
    return disjoint_costs(read, analysis, scale)
