"""Columns and tables turned into the `Trace` model: tracks, flows, events placed exactly."""
