"""The module tree's screen: the tree indented, folded and unfolded in place,
siblings sorted by a column with the tree kept, and the way to record module
ranges when the capture has none."""

from __future__ import annotations

from textual.app import App

from tests.pilot import pilot_test
from tui.app.screens.modules import ModulesScreen
from tui.app.widgets.module_tree import ModuleTreeView
from tui.core.figures.modules import ModuleRow, ModuleTree
from tui.core.results.modules import NO_MODULES


def _row(path: str, total_us: int, backward_us: int = 0) -> ModuleRow:
    return ModuleRow(
        path=path,
        name=path.rsplit("/", 1)[-1],
        depth=path.count("/"),
        calls=2,
        self_cpu_ns=total_us * 500,
        total_cpu_ns=total_us * 1000,
        backward_cpu_ns=backward_us * 1000,
        total_gpu_ns=None,
        backward_gpu_ns=None,
    )


TREE = ModuleTree(
    rows=(
        _row("Net_0", 100),
        _row("Net_0/Block_0", 30, backward_us=50),
        _row("Net_0/Block_0/Linear_0", 20),
        _row("Net_0/Block_1", 60, backward_us=10),
        _row("Net_0/Head_0", 5),
    ),
    steps=2,
    recorded=True,
    backward_linked=True,
    gpu_observed=False,
)


class TreeApp(App[None]):
    def __init__(self, tree: ModuleTree) -> None:
        super().__init__()
        self.modules = tree

    def on_mount(self) -> None:
        self.push_screen(ModulesScreen(self.modules))


def _names(view: ModuleTreeView) -> list[str]:
    return [row.path for row in view.shown]


@pilot_test
async def test_fold_unfold_and_sort_keep_the_tree() -> None:
    app = TreeApp(TREE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(ModuleTreeView)
        assert _names(view) == [row.path for row in TREE.rows]
        assert view.line_text(2, 80).startswith("    ")  # Linear_0 under Block_0
        assert "30 µs" in view.line_text(3, 80)  # Block_1: its 60 µs over 2 steps
        await pilot.press("down", "enter")  # fold Block_0
        assert _names(view) == [
            "Net_0",
            "Net_0/Block_0",
            "Net_0/Block_1",
            "Net_0/Head_0",
        ]
        assert "▸" in view.line_text(1, 80)
        await pilot.press("right")  # unfold it again
        assert "Net_0/Block_0/Linear_0" in _names(view)
        view.set_sort("backward")  # siblings by backward time, most first
        await pilot.pause()
        assert _names(view) == [
            "Net_0",
            "Net_0/Block_0",
            "Net_0/Block_0/Linear_0",
            "Net_0/Block_1",
            "Net_0/Head_0",
        ]
        view.set_sort("total")
        await pilot.pause()
        assert _names(view)[1:3] == ["Net_0/Block_1", "Net_0/Block_0"]
        assert "total ▼" in view.header_text(80)
        await pilot.press("escape")
        assert not isinstance(app.screen, ModulesScreen)


@pilot_test
async def test_without_module_ranges_it_says_how_to_record_them() -> None:
    empty = ModuleTree((), 3, recorded=False, backward_linked=False, gpu_observed=False)
    app = TreeApp(empty)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(ModuleTreeView)
        assert view.message == NO_MODULES and view.line_count() == 0
