"""The link from a hypothesis to the capture that tested it (a note result's `tested_by`).

Validated like every value read from a notes file: a link that does not
validate makes the file unreadable rather than half-read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tui.core.base.vocab import Verdict
from tui.notes.errors import InvalidNoteError


def finite(value: object, what: str) -> float:
    """`value` as a finite float, or InvalidNoteError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidNoteError(f"{what} must be a number")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidNoteError(f"{what} must be a finite number")
    return number


def figures(values: object, what: str) -> tuple[float, ...]:
    """A list of finite numbers as a tuple, or InvalidNoteError naming `what`."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InvalidNoteError(f"{what} must be a list of numbers")
    return tuple(finite(v, f"{what} value") for v in values)


VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
"""A diff's verdicts, as the notes file writes them."""

_MOVED_IN = re.compile(r"\d+/\d+")


@dataclass(frozen=True)
class Moved:
    """A finding whose cost per step moved in every run pair of the diff."""

    finding: str
    change_us_per_step: float
    moved_in: str
    """Run pairs it moved in, of all: "3/3"."""
    title: str = ""
    """Its title as the diff worded it from its figures ("": read by its id)."""

    def __post_init__(self) -> None:
        if not isinstance(self.finding, str) or not self.finding:
            raise InvalidNoteError("tested_by moved finding must be non-empty text")
        if not isinstance(self.title, str):
            raise InvalidNoteError("tested_by moved title must be text")
        object.__setattr__(
            self,
            "change_us_per_step",
            finite(self.change_us_per_step, "tested_by moved change_us_per_step"),
        )
        if (
            not isinstance(self.moved_in, str)
            or _MOVED_IN.fullmatch(self.moved_in) is None
        ):
            raise InvalidNoteError("tested_by moved_in must read like 3/3")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "finding": self.finding,
            "change_us_per_step": self.change_us_per_step,
            "moved_in": self.moved_in,
            "title": self.title,
        }

    @classmethod
    def from_dict(cls, raw: object) -> Moved:
        """Validate and build one from its JSON form."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("tested_by moved must be a list of objects")
        return cls(
            raw.get("finding", ""),
            raw.get("change_us_per_step"),  # type: ignore[arg-type]
            raw.get("moved_in", ""),
            raw.get("title", ""),
        )


def _runs(raw: object) -> tuple[int, int] | None:
    """`{"before": n, "after": m}` as (n, m); None when absent."""
    if raw is None:
        return None
    counts = (raw.get("before"), raw.get("after")) if isinstance(raw, Mapping) else ()
    if len(counts) != 2 or not all(
        isinstance(count, int) and not isinstance(count, bool) and count > 0
        for count in counts
    ):
        raise InvalidNoteError("tested_by runs must give before and after counts")
    return counts[0], counts[1]  # type: ignore[return-value]


@dataclass(frozen=True)
class TestedBy:
    """The capture that tested a hypothesis, and what `steptrace diff` said.

    `path` leads to that capture from the noted trace's folder; `before_ms`
    and `after_ms` are the raw step times of both windows (ms per step), so
    the median and range are shown with the values they come from. The
    verdict is the diff's: faster or slower only when the ranges do not
    overlap.
    """

    __test__ = False  # not a pytest class, whatever its name

    path: str
    name: str
    verdict: Verdict
    comparable: bool
    before_ms: tuple[float, ...] = ()
    after_ms: tuple[float, ...] = ()
    change_pct: float | None = None
    warnings: tuple[str, ...] = ()
    size: int | None = None
    sha256: str | None = None
    diffed: str | None = None
    runs: tuple[int, int] | None = None
    """How many captures each side of the diff held (None: not recorded)."""
    moved: tuple[Moved, ...] = ()
    """The findings the diff names as what moved, largest change first."""

    def __post_init__(self) -> None:
        for name in ("path", "name"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InvalidNoteError(f"tested_by {name} must be non-empty text")
        try:
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        except ValueError:
            raise InvalidNoteError(
                f"unknown verdict {self.verdict!r} (expected one of: "
                f"{', '.join(VERDICTS)})"
            ) from None
        if not isinstance(self.comparable, bool):
            raise InvalidNoteError("tested_by comparable must be true or false")
        for name in ("before_ms", "after_ms"):
            object.__setattr__(
                self, name, figures(getattr(self, name), f"tested_by {name}")
            )
        if self.change_pct is not None:
            object.__setattr__(
                self, "change_pct", finite(self.change_pct, "tested_by change_pct")
            )
        warnings = self.warnings
        if isinstance(warnings, (str, bytes)) or not isinstance(warnings, Sequence):
            raise InvalidNoteError("tested_by warnings must be a list of text")
        for warning in warnings:
            if not isinstance(warning, str):
                raise InvalidNoteError("tested_by warnings must be a list of text")
        object.__setattr__(self, "warnings", tuple(warnings))
        if self.size is not None and (
            isinstance(self.size, bool)
            or not isinstance(self.size, int)
            or self.size < 0
        ):
            raise InvalidNoteError("tested_by size must be a whole number")
        if self.sha256 is not None and (
            not isinstance(self.sha256, str)
            or re.fullmatch("[0-9a-f]{64}", self.sha256) is None
        ):
            raise InvalidNoteError("tested_by sha256 must be 64 hex digits")
        if self.diffed is not None:
            try:
                datetime.fromisoformat(self.diffed)
            except (TypeError, ValueError):
                raise InvalidNoteError(
                    f"tested_by diffed is not an ISO time: {self.diffed!r}"
                ) from None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "path": self.path,
            "name": self.name,
            "size": self.size,
            "sha256": self.sha256,
            "verdict": self.verdict.value,
            "comparable": self.comparable,
            "before_ms": list(self.before_ms),
            "after_ms": list(self.after_ms),
            "change_pct": self.change_pct,
            "warnings": list(self.warnings),
            "diffed": self.diffed,
            "runs": None
            if self.runs is None
            else {"before": self.runs[0], "after": self.runs[1]},
            "moved": [entry.to_dict() for entry in self.moved],
        }

    @classmethod
    def from_dict(cls, raw: object) -> TestedBy:
        """Validate and build a link from its JSON form."""
        if not isinstance(raw, Mapping):
            raise InvalidNoteError("tested_by must be an object")
        return cls(
            path=raw.get("path", ""),
            name=raw.get("name", ""),
            verdict=raw.get("verdict", ""),
            comparable=raw.get("comparable", False),
            before_ms=raw.get("before_ms", ()),
            after_ms=raw.get("after_ms", ()),
            change_pct=raw.get("change_pct"),
            warnings=raw.get("warnings", ()),
            size=raw.get("size"),
            sha256=raw.get("sha256"),
            diffed=raw.get("diffed"),
            runs=_runs(raw.get("runs")),
            moved=_moved(raw.get("moved", ())),
        )


def _moved(raw: object) -> tuple[Moved, ...]:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise InvalidNoteError("tested_by moved must be a list of objects")
    return tuple(Moved.from_dict(entry) for entry in raw)
