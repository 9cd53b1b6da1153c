"""`steptrace modules`: the nn.Module tree, per step of the window."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.modules import ModuleRow, ModuleTree, module_tree

NO_MODULES = (
    "no nn.Module ranges in this capture: the profiler records them with its "
    "Python stacks (torch.profiler.profile(with_stack=True), "
    "collector.capture(with_stack=True) or steptrace capture --with-stack)"
)


def sort_value(row: ModuleRow, column: str) -> int:
    """The figure a column sorts modules by (`calls`, `self`, `backward`, `gpu`;
    total CPU time otherwise), in the CLI and the app alike."""
    if column == "self":
        return row.self_cpu_ns
    if column == "backward":
        return row.backward_cpu_ns
    if column == "calls":
        return row.calls
    if column == "gpu":
        return row.total_gpu_ns or 0
    return row.total_cpu_ns


@dataclass(frozen=True)
class ModulesResult:
    """The module tree and the order its rows are shown in."""

    tree: ModuleTree
    rows: tuple[ModuleRow, ...]
    sort: str

    @classmethod
    def of(cls, analysis: Analysis, sort: str = "tree") -> ModulesResult:
        """The tree of the window's steps, in tree order or by a column."""
        tree = module_tree(analysis)
        rows = tree.rows
        if sort != "tree":
            rows = tuple(sorted(rows, key=lambda row: -sort_value(row, sort)))
        return cls(tree, rows, sort)

    def to_json(self) -> dict[str, Any]:
        """What `steptrace modules --json` prints."""
        tree = self.tree

        def per_step(value: int | None) -> float | None:
            return None if value is None else us(round(tree.per_step(value)))

        return {
            "modules_recorded": tree.recorded,
            "message": None if tree.recorded else NO_MODULES,
            "steps": tree.steps,
            "gpu_observed": tree.gpu_observed,
            "backward_linked": tree.backward_linked,
            "sort": self.sort,
            "modules": [
                {
                    "path": row.path,
                    "name": row.name,
                    "depth": row.depth,
                    "calls_per_step": tree.per_step(row.calls),
                    "self_cpu_us_per_step": per_step(row.self_cpu_ns),
                    "total_cpu_us_per_step": per_step(row.total_cpu_ns),
                    "backward_cpu_us_per_step": per_step(row.backward_cpu_ns),
                    "total_gpu_us_per_step": per_step(row.total_gpu_ns),
                    "backward_gpu_us_per_step": per_step(row.backward_gpu_ns),
                }
                for row in self.rows
            ],
        }
