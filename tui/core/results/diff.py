"""`steptrace diff`: two captures compared — steps and verdict, operators, data zone, kernels.

The rows of each table are read by position from the core's aligned columns
(`OpsDiff`, `KernelsDiff`), so a comparison screen can show the same rows in
the same order. GPU figures of a side without GPU events are None (JSON
null), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, us
from tui.core.base.vocab import GapKind, OpPresence, SortKey, TimeDevice, Verdict
from tui.core.diff import Rate, StartupFigures, StepFigures, StepsDiff, TraceDiff
from tui.core.diff.side import ZoneFigures
from tui.core.diff.steps import SAMPLES_PER_S
from tui.core.figures.analysis import Analysis
from tui.core.results.text import distinct_cuts, fill, startup_parts

Int64Array = npt.NDArray[np.int64]

# Rows the text shows when no limit is given (JSON lists every row).
TEXT_ROWS = 20
_NAME = 33
_CELL = 10

VERDICT_WORDS = {
    Verdict.FASTER: "faster: every step after is quicker than every step before",
    Verdict.SLOWER: "slower: every step after is slower than every step before",
    Verdict.INCONCLUSIVE: "inconclusive: the ranges of step times overlap",
}
NO_STEP_WORDS = "inconclusive: a side has no step in its window"


def verdict_words(steps: StepsDiff) -> str:
    """The verdict and what it rests on."""
    if steps.before.stats is None or steps.after.stats is None:
        return NO_STEP_WORDS
    return VERDICT_WORDS[steps.verdict]


_PRESENCE_MARK = {OpPresence.BOTH: " ", OpPresence.ADDED: "+", OpPresence.REMOVED: "-"}


def _us_or_none(value: float | int | None) -> float | None:
    return None if value is None else us(value)


def _signed(delta_ns: int) -> str:
    return ("+" if delta_ns > 0 else "") + duration_text(delta_ns)


def _count_delta(delta: int) -> str:
    return f"{delta:+d}" if delta else "0"


@dataclass(frozen=True)
class DiffResult:
    """A trace diff with the column its tables are sorted by."""

    diff: TraceDiff
    sort: SortKey
    device: TimeDevice
    limit: int | None

    @classmethod
    def of(
        cls,
        before: Analysis,
        after: Analysis,
        *,
        sort: SortKey | str = SortKey.SELF,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
        by_shape: bool = False,
    ) -> DiffResult:
        """Compare two analysed captures (operators by name and input shapes with `by_shape`)."""
        return cls.from_diff(
            TraceDiff.of(before, after, by_shape=by_shape),
            sort=sort,
            device=device,
            limit=limit,
        )

    @classmethod
    def from_diff(
        cls,
        diff: TraceDiff,
        *,
        sort: SortKey | str = SortKey.SELF,
        device: TimeDevice | str | None = None,
        limit: int | None = None,
    ) -> DiffResult:
        """Wrap a computed diff; GPU sorting only when both sides observed GPU work."""
        return cls(diff, SortKey(sort), diff.ops.device_for(device), limit)

    @property
    def op_rows(self) -> Int64Array:
        """Operator rows in order (largest absolute change first), cut at the limit."""
        order = self.diff.ops.order(self.sort, self.device)
        return order if self.limit is None else order[: self.limit]

    @property
    def kernel_rows(self) -> Int64Array:
        """Kernel rows in order (largest absolute change of total time first), cut at the limit."""
        order = self.diff.kernels.order()
        return order if self.limit is None else order[: self.limit]

    # -- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """What `steptrace diff --json` prints (documented in the README)."""
        diff = self.diff
        steps = diff.steps
        return {
            "comparable": diff.comparable,
            "warnings": [warning.message for warning in diff.warnings],
            "checks": [
                {
                    "check": warning.check.value,
                    "breaks_comparability": warning.breaks_comparability,
                    "message": warning.message,
                }
                for warning in diff.warnings
            ],
            "traces": {"before": diff.before.path, "after": diff.after.path},
            "gpu_observed": {
                "before": diff.before.gpu_observed,
                "after": diff.after.gpu_observed,
            },
            "steps": {
                "before": _steps_json(steps.before),
                "after": _steps_json(steps.after),
                "change_pct": steps.change_pct,
                "verdict": steps.verdict.value,
                "unit": steps.unit,
                "startup": {
                    "before": _startup_json(steps.before.startup),
                    "after": _startup_json(steps.after.startup),
                },
            },
            "sort": {"column": self.sort.value, "device": self.device.value},
            "group_by": "shape" if diff.ops.by_shape else "name",
            "ops": self._ops_json(),
            "zone": {
                "before": _zone_json(diff.zone.before),
                "after": _zone_json(diff.zone.after),
            },
            "kernels": self._kernels_json(),
        }

    def _ops_json(self) -> list[dict[str, Any]]:
        ops = self.diff.ops
        rows = []
        for row in self.op_rows.tolist():
            entry: dict[str, Any] = {
                "name": ops.names[row],
                "status": ops.presence[row].value,
            }
            if ops.input_shapes is not None:
                entry["input_shapes"] = ops.input_shapes[row]
            for word, table in (("before", ops.before), ("after", ops.after)):
                entry[f"calls_{word}"] = int(table.calls[row])
            for column in ("self_cpu", "total_cpu", "self_gpu", "total_gpu"):
                for word, table in (("before", ops.before), ("after", ops.after)):
                    values = getattr(table, f"{column}_ns")
                    entry[f"{column}_us_{word}"] = (
                        None if values is None else us(int(values[row]))
                    )
            rows.append(entry)
        return rows

    def _kernels_json(self) -> list[dict[str, Any]]:
        kernels = self.diff.kernels

        def cell(values: Int64Array | None, row: int, time: bool) -> Any:
            if values is None:
                return None
            return us(int(values[row])) if time else int(values[row])

        return [
            {
                "name": kernels.names[row],
                "status": kernels.presence[row].value,
                "count_before": cell(kernels.count_before, row, False),
                "count_after": cell(kernels.count_after, row, False),
                "total_us_before": cell(kernels.total_before_ns, row, True),
                "total_us_after": cell(kernels.total_after_ns, row, True),
            }
            for row in self.kernel_rows.tolist()
        ]

    # -- text --------------------------------------------------------------------

    def to_text(self) -> str:
        """`steptrace diff` for people, at most 80 columns."""
        diff = self.diff
        lines: list[str] = []
        lines += fill(printable(diff.before.path), "before    ")
        lines += fill(printable(diff.after.path), "after     ")
        lines.append(
            "comparable yes"
            if diff.comparable
            else "comparable NO — see the warnings below"
        )
        lines += ["", *self._steps_text(), "", *self._zone_text()]
        lines += ["", *self._ops_text()]
        if diff.before.gpu_observed or diff.after.gpu_observed:
            lines += ["", *self._kernels_text()]
        if diff.warnings:
            lines += ["", "warnings"]
            for warning in diff.warnings:
                lines += fill(printable(warning.message), "  - ", "    ")
        return "\n".join(lines)

    def _steps_text(self) -> list[str]:
        steps = self.diff.steps
        rates = steps.unit == SAMPLES_PER_S
        lines = [
            f"steps of the window ({steps.unit})",
            f"  {'':<8} {'n':>4} {'median':>12} {'min':>12} {'max':>12}",
        ]
        for word, side in (("before", steps.before), ("after", steps.after)):
            stats = side.stats
            if stats is None:
                lines.append(f"  {word:<8} {0:>4}   no step in the window")
                continue
            if rates:
                rate = Rate.of(side.samples_per_s())
                assert rate is not None
                cells = [f"{value:,.1f}" for value in (rate.median, rate.min, rate.max)]
            else:
                cells = [
                    duration_text(value)
                    for value in (stats.median_ns, stats.min_ns, stats.max_ns)
                ]
            lines.append(
                f"  {word:<8} {stats.count:>4} {cells[0]:>12} {cells[1]:>12} "
                f"{cells[2]:>12}"
            )
        change = "–" if steps.change_pct is None else f"{steps.change_pct:+.1f}%"
        lines += fill(
            f"median step time {change}; verdict {verdict_words(steps)}",
            "  ",
            "  ",
        )
        lines += self._startup_text()
        return lines

    def _startup_text(self) -> list[str]:
        steps = self.diff.steps
        if steps.before.startup.empty and steps.after.startup.empty:
            return []
        lines = ["  start-up (kept apart, not in the window's figures)"]
        for word, startup in (
            ("before", steps.before.startup),
            ("after", steps.after.startup),
        ):
            parts = startup_parts(startup.before_first_step_ms, startup.steps)
            lines += fill(
                ", ".join(parts) or "not recorded", f"    {word:<7} ", " " * 12
            )
        return lines

    def _zone_text(self) -> list[str]:
        zone = self.diff.zone
        names = ", ".join(printable(name) for name in zone.before.summary.names)
        if not zone.before.found and not zone.after.found:
            return fill(
                f"data zone: none in either capture (looked for "
                f"{names or 'lecture_batch_cpu, enumerate(DataLoader)#…'}); "
                "name one with --zone NAME"
            )
        lines = fill(f"data zone ({names})")
        lines.append(
            f"  {'':<8} {'zone':>12} {'gap':>12}  {'per step: zone':>14} "
            f"{'gap':>10}  gap is"
        )
        for word, side in (("before", zone.before), ("after", zone.after)):
            summary = side.summary
            kind = (
                "–"
                if summary.total_gap_ns is None
                else "GPU idle"
                if summary.kind is GapKind.GPU_IDLE
                else "CPU wait"
            )
            lines.append(
                f"  {word:<8} {duration_text(summary.total_zone_ns):>12} "
                f"{_or_dash(summary.total_gap_ns):>12}  "
                f"{_or_dash(side.median_zone_ns):>14} "
                f"{_or_dash(side.median_gap_ns):>10}  {kind}"
            )
        if (
            zone.before.found
            and zone.after.found
            and zone.before.summary.kind is not zone.after.summary.kind
        ):
            lines += fill(
                "GPU idle on one side and CPU wait on the other measure different "
                "things: compare them with care",
                "  ",
                "  ",
            )
        return lines

    def _ops_text(self) -> list[str]:
        ops = self.diff.ops
        rows = self._text_rows(self.op_rows)
        key = SortKey.SELF if self.sort is SortKey.NAME else self.sort
        column = (
            "calls"
            if key is SortKey.CALLS
            else f"{key.value} {self.device.value.upper()} time"
        )
        order = "by name, change of" if self.sort is SortKey.NAME else "by change of"
        header = (
            f"  {'name':<{_NAME}} {'calls':>9} {'before':>{_CELL}} "
            f"{'after':>{_CELL}} {'change':>{_CELL + 1}}"
        )
        lines = [
            f"operators{' and input shapes' if ops.by_shape else ''} {order} {column} "
            "(whole trace; + added, - removed)",
            header,
            "  " + "-" * (len(header) - 2),
        ]
        before = ops.before.column(key, self.device)
        after = ops.after.column(key, self.device)
        shown = [printable(ops.names[row]) for row in rows]
        if ops.input_shapes is not None:
            shown = [
                f"{name} {ops.input_shapes[row]}"
                for name, row in zip(shown, rows, strict=True)
            ]
        names = distinct_cuts(shown, _NAME)
        for name, row in zip(names, rows, strict=True):
            calls = f"{int(ops.before.calls[row])}→{int(ops.after.calls[row])}"
            if key is SortKey.CALLS:
                cells = [
                    str(int(before[row])),
                    str(int(after[row])),
                    _count_delta(int(after[row]) - int(before[row])),
                ]
            else:
                cells = [
                    duration_text(int(before[row])),
                    duration_text(int(after[row])),
                    _signed(int(after[row]) - int(before[row])),
                ]
            lines.append(
                f"{_PRESENCE_MARK[ops.presence[row]]} {name:<{_NAME}} {calls:>9} "
                f"{cells[0]:>{_CELL}} {cells[1]:>{_CELL}} {cells[2]:>{_CELL + 1}}"
            )
        lines += self._more(len(ops), len(rows))
        if not ops.gpu_on_both and (
            ops.before.self_gpu_ns is not None or ops.after.self_gpu_ns is not None
        ):
            lines += fill(
                "GPU time is compared only when both captures hold GPU events "
                "(one side's reads not observed): sorted by CPU time",
                "  ",
                "  ",
            )
        return lines

    def _kernels_text(self) -> list[str]:
        kernels = self.diff.kernels
        rows = self._text_rows(self.kernel_rows)
        header = (
            f"  {'kernel':<{_NAME}} {'count':>9} {'before':>{_CELL}} "
            f"{'after':>{_CELL}} {'change':>{_CELL + 1}}"
        )
        lines = [
            "kernels by change of total time (whole trace)",
            header,
            "  " + "-" * (len(header) - 2),
        ]

        def count(values: Int64Array | None, row: int) -> str:
            return "n/o" if values is None else str(int(values[row]))

        def total(values: Int64Array | None, row: int) -> str:
            return "n/o" if values is None else duration_text(int(values[row]))

        names = distinct_cuts([printable(kernels.names[row]) for row in rows], _NAME)
        for name, row in zip(names, rows, strict=True):
            counts = (
                f"{count(kernels.count_before, row)}→{count(kernels.count_after, row)}"
            )
            change = (
                "n/o"
                if kernels.total_before_ns is None or kernels.total_after_ns is None
                else _signed(
                    int(kernels.total_after_ns[row]) - int(kernels.total_before_ns[row])
                )
            )
            lines.append(
                f"{_PRESENCE_MARK[kernels.presence[row]]} {name:<{_NAME}} "
                f"{counts:>9} {total(kernels.total_before_ns, row):>{_CELL}} "
                f"{total(kernels.total_after_ns, row):>{_CELL}} {change:>{_CELL + 1}}"
            )
        if not kernels.names:
            lines.append("  (no kernel on either side)")
        lines += self._more(len(kernels), len(rows))
        if kernels.count_before is None or kernels.count_after is None:
            lines.append("  n/o = not observed (no GPU events on that side)")
        return lines

    def _text_rows(self, rows: Int64Array) -> list[int]:
        shown = rows if self.limit is not None else rows[:TEXT_ROWS]
        return [int(row) for row in shown.tolist()]

    def _more(self, total: int, shown: int) -> list[str]:
        if shown >= total:
            return []
        return [f"  … {total - shown} more rows (--limit N, or --json for all)"]


def _or_dash(value: float | int | None) -> str:
    return "–" if value is None else duration_text(value)


def _steps_json(side: StepFigures) -> dict[str, Any]:
    stats = side.stats
    rate = Rate.of(side.samples_per_s())
    return {
        "n": side.count,
        "median_us": None if stats is None else us(stats.median_ns),
        "min_us": None if stats is None else us(stats.min_ns),
        "max_us": None if stats is None else us(stats.max_ns),
        "steps": list(side.numbers),
        "durations_us": [us(value) for value in side.durations_ns],
        "samples_per_step": side.samples_per_step,
        "samples_per_s": None
        if rate is None
        else {"median": rate.median, "min": rate.min, "max": rate.max},
    }


def _startup_json(startup: StartupFigures) -> dict[str, Any]:
    return {
        "before_first_step_ms": startup.before_first_step_ms,
        "steps": [
            {
                "step": entry.step,
                "phase": entry.phase,
                "ms": entry.ms,
                "source": entry.source,
            }
            for entry in startup.steps
        ],
    }


def _zone_json(side: ZoneFigures) -> dict[str, Any]:
    summary = side.summary
    return {
        "total_zone_us": us(summary.total_zone_ns),
        "total_gap_us": _us_or_none(summary.total_gap_ns),
        "kind": summary.kind.value,
        "zones": list(summary.names),
        "source": summary.source.value,
        "median_zone_us_per_step": _us_or_none(side.median_zone_ns),
        "median_gap_us_per_step": _us_or_none(side.median_gap_ns),
        "steps": [
            {
                "step": figure.step,
                "zone_us": us(figure.zone_ns),
                "gap_us": _us_or_none(figure.gap_ns),
            }
            for figure in side.steps
        ],
    }
