"""`steptrace zones`: the ranges of a capture that can be its data zone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, us
from tui.core.base.vocab import ZoneSource
from tui.core.figures.analysis import Analysis
from tui.core.figures.zones import ZoneCandidate
from tui.core.results.text import distinct_cuts, fill

_NAME_WIDTH = 44


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

    def to_text(self, limit: int | None = 40) -> str:
        """A table of candidates, the chosen ones first and marked with `*`."""
        shown = self.candidates if limit is None else self.candidates[:limit]
        names = distinct_cuts([printable(c.name) for c in shown], _NAME_WIDTH)
        in_use = ", ".join(printable(name) for name in self.chosen) or "none"
        lines = fill(f"{in_use} ({self.source.label})", "data zone: ", "  ")
        lines += [
            "",
            f"  {'name':<{_NAME_WIDTH}} {'kind':<10} {'calls':>7} {'total':>12}",
        ]
        for name, candidate in zip(names, shown, strict=True):
            mark = "*" if candidate.name in self.chosen else " "
            lines.append(
                f"{mark} {name:<{_NAME_WIDTH}} {candidate.kind:<10} "
                f"{candidate.calls:>7} {duration_text(candidate.total_ns):>12}"
            )
        if len(shown) < len(self.candidates):
            lines.append(f"  … {len(self.candidates) - len(shown)} more (--all)")
        if not self.candidates:
            lines.append("  (no annotation, operator or python range on a CPU thread)")
        lines.append("")
        lines += fill("choose with --zone NAME (summary, gaps, open) or z in the app")
        return "\n".join(lines)
