"""`steptrace collectives TRACE|DIR`: collectives per kind and message size, with
nccl-tests' algorithm and bus bandwidth; for a run, per rank, with each
collective's time split into wait and transfer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.collective_bandwidth import (
    CollectiveBandwidth,
    CollectiveRow,
    bus_factor,
    collective_bandwidth,
)
from tui.core.runs.collectives_across import RankCollectives, RunCollectives

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


def _split_json(rank: RankCollectives, row: CollectiveRow) -> dict[str, Any]:
    """A row with its wait and transfer on this rank, and busbw over the transfer."""
    wait, transfer, matched = rank.split(row.calls)
    item = row_json(row)
    busbw = None
    factor = bus_factor(row.kind, row.group_size or 0)
    if row.size_bytes is not None and factor is not None and transfer > 0:
        busbw = row.size_bytes * matched / transfer * factor
    item.update(
        matched=matched,
        wait_us=us(wait),
        transfer_us=us(transfer),
        transfer_busbw_gbps=busbw,
    )
    return item


@dataclass(frozen=True)
class RunCollectivesResult:
    """A run folder's collectives per rank, split into wait and transfer."""

    run: RunCollectives

    def to_json(self) -> dict[str, Any]:
        """What `steptrace collectives DIR --json` prints."""
        ranks = []
        for rank in self.run.ranks:
            wait, transfer, matched = rank.split(rank.reading.calls)
            document = CollectivesResult(rank.reading).to_json()
            document["rows"] = [_split_json(rank, row) for row in rank.reading.rows]
            ranks.append(
                {
                    "rank": rank.rank,
                    "path": str(rank.path),
                    **document,
                    "matched": matched,
                    "wait_us": us(wait),
                    "transfer_us": us(transfer),
                }
            )
        return {
            "folder": str(self.run.folder),
            "matched_steps": self.run.matched_steps,
            "ranks": ranks,
            "warnings": list(self.run.warnings),
        }
