"""`steptrace compiled` in words: regions per step, compilations, graph breaks."""

from __future__ import annotations

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, plural
from tui.core.figures.compiled import CompiledRegion
from tui.core.results.compiled import NOT_COMPILED, CompiledResult
from tui.report.fit import fit_middle
from tui.report.text import fill, per_step_scope

GRAPHS_SHOWN = 3
KERNELS_SHOWN = 5


def compiled_text(result: CompiledResult) -> str:
    """Regions (calls and time per step, graphs, kernels), compilations, steps."""
    figures = result.figures
    if not figures.present:
        return "\n".join(fill(NOT_COMPILED, rest=""))
    scope = per_step_scope(result.steps)
    lines = [f"Compiled regions ({scope})"]
    for region in figures.regions:
        lines += _region_lines(result, region)
    lines += _compilation_lines(result)
    lines += _step_lines(result)
    return "\n".join(lines)


def _region_lines(result: CompiledResult, region: CompiledRegion) -> list[str]:
    """A compile id's calls and time per step, its graphs and kernels."""
    mark = ""
    if region.recompiled:
        compiled_step = result.compiled_in(region.compile_id)
        where = f" in step {compiled_step}" if compiled_step is not None else ""
        mark = f"  recompile of frame {region.frame}{where}"
    lines = [
        f"  {printable(region.compile_id):<8}"
        f"{result.per_step(region.calls):>6.3g} calls "
        f"{duration_text(result.per_step(region.time_ns)):>10}{mark}"
    ]
    for graph in region.graphs[:GRAPHS_SHOWN]:
        lines.append(
            f"      {fit_middle(printable(graph.name), 52):<52} "
            f"{duration_text(result.per_step(graph.time_ns)):>10}"
        )
    for kernel in (region.kernels or ())[:KERNELS_SHOWN]:
        lines.append(
            f"      kernel {fit_middle(printable(kernel.name), 45):<45} "
            f"{duration_text(result.per_step(kernel.time_ns)):>10}"
        )
    return lines


def _compilation_lines(result: CompiledResult) -> list[str]:
    """Each compilation: its id, compile or recompile, its step, its time."""
    compilations = result.figures.compilations
    if not compilations:
        return []
    lines = ["Compilations (Dynamo, with the backend's part)"]
    for item in compilations:
        where = "outside the steps" if item.step is None else f"step {item.step}"
        kind = "recompile" if item.recompile else "compile"
        lines.append(
            f"  {printable(item.compile_id or '?'):<8}{kind:<10}{where:<18}"
            f"{duration_text(item.duration_ns):>10}  backend "
            f"{duration_text(item.backend_ns)}"
        )
    return lines


def _step_lines(result: CompiledResult) -> list[str]:
    """Each window step: its compile ids, graph breaks, compile time."""
    lines = ["Per step"]
    for step in result.figures.steps:
        breaks = (
            f", {plural(step.frames - 1, 'graph break')}" if step.frames > 1 else ""
        )
        compile_text = (
            f", compiling {duration_text(step.compile_ns)}" if step.compile_ns else ""
        )
        ids = ", ".join(printable(cid) for cid in step.compile_ids) or "no region"
        lines.append(f"  step {step.step}: {ids}{breaks}{compile_text}")
    return lines
