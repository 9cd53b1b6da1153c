"""The native decoder: a trace's events read by DuckDB, in pieces cut between events."""
