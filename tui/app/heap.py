"""Python's cycle collector kept off key presses.

A capture's Python objects (names, tracks, the screen's widgets…) sit in the
collector's oldest generation, and each full collection walks all of them:
about 30 ms with the 85 MB trace open, one every few dialogs, landing on
whichever key is pressed then. Once a capture's screen has painted, what
exists is collected once and frozen out of later walks (`gc.freeze`); leaving
the capture (or the app) unfreezes it, so its cycles can be freed again.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect today's garbage, then keep what lives out of later collections."""
    gc.collect()
    gc.freeze()


def release() -> None:
    """Let the collector walk, and free, everything again."""
    gc.unfreeze()
