"""Close the loop: link a hypothesis to the capture that tested it, with the diff's verdict.

The CLI (`steptrace notes set TRACE ID --tested-by AFTER`) and the app's
comparison screen both call `record_tested_by`: the note's result then holds
the diff's verdict, whether the two captures are comparable, both windows'
raw step times, the runs and what moved — never a speed-up the verdict does
not support.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tui.core.base.paths import resolved
from tui.core.base.units import us
from tui.core.diff import TraceDiff
from tui.core.diff.mechanisms import Mechanism
from tui.notes.link import Moved
from tui.notes.model import (
    InvalidNoteError,
    Note,
    Result,
    TestedBy,
    iso_utc,
    utc_now,
)
from tui.notes.store import NotesStore


def link_path(after: Path, noted_trace: Path) -> str:
    """Where AFTER is, seen from the noted trace's folder (so moving both keeps the link)."""
    return os.path.relpath(resolved(after), resolved(noted_trace).parent)


def tested_by_of(
    diff: TraceDiff,
    after: Path,
    noted_trace: Path,
    *,
    after_sha256: str | None = None,
    clock: Callable[[], datetime] = utc_now,
    title: Callable[[Mechanism], str] | None = None,
) -> TestedBy:
    """The link a diff of the noted trace (before) with AFTER makes; `title`
    words each finding that moved (the report's words; None: read by its id)."""
    try:
        size: int | None = after.stat().st_size
    except OSError:
        size = None
    steps = diff.steps
    return TestedBy(
        path=link_path(after, noted_trace),
        name=after.name,
        verdict=steps.verdict,
        comparable=diff.comparable,
        before_ms=tuple(ns / 1e6 for ns in steps.before.durations_ns),
        after_ms=tuple(ns / 1e6 for ns in steps.after.durations_ns),
        change_pct=steps.change_pct,
        warnings=tuple(warning.message for warning in diff.warnings),
        size=size,
        sha256=after_sha256,
        diffed=iso_utc(clock()),
        runs=steps.runs,
        moved=tuple(
            Moved(
                entry.finding.value,
                us(entry.change_ns_per_step or 0.0),
                f"{entry.moved_in}/{entry.pairs}",
                "" if title is None else title(entry),
            )
            for entry in diff.moved
        ),
    )


def _same_file(first: str | Path, second: str | Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return resolved(first) == resolved(second)


def record_tested_by(
    store: NotesStore,
    note_id: str,
    diff: TraceDiff,
    after: Path,
    *,
    after_sha256: str | None = None,
    text: str | None = None,
    title: Callable[[Mechanism], str] | None = None,
) -> Note:
    """Put the diff's verdict and figures in a note's result (call `store.save()` after).

    The diff's before side must be the store's trace. The result keeps its
    text (or takes `text`) and its other figures; `tested_by` is replaced.
    """
    if not _same_file(diff.before.path, store.trace_path):
        raise InvalidNoteError(
            f"the diff's before capture is {diff.before.path}, not the noted trace "
            f"{store.trace_path}"
        )
    if _same_file(after, store.trace_path):
        raise InvalidNoteError("a capture cannot test a hypothesis about itself")
    note = store.get(note_id)
    current = note.result or Result()
    result = Result(
        text=current.text if text is None else text,
        before=current.before,
        after=current.after,
        unit=current.unit,
        tested_by=tested_by_of(
            diff,
            after,
            store.trace_path,
            after_sha256=after_sha256,
            clock=store.clock,
            title=title,
        ),
    )
    return store.update(note.id, result=result)
