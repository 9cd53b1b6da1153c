"""Find and replace what in a trace identifies people or places, before sharing it.

Textual-free and torch-free: used by `steptrace scrub` and by the app.
"""

from __future__ import annotations

from tui.scrub.io import ScrubError
from tui.scrub.report import (
    CheckReport,
    Example,
    KindSummary,
    ScrubOptions,
    ScrubReport,
    format_check,
    format_scrub,
)
from tui.scrub.scrub import check_file, scrub_file

__all__ = [
    "CheckReport",
    "Example",
    "KindSummary",
    "ScrubError",
    "ScrubOptions",
    "ScrubReport",
    "check_file",
    "format_check",
    "format_scrub",
    "scrub_file",
]
