"""`steptrace ranks` in words: step times per rank, stragglers, waits, GPU breakdowns, the run's reading."""

from __future__ import annotations

from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import IdleCause
from tui.core.findings.finding import Finding
from tui.core.results.ranks import RanksResult
from tui.core.runs.across import RankRow, RunAnalysis, StepAcross
from tui.core.runs.many import MANY_RANKS
from tui.report.findings import finding_json, words
from tui.report.fit import fit_end
from tui.report.many_ranks import heat_map_lines, summary_lines
from tui.report.text import TEXT_WIDTH, fill

# The text table keeps this many step columns, and past MANY_RANKS ranks
# gives way to the run read as distributions (`report.many_ranks`); JSON keeps all.
_LABEL = 12  # "  rank late " column
_COLUMN = 10


def ranks_json(result: RanksResult) -> dict[str, Any]:
    """The JSON `steptrace ranks --json` prints: the run's figures and its reading in words."""
    return result.to_json(finding_json(result.finding))


def ranks_text(result: RanksResult) -> str:
    """`steptrace ranks` for people, at most 80 columns."""
    run = result.run
    lines: list[str] = []
    world = "unknown" if run.world_size is None else str(run.world_size)
    lines += fill(
        f"{printable(str(run.folder))} ({len(run.ranks)} rank(s) loaded, "
        f"world size {world})",
        "run       ",
    )
    if run.steps:
        lines += fill(
            f"{len(run.steps)} recorded by every rank"
            + (
                " (few steps show the mechanism, not a distribution)"
                if len(run.steps) < 10
                else ""
            ),
            "steps     ",
        )
    else:
        lines.append("steps     none recorded by every rank")
    if len(run.ranks) > MANY_RANKS:
        lines.append("")
        lines += summary_lines(result)
        lines.append("")
        lines += heat_map_lines(result)
    else:
        lines += _every_rank(run)
    lines.append("")
    lines += _finding_lines(result.finding)
    if run.limits:
        lines.append("")
        lines.append("cannot show")
        for limit in run.limits:
            lines += fill(printable(limit), "  - ", "    ")
    if run.warnings:
        lines.append("")
        lines.append("warnings")
        for warning in run.warnings:
            lines += fill(printable(warning), "  - ", "    ")
    return "\n".join(lines)


def _every_rank(run: RunAnalysis) -> list[str]:
    """A few ranks: a table of every rank × step, waits, and breakdowns."""
    lines: list[str] = []
    rows = list(run.ranks)
    steps, hidden_steps = _shown_steps(run.steps)
    if steps:
        lines.append("")
        lines += _step_table(run, rows, steps)
        lines += _wait_table(rows, steps)
        if hidden_steps:
            lines.append(
                f"  (steps {hidden_steps[0].number}–{hidden_steps[-1].number}"
                f" not shown: {len(hidden_steps)} more columns; all in --json)"
            )
    lines.append("")
    lines += _breakdown_table(rows)
    return lines


def _finding_lines(finding: Finding) -> list[str]:
    finding_words = words(finding)
    lines = fill(f"{finding_words.title} — {finding_words.status_label}", "finding   ")
    lines += fill(printable(finding_words.observation), " " * 10)
    if finding.observed:
        lines += fill(f"hypothesis: {finding_words.hypothesis}", " " * 10, " " * 12)
        lines += fill(f"next check: {finding_words.next_check}", " " * 10, " " * 12)
    return lines


def _shown_steps(
    steps: tuple[StepAcross, ...],
) -> tuple[list[StepAcross], list[StepAcross]]:
    fitting = (TEXT_WIDTH - _LABEL) // _COLUMN
    return list(steps[:fitting]), list(steps[fitting:])


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


def _header(steps: list[StepAcross], first: str) -> str:
    return first + "".join(
        f"{fit_end('#' + str(step.number), _COLUMN - 1):>{_COLUMN}}" for step in steps
    )


def _step_table(
    run: RunAnalysis, rows: list[RankRow], steps: list[StepAcross]
) -> list[str]:
    lines = [
        "step time (ms) per rank; * marks the straggler (reaches the step's",
        "collectives last, measured from its own step start); late = steps so marked",
        _header(steps, f"{'rank':>6} {'late':>5}"),
    ]
    counted = len([step for step in run.steps if step.straggler is not None])
    for row in rows:
        late = sum(1 for step in run.steps if step.straggler == row.rank)
        cells = []
        for step in steps:
            value = step.duration_ns.get(row.rank)
            mark = "*" if step.straggler == row.rank else ""
            cells.append(
                f"{(mark + _ms(value)) if value is not None else '–':>{_COLUMN}}"
            )
        lines.append(f"{row.rank:>6} {f'{late}/{counted}':>5}" + "".join(cells))
    lines.append(
        f"{'median':<12}"
        + "".join(f"{_ms(step.median_ns):>{_COLUMN}}" for step in steps)
    )
    lines.append(
        f"{'spread':<12}"
        + "".join(f"{_ms(step.spread_ns):>{_COLUMN}}" for step in steps)
    )
    return lines


def _wait_table(rows: list[RankRow], steps: list[StepAcross]) -> list[str]:
    if not any(step.straggler is not None for step in steps):
        return []
    lines = [
        "",
        "wait in the collectives (ms): time in them beyond the straggler's own",
        _header(steps, f"{'rank':>6} {'':>5}"),
    ]
    for row in rows:
        cells = []
        for step in steps:
            value = step.wait_ns.get(row.rank)
            shown = (
                "straggler"
                if step.straggler == row.rank
                else ("–" if value is None else _ms(value))
            )
            cells.append(f"{shown:>{_COLUMN}}")
        lines.append(f"{row.rank:>6} {'':>5}" + "".join(cells))
    return lines


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole > 0 else "–"


def _breakdown_table(rows: list[RankRow]) -> list[str]:
    if rows and all(row.summary.breakdown is None for row in rows):
        reasons = {
            str(row.summary.gpu_missing_reason or "no device op") for row in rows
        }
        reason = printable(reasons.pop()) if len(reasons) == 1 else "see each rank"
        return fill(f"not observed on any rank — {reason}", "GPU       ")
    lines = [
        "GPU breakdown per rank, whole capture (HTA 0.5.0's definitions; per step",
        "and kernel types in --json): share of the span from first to last device op",
        f"{'rank':>6} {'span':>11} {'idle':>7} {'compute':>8} {'non-comp':>9}"
        f" {'overlap':>8} {'host wait':>11}",
    ]
    for row in rows:
        breakdown = row.summary.breakdown
        if breakdown is None:
            reason = printable(str(row.summary.gpu_missing_reason or "no device op"))
            lines.append(
                f"{row.rank:>6} " + fit_end(f"not observed — {reason}", TEXT_WIDTH - 7)
            )
            continue
        overlap = breakdown.comm_comp_overlap_pct
        lines.append(
            f"{row.rank:>6} {duration_text(breakdown.span_ns):>11}"
            f" {_percent(breakdown.idle_ns, breakdown.span_ns):>7}"
            f" {_percent(breakdown.compute_ns, breakdown.span_ns):>8}"
            f" {_percent(breakdown.non_compute_ns, breakdown.span_ns):>9}"
            f" {'–' if overlap is None else f'{overlap:.1f}%':>8}"
            f" {duration_text(breakdown.idle_cause_ns(IdleCause.HOST_WAIT)):>11}"
        )
    if any(row.summary.breakdown is not None for row in rows):
        lines.append(
            "  overlap: share of communication time with computation running; host"
        )
        lines.append(
            "  wait: stream idle before an op launched after the stream went idle"
        )
    return lines
