"""The zone reading of a choice, kept in the trace's cache entry.

Reading a zone (its union, each device's idle time in it, per-step figures,
the gaps) is a pure function of the columns and of the names chosen, and
every `summary` or `gaps` of a big trace would compute it again; so it is
kept, one file per zone choice (`--zone` and a remembered zone each read
their own), with the gaps as columns: a reopen builds only the `Gap`s it
lists.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from tui.core.base.intervals import Intervals
from tui.core.base.vocab import GapKind, ZoneSource
from tui.core.figures.kept import (
    STEPS_ROOTS,
    KeptArray,
    array_from,
    array_kept,
    msgpack_bytes,
)
from tui.core.figures.zones import GapColumns, StepZone, ZoneChoice, ZoneReading

if TYPE_CHECKING:
    from tui.core.model.trace import Trace

ZONE_NAMES_ROOTS = ("figures/analysis.py", "figures/zones.py", "model/nesting.py")
"""The code finding the zone names present: the candidates (`zone_event_mask`
on CPU threads) and their names, in `Analysis.zone_names_present`."""

ZONE_READING_ROOTS = (
    "figures/analysis.py",
    "figures/zones.py",
    "figures/zone_kept.py",
    "model/derived.py",
    *STEPS_ROOTS,
)
"""The code of a zone reading: `read_zone`, and what `Analysis` gives it (the
candidates, the steps, each device's busy time, the parents of events)."""

_KeptIntervals = tuple[KeptArray, KeptArray]
_KeptReading = tuple[
    tuple[str, ...],
    ZoneSource,
    GapKind,
    _KeptIntervals,
    KeptArray,
    list[tuple[int | None, KeptArray, KeptArray]],
    _KeptIntervals,
    list[StepZone],
    tuple[KeptArray, KeptArray, KeptArray, KeptArray, KeptArray],
]


def zone_reading_name(choice: ZoneChoice) -> str:
    """The name a choice's reading is kept under: each choice its own.

    A CRC, not hashlib (which a command without the cache never imports): two
    choices of one trace whose CRCs clash only read each other's reading as a
    miss, since the reading holds the names it was computed for.
    """
    spelled = "\0".join((choice.source.value, *choice.names))
    return f"zone_reading.{zlib.crc32(spelled.encode('utf-8', 'surrogatepass')):08x}"


def zone_reading_bytes(reading: ZoneReading) -> bytes:
    """The reading, its gaps found, as MessagePack (the columns as raw bytes)."""
    gaps = reading.gap_columns
    return msgpack_bytes(
        (
            reading.choice.names,
            reading.choice.source,
            reading.kind,
            _intervals_kept(reading.zone),
            array_kept(reading.zone_events),
            [
                (device, *_intervals_kept(idle))
                for device, idle in reading.gap_intervals.items()
            ],
            _intervals_kept(reading.gap_union),
            reading.steps,
            tuple(
                array_kept(column)
                for column in (
                    gaps.start_ns,
                    gaps.duration_ns,
                    gaps.device,
                    gaps.step,
                    gaps.zone_event,
                )
            ),
        )
    )


def zone_reading_from(trace: Trace, choice: ZoneChoice, data: bytes) -> ZoneReading:
    """The reading `zone_reading_bytes` wrote for `choice`; ValueError when it
    does not read as one, or was another choice's."""
    import msgspec

    names, source, kind, zone, events, idle, union, steps, gaps = (
        msgspec.msgpack.decode(data, type=_KeptReading)
    )
    if names != choice.names or source is not choice.source:
        raise ValueError("the reading of another zone choice")
    arrays = [array_from(column) for column in gaps]
    if len({array.size for array in arrays}) != 1:
        raise ValueError("gap columns of different lengths")
    columns = GapColumns(*arrays)
    return ZoneReading(
        trace,
        choice,
        kind,
        _intervals_from(zone),
        array_from(events),
        lambda: columns,
        {device: _intervals_from((starts, ends)) for device, starts, ends in idle},
        _intervals_from(union),
        steps,
    )


def _intervals_kept(intervals: Intervals) -> _KeptIntervals:
    return array_kept(intervals.starts), array_kept(intervals.ends)


def _intervals_from(kept: _KeptIntervals) -> Intervals:
    starts, ends = map(array_from, kept)
    if starts.shape != ends.shape:
        raise ValueError("interval starts and ends of different lengths")
    return Intervals(starts, ends)
