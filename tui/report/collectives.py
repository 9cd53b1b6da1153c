"""`steptrace collectives` in words: per kind, then per kind and message size
with nccl-tests' algorithm and bus bandwidth."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural, size_text
from tui.core.base.vocab import CollectiveSide
from tui.core.figures.collective_bandwidth import CollectiveBandwidth, bus_factor
from tui.core.results.collectives import (
    CollectivesResult,
    RunCollectivesResult,
    kind_totals,
)
from tui.report.fit import fit_end
from tui.report.text import fill

# Rows of the per-size table in text (JSON has them all).
TEXT_ROWS = 25


def _gbps(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"


def side_words(reading: CollectiveBandwidth) -> str:
    """Where the collectives were timed, and what that time means."""
    if reading.side is CollectiveSide.GPU:
        return "timed on the device: each communication kernel's time"
    return (
        "timed on the host (no communication kernel in this capture): for NCCL "
        "that is the call that enqueues the work, not the transfer, so its "
        "bandwidth is not the link's"
    )


def collectives_lines(reading: CollectiveBandwidth) -> list[str]:
    """The per-kind and per-size tables of one capture, at 80 columns."""
    if not reading.calls:
        return fill(
            "collectives: none — no communication kernel and no collective CPU "
            "op (record_param_comms, nccl:*, gloo:*, c10d::*) in this capture"
        )
    lines = fill(
        f"{plural(len(reading.calls), 'collective')}, "
        f"{duration_text(reading.time_ns)} in all; {side_words(reading)}"
    )
    header = f"{'kind':<16} {'count':>7} {'time':>11} {'bytes':>11}"
    lines += ["", header]
    for item in kind_totals(reading):
        unsized = item["unsized"]
        size = "?" if unsized == item["count"] else size_text(item["bytes"])
        more = f"  (+{unsized} of size ?)" if 0 < unsized < item["count"] else ""
        lines.append(
            f"{fit_end(printable(item['kind']), 16):<16} {item['count']:>7} "
            f"{duration_text(item['time_ns']):>11} {size:>11}{more}"
        )
    lines += [
        "",
        "per kind and message size (GB/s; busbw = algbw × nccl-tests' factor)",
        f"{'kind':<15} {'size':>10} {'dtype':<8} {'n':>4} {'count':>6} "
        f"{'mean':>10} {'algbw':>7} {'busbw':>7}",
    ]
    for row in reading.rows[:TEXT_ROWS]:
        size = "?" if row.size_bytes is None else size_text(row.size_bytes)
        ranks = "?" if row.group_size is None else str(row.group_size)
        lines.append(
            f"{fit_end(printable(row.kind), 15):<15} {size:>10} "
            f"{fit_end(printable(row.dtype or '?'), 8):<8} {ranks:>4} "
            f"{row.count:>6} {duration_text(row.mean_ns):>10} "
            f"{_gbps(row.algbw_gbps):>7} {_gbps(row.busbw_gbps):>7}"
        )
    if len(reading.rows) > TEXT_ROWS:
        lines.append(f"… {len(reading.rows) - TEXT_ROWS} more (--json)")
    if reading.sized < len(reading.calls):
        lines += fill(
            f"size ?: {len(reading.calls) - reading.sized} collectives carry no "
            "message size (Kineto's 'In msg nelems' and 'dtype' on "
            "record_param_comms or the kernel; else, for all_reduce, broadcast "
            "and reduce, the range's recorded input): no bandwidth for them"
        )
    if any(
        row.size_bytes is not None and row.group_size is None for row in reading.rows
    ):
        lines += fill(
            "n ?: no 'Group size' written (only record_param_comms has it): "
            "algbw without busbw"
        )
    if any(row.group_size == 1 for row in reading.rows):
        lines += fill(
            "n = 1: a group of one rank moves nothing between ranks (busbw 0 "
            "where nccl-tests' factor has n − 1)"
        )
    return lines


def collectives_text(result: CollectivesResult) -> str:
    """`steptrace collectives TRACE` at 80 columns."""
    return "\n".join(collectives_lines(result.reading))


def run_collectives_text(result: RunCollectivesResult) -> str:
    """`steptrace collectives DIR` at 80 columns: per rank its time split into
    wait and transfer, then per kind and size with busbw over the transfer."""
    run = result.run
    lines = fill(
        f"{printable(str(run.folder))}: {plural(len(run.ranks), 'rank')}, "
        f"{plural(run.matched_steps, 'step')} matched across them"
    )
    for rank in run.ranks:
        wait, transfer, matched = rank.split(rank.reading.calls)
        share = f" ({100 * wait / (wait + transfer):.0f} %)" if wait + transfer else ""
        lines.append(
            f"  rank {rank.rank:<4} {plural(len(rank.reading.calls), 'collective'):>16}"
            f" {duration_text(rank.reading.time_ns):>11}  wait "
            f"{duration_text(wait)}{share}, transfer {duration_text(transfer)}"
        )
    lines += fill(
        "wait: time beyond the straggler's in each matched collective (it arrives "
        "last and waits for nobody: its time is the transfer), as ranks reads a step"
    )
    lines += [
        "",
        "per rank, kind and message size (busbw over the transfer time, GB/s)",
        f"{'rank':>4} {'kind':<15} {'size':>10} {'n':>4} {'count':>6} "
        f"{'wait':>10} {'transfer':>10} {'busbw':>7}",
    ]
    for rank in run.ranks:
        for row in rank.reading.rows[:TEXT_ROWS]:
            wait, transfer, matched = rank.split(row.calls)
            factor = bus_factor(row.kind, row.group_size or 0)
            busbw = (
                row.size_bytes * matched / transfer * factor
                if row.size_bytes is not None and factor is not None and transfer > 0
                else None
            )
            size = "?" if row.size_bytes is None else size_text(row.size_bytes)
            ranks = "?" if row.group_size is None else str(row.group_size)
            lines.append(
                f"{rank.rank:>4} {fit_end(printable(row.kind), 15):<15} {size:>10} "
                f"{ranks:>4} {row.count:>6} {duration_text(wait):>10} "
                f"{duration_text(transfer):>10} {_gbps(busbw):>7}"
            )
    for warning in run.warnings:
        lines += fill(printable(warning), "warning: ")
    return "\n".join(lines)
