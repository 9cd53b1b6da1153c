"""The notes' errors: each is a problem the user can act on, with a one-line message."""

from __future__ import annotations


class NotesError(Exception):
    """A notes problem the user can act on; the message is one line."""


class InvalidNoteError(NotesError, ValueError):
    """A value given for a note (status, anchor, field) is not valid."""


class NotesFormatError(NotesError):
    """The bytes of a notes file cannot be read as notes."""


class NotesSchemaError(NotesFormatError):
    """The notes file was written with a newer schema than this code knows."""


class UnknownNoteError(NotesError):
    """No note has the given id (or id prefix)."""


class AmbiguousNoteError(NotesError):
    """An id prefix matches more than one note."""


class NotesLockTimeout(NotesError):
    """Another session held the notes lock for longer than the timeout."""


class NotesSaveError(NotesError):
    """Neither the trace's folder nor the per-user data folder could be written."""
