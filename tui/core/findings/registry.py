"""Every finding, registered once, in the order a capture's readings are run.

`readings.compute_findings` runs each rule that reads one capture; the run's
reading (late rank) is read on runs but declares its figures here too. A new
finding is its own module (its figures, its rule, where it points) and one
line below; the report floor words it from its own module
(`tui/report/finding_words`), and nothing else keys on its id.
"""

from __future__ import annotations

from tui.core.base.vocab import FindingId
from tui.core.findings import (
    compilation,
    copies,
    critical,
    data_zone,
    device_bound,
    dominant,
    graph_breaks,
    host_bound,
    late_rank,
    small_launches,
    syncs,
    tensor_cores,
)
from tui.core.findings.rule import FindingRule

RULES: tuple[FindingRule, ...] = (
    compilation.RULE,
    graph_breaks.RULE,
    data_zone.RULE,
    device_bound.RULE,
    host_bound.RULE,
    copies.REPEATED_RULE,
    copies.PAGEABLE_RULE,
    small_launches.RULE,
    dominant.RULE,
    tensor_cores.RULE,
    syncs.RULE,
    critical.RULE,
    late_rank.RULE,
)

BY_ID: dict[FindingId, FindingRule] = {rule.id: rule for rule in RULES}
