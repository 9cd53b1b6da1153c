"""The nn.Module tree as rows: one module a line, indented under its parent,
with calls and times per step (`steptrace modules`'s figures).

Enter (or space) folds or unfolds the module under the cursor, right unfolds
and left folds; o, O and r sort by a column: siblings are ordered by it, the
tree kept (`tree`: the order the modules first ran in).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.app.widgets.rows_view import SORT_BINDINGS, RowsView, SortableRows, fit
from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text
from tui.core.figures.modules import ModuleRow, ModuleTree
from tui.core.results.modules import NO_MODULES, sort_value

NUMBER_WIDTH = 10
CALLS_WIDTH = 7
COLUMN_TITLES = {
    "tree": "Module",
    "calls": "calls",
    "self": "self",
    "total": "total",
    "backward": "backward",
    "gpu": "GPU",
}


class ModuleTreeView(SortableRows[str]):
    """The module tree: fold and unfold, siblings sorted by a column."""

    NAME_SORT: ClassVar[object] = "tree"

    BINDINGS: ClassVar[list[BindingType]] = [
        *RowsView.BINDINGS,
        Binding("enter,space", "fold_toggle", "Fold/unfold the module"),
        Binding("right", "unfold", "Unfold", show=False),
        Binding("left", "fold", "Fold", show=False),
        *SORT_BINDINGS,
    ]

    def __init__(self, tree: ModuleTree, *, id: str | None = None) -> None:
        super().__init__(
            "tree", False, id=id, message=None if tree.recorded else NO_MODULES
        )
        self.modules = tree
        self.folded: set[str] = set()
        """Paths whose children are hidden."""
        self._children: dict[str, list[ModuleRow]] = {}
        self._roots: list[ModuleRow] = []
        for row in tree.rows:
            parent = row.path.rpartition("/")[0]
            if parent:
                self._children.setdefault(parent, []).append(row)
            else:
                self._roots.append(row)
        self.shown: list[ModuleRow] = []
        self.reorder()

    def sort_columns(self) -> Sequence[str]:
        columns = ["tree", "calls", "self", "total", "backward"]
        return [*columns, "gpu"] if self.modules.gpu_observed else columns

    # -- the rows shown ---------------------------------------------------------

    def _ordered(self, rows: list[ModuleRow]) -> list[ModuleRow]:
        if self.sort == "tree":
            return rows[::-1] if self.descending else rows
        return sorted(
            rows,
            key=lambda row: sort_value(row, self.sort),
            reverse=self.descending,
        )

    def reorder(self) -> None:
        """The rows unfolded, depth first, siblings in the sort's order."""
        shown: list[ModuleRow] = []
        stack = list(reversed(self._ordered(self._roots)))
        while stack:
            row = stack.pop()
            shown.append(row)
            if row.path not in self.folded:
                stack.extend(reversed(self._ordered(self._children.get(row.path, []))))
        self.shown = shown
        self.rows_changed()

    @property
    def current(self) -> ModuleRow | None:
        """The module under the cursor."""
        return self.shown[self.cursor] if 0 <= self.cursor < len(self.shown) else None

    def _set_folded(self, fold: bool | None) -> None:
        row = self.current
        if row is None or row.path not in self._children:
            return
        if fold is None:
            fold = row.path not in self.folded
        if fold:
            self.folded.add(row.path)
        else:
            self.folded.discard(row.path)
        self.reorder()
        self.cursor = self.shown.index(row)
        self.refresh()

    def action_fold_toggle(self) -> None:
        """Fold the module under the cursor, or unfold it."""
        self._set_folded(None)

    def action_fold(self) -> None:
        """Hide the children of the module under the cursor."""
        self._set_folded(True)

    def action_unfold(self) -> None:
        """Show the children of the module under the cursor."""
        self._set_folded(False)

    # -- drawing ------------------------------------------------------------------

    def _numbers(self) -> list[str]:
        return [column for column in self.sort_columns() if column != "tree"]

    def _name_width(self, width: int) -> int:
        numbers = self._numbers()
        return max(width - CALLS_WIDTH - NUMBER_WIDTH * (len(numbers) - 1), 12)

    def header_text(self, width: int) -> str:
        tree = self.modules
        scope = f"per step of {tree.steps}" if tree.steps else "whole capture"
        name = f"{COLUMN_TITLES['tree']}{self.arrow('tree')} ({scope})"
        text = fit(name, self._name_width(width))
        for column in self._numbers():
            size = CALLS_WIDTH if column == "calls" else NUMBER_WIDTH
            text += fit(COLUMN_TITLES[column] + self.arrow(column), size, right=True)
        return text

    def line_count(self) -> int:
        return len(self.shown)

    def line_text(self, index: int, width: int) -> str:
        row = self.shown[index]
        tree = self.modules
        mark = " "
        if row.path in self._children:
            mark = "▸" if row.path in self.folded else "▾"
        label = "  " * row.depth + f"{mark} " + printable(row.name)
        text = fit(label, self._name_width(width))
        text += fit(f"{tree.per_step(row.calls):.3g}", CALLS_WIDTH, right=True)
        values = [row.self_cpu_ns, row.total_cpu_ns, row.backward_cpu_ns]
        if tree.gpu_observed:
            values.append(row.total_gpu_ns or 0)
        for value in values:
            text += fit(duration_text(tree.per_step(value)), NUMBER_WIDTH, right=True)
        return text
