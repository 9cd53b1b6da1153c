"""Trace JSON decoded into light per-event records, tolerating broken and cut-off files."""
