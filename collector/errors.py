"""Errors the collector raises for settings or situations the user must fix.

Torch-free so the CLI can catch them without importing torch; every message is
one line meant for the user, never a traceback.
"""

from __future__ import annotations


class CollectorError(Exception):
    """Base class: the message is one line that says what to do."""


class InvalidSettingError(CollectorError, ValueError):
    """A capture or bench setting is out of range or inconsistent."""


class OutputExistsError(CollectorError, FileExistsError):
    """The output path exists: a capture never overwrites a file."""


class OutputFolderError(CollectorError):
    """The output folder is missing or not writable."""


class GpuCollectionUnavailableError(CollectorError, RuntimeError):
    """GPU collection was asked for but this torch build cannot record GPU events."""


class CaptureIncompleteError(CollectorError, RuntimeError):
    """The capture ended before any step of its window was recorded."""


class ResultFormatError(CollectorError, ValueError):
    """A file given to `compare` is not a bench result."""
