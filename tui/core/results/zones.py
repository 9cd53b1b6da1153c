"""`steptrace zones`: the ranges of a capture that can be its data zone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import ZoneCandidate


@dataclass(frozen=True)
class ZonesResult:
    """Candidate data zones with calls and total time; the ones in use are marked."""

    chosen: tuple[str, ...]
    source: ZoneSource
    candidates: list[ZoneCandidate]

    @classmethod
    def of(cls, analysis: Analysis) -> ZonesResult:
        """The candidates of an analysed trace."""
        choice = analysis.zone_choice
        return cls(choice.names, choice.source, analysis.zone_candidates())

    def to_json(self) -> dict[str, Any]:
        """What `steptrace zones --json` prints."""
        return {
            "chosen": list(self.chosen),
            "source": self.source.value,
            "candidates": [
                {
                    "name": candidate.name,
                    "kind": candidate.kind,
                    "calls": candidate.calls,
                    "total_us": us(candidate.total_ns),
                    "chosen": candidate.name in self.chosen,
                }
                for candidate in self.candidates
            ],
        }
