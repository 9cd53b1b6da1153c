"""Any command's result in words: `text_of` for people, `json_of` for `--json`.

A command computes a typed result from the core and prints it with these,
so each result has one text and one JSON wherever it is shown.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from tui.core.results.copies import CopiesResult
from tui.core.results.diff import DiffResult
from tui.core.results.gaps import GapsResult
from tui.core.results.kernels import KernelsResult
from tui.core.results.memory import MemoryResult
from tui.core.results.ops import OpsResult
from tui.core.results.ranks import RanksResult
from tui.core.results.summary import SummaryResult
from tui.core.results.zones import ZonesResult
from tui.report.copies import copies_text
from tui.report.diff import diff_text
from tui.report.gaps import gaps_text
from tui.report.kernels import kernels_text
from tui.report.memory import memory_text
from tui.report.ops import ops_text
from tui.report.ranks import ranks_json, ranks_text
from tui.report.report import ReportResult
from tui.report.report_text import report_text
from tui.report.summary import summary_text
from tui.report.zones import zones_text


@singledispatch
def text_of(result: object) -> str:
    """A result as the terminal shows it, at most 80 columns."""
    raise TypeError(f"no text for a {type(result).__name__}")


@singledispatch
def json_of(result: Any) -> dict[str, Any]:
    """What `--json` prints for a result: its own JSON, with words where it carries some."""
    payload: dict[str, Any] = result.to_json()
    return payload


text_of.register(SummaryResult)(summary_text)
text_of.register(GapsResult)(gaps_text)
text_of.register(ZonesResult)(zones_text)
text_of.register(OpsResult)(ops_text)
text_of.register(KernelsResult)(kernels_text)
text_of.register(CopiesResult)(copies_text)
text_of.register(MemoryResult)(memory_text)
text_of.register(DiffResult)(diff_text)
text_of.register(RanksResult)(ranks_text)
text_of.register(ReportResult)(report_text)
json_of.register(RanksResult)(ranks_json)
