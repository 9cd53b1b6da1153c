"""The data zone chosen in the explorer, remembered in the trace's notes file.

Stored under the top-level key `zone` of the sidecar: `{"names": [...],
"chosen": "<ISO time>"}`; empty names mean "back to the automatic choice".
The key is optional, so older sidecars read as "no choice", and a reader that
does not know it still reads the notes. Two sessions merge it like a note
field: the side that changed it since it last read the file wins; when both
did, the later choice does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.notes.model import InvalidNoteError

ZONE_KEY = "zone"
MAX_ZONE_NAMES = 64
MAX_NAME_LENGTH = 4096


@dataclass(frozen=True)
class ZoneMemory:
    """Names of the data zone chosen for a trace (empty: the automatic one), and when."""

    names: tuple[str, ...]
    chosen: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"names": list(self.names), "chosen": self.chosen}

    @classmethod
    def from_dict(cls, raw: object) -> ZoneMemory:
        """Validate and build from the JSON form (InvalidNoteError when malformed)."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("zone must be an object")
        names = raw.get("names")
        chosen = raw.get("chosen", "")
        if not isinstance(names, list) or len(names) > MAX_ZONE_NAMES:
            raise InvalidNoteError("zone names must be a list")
        if not all(
            isinstance(name, str) and 0 < len(name) <= MAX_NAME_LENGTH for name in names
        ):
            raise InvalidNoteError("zone names must be non-empty text")
        if not isinstance(chosen, str):
            raise InvalidNoteError("zone chosen must be text")
        return cls(tuple(dict.fromkeys(names)), chosen)


def read_zone(raw: Mapping[str, Any]) -> ZoneMemory | None:
    """The zone of a parsed sidecar, or None when absent or malformed (never an error:
    a bad zone must not make the notes unreadable)."""
    value = raw.get(ZONE_KEY)
    if value is None:
        return None
    try:
        return ZoneMemory.from_dict(value)
    except InvalidNoteError:
        return None


def merge_zone(
    base: ZoneMemory | None, mine: ZoneMemory | None, theirs: ZoneMemory | None
) -> ZoneMemory | None:
    """Three-way merge: the side that changed since `base` wins; both: the later."""
    if mine in (theirs, base):
        return theirs
    if theirs == base:
        return mine
    return latest([mine, theirs])


def latest(choices: Sequence[ZoneMemory | None]) -> ZoneMemory | None:
    """The most recent of several choices (sidecars read together)."""
    present = [choice for choice in choices if choice is not None]
    if not present:
        return None
    return max(present, key=lambda choice: choice.chosen)
