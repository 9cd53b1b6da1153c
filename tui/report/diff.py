"""`steptrace diff` in words: steps and verdict, operators, data zone, kernels, at 80 columns."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import GapKind, OpPresence, SortKey, Verdict
from tui.core.diff import Rate, StepsDiff, TraceDiff
from tui.core.diff.kept import KeptSteps
from tui.core.diff.mechanisms import Mechanism
from tui.core.diff.steps import SAMPLES_PER_S
from tui.core.results.diff import DiffResult, Int64Array
from tui.report.findings import words
from tui.report.fit import pad_end
from tui.report.kernel_names import kernel_labels
from tui.report.text import UNTRACED_MEANS, distinct_cuts, fill, startup_parts

# Rows the text shows when no limit is given (JSON lists every row).
TEXT_ROWS = 20
_NAME = 33
_CELL = 10

VERDICT_WORDS = {
    Verdict.FASTER: "faster: every after-run is quicker than every before-run",
    Verdict.SLOWER: "slower: every after-run is slower than every before-run",
    Verdict.LIKELY_FASTER: "likely faster: every step after is quicker",
    Verdict.LIKELY_SLOWER: "likely slower: every step after is slower",
    Verdict.NO_CHANGE: "no change: the same step times on both sides",
    Verdict.IDENTICAL: "identical: the same figures on both sides",
    Verdict.INCONCLUSIVE: "inconclusive: the ranges of step times overlap",
    Verdict.NOT_COMPARABLE: "not comparable: the captures ran on different machines",
}
NO_STEP_WORDS = "inconclusive: a side has no step in its window"
NOT_RECORDED = "not recorded"
# At most this many mechanisms in the text (JSON lists every finding).
TEXT_MECHANISMS = 4


def verdict_words(steps: StepsDiff) -> str:
    """The verdict and what it rests on (the reason the kept steps give)."""
    if steps.before.stats is None or steps.after.stats is None:
        return NO_STEP_WORDS
    if steps.reason:
        head = VERDICT_WORDS[steps.verdict].split(":", 1)[0]
        return f"{head}: {steps.reason}"
    return VERDICT_WORDS[steps.verdict]


def _change_text(entry: Mechanism) -> str:
    change = entry.change_ns_per_step
    return "n/o" if change is None else _signed(round(change))


def mechanism_title(entry: Mechanism) -> str:
    """A moved finding's title, as its figures word it (never "GPU idle" on a
    side without GPU events)."""
    return words(entry.example).title


def mechanism_words(entry: Mechanism) -> str:
    """One finding's move: its title, change per step, and in how many run pairs."""
    return (
        f"{mechanism_title(entry)} {_change_text(entry)} per step in "
        f"{entry.moved_in}/{entry.pairs} runs"
    )


def moved_words(diff: TraceDiff, limit: int = TEXT_MECHANISMS) -> str:
    """What explains the step change: the findings that moved in every run pair
    (at most `limit`, largest change first)."""
    moved = diff.moved[:limit]
    if not moved:
        return "what moved: no finding's figure moved in every run pair"
    return "what moved: " + "; ".join(mechanism_words(entry) for entry in moved)


def runs_words(diff: TraceDiff) -> str:
    """How many captures (runs) each side holds, and each run's median of kept steps."""
    sides = []
    for word, runs in (("before", diff.before_runs), ("after", diff.after_runs)):
        medians = ", ".join(
            "–" if (value := run.steps.kept_median_ns) is None else duration_text(value)
            for run in runs
        )
        sides.append(f"{len(runs)} {word} ({medians})")
    return f"runs: {', '.join(sides)}; each a median of kept steps"


def check_value(value: object) -> str:
    """One side's value of a check, as words."""
    if value is None:
        return NOT_RECORDED
    if isinstance(value, bool):
        return "yes" if value else "no"
    return printable(str(value))


def comparability_lines(diff: TraceDiff) -> list[str]:
    """Each check made with both values and whether they agree; then, in one line,
    what could not be checked (not recorded on a side)."""
    made = [check for check in diff.checks if check.same is not None]
    unknown = [check.check for check in diff.checks if check.same is None]
    lines = ["comparability (read from both traces)"]
    for check in made:
        agree = "same" if check.same else "DIFFERS"
        lines += fill(
            f"{check.check}: {check_value(check.before)} before, "
            f"{check_value(check.after)} after — {agree}",
            "  ",
            "    ",
        )
    if unknown:
        lines += fill(
            f"{NOT_RECORDED} on a side, so not checked: {', '.join(unknown)}",
            "  ",
            "    ",
        )
    return lines


_PRESENCE_MARK = {OpPresence.BOTH: " ", OpPresence.ADDED: "+", OpPresence.REMOVED: "-"}


