"""`steptrace copies` in words: totals, per step, repeated copies and the biggest issuers."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, size_text
from tui.core.figures.copies import CopyGroup, CopyReading
from tui.core.results.copies import PATH_SEPARATOR, CopiesResult
from tui.report.text import TEXT_WIDTH, cut_middle, fill

# Rows of the per-issuer table in text (JSON has them all).
TEXT_GROUPS = 20
TEXT_REPEATED = 10


def _size(value: int | None) -> str:
    return "size ?" if value is None else size_text(value)


def copies_text(result: CopiesResult) -> str:
    """Totals, per step, repeated copies and the biggest issuers, at 80 columns."""
    reading = result.reading
    if reading is None:
        return "\n".join(
            fill(
                "copies: not observed — " + printable(str(result.gpu_missing_reason)),
                "",
                "  ",
            )
        )
    if not reading.totals:
        return "no copy or set in this capture (the device ran kernels only)"
    header = (
        f"{'direction':<14} {'count':>8} {'bytes':>10} {'time':>11} "
        f"{'pageable':>9} {'pinned':>7}"
    )
    lines = [
        "copies and sets (time: union of their intervals; bytes: from the trace)",
        header,
        "-" * len(header),
    ]
    for row in reading.totals:
        unknown = f" (+{row.unknown_size} ?)" if row.unknown_size else ""
        lines.append(
            f"{row.direction.label:<14} {row.count:>8} "
            f"{size_text(row.bytes):>10} {duration_text(row.time_ns):>11} "
            f"{row.pageable:>9} {row.pinned:>7}{unknown}"
        )
    if reading.steps:
        lines += ["", "per step (copies issued in the step)"]
        for step, totals in zip(reading.steps, reading.step_totals, strict=True):
            label = f"{step.number:>8} {step.phase.value:<8} "
            if not totals:
                lines.append(label + "none")
            for row in totals:
                lines.append(
                    f"{label}{row.direction.label:<14} {row.count:>6}× "
                    f"{size_text(row.bytes):>10} {duration_text(row.time_ns):>11}"
                )
                label = " " * len(label)
    lines += ["", *_repeated_lines(reading)]
    lines += ["", "by issuing operator path (largest time first)"]
    header = (
        f"{'direction':<14} {'memory':<8} {'size':>10} {'count':>6} {'time':>11}"
        "  issued by"
    )
    lines += [header, "-" * TEXT_WIDTH]
    room = TEXT_WIDTH - (len(header) - len("issued by"))
    for group in reading.groups[:TEXT_GROUPS]:
        memory = "–" if group.host_memory is None else group.host_memory.value
        operator = _path_text(group)
        lines.append(
            f"{group.direction.label:<14} {memory:<8} {_size(group.bytes):>10} "
            f"{group.count:>6} {duration_text(group.time_ns):>11}  "
            f"{cut_middle(operator, room)}"
        )
    if len(reading.groups) > TEXT_GROUPS:
        lines.append(f"… {len(reading.groups) - TEXT_GROUPS} more (--json)")
    return "\n".join(lines)


def _repeated_lines(reading: CopyReading) -> list[str]:
    steps = len(reading.window)
    if steps < 2:
        return fill(
            f"repeated copies: need at least two steps in the window (it has {steps})"
        )
    repeated = reading.repeated
    if not repeated:
        return fill(
            f"repeated copies: none — no copy of the same direction and size from "
            f"the same operator path in all {steps} window steps"
        )
    lines = fill(
        f"repeated in each of the {steps} window steps (same direction, size and "
        "operator path): constants re-sent every step are among these"
    )
    for group in repeated[:TEXT_REPEATED]:
        memory = "" if group.host_memory is None else f" {group.host_memory.value}"
        lines.append(
            f"  {group.direction.label}{memory} {_size(group.bytes)} "
            f"×{group.median_count_per_step:g}/step, "
            f"{duration_text(group.median_ns_per_step)}/step"
        )
        lines.append("    " + cut_middle(_path_text(group), TEXT_WIDTH - 4))
    if len(repeated) > TEXT_REPEATED:
        lines.append(f"  … {len(repeated) - TEXT_REPEATED} more (--json)")
    return lines


def _path_text(group: CopyGroup) -> str:
    """The issuing path, outermost first, as people read it."""
    return printable(PATH_SEPARATOR.join(group.path) or "(no operator)")
