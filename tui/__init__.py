"""steptrace explorer: reads PyTorch profiler traces; never imports torch."""

__version__ = "0.1.0"
