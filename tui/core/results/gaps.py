"""`steptrace gaps`: device idle (or untraced time) inside the data zone, weighed.

Gaps are listed from a floor up (`--min-us`, default the findings' sliver:
10 µs), at most `--limit` of them, the largest kept; the slivers under the
floor and the gaps past the limit are each summed in one line, never listed
one by one, so two thousand slivers never hide the six gaps that matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import Gap, ZoneSummary
from tui.core.findings.weights import SLIVER_NS


@dataclass(frozen=True)
class GapsLeftOut:
    """Gaps summed, not listed: how many, and their time."""

    count: int
    total_ns: int

    def to_json(self) -> dict[str, Any]:
        """Count and time in µs."""
        return {"count": self.count, "total_us": us(self.total_ns)}


@dataclass(frozen=True)
class GapsResult:
    """The data zone's totals and its gaps from the floor up, in time order."""

    gpu_observed: bool
    zone: ZoneSummary
    gaps: list[Gap]
    min_ns: int = SLIVER_NS
    limit: int | None = None
    slivers: GapsLeftOut = GapsLeftOut(0, 0)
    """Gaps under the floor."""
    past_limit: GapsLeftOut = GapsLeftOut(0, 0)
    """Gaps over the floor left out by the limit (the smallest ones)."""

    @classmethod
    def of(
        cls, analysis: Analysis, min_ns: int = SLIVER_NS, limit: int | None = None
    ) -> GapsResult:
        """The gaps of an analysed trace from `min_ns` up, at most `limit` (largest
        kept); only those listed are made `Gap`s."""
        reading = analysis.zone_reading
        durations = reading.gap_columns.duration_ns
        small = durations < min_ns
        sizeable = np.flatnonzero(~small)
        kept = sizeable
        if limit is not None and sizeable.size > limit:
            largest = np.argsort(-durations[sizeable], kind="stable")[:limit]
            kept = sizeable[np.sort(largest)]
        dropped = ~small  # over the floor, not listed (setdiff1d imports numpy.ma)
        dropped[kept] = False
        return cls(
            analysis.trace.gpu_observed,
            ZoneSummary.of(reading),
            reading.gaps_at(kept),
            min_ns,
            limit,
            GapsLeftOut(int(small.sum()), int(durations[small].sum())),
            GapsLeftOut(int(dropped.sum()), int(durations[dropped].sum())),
        )

    @property
    def listed_share(self) -> float | None:
        """The share of all gaps' time the listed ones hold (None without gap time)."""
        listed = sum(gap.duration_ns for gap in self.gaps)
        whole = listed + self.slivers.total_ns + self.past_limit.total_ns
        return listed / whole if whole > 0 else None

    def to_json(self) -> dict[str, Any]:
        """What `steptrace gaps --json` prints."""
        zone = self.zone
        return {
            "gpu_observed": self.gpu_observed,
            "kind": zone.kind.value,
            "zones": list(zone.names),
            "source": zone.source.value,
            "total_zone_us": us(zone.total_zone_ns),
            "total_gap_us": None
            if zone.total_gap_ns is None
            else us(zone.total_gap_ns),
            "min_us": us(self.min_ns),
            "limit": self.limit,
            "listed_share_pct": None
            if self.listed_share is None
            else 100.0 * self.listed_share,
            "slivers": self.slivers.to_json(),
            "past_limit": self.past_limit.to_json(),
            "gaps": [
                {
                    "zone": gap.zone,
                    "step": gap.step,
                    "start_us": us(gap.start_ns),
                    "duration_us": us(gap.duration_ns),
                    "kind": gap.kind.value,
                    "device": gap.device,
                }
                for gap in self.gaps
            ],
        }
