"""What a check found and what a scrub changed, and how both are shown.

Every trace string shown goes through `printable`: the values come from other
people's files and must not drive the terminal. Nothing here uses markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.core.base.textsafe import printable
from tui.scrub.detect import KINDS, PROCESS, SHAPE, ZONE

_EXAMPLE_WIDTH = 100


@dataclass(frozen=True)
class ScrubOptions:
    """What to treat as sensitive beyond the defaults.

    `zones`: rename free-form zone names (they are always listed, but renaming
    them changes what the analysis shows). `shapes`: list and drop operator
    input shapes and concrete input values. `max_memory`: the memory the
    walk of the whole document may need (None: the loader's default).
    """

    zones: bool = False
    shapes: bool = False
    max_memory: int | None = None


@dataclass(frozen=True)
class Example:
    """One place a value was found, for the user to look at."""

    where: str
    text: str


@dataclass(frozen=True)
class KindSummary:
    """All findings of one kind: distinct values, occurrences, a few examples.

    `values` are the raw originals (for key-like kinds — metadata, log,
    unknown-key, shape — the key names). `scrubbed` says whether `-o` with the
    same options replaces or removes them.
    """

    kind: str
    values: tuple[str, ...]
    places: int
    examples: tuple[Example, ...]
    scrubbed: bool

    def to_json(self, examples: bool = True) -> dict[str, Any]:
        """Plain data for `--json`, every string made printable."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "values": len(self.values),
            "places": self.places,
            "scrubbed": self.scrubbed,
        }
        if examples:
            out["examples"] = [
                {"where": printable(example.where), "text": printable(example.text)}
                for example in self.examples
            ]
        return out


@dataclass(frozen=True)
class CheckReport:
    """What in a trace can identify people or places."""

    source: Path
    options: ScrubOptions
    kinds: tuple[KindSummary, ...] = field(default_factory=tuple)

    @property
    def clean(self) -> bool:
        """Nothing found."""
        return not self.kinds

    def get(self, kind: str) -> KindSummary | None:
        """The findings of one kind, or None."""
        return next((summary for summary in self.kinds if summary.kind == kind), None)

    def to_json(self) -> dict[str, Any]:
        """Plain data for `--json`."""
        return {
            "trace": printable(str(self.source)),
            "clean": self.clean,
            "options": {"zones": self.options.zones, "shapes": self.options.shapes},
            "findings": [summary.to_json() for summary in self.kinds],
        }


@dataclass(frozen=True)
class ScrubReport:
    """What a scrub replaced or removed, and what it found but kept."""

    source: Path
    destination: Path
    compressed: bool
    options: ScrubOptions
    kinds: tuple[KindSummary, ...] = field(default_factory=tuple)

    @property
    def changed(self) -> tuple[KindSummary, ...]:
        """Kinds the copy no longer contains."""
        return tuple(summary for summary in self.kinds if summary.scrubbed)

    @property
    def kept(self) -> tuple[KindSummary, ...]:
        """Kinds found but left in the copy (zones without `--zones`)."""
        return tuple(summary for summary in self.kinds if not summary.scrubbed)

    def get(self, kind: str) -> KindSummary | None:
        """The findings of one kind, or None."""
        return next((summary for summary in self.kinds if summary.kind == kind), None)

    def to_json(self) -> dict[str, Any]:
        """Plain data for `--json`: counts only, so the report itself leaks nothing."""
        return {
            "trace": printable(str(self.source)),
            "output": printable(str(self.destination)),
            "gzip": self.compressed,
            "options": {"zones": self.options.zones, "shapes": self.options.shapes},
            "changed": [summary.to_json(examples=False) for summary in self.changed],
            "kept": [summary.to_json(examples=False) for summary in self.kept],
        }


def sort_kinds(summaries: list[KindSummary]) -> tuple[KindSummary, ...]:
    """Most dangerous kinds first, in `KINDS` order."""
    return tuple(sorted(summaries, key=lambda summary: KINDS.index(summary.kind)))


def _clip(text: str) -> str:
    text = printable(text)
    if len(text) > _EXAMPLE_WIDTH:
        return text[: _EXAMPLE_WIDTH - 1] + "…"
    return text


_WHAT = {
    PROCESS: "process or thread names",
    ZONE: "free-form zone names",
    SHAPE: "input shapes / values",
}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _counts(summary: KindSummary) -> str:
    values = _plural(len(summary.values), "value")
    return f"{summary.kind:<12} {values} in {_plural(summary.places, 'place')}"


def _lines(summary: KindSummary, note: str) -> list[str]:
    lines = _wrapped(f"  {_counts(summary)}{note}", "    ")
    for example in summary.examples:
        lines += _wrapped(
            f"      {_clip(example.where)}: {_clip(example.text)}", " " * 8
        )
    return lines


# Plain-text listings fit an 80-column terminal.
_WIDTH = 80


def _wrapped(line: str, indent: str) -> list[str]:
    """One listing line, continued under `indent` past 80 columns; nothing is cut."""
    import textwrap

    if len(line) <= _WIDTH:
        return [line]
    stripped = line.lstrip(" ")
    return textwrap.wrap(
        stripped,
        width=_WIDTH,
        initial_indent=line[: len(line) - len(stripped)],
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
        drop_whitespace=False,
    )


def _headline(name: str, verdict: str) -> list[str]:
    """`PATH: verdict` on one line when it fits, else the verdict then the path."""
    line = f"{name}: {verdict}"
    if len(line) <= _WIDTH:
        return [line]
    return [f"{verdict} in:", *_wrapped(f"  {name}", "  ")]


def format_check(report: CheckReport) -> str:
    """Plain-text listing for `scrub --check`."""
    name = printable(str(report.source))
    if report.clean:
        return "\n".join(_headline(name, "nothing identifying found"))
    lines = _headline(name, "identifying data found")
    for summary in report.kinds:
        note = f" ({_WHAT[summary.kind]})" if summary.kind in _WHAT else ""
        if not summary.scrubbed:
            note += ", kept unless --zones" if note else " kept unless --zones"
        lines.extend(_lines(summary, note))
    flags = "" if report.options.zones else " [--zones]"
    lines.append(f"scrub a copy with: steptrace scrub TRACE -o OUT{flags}")
    return "\n".join(lines)


def format_scrub(report: ScrubReport) -> str:
    """Plain-text summary for `scrub -o`: counts per kind, no original values."""
    target = printable(str(report.destination))
    lines = [f"wrote {target}" + (" (gzip)" if report.compressed else "")]
    if not report.changed:
        lines.append("  nothing identifying found to replace")
    lines.extend(
        f"  {_counts(summary)}: replaced or removed" for summary in report.changed
    )
    lines.extend(
        f"  {_counts(summary)}: kept (--zones renames them)" for summary in report.kept
    )
    return "\n".join(lines)
