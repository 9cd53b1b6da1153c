"""Kernel names fitted to a width: one rule for every table, CLI and app.

A demangled kernel name is mostly scaffolding (`void`, namespaces, template
arguments, a parameter list) around a short name of its own. In order: the
readable name (no `void`, namespaces or parameters); too wide, its template
arguments folded (`vectorized_elementwise_kernel<…>`); rows that then read
alike show their template arguments cut in the middle, then their end, then
the full signature, the kernel's own name always whole; a name of its own
wider than the room is cut in the middle; rows still alike are numbered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len

from tui.core.base.textsafe import printable
from tui.core.figures.kernels import readable_kernel_name, short_kernel_name
from tui.report.fit import ELLIPSIS, fit_end, fit_middle, fit_start

_ARGS_MIN = 5
"""Fewer cells than this for the template arguments: show them folded."""


def kernel_label(name: str, width: int) -> str:
    """One kernel name (as the trace writes it) in at most `width` cells."""
    return kernel_labels([name], width)[0]


def _own_and_args(readable: str) -> tuple[str, str] | None:
    """`name<args>` split into the name and its arguments (None without them)."""
    opening = readable.find("<")
    if opening <= 0 or not readable.endswith(">"):
        return None
    return readable[:opening], readable[opening + 1 : -1]


def _with_args(readable: str, width: int, cut: Callable[[str, int], str]) -> str | None:
    """The own name whole and the template arguments cut by `cut` to fit."""
    split = _own_and_args(readable)
    if split is None:
        return None
    own, args = split
    room = width - cell_len(own) - 2
    if room < _ARGS_MIN:
        return None
    return f"{own}<{cut(args, room)}>"


def _alone(readable: str, folded: str, width: int) -> str:
    """A name by itself: readable if it fits, else folded, else cut at its
    end (its start says which kernel; the whole name is a key away: v)."""
    if cell_len(readable) <= width:
        return readable
    if cell_len(folded) <= width:
        return folded
    return fit_end(folded, width)


def _around(at: int) -> Callable[[str, int], str]:
    """Template arguments shown from where a group's first differ."""

    def cut(args: str, room: int) -> str:
        if at < 4 or cell_len(args) <= room:
            return fit_end(args, room)
        return ELLIPSIS + fit_end(args[at:], room - 1)

    return cut


def _around_name(readable: str, at: int, width: int) -> str | None:
    """A name shown from where its group first differs, with a little of its start."""
    if at < 4 or width < 12:
        return None
    head = max((width - 1) // 3, 1)
    return readable[:head] + ELLIPSIS + fit_end(readable[at:], width - 1 - head)


Way = Callable[[str, str, int, int, int], "str | None"]
"""Another label for a name that reads like others: (name, readable, width,
where the group's template arguments first differ, where their readable names
first differ) -> label or None."""
_WAYS: tuple[Way, ...] = (
    lambda name, readable, width, args_at, at: _with_args(readable, width, fit_middle),
    lambda name, readable, width, args_at, at: _with_args(readable, width, fit_start),
    lambda name, readable, width, args_at, at: _with_args(readable, width, fit_end),
    lambda name, readable, width, args_at, at: _with_args(
        readable, width, _around(args_at)
    ),
    lambda name, readable, width, args_at, at: fit_start(readable, width),
    lambda name, readable, width, args_at, at: _around_name(readable, at, width),
    lambda name, readable, width, args_at, at: fit_middle(
        printable(name.strip().removeprefix("void ")), width
    ),
)
"""In order: the template arguments' middle, end, start, their first
difference; for names of their own too long to show whole, their end, then
around their first difference; then the whole signature (overloads differ by
their parameters only)."""


def kernel_labels(names: Sequence[str], width: int) -> list[str]:
    """Each kernel name in at most `width` cells, escaped; different names
    never read the same."""
    width = max(width, 1)
    readable = [printable(readable_kernel_name(name)) for name in names]
    folded = [printable(short_kernel_name(name)) for name in names]
    shown = [_alone(r, f, width) for r, f in zip(readable, folded, strict=True)]
    _tell_apart(names, readable, shown, width)
    for members in _clashes(names, shown):
        for number, index in enumerate(members, start=1):
            mark = f"#{number}"
            shown[index] = fit_end(shown[index], max(width - len(mark), 1)) + mark
    return shown


def _tell_apart(
    names: Sequence[str], readable: list[str], shown: list[str], width: int
) -> None:
    """Give each group of alike rows the first way that tells it all apart."""
    for members in _clashes(names, shown):
        group = [readable[index] for index in members]
        args_at = _common_prefix(group)
        at = _common_prefix(group, whole=True)
        chosen: list[str] | None = None
        for way in _WAYS:
            attempt = [
                way(names[index], readable[index], width, args_at, at)
                for index in members
            ]
            labels = [label for label in attempt if label is not None]
            if len(labels) == len(members) and len(set(labels)) == len(members):
                chosen = labels
                break
        if chosen is not None:
            for index, label in zip(members, chosen, strict=True):
                shown[index] = label


def _common_prefix(readable: list[str], *, whole: bool = False) -> int:
    """How many leading characters the template arguments (or, `whole`, the
    names) of a group share."""
    args = [
        name if whole else (_own_and_args(name) or ("", name))[1] for name in readable
    ]
    shortest = min(args, key=len)
    for position, character in enumerate(shortest):
        if any(text[position] != character for text in args):
            return position
    return len(shortest)


def _clashes(names: Sequence[str], shown: list[str]) -> list[list[int]]:
    """Groups of rows that read alike though their names differ."""
    groups: dict[str, list[int]] = {}
    for index, label in enumerate(shown):
        groups.setdefault(label, []).append(index)
    return [
        members
        for members in groups.values()
        if len({names[index] for index in members}) > 1
    ]
