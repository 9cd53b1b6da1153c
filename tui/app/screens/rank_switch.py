"""Moving between a run's ranks from a rank's main screen: arrive at the step
asked for, walk to the next rank, go back.

A main screen opened from the ranks screen carries a `RankPlace` (the run's
ranks screen, the rank shown and the step to show). `r`/`R` open the next or
previous rank of the ranks screen's order at the same step number, with the
view at the same place relative to that step (a step of another length is
scaled, not cut); `u` goes back to the ranks screen with its cursor on the
rank and step in view. The ranks screen opens each rank (`open_rank`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.binding import Binding, BindingType

from tui.app.screens.main_keys import RUN_ACTIONS
from tui.app.screens.ranks import RankPlace
from tui.core.base.textsafe import printable
from tui.core.figures.analysis import Analysis, Step

Notify = Callable[..., None]


def screen_keys(bindings: Sequence[BindingType], on_a_run: bool) -> list[BindingType]:
    """A main screen's keys for its help: those of a run only on a rank of a run."""
    if on_a_run:
        return list(bindings)
    return [
        binding
        for binding in bindings
        if not (
            isinstance(binding, Binding) and binding.action.split("(")[0] in RUN_ACTIONS
        )
    ]


def step_index(steps: list[Step], number: int | None) -> int | None:
    """The index of the step with this number."""
    if number is None:
        return None
    return next(
        (index for index, step in enumerate(steps) if step.number == number), None
    )


def arrival(
    place: RankPlace, steps: list[Step], notify: Notify
) -> tuple[int, tuple[int, int] | None] | None:
    """The step the place asks for (index into `steps`) and the view to fit in
    it (None: the step's own); None when the rank did not record that step."""
    index = step_index(steps, place.step)
    if index is None:
        if place.step is not None:
            notify(
                f"Rank {place.rank} did not record step {place.step}: its whole "
                "window is shown.",
                severity="warning",
            )
        return None
    if place.view is None:
        return index, None
    step = steps[index]
    length = max(step.duration_ns, 1)
    start = step.start_ns + round(place.view[0] * length)
    end = step.start_ns + round(place.view[1] * length)
    return index, (start, max(end, start + 1))


def view_in_step(
    place: RankPlace | None,
    analysis: Analysis,
    view: tuple[int, int],
    current_step: int | None,
) -> tuple[int | None, tuple[float, float] | None]:
    """The step in view (under the middle of `view`) and the view relative to it."""
    start, end = view
    number = analysis.step_of((start + end) // 2)
    if number is None:
        if current_step is not None and current_step < len(analysis.steps):
            number = analysis.steps[current_step].number
        elif place is not None:
            number = place.step
        return number, None
    step = analysis.steps[step_index(analysis.steps, number) or 0]
    length = max(step.duration_ns, 1)
    return number, ((start - step.start_ns) / length, (end - step.start_ns) / length)


def switch(
    place: RankPlace,
    delta: int,
    here: tuple[int | None, tuple[float, float] | None],
    notify: Notify,
) -> None:
    """Open the next (or previous) rank of the ranks screen's order at the step
    and relative view `here`."""
    order = place.ranks.ranks_in_order()
    if len(order) < 2:
        notify("This run has one rank.")
        return
    position = order.index(place.rank) if place.rank in order else 0
    target = position + delta
    if not 0 <= target < len(order):
        notify(
            f"Rank {place.rank} was the {'last' if delta > 0 else 'first'} of the "
            "ranks table: going round.",
        )
    number, view = here
    place.ranks.open_rank(order[target % len(order)], number, view)


def back(place: RankPlace, number: int | None) -> None:
    """Go back to the ranks screen, its cursor on this rank and step `number`."""
    ranks = place.ranks
    app = ranks.app
    while app.screen is not ranks and len(app.screen_stack) > 1:
        app.pop_screen()
    ranks.focus_cell(place.rank, number)
    app.sub_title = printable(ranks.run.folder.name)
