"""Typed results of the headless figures: each renders itself to JSON and to text.

The CLI, the app and the report read the same objects, so a figure has one
definition and one spelling. JSON times are microseconds (floats, exact to
the nanosecond) unless a key says otherwise; GPU figures are None (JSON null)
when no GPU work was observed, never 0.
"""

from tui.core.results.gaps import GapsResult
from tui.core.results.observed import gpu_missing_reason
from tui.core.results.ops import OpsResult
from tui.core.results.summary import SummaryResult

__all__ = ["GapsResult", "OpsResult", "SummaryResult", "gpu_missing_reason"]
