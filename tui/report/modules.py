"""`steptrace modules` in words: the tree indented, times per step."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.results.modules import NO_MODULES, ModulesResult
from tui.report.fit import fit_middle
from tui.report.text import TEXT_WIDTH, fill, per_step_scope

NUMBER_WIDTH = 10
CALLS_WIDTH = 6


def modules_text(result: ModulesResult) -> str:
    """The tree (or the rows by a column), one module a line, per step."""
    tree = result.tree
    if not tree.recorded:
        return "\n".join(fill(NO_MODULES, rest=""))
    gpu = tree.gpu_observed
    columns = ["calls", "self", "total", "backward"] + (["GPU"] if gpu else [])
    name_width = TEXT_WIDTH - CALLS_WIDTH - NUMBER_WIDTH * (len(columns) - 1)
    scope = per_step_scope(tree.steps)
    lines = [f"nn.Module tree ({scope}; CPU time unless said)"]
    header = f"{'module':<{name_width}}{'calls':>{CALLS_WIDTH}}" + "".join(
        f"{column:>{NUMBER_WIDTH}}" for column in columns[1:]
    )
    lines.append(header)
    indent = result.sort == "tree"
    for row in result.rows:
        label = ("  " * row.depth + row.name) if indent else row.path
        label = fit_middle(printable(label), name_width - 1)
        values = [row.self_cpu_ns, row.total_cpu_ns, row.backward_cpu_ns]
        if gpu:
            values.append(row.total_gpu_ns or 0)
        calls = tree.per_step(row.calls)
        lines.append(
            f"{label:<{name_width}}{calls:>{CALLS_WIDTH}.3g}"
            + "".join(
                f"{duration_text(tree.per_step(value)):>{NUMBER_WIDTH}}"
                for value in values
            )
        )
    if not tree.backward_linked:
        lines += fill(
            "backward: no operator of this capture is tied to a module's forward "
            "operators (no fwdbwd flow)"
        )
    return "\n".join(lines)