def _signed(delta_ns: int) -> str:
    return ("+" if delta_ns > 0 else "") + duration_text(delta_ns)


def _count_delta(delta: int) -> str:
    return f"{delta:+d}" if delta else "0"


def diff_text(result: DiffResult) -> str:
    """`steptrace diff` for people, at most 80 columns."""
    diff = result.diff
    lines: list[str] = []
    lines += fill(printable(diff.before.path), "before    ")
    lines += fill(printable(diff.after.path), "after     ")
    lines.append(
        "comparable yes, on the checks below that both traces record"
        if diff.comparable
        else "comparable NO — not comparable, see the warnings below"
    )
    if diff.checks:
        lines += ["", *comparability_lines(diff)]
    lines += ["", *_steps_text(result)]
    if len(diff.before_runs) > 1 or len(diff.after_runs) > 1:
        lines += [
            "",
            *fill(
                "the data zone, operators and kernels below read the first "
                "capture of each side; the verdict and what moved read every run"
            ),
        ]
    lines += ["", *_zone_text(result)]
    lines += ["", *_ops_text(result)]
    if diff.before.gpu_observed or diff.after.gpu_observed:
        lines += ["", *_kernels_text(result)]
    if diff.warnings:
        lines += ["", "warnings"]
        for warning in diff.warnings:
            lines += fill(printable(warning.message), "  - ", "    ")
    return "\n".join(lines)


def _steps_text(result: DiffResult) -> list[str]:
    steps = result.diff.steps
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
            f"  {word:<8} {stats.count:>4} {cells[0]:>12} {cells[1]:>12} {cells[2]:>12}"
        )
    change = "–" if steps.change_pct is None else f"{steps.change_pct:+.1f}%"
    for word, kept in (("before", steps.kept_before), ("after", steps.kept_after)):
        lines += _set_aside_text(word, kept)
    lines += fill(
        f"median step time {change}; verdict {verdict_words(steps)}",
        "  ",
        "  ",
    )
    if steps.test is not None and steps.verdict is not Verdict.NOT_COMPARABLE:
        lines += fill(f"{steps.test.name}: p = {steps.test.p:.3g}", "  ", "  ")
    lines += fill(runs_words(result.diff), "  ", "    ")
    lines += fill(moved_words(result.diff), "  ", "    ")
    lines += _startup_text(result)
    lines += ["", *_mechanisms_text(result)]
    return lines


def _mechanisms_text(result: DiffResult) -> list[str]:
    """Each finding's cost per step before and after, largest change first."""
    shown = [entry for entry in result.diff.mechanisms if entry.change_ns_per_step][
        :TEXT_MECHANISMS
    ]
    lines = ["findings per step, before → after (largest change first)"]
    for entry in shown:
        before, after = entry.before_ns_per_step, entry.after_ns_per_step
        lines += fill(
            f"{mechanism_title(entry)}: {_or_dash(before)} → {_or_dash(after)}"
            f" ({_change_text(entry)}, in {entry.moved_in}/{entry.pairs} runs)",
            "  ",
            "    ",
        )
    if not shown:
        lines.append("  no finding's figure changed")
    return lines


def _set_aside_text(word: str, kept: KeptSteps) -> list[str]:
    """The steps one side sets aside from the verdict, with durations and why."""
    if not kept.set_aside:
        return []
    lines = [f"  {word}: {len(kept.kept)} steps kept; set aside:"]
    for entry in kept.set_aside:
        lines += fill(f"step {entry.step} — {entry.why}", "    ", "      ")
    return lines


def _startup_text(result: DiffResult) -> list[str]:
    steps = result.diff.steps
    if steps.before.startup.empty and steps.after.startup.empty:
        return []
    lines = ["  start-up (kept apart, not in the window's figures)"]
    for word, startup in (
        ("before", steps.before.startup),
        ("after", steps.after.startup),
    ):
        parts = startup_parts(startup.before_first_step_ms, startup.steps)
        lines += fill(", ".join(parts) or "not recorded", f"    {word:<7} ", " " * 12)
    return lines


def _zone_text(result: DiffResult) -> list[str]:
    zone = result.diff.zone
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
        kind = "–" if summary.total_gap_ns is None else summary.kind.label
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
            "GPU idle on one side and untraced time (no GPU events) on the other "
            "measure different things: compare them with care",
            "  ",
            "  ",
        )
    if any(
        side.found and side.summary.kind is GapKind.UNTRACED
        for side in (zone.before, zone.after)
    ):
        lines += fill(f"untraced time: {UNTRACED_MEANS} (no GPU events)", "  ", "  ")
    return lines


