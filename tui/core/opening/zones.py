"""Which ranges are the data zone: the names asked for, resolved to a choice or refused.

Every front end asks the same question — the CLI's `--zone`, the loading
screen, a run's ranks, the comparison of two captures, the zone remembered in
the notes — and gets the same typed answer: the analysis with its zone, or a
`ZoneRefusal` naming each missing name with the closest names that do occur.
Its words are `tui.report.refusals`, read by CLI and app alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.core.base.errors import TraceLoadError
from tui.core.base.vocab import CacheUse, Word, ZoneSource
from tui.core.figures.analysis import Analysis, ZoneChoice
from tui.core.figures.zones import zone_group
from tui.core.model.trace import Trace

if TYPE_CHECKING:
    # A run's reading (worker pools, hashing) is imported only by those who open runs.
    from tui.core.runs.across import RunAnalysis

CLOSEST_COUNT = 3
# The similarity floor of a suggestion (difflib's ratio): at 0.5, a name with
# half its letters in common was "closest" ('detach_' for 'lecture_batch').
CLOSEST_CUTOFF = 0.6


class ZoneScope(Word):
    """Where a refused name was looked for."""

    CAPTURE = "capture"
    RUN = "run"
    PAIR = "pair"


@dataclass(frozen=True)
class MissingZone:
    """A name asked for that occurs nowhere, and the closest names that do."""

    name: str
    closest: tuple[str, ...] = ()


@dataclass(frozen=True)
class ZoneRefusal:
    """The zone asked for cannot be used: each missing name, and where it was looked for.

    `listed`: the capture whose names were compared (what `steptrace zones`
    would list); None when no capture's names were read (a pair, or a run
    whose first rank cannot be read).
    """

    scope: ZoneScope
    missing: tuple[MissingZone, ...]
    listed: str | None = None


@dataclass(frozen=True)
class ZonesChosen:
    """The analysis with its data zone.

    `forgotten`: remembered names that occur nowhere in this capture;
    `default_kept`: none of them occur, so the capture's default zone is used.
    """

    analysis: Analysis
    forgotten: tuple[str, ...] = ()
    default_kept: bool = False


def zone_names(asked: Sequence[str]) -> list[str]:
    """Names as a zone choice uses them (every DataLoader range is one name)."""
    return [zone_group(name) for name in asked]


def closest_names(name: str, present: Sequence[str]) -> tuple[str, ...]:
    """The names most like `name` (spelling first, then containing it), a few at most."""
    import difflib  # only for a refused zone: not at every command's start

    close = difflib.get_close_matches(
        name, present, n=CLOSEST_COUNT, cutoff=CLOSEST_CUTOFF
    )
    if not close:
        lowered = name.lower()
        close = [candidate for candidate in present if lowered in candidate.lower()]
    return tuple(close[:CLOSEST_COUNT])


def resolve_zones(
    trace: Trace, asked: Sequence[str] = (), remembered: Sequence[str] = ()
) -> ZonesChosen | ZoneRefusal:
    """The analysis of `trace` with the zone asked for, else the one remembered,
    else its default; a name asked for that occurs nowhere refuses the choice."""
    if not asked:
        return remembered_zones(trace, remembered)
    analysis = Analysis(trace, zone_names(asked))
    missing = analysis.missing_zone_names()
    if missing:
        return ZoneRefusal(
            ZoneScope.CAPTURE, _with_closest(analysis, missing), str(trace.path)
        )
    return ZonesChosen(analysis)


def remembered_zones(trace: Trace, remembered: Sequence[str] = ()) -> ZonesChosen:
    """The analysis with the zone remembered for `trace` (names that occur nowhere
    are left out; when none occurs, the default zone), never refused."""
    analysis = Analysis(trace)
    if not remembered:
        return ZonesChosen(analysis)
    present = analysis.zone_names_present
    found = tuple(name for name in remembered if name in present)
    forgotten = tuple(name for name in remembered if name not in present)
    if not found:
        return ZonesChosen(analysis, forgotten, default_kept=True)
    return ZonesChosen(
        analysis.with_zones(ZoneChoice(found, ZoneSource.CHOSEN)), forgotten
    )


def resolve_pair_zones(
    before: Analysis, after: Analysis, asked: Sequence[str]
) -> tuple[Analysis, Analysis] | ZoneRefusal:
    """Both captures on the zone asked for (as they are when none is); refused
    when a name occurs in neither."""
    if not asked:
        return before, after
    names = zone_names(asked)
    before, after = before.with_zones(names), after.with_zones(names)
    missing_after = after.missing_zone_names()
    nowhere = [name for name in before.missing_zone_names() if name in missing_after]
    if nowhere:
        return ZoneRefusal(ZoneScope.PAIR, tuple(MissingZone(name) for name in nowhere))
    return before, after


def resolve_run_zones(run: RunAnalysis, asked: Sequence[str]) -> ZoneRefusal | None:
    """Refused when a name asked for is held by no rank of the run (each rank's
    summary lists its zone names); the closest names are the first rank's,
    whose trace comes from the column cache, read only on this path."""
    from tui.core.ingest.load import load_trace

    held = {name for row in run.ranks for name in row.summary.zones}
    missing = [name for name in zone_names(asked) if name not in held]
    if not run.ranks or not missing:
        return None
    try:
        trace = load_trace(run.ranks[0].path, cache=CacheUse.AUTO)
    except TraceLoadError:
        return ZoneRefusal(ZoneScope.RUN, tuple(MissingZone(name) for name in missing))
    analysis = Analysis(trace, missing)
    nowhere = analysis.missing_zone_names()
    if not nowhere:  # the first rank holds them after all
        return None
    return ZoneRefusal(ZoneScope.RUN, _with_closest(analysis, nowhere), str(trace.path))


def _with_closest(
    analysis: Analysis, missing: Sequence[str]
) -> tuple[MissingZone, ...]:
    present = sorted(analysis.zone_names_present)
    return tuple(MissingZone(name, closest_names(name, present)) for name in missing)
