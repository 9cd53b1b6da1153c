"""Decoded records gathered batch by batch into columns and small tables."""