def _ops_text(result: DiffResult) -> list[str]:
    ops = result.diff.ops
    rows = _text_rows(result, result.op_rows)
    key = SortKey.SELF if result.sort is SortKey.NAME else result.sort
    column = (
        "calls"
        if key is SortKey.CALLS
        else f"{key.value} {result.device.value.upper()} time"
    )
    order = (
        "by name, change of"
        if result.sort is SortKey.NAME
        else "by change per kept step of"
        if ops.per_step
        else "by change of"
    )
    per_step = ops.per_step and key is not SortKey.CALLS
    header = (
        f"  {'name':<{_NAME}} {'calls':>9} {'before':>{_CELL}} "
        f"{'after':>{_CELL}} {'Δ/step' if per_step else 'change':>{_CELL + 1}}"
    )
    lines = fill(
        f"operators{' and input shapes' if ops.by_shape else ''} {order} {column} "
        "(before, after: whole trace"
        + ("; Δ/step: change of the mean per kept step" if per_step else "")
        + "; + added, - removed)",
        "",
        "  ",
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    before = ops.before.column(key, result.device)
    after = ops.after.column(key, result.device)
    step_before = ops.per_step_column("before", key, result.device)
    step_after = ops.per_step_column("after", key, result.device)
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
            change = int(after[row]) - int(before[row])
            if per_step and step_before is not None and step_after is not None:
                change = round(float(step_after[row]) - float(step_before[row]))
            cells = [
                duration_text(int(before[row])),
                duration_text(int(after[row])),
                _signed(change),
            ]
        lines.append(
            f"{_PRESENCE_MARK[ops.presence[row]]} {pad_end(name, _NAME)} {calls:>9} "
            f"{cells[0]:>{_CELL}} {cells[1]:>{_CELL}} {cells[2]:>{_CELL + 1}}"
        )
    lines += _more(len(ops), len(rows))
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


def _kernels_text(result: DiffResult) -> list[str]:
    kernels = result.diff.kernels
    rows = _text_rows(result, result.kernel_rows)
    header = (
        f"  {'kernel':<{_NAME}} {'count':>9} {'before':>{_CELL}} "
        f"{'after':>{_CELL}} {'Δ/step' if kernels.per_step else 'change':>{_CELL + 1}}"
    )
    lines = fill(
        (
            "kernels by change of time per kept step (before, after: whole trace; "
            "Δ/step: change of the mean per kept step"
            if kernels.per_step
            else "kernels by change of total time (whole trace"
        )
        + "; ~ matched by family)",
        "",
        "  ",
    )
    lines += [header, "  " + "-" * (len(header) - 2)]

    def count(values: Int64Array | None, row: int) -> str:
        return "n/o" if values is None else str(int(values[row]))

    def total(values: Int64Array | None, row: int) -> str:
        return "n/o" if values is None else duration_text(int(values[row]))

    names = kernel_labels([kernels.names[row] for row in rows], _NAME)
    for name, row in zip(names, rows, strict=True):
        counts = f"{count(kernels.count_before, row)}→{count(kernels.count_after, row)}"
        change = (
            "n/o"
            if kernels.total_before_ns is None or kernels.total_after_ns is None
            else _signed(
                int(kernels.total_after_ns[row]) - int(kernels.total_before_ns[row])
            )
        )
        if (
            kernels.per_step_total_before_ns is not None
            and kernels.per_step_total_after_ns is not None
        ):
            change = _signed(
                round(
                    float(kernels.per_step_total_after_ns[row])
                    - float(kernels.per_step_total_before_ns[row])
                )
            )
        mark = (
            "~"
            if kernels.matched_by[row] == "family"
            else _PRESENCE_MARK[kernels.presence[row]]
        )
        lines.append(
            f"{mark} {pad_end(name, _NAME)} "
            f"{counts:>9} {total(kernels.total_before_ns, row):>{_CELL}} "
            f"{total(kernels.total_after_ns, row):>{_CELL}} {change:>{_CELL + 1}}"
        )
    if not kernels.names:
        lines.append("  (no kernel on either side)")
    lines += _more(len(kernels), len(rows))
    if kernels.count_before is None or kernels.count_after is None:
        lines.append("  n/o = not observed (no GPU events on that side)")
    return lines


def _text_rows(result: DiffResult, rows: Int64Array) -> list[int]:
    shown = rows if result.limit is not None else rows[:TEXT_ROWS]
    return [int(row) for row in shown.tolist()]


def _more(total: int, shown: int) -> list[str]:
    if shown >= total:
        return []
    return [f"  … {total - shown} more rows (--limit N, or --json for all)"]


def _or_dash(value: float | int | None) -> str:
    return "–" if value is None else duration_text(value)
