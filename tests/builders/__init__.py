"""Synthetic traces, runs and captures whose figures are known by construction:
what every layer of the tests builds its inputs from."""
