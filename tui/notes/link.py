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
        )
