"""`steptrace gaps`: device idle (or CPU wait) inside the data zone, gap by gap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import Gap, ZoneSummary


@dataclass(frozen=True)
class GapsResult:
    """The data zone's totals and every gap, in time order."""

    gpu_observed: bool
    zone: ZoneSummary
    gaps: list[Gap]

    @classmethod
    def of(cls, analysis: Analysis) -> GapsResult:
        """The gaps of an analysed trace."""
        reading = analysis.zone_reading
        return cls(
            analysis.trace.gpu_observed,
            ZoneSummary.of(reading),
            list(reading.gaps),
        )

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
