"""The nn.Module tree: the `nn.Module: X_N` ranges of a `with_stack` capture,
nested per thread, per step of the window.

A module's parent is the nearest module range enclosing it on its thread
(the Python frames between them are skipped); its path is the names from the
root (`Net_0/Sequential_0/Block_0`). Its total time is its ranges' time, its
self time what its child modules leave. Its backward time is that of the
backward operators the trace ties to its forward operators (the `fwdbwd`
flows autograd records), each counted in the module and its ancestors. GPU
time is the device work launched inside its ranges (launch correlation),
absent when no device work was observed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tui.core.figures.analysis import Analysis
from tui.core.figures.event_links import (
    cpu_events_named,
    enclosing_marked,
    forward_backward_pairs,
)
from tui.core.model.python_frames import MODULE_PREFIX

Int64Array = npt.NDArray[np.int64]

BACKWARD_PREFIX = "autograd::engine::evaluate_function: "
"""The range autograd's engine wraps each backward function in."""


@dataclass(frozen=True)
class ModuleRow:
    """One module path: its calls and times summed over the window's steps."""

    path: str
    name: str
    depth: int
    calls: int
    self_cpu_ns: int
    total_cpu_ns: int
    backward_cpu_ns: int
    total_gpu_ns: int | None
    backward_gpu_ns: int | None


@dataclass(frozen=True)
class ModuleTree:
    """Every module path in tree order (a parent before its children); `steps`
    is the count of window steps the sums cover (0: the whole capture)."""

    rows: tuple[ModuleRow, ...]
    steps: int
    recorded: bool
    """Whether the capture holds any module range (with_stack was on)."""
    backward_linked: bool
    """Whether the capture ties backward operators to forward ones (fwdbwd flows)."""
    gpu_observed: bool

    def per_step(self, value: int) -> float:
        """A sum over the window as a mean per step."""
        return value / self.steps if self.steps else float(value)


def _window(analysis: Analysis) -> tuple[int | None, int | None, int]:
    steps = analysis.window_steps
    if not steps:
        return None, None, 0
    return steps[0].start_ns, steps[-1].end_ns, len(steps)


def _backward_events(
    analysis: Analysis, is_module: npt.NDArray[np.bool_]
) -> tuple[Int64Array, Int64Array]:
    """Backward ranges tied by a `fwdbwd` flow to a forward operator, and the
    module range enclosing that operator."""
    trace = analysis.trace
    forward, backward = forward_backward_pairs(analysis)
    above = analysis.parent[backward]
    wrapped = np.zeros(backward.size, dtype=bool)
    for index, event in enumerate(above.tolist()):
        wrapped[index] = event >= 0 and trace.event_name(event).startswith(
            BACKWARD_PREFIX
        )
    backward = np.where(wrapped, above, backward)
    owner = enclosing_marked(analysis, forward, is_module)
    keep = owner >= 0
    return backward[keep], owner[keep]


def module_tree(analysis: Analysis) -> ModuleTree:
    """The module tree over the window's steps (the whole capture without steps)."""
    trace = analysis.trace
    gpu = trace.gpu_observed
    events = cpu_events_named(analysis, MODULE_PREFIX)
    start, end, steps = _window(analysis)
    is_module = np.zeros(trace.event_count, dtype=bool)
    is_module[events] = True
    parent_module = enclosing_marked(analysis, analysis.parent[events], is_module)
    backward, backward_owner = _backward_events(analysis, is_module)
    linked = bool(backward.size)
    if start is not None and end is not None:
        starts = trace.start_ns[events]
        inside = (starts >= start) & (starts < end)
        bstarts = trace.start_ns[backward]
        binside = (bstarts >= start) & (bstarts < end)
        backward, backward_owner = backward[binside], backward_owner[binside]
    else:
        inside = np.ones(events.size, dtype=bool)

    path_of: dict[int, str] = {}
    depth_of: dict[int, int] = {}
    for event, above in zip(events.tolist(), parent_module.tolist(), strict=True):
        name = trace.event_name(event)[len(MODULE_PREFIX) :]
        if above >= 0 and above in path_of:
            path_of[event] = f"{path_of[above]}/{name}"
            depth_of[event] = depth_of[above] + 1
        else:
            path_of[event] = name
            depth_of[event] = 0

    order: dict[str, int] = {}
    sums: dict[str, list[int]] = {}
    duration = trace.duration_ns
    total_gpu = analysis.total_gpu_ns if gpu else None
    for event, above, counted in zip(
        events.tolist(), parent_module.tolist(), inside.tolist(), strict=True
    ):
        if not counted:
            continue
        path = path_of[event]
        row = sums.setdefault(path, [0, 0, 0, 0, 0, 0])
        order.setdefault(path, len(order))
        row[0] += 1
        row[1] += int(duration[event])
        row[2] += int(duration[event])
        if total_gpu is not None:
            row[4] += int(total_gpu[event])
        if above >= 0 and path_of[above] in sums:
            sums[path_of[above]][2] -= int(duration[event])
    for event, owner in zip(backward.tolist(), backward_owner.tolist(), strict=True):
        seen: set[str] = set()
        while owner >= 0:
            path = path_of[owner]
            if path in sums and path not in seen:
                seen.add(path)
                sums[path][3] += int(duration[event])
                if total_gpu is not None:
                    sums[path][5] += int(total_gpu[event])
            owner = int(parent_module[np.searchsorted(events, owner)])

    depth_of_path = {path_of[event]: depth_of[event] for event in path_of}
    rows = [
        ModuleRow(
            path=path,
            name=path.rsplit("/", 1)[-1],
            depth=depth_of_path[path],
            calls=values[0],
            self_cpu_ns=values[2],
            total_cpu_ns=values[1],
            backward_cpu_ns=values[3],
            total_gpu_ns=values[4] if gpu else None,
            backward_gpu_ns=values[5] if gpu else None,
        )
        for path, values in sums.items()
    ]
    return ModuleTree(tuple(_tree_order(rows)), steps, bool(events.size), linked, gpu)


def _tree_order(rows: list[ModuleRow]) -> list[ModuleRow]:
    """Rows depth first, each parent before its children, siblings by first call."""
    children: dict[str, list[ModuleRow]] = {}
    roots: list[ModuleRow] = []
    paths = {row.path for row in rows}
    for row in rows:
        parent = row.path.rpartition("/")[0]
        if parent and parent in paths:
            children.setdefault(parent, []).append(row)
        else:
            roots.append(row)
    ordered: list[ModuleRow] = []
    stack = list(reversed(roots))
    while stack:
        row = stack.pop()
        ordered.append(row)
        stack.extend(reversed(children.get(row.path, [])))
    return ordered
