"""Notes (hypotheses) about a capture, saved in a sidecar next to the trace.

Textual-free and torch-free: the CLI, scripts and the app share this code.
The app's entry point is `NotesStore.open(trace_path)`.
"""

from __future__ import annotations

from tui.notes.document import TraceIdentity
from tui.notes.merge import Conflict
from tui.notes.model import (
    STATUSES,
    AmbiguousNoteError,
    Anchor,
    InvalidNoteError,
    Note,
    NotesError,
    NotesFormatError,
    NotesLockTimeout,
    NotesSaveError,
    NotesSchemaError,
    Result,
    Status,
    UnknownNoteError,
)
from tui.notes.paths import fallback_path, sidecar_path
from tui.notes.store import NotesStore, RefreshResult, SaveResult

__all__ = [
    "STATUSES",
    "AmbiguousNoteError",
    "Anchor",
    "Conflict",
    "InvalidNoteError",
    "Note",
    "NotesError",
    "NotesFormatError",
    "NotesLockTimeout",
    "NotesSaveError",
    "NotesSchemaError",
    "NotesStore",
    "RefreshResult",
    "Result",
    "SaveResult",
    "Status",
    "TraceIdentity",
    "UnknownNoteError",
    "fallback_path",
    "sidecar_path",
]
