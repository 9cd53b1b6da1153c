"""The main screen's keys: what each does, whether the footer shows it, and when
it is offered.

Kept apart from the screen: the list is long, and the help and the footer read
it as it is.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from tui.app.screens.bottom_tabs import TABS
from tui.core.figures.analysis import Analysis
from tui.core.results.summary import capture_warnings

RUN_ACTIONS = ("rank", "ranks")
"""The main screen's actions that act on a run (offered on a rank of a run only)."""

TIMELINE_LETTERS = (
    ("w", "zoom_in"),
    ("s", "zoom_out"),
    ("a", "pan(-1)"),
    ("d", "pan(1)"),
    ("x", "toggle_expand"),
    ("Q", "toggle_queues"),
)
"""The timeline's letter keys, which work from any pane (a pane's own come first)."""

MAIN_KEYS: list[BindingType] = [
    # Steps win over the timeline's own [ ] (previous/next event on a track).
    Binding(
        "left_square_bracket",
        "step(-1)",
        "Previous step",
        priority=True,
        show=False,
    ),
    Binding("right_square_bracket", "step(1)", "Next step", priority=True),
    # Offered only when reading the capture warned (the header's badge names it).
    Binding("W", "warnings", "Load warnings"),
    # A rank of a run (opened from the ranks screen): next/previous rank, back.
    Binding("r", "rank(1)", "Next rank, same step"),
    Binding("R", "rank(-1)", "Previous rank, same step", show=False),
    Binding("u", "ranks", "Back to the ranks"),
    # Keys that open a prompt or a dialog act at once (priority), so what is
    # typed right after them goes there, not to the timeline.
    Binding("z", "zone", "Data zone", priority=True),
    Binding("g", "gap(1)", "Next gap"),
    Binding("G", "gap(-1)", "Previous gap", show=False),
    Binding("b", "biggest_gap", "Biggest gap", show=False),
    Binding("J", "gap_threshold", "Gaps g stops at: next threshold", show=False),
    Binding("enter", "details", "Details of the selected event", show=False),
    Binding("slash", "search", "Search event names", priority=True),
    Binding("n", "mark(1)", "Next match / occurrence", show=False),
    Binding("N", "mark(-1)", "Previous match / occurrence", show=False),
    Binding("f", "fit", "Fit selection (again: all)"),
    # When g, G, b, n, N have nothing to act on, they say why (not in the footer).
    Binding("g,G,b,n,N", "why_not", "", show=False),
    Binding("question_mark", "help", "Help"),
    Binding("q", "app.quit", "Quit"),
    Binding("t", "toggle_total", "Self/total"),
    # The sort keys of a table act on the table in view from anywhere, as t
    # does (focused, the table takes them itself); on a run r is the next rank.
    # One help row for o and O: the tables' own sections list O.
    Binding("o", "sort_table(1)", "Sort the table in view (O: back)", show=False),
    Binding("O", "sort_table(-1)", "", show=False),
    Binding("r", "reverse_table", "Reverse the sort of the table in view", show=False),
    Binding("F", "filter_ops", "Filter the table in view", show=False, priority=True),
    Binding("S", "scope", "Scope: window/step", show=False),
    *[
        Binding(str(number), f"tab({number - 1})", tab.title, show=False)
        for number, tab in enumerate(TABS, start=1)
    ],
    Binding("m", "note", "Note"),
    Binding("c", "capture", "New capture", show=False),
    Binding("E", "share", "Share: scrub a copy", show=False),
    Binding("D", "compare", "Compare with another capture", show=False),
    Binding("X", "export_report", "Export the report (Markdown)", show=False),
    Binding("B", "step_split", "Step time as TensorBoard splits it", show=False),
    Binding("M", "modules", "nn.Module tree of the window", show=False),
    Binding(
        "C",
        "compiled",
        "torch.compile: regions, compilations, graph breaks",
        show=False,
    ),
    Binding("P", "critical_path", "Critical path of the step (HTA's)", show=False),
    Binding("escape", "clear", "Clear marks and selection / close search", show=False),
    # Pressed in another pane that does not take them, the timeline's letters
    # give it the focus back and act (the help's Timeline section says so).
    *[
        Binding(key, f"timeline({action!r})", "", show=False)
        for key, action in TIMELINE_LETTERS
    ],
]


def key_offered(
    action: str,
    analysis: Analysis,
    *,
    in_text_field: bool,
    marked: bool,
    on_a_run: bool,
) -> bool:
    """Whether the main screen offers `action` now: only keys that do something,
    and none that a text field with the focus takes as typing."""
    if (
        action
        in (
            "step",
            "zone",
            "search",
            "filter_ops",
            "timeline",
        )
        and in_text_field
    ):
        return False
    if action == "step":
        return bool(analysis.steps)
    if action in ("gap", "biggest_gap", "gap_threshold"):
        return bool(analysis.gaps)
    if action == "mark":
        return marked
    if action in RUN_ACTIONS:
        return on_a_run
    if action == "reverse_table":  # r is the next rank on a run
        return not on_a_run
    if action == "warnings":
        return bool(capture_warnings(analysis))
    return True
