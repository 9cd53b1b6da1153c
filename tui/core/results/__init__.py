"""Typed results of the headless figures, each with its JSON.

The CLI, the app and the report read the same objects, so a figure has one
definition and one spelling; their words (text, Markdown) live on the
report floor above the core. JSON times are microseconds (floats, exact to
the nanosecond) unless a key says otherwise; GPU figures are None (JSON
null) when no GPU work was observed, never 0.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.core.results.gaps import GapsResult
    from tui.core.results.ops import OpsResult
    from tui.core.results.summary import SummaryResult

__all__ = ["GapsResult", "OpsResult", "SummaryResult"]

# Imported when first named: a command imports only its own result's module.
_MODULES = {"GapsResult": "gaps", "OpsResult": "ops", "SummaryResult": "summary"}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
