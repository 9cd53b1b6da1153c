"""The comparison screen in words: the verdict, the comparability warnings and
the operator-change cells, from one `DiffResult` (Textual-free).

The verdict reads (likely) faster or slower only when the runs or the kept
steps support it; the change of the median is shown only then, so an
inconclusive or not comparable pair never reads as a speed-up. The runs, what
moved and the steps set aside are listed, and the checks say only what both
traces recorded. GPU cells of a side without GPU
events read `n/o` (not observed), never 0.
"""

from __future__ import annotations

from rich.text import Text

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.base.vocab import OpPresence, SortKey, TimeDevice, Verdict
from tui.core.diff.tables import OpsDiff
from tui.core.results.diff import DiffResult
from tui.report.diff import moved_words, runs_words, verdict_words

NOT_OBSERVED_CELL = "n/o"
# The mechanisms the verdict names on the screen (the CLI's text names more).
SCREEN_MECHANISMS = 1
PRESENCE_MARK = {OpPresence.BOTH: " ", OpPresence.ADDED: "+", OpPresence.REMOVED: "-"}
VERDICT_STYLE = {
    Verdict.FASTER: "bold reverse",
    Verdict.SLOWER: "bold reverse",
    Verdict.LIKELY_FASTER: "bold reverse",
    Verdict.LIKELY_SLOWER: "bold reverse",
    Verdict.NO_CHANGE: "bold",
    Verdict.IDENTICAL: "bold",
    Verdict.INCONCLUSIVE: "bold",
    Verdict.NOT_COMPARABLE: "bold",
}


def sides_text(result: DiffResult) -> Text:
    """Which capture is before and which after (file names, escaped)."""
    diff = result.diff
    text = Text(no_wrap=True, overflow="ellipsis")
    for word, path in (("before ", diff.before.path), ("   after ", diff.after.path)):
        text.append(word, style="bold")
        text.append(printable(path.rsplit("/", 1)[-1]))
    return text


def verdict_text(result: DiffResult) -> Text:
    """The verdict, the change of the median only when the verdict is (likely)
    faster or slower, what it rests on, the runs and what moved (the steps
    strips below show both ranges)."""
    steps = result.diff.steps
    said = verdict_words(steps)
    head, _, rest = said.partition(": ")
    text = Text()
    text.append(f" {head.upper()} ", style=VERDICT_STYLE[steps.verdict])
    if steps.verdict.ordered and steps.change_pct is not None:
        text.append(f" median step time {steps.change_pct:+.1f}%;", style="bold")
    text.append(f" {rest}")
    if (
        not steps.verdict.ordered
        and steps.verdict not in (Verdict.IDENTICAL, Verdict.NO_CHANGE)
        and steps.before.stats is not None
        and steps.after.stats is not None
    ):
        text.append("; no change can be claimed", style="italic")
    text.append(f"\n  {runs_words(result.diff)}; ")
    text.append(moved_words(result.diff, SCREEN_MECHANISMS))
    aside = [
        f"{word} #{entry.step} {duration_text(entry.duration_ns)} "
        f"({entry.why.split(':', 1)[0]})"
        for word, kept in (("before", steps.kept_before), ("after", steps.kept_after))
        for entry in kept.set_aside
    ]
    if aside:
        text.append("\n  set aside: ", style="italic")
        text.append(", ".join(aside))
    return text


# The checks' short names on the screen (the CLI and JSON say them whole).
SHORT_CHECKS = {
    "device model": "device",
    "device count": "count",
    "device memory": "memory",
    "compute capability": "capability",
    "torch version": "torch",
    "CUDA runtime version": "CUDA",
    "CUDA driver version": "driver",
    "trace schema version": "schema",
    "CUDA graphs": "graphs",
    "torch.compile": "compile",
    "GPU observed": "GPU",
    "steps recorded": "steps",
    "window steps": "window",
    "shapes recorded": "shapes",
    "stack recorded": "stack",
    "memory recorded": "memory profile",
}


def _short(check: str) -> str:
    return SHORT_CHECKS.get(check, check)


