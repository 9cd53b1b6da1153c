"""Benchmarks of steptrace, each run as a module from the repository root: ``python -m benchmarks.bench_load``."""
