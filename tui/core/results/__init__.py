"""Typed results of the headless figures, each with its JSON.

The CLI, the app and the report read the same objects, so a figure has one
definition and one spelling; their words (text, Markdown) live on the
report floor above the core. JSON times are microseconds (floats, exact to
the nanosecond) unless a key says otherwise; GPU figures are None (JSON
null) when no GPU work was observed, never 0.
"""

from tui.core.results.gaps import GapsResult
from tui.core.results.ops import OpsResult
from tui.core.results.summary import SummaryResult

__all__ = ["GapsResult", "OpsResult", "SummaryResult"]