def comparability_text(result: DiffResult) -> Text:
    """Whether the captures compare, each warning that says why not (else the checks
    that agree), what could not be checked, then the caveats: never a check not made."""
    diff = result.diff
    text = Text()
    breaking = [w.message for w in diff.warnings if w.breaks_comparability]
    caveats = [w.message for w in diff.warnings if not w.breaks_comparability]
    if breaking:
        text.append(" NOT COMPARABLE ", style="bold reverse")
        text.append(" the verdict does not carry over:")
        for message in breaking:
            text.append("\n  - ")
            text.append(printable(message))
    else:
        same = [_short(check.check) for check in diff.checks if check.same]
        text.append("comparable", style="bold")
        text.append(
            f": same {', '.join(same)}" if same else ": nothing both record to check"
        )
    unknown = [_short(check.check) for check in diff.checks if check.same is None]
    if unknown:
        text.append("; not recorded: " if not breaking else "\n  not recorded: ")
        text.append(", ".join(unknown))
    for message in caveats:
        text.append("\n  caveat: ", style="italic")
        text.append(printable(message))
    return text


def ops_title(
    result: DiffResult, mode: SortKey, device: TimeDevice, per_step: bool = True
) -> str:
    """What the operator table compares and how its rows are ordered; `per_step`:
    its Δ is the change of the mean per kept step (as `steptrace diff`), else
    of the whole trace."""
    ops = result.diff.ops
    order = (
        "by name"
        if result.sort is SortKey.NAME
        else "by change of calls"
        if result.sort is SortKey.CALLS
        else f"by change of {mode.value} {device.value.upper()} time"
    )
    shapes = " and input shapes" if ops.by_shape else ""
    if not ops.per_step:
        return (
            f"Operators{shapes} ({len(ops)}) {order}; whole trace; + added, - removed"
        )
    if result.sort is not SortKey.NAME:
        order += " per kept step"
    if per_step:
        return (
            f"Operators{shapes} ({len(ops)}): Δ per kept step (w: whole trace), "
            f"{order}; before, after: whole trace; + added, - removed"
        )
    return (
        f"Operators{shapes} ({len(ops)}): Δ over the whole trace (w: per kept "
        f"step), {order}; + added, - removed"
    )


def gpu_note(ops: OpsDiff) -> str | None:
    """Which side's GPU figures are not observed, if one is."""
    missing = [
        word
        for word, table in (("before", ops.before), ("after", ops.after))
        if table.self_gpu_ns is None
    ]
    if not missing:
        return None
    if len(missing) == 2:
        return "GPU: not observed on either side (no GPU events)"
    return f"GPU {missing[0]}: not observed (no GPU events on that side)"


def calls_cell(ops: OpsDiff, row: int) -> str:
    """Calls before → after."""
    return f"{int(ops.before.calls[row])}→{int(ops.after.calls[row])}"


def time_cells(
    ops: OpsDiff, row: int, mode: SortKey, device: TimeDevice, per_step: bool = True
) -> tuple[str, str, str]:
    """Before, after (whole trace) and the signed change of one time column: of
    the mean per kept step where both sides have kept steps and `per_step`, as
    `steptrace diff` says it, else of the whole trace; n/o where not observed."""
    values = []
    for table in (ops.before, ops.after):
        if device is TimeDevice.GPU:
            column = table.self_gpu_ns if mode is SortKey.SELF else table.total_gpu_ns
        else:
            column = table.self_cpu_ns if mode is SortKey.SELF else table.total_cpu_ns
        values.append(None if column is None else int(column[row]))
    before, after = values
    shown = [NOT_OBSERVED_CELL if v is None else duration_text(v) for v in values]
    if before is None or after is None:
        return shown[0], shown[1], "–"
    delta = after - before
    if per_step and ops.per_step:
        means = [
            ops.per_step_column(side, mode, device) for side in ("before", "after")
        ]
        if means[0] is not None and means[1] is not None:
            delta = round(float(means[1][row]) - float(means[0][row]))
    return shown[0], shown[1], ("+" if delta > 0 else "") + duration_text(delta)
