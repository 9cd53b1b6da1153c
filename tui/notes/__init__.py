"""Notes (hypotheses) about a capture, saved in a sidecar next to the trace.

Textual-free and torch-free: the CLI, scripts and the app share this code.
The app's entry point is `NotesStore.open(trace_path)`.
"""

from __future__ import annotations

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
    TraceIdentity,
    UnknownNoteError,
)
from tui.notes.store import (
    Conflict,
    NotesStore,
    RefreshResult,
    SaveResult,
    fallback_path,
    sidecar_path,
)

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
