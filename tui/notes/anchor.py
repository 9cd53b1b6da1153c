"""Where a note points in the capture (a step, a range, an operator, an event,
a finding), read and validated from its JSON form, with exact µs↔ns rules."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tui.core.base.numbers import us_text_to_ns
from tui.core.base.units import duration_text
from tui.core.base.vocab import Word
from tui.notes.errors import InvalidNoteError


class AnchorKind(Word):
    """What a note points at in the capture; the values are the notes file's strings."""

    STEP = "step"
    RANGE = "range"
    OP = "op"
    EVENT = "event"
    FINDING = "finding"


ANCHOR_KINDS: tuple[AnchorKind, ...] = tuple(AnchorKind)


def _anchor_kind(value: object) -> AnchorKind:
    """An anchor's kind read from its JSON string (or given as the enum)."""
    try:
        return AnchorKind(value)
    except ValueError:
        raise InvalidNoteError(
            f"unknown anchor kind {value!r} "
            f"(expected one of: {', '.join(ANCHOR_KINDS)})"
        ) from None


def optional_text(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidNoteError(f"{what} must be text")
    return value


_NUMBER = r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?"
_RANGE_TEXT = re.compile(rf"^\s*({_NUMBER})\s*-\s*({_NUMBER})\s*$")
_ANCHOR_FORMS = "step:N, op:NAME, range:START_US-END_US or finding:ID"


_INT64 = 2**63


def _whole_ns(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidNoteError(f"{what} must be a whole number of nanoseconds")
    if not -_INT64 <= value < _INT64:
        raise InvalidNoteError(f"{what} is out of range")
    return value


def us_to_ns(value: object, what: str = "time") -> int:
    """Microseconds (a number or its text) as whole nanoseconds, by the trace's
    own rule (`us_text_to_ns`: the decimal digits, half up below 1 ns), so a
    time typed from the timeline names the nanosecond the trace holds.

    `0.001` is 1 ns, and a float read back from an old notes file gives the
    nanosecond it was made from (its shortest repr).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidNoteError(f"{what} must be a number")
    nanoseconds = us_text_to_ns(repr(value) if isinstance(value, float) else str(value))
    if nanoseconds is None:
        raise InvalidNoteError(f"{what} must be a finite number of µs within range")
    return nanoseconds


def us_text(ns: int) -> str:
    """Nanoseconds as exact microseconds, without trailing zeros: 250500 → `250.5`."""
    sign = "-" if ns < 0 else ""
    whole, part = divmod(abs(ns), 1000)
    return f"{sign}{whole}" + (f".{part:03d}".rstrip("0") if part else "")


@dataclass(frozen=True)
class Anchor:
    """Where a note points in the capture, with enough to jump back to it.

    kind "step" uses `step`; "range" uses `start_ns`/`end_ns` (integer
    nanoseconds from the start of the trace, exactly as the model holds
    them); "op" uses `name`; "event" uses `name`, `start_ns` and `track`;
    "finding" uses `finding_id`. Other fields stay None.
    """

    kind: AnchorKind
    step: int | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    name: str | None = None
    track: str | None = None
    finding_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _anchor_kind(self.kind))
        used = _ANCHOR_FIELDS[self.kind]
        for name in ("step", "start_ns", "end_ns", "name", "track", "finding_id"):
            value = getattr(self, name)
            if name in used and value is None:
                raise InvalidNoteError(f"a {self.kind} anchor needs {name}")
            if name not in used and value is not None:
                raise InvalidNoteError(f"a {self.kind} anchor has no {name}")
        if self.step is not None and (
            isinstance(self.step, bool)
            or not isinstance(self.step, int)
            or self.step < 0
        ):
            raise InvalidNoteError("anchor step must be a whole number >= 0")
        if self.start_ns is not None:
            _whole_ns(self.start_ns, "anchor start_ns")
        if self.end_ns is not None:
            _whole_ns(self.end_ns, "anchor end_ns")
        if (
            self.start_ns is not None
            and self.end_ns is not None
            and self.end_ns < self.start_ns
        ):
            raise InvalidNoteError("anchor range ends before it starts")
        for name in ("name", "track", "finding_id"):
            value = optional_text(getattr(self, name), f"anchor {name}")
            if value is not None and not value:
                raise InvalidNoteError(f"anchor {name} is empty")

    @classmethod
    def at_step(cls, step: int) -> Anchor:
        """An anchor on one profiler step (`ProfilerStep#N`)."""
        return cls(AnchorKind.STEP, step=step)

    @classmethod
    def over_range(cls, start_ns: int, end_ns: int) -> Anchor:
        """An anchor on a span of trace time, in nanoseconds from the trace start."""
        return cls(AnchorKind.RANGE, start_ns=start_ns, end_ns=end_ns)

    @classmethod
    def on_op(cls, name: str) -> Anchor:
        """An anchor on every occurrence of an operator, by name."""
        return cls(AnchorKind.OP, name=name)

    @classmethod
    def on_event(cls, name: str, start_ns: int, track: str) -> Anchor:
        """An anchor on one event: its name, start (ns from the trace start) and track."""
        return cls(AnchorKind.EVENT, name=name, start_ns=start_ns, track=track)

    @classmethod
    def on_finding(cls, finding_id: str) -> Anchor:
        """An anchor on a finding computed from the trace."""
        return cls(AnchorKind.FINDING, finding_id=finding_id)

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Read the CLI form: `step:N`, `op:NAME`, `range:START_US-END_US`, `finding:ID`.

        Range times are microseconds from the trace start, as the app shows
        them; they are kept as whole nanoseconds.
        """
        kind, sep, value = text.partition(":")
        kind = kind.strip().lower()
        if not sep or not value.strip():
            raise InvalidNoteError(f"bad anchor {text!r} (expected {_ANCHOR_FORMS})")
        if kind == AnchorKind.STEP:
            if not value.strip().isdigit():
                raise InvalidNoteError(f"bad step in anchor {text!r}")
            return cls.at_step(int(value.strip()))
        if kind == AnchorKind.OP:
            return cls.on_op(value)
        if kind == AnchorKind.RANGE:
            match = _RANGE_TEXT.match(value)
            if match is None:
                raise InvalidNoteError(
                    f"bad range in anchor {text!r} (expected range:START_US-END_US)"
                )
            return cls.over_range(
                us_to_ns(match.group(1), "range start"),
                us_to_ns(match.group(2), "range end"),
            )
        if kind == AnchorKind.FINDING:
            return cls.on_finding(value.strip())
        raise InvalidNoteError(f"bad anchor {text!r} (expected {_ANCHOR_FORMS})")

    def describe(self) -> str:
        """A short human label, e.g. `step 3` or `op aten::mm` (not escaped)."""
        if self.kind is AnchorKind.STEP:
            return f"step {self.step}"
        if self.kind is AnchorKind.RANGE:
            assert self.start_ns is not None and self.end_ns is not None
            return f"range {us_text(self.start_ns)}–{us_text(self.end_ns)} µs"
        if self.kind is AnchorKind.OP:
            return f"op {self.name}"
        if self.kind is AnchorKind.EVENT:
            assert self.start_ns is not None
            at = duration_text(self.start_ns)
            return f"event {self.name} @ {at} on {self.track}"
        return f"finding {self.finding_id}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the kind plus only the fields that kind uses."""
        out: dict[str, Any] = {"kind": self.kind.value}
        for name in _ANCHOR_FIELDS[self.kind]:
            out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, raw: object) -> Anchor:
        """Validate and build an anchor from its JSON form.

        Schema 1 times (`start_us`/`end_us`, float microseconds) are read
        too and turned into the nanosecond they were made from.
        """
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("anchor must be an object")
        kind = _anchor_kind(raw.get("kind"))
        values = {name: raw.get(name) for name in _ANCHOR_FIELDS[kind]}
        for name in ("start_ns", "end_ns"):
            old_name = name.replace("_ns", "_us")
            old_value = raw.get(old_name)
            if name in values and values[name] is None and old_value is not None:
                if isinstance(old_value, str):
                    raise InvalidNoteError(f"anchor {old_name} must be a number")
                values[name] = us_to_ns(old_value, f"anchor {old_name}")
        return cls(kind, **values)


_ANCHOR_FIELDS: dict[AnchorKind, tuple[str, ...]] = {
    AnchorKind.STEP: ("step",),
    AnchorKind.RANGE: ("start_ns", "end_ns"),
    AnchorKind.OP: ("name",),
    AnchorKind.EVENT: ("name", "start_ns", "track"),
    AnchorKind.FINDING: ("finding_id",),
}
