"""Errors the core raises for input the user gave us."""

from __future__ import annotations


class TraceLoadError(Exception):
    """The file cannot be read as a trace; the message is one line for the user."""


class LoadCancelled(Exception):
    """Loading was cancelled by the user."""
