"""`steptrace collectives TRACE`: collectives per kind and message size, with
nccl-tests' algorithm and bus bandwidth."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.collective_bandwidth import (
    CollectiveBandwidth,
    CollectiveRow,
    collective_bandwidth,
)

SOURCE = "nccl-tests doc/PERFORMANCE.md"


def kind_totals(reading: CollectiveBandwidth) -> list[dict[str, Any]]:
    """Per kind: count, time and bytes (over the collectives with a size)."""
    totals: dict[str, dict[str, Any]] = {}
    for row in reading.rows:
        item = totals.setdefault(
            row.kind,
            {"kind": row.kind, "count": 0, "time_ns": 0, "bytes": 0, "unsized": 0},
        )
        item["count"] += row.count
        item["time_ns"] += row.time_ns
        if row.size_bytes is None:
            item["unsized"] += row.count
        else:
            item["bytes"] += row.size_bytes * row.count
    return sorted(totals.values(), key=lambda item: (-item["time_ns"], item["kind"]))


def row_json(row: CollectiveRow) -> dict[str, Any]:
    """One row of `collectives --json`."""
    return {
        "kind": row.kind,
        "size_bytes": row.size_bytes,
        "dtype": row.dtype,
        "group_size": row.group_size,
        "process_group": row.process_group,
        "count": row.count,
        "time_us": us(row.time_ns),
        "mean_us": row.mean_ns / 1000.0,
        "algbw_gbps": row.algbw_gbps,
        "busbw_gbps": row.busbw_gbps,
    }


@dataclass(frozen=True)
class CollectivesResult:
    """A capture's collectives and where they were timed."""

    reading: CollectiveBandwidth

    @classmethod
    def of(cls, analysis: Analysis) -> CollectivesResult:
        """Read the collectives of an analysed trace."""
        return cls(collective_bandwidth(analysis))

    def to_json(self) -> dict[str, Any]:
        """What `steptrace collectives TRACE --json` prints."""
        reading = self.reading
        return {
            "side": None if reading.side is None else reading.side.value,
            "count": len(reading.calls),
            "sized": reading.sized,
            "time_us": us(reading.time_ns),
            "bandwidth_formulas": SOURCE,
            "kinds": [
                {
                    "kind": item["kind"],
                    "count": item["count"],
                    "time_us": us(item["time_ns"]),
                    "bytes": item["bytes"],
                    "unsized": item["unsized"],
                }
                for item in kind_totals(reading)
            ],
            "rows": [row_json(row) for row in reading.rows],
        }
