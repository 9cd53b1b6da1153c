"""Textual-free core: loading, model and analysis of traces. Never imports textual or torch."""
