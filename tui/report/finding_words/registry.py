"""Every finding's words, registered once by its id.

`report/findings.py` and `report/observations.py` read a finding's words
here; a new finding adds its words module and one line below.
"""

from __future__ import annotations

from typing import Any

from tui.core.base.vocab import FindingId
from tui.report.finding_words import (
    compilation,
    critical,
    data_zone,
    device_bound,
    dominant,
    graph_break,
    host_bound,
    host_sync,
    late_rank,
    pageable_copy,
    repeated_copy,
    small_launches,
    tensor_cores,
)
from tui.report.finding_words.wording import FindingText

TEXTS: tuple[FindingText[Any], ...] = (
    data_zone.TEXT,
    repeated_copy.TEXT,
    pageable_copy.TEXT,
    host_bound.TEXT,
    small_launches.TEXT,
    dominant.TEXT,
    tensor_cores.TEXT,
    late_rank.TEXT,
    host_sync.TEXT,
    critical.TEXT,
    device_bound.TEXT,
    compilation.TEXT,
    graph_break.TEXT,
)

BY_ID: dict[FindingId, FindingText[Any]] = {text.id: text for text in TEXTS}


def text_of(finding_id: FindingId) -> FindingText[Any]:
    """A finding's words, by its id."""
    return BY_ID[finding_id]
