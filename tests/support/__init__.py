"""What the tests build their inputs with, shared with the benchmarks."""
