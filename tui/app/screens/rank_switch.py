"""Moving between a run's ranks: open a rank at a step, walk to the next rank, go back.

A main screen opened from the ranks screen carries a `RankPlace`: the run
(its ranks screen), the rank shown and the step to show. `r`/`R` open the
next or previous rank of the ranks screen's order at the same step number,
with the view at the same place relative to that step (a step of another
length is scaled, not cut); `u` goes back to the ranks screen with its
cursor on the rank and step in view. Every rank loads through the ordinary
loading screen (and the column cache).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType

from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Step

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.screens.main import MainScreen
    from tui.app.screens.ranks import RanksScreen

# MainScreen actions that act on the run (listed by the ranks screen's help).
ACTIONS = ("rank", "ranks")


def screen_keys(
    screen: MainScreen, bindings: Sequence[BindingType]
) -> list[BindingType]:
    """A main screen's keys for its help: those of a run only on a rank of a run."""
    if screen.rank_place is not None:
        return list(bindings)
    return [
        binding
        for binding in bindings
        if not (
            isinstance(binding, Binding) and binding.action.split("(")[0] in ACTIONS
        )
    ]


@dataclass(frozen=True)
class RankPlace:
    """Which rank of which run a main screen shows, and where its view goes."""

    ranks: RanksScreen
    rank: int
    step: int | None  # the step number to show
    view: tuple[float, float] | None = (
        None  # view edges from the step's start, in steps
    )

    def label(self) -> str:
        """`rank 3 of run1 (world size 8)`: what the header says."""
        run = self.ranks.run
        world = "" if run.world_size is None else f" (world size {run.world_size})"
        return f"rank {self.rank} of {printable(run.folder.name)}{world}"


def open_rank(
    app: App[Any],
    ranks: RanksScreen,
    rank: int,
    step: int | None,
    view: tuple[float, float] | None = None,
    *,
    zones: tuple[str, ...] | None = None,
) -> None:
    """Load a rank's trace; its main screen replaces the one shown when ready."""
    from tui.app.screens.loading import LoadingScreen

    row = ranks.run.row(rank)
    if row is None:
        app.notify(f"Rank {rank} was not loaded.", severity="warning")
        return
    place = RankPlace(ranks, rank, step, view)
    asked = ranks.zones if zones is None else zones
    app.push_screen(LoadingScreen(row.path, asked), partial(_loaded, app, place))


def _loaded(app: App[Any], place: RankPlace, outcome: Any) -> None:
    from tui.app.messages import LoadFailed, TraceLoaded, ZoneRefused
    from tui.app.screens.load_error import LoadErrorScreen
    from tui.app.screens.main import MainScreen

    if isinstance(outcome, TraceLoaded):
        while app.screen is not place.ranks and isinstance(
            app.screen, (MainScreen, LoadErrorScreen)
        ):
            app.pop_screen()
        app.push_screen(MainScreen(outcome, rank_place=place))
        app.sub_title = f"{outcome.path.name}, {place.label()}"
    elif isinstance(outcome, LoadFailed):
        app.push_screen(LoadErrorScreen(outcome.path, outcome.reason))
    elif isinstance(outcome, ZoneRefused):
        # The run's zone is held by other ranks, not this one: its own default.
        app.notify(
            f"Rank {place.rank} has no range of the run's data zone: it shows its own.",
            severity="warning",
        )
        open_rank(app, place.ranks, place.rank, place.step, place.view, zones=())


def step_index(steps: list[Step], number: int | None) -> int | None:
    """The index of the step with this number."""
    if number is None:
        return None
    return next(
        (index for index, step in enumerate(steps) if step.number == number), None
    )


def arrive(screen: MainScreen) -> None:
    """Fit the step the place asks for, at the same relative view when it has one."""
    place = screen.rank_place
    if place is None:
        return
    steps = screen.analysis.steps
    index = step_index(steps, place.step)
    if index is None:
        if place.step is not None:
            screen.notify(
                f"Rank {place.rank} did not record step {place.step}: its whole "
                "window is shown.",
                severity="warning",
            )
        return
    screen.go_to_step(index)
    if place.view is not None:
        step = steps[index]
        length = max(step.duration_ns, 1)
        start = step.start_ns + round(place.view[0] * length)
        end = step.start_ns + round(place.view[1] * length)
        screen.timeline.fit(start, max(end, start + 1))


def view_in_step(screen: MainScreen) -> tuple[int | None, tuple[float, float] | None]:
    """The step in view (under the view's middle) and the view relative to it."""
    timeline = screen.timeline
    start, end = timeline.view_start_ns, timeline.view_end_ns
    analysis = screen.analysis
    number = analysis.step_of((start + end) // 2)
    if number is None:
        place = screen.rank_place
        current = screen.current_step
        if current is not None and current < len(analysis.steps):
            number = analysis.steps[current].number
        elif place is not None:
            number = place.step
        return number, None
    step = analysis.steps[step_index(analysis.steps, number) or 0]
    length = max(step.duration_ns, 1)
    return number, ((start - step.start_ns) / length, (end - step.start_ns) / length)


def switch(screen: MainScreen, delta: int) -> None:
    """Open the next (or previous) rank of the ranks screen's order, same step, same view."""
    place = screen.rank_place
    if place is None:
        return
    order = place.ranks.ranks_in_order()
    if len(order) < 2:
        screen.notify("This run has one rank.")
        return
    position = order.index(place.rank) if place.rank in order else 0
    target = position + delta
    if not 0 <= target < len(order):
        screen.notify(
            f"Rank {place.rank} was the {'last' if delta > 0 else 'first'} of the "
            "ranks table: going round.",
        )
    number, view = view_in_step(screen)
    open_rank(screen.app, place.ranks, order[target % len(order)], number, view)


def back(screen: MainScreen) -> None:
    """Go back to the ranks screen, its cursor on this rank and the step in view."""
    place = screen.rank_place
    if place is None:
        return
    number, _ = view_in_step(screen)
    app = screen.app
    while app.screen is not place.ranks and len(app.screen_stack) > 1:
        app.pop_screen()
    place.ranks.focus_cell(place.rank, number)
    app.sub_title = printable(place.ranks.run.folder.name)
