"""Python frames: what a `with_stack` capture records beside the operators.

A frame is an event of category `python_function` (or the older `python`);
where the category is missing or generic, its name says it: a code
location (`file.py(12): forward`), a builtin (`<built-in method …>`) or a
module range (`nn.Module: Linear_0`). Frames nest with the operators (they
are their callers) but are never operators themselves.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from tui.core.model.trace import Kind, Trace

BoolArray = npt.NDArray[np.bool_]

MODULE_PREFIX = "nn.Module: "
"""The name prefix of the module ranges torch's Python tracer records."""

_FRAME_NAME = re.compile(r"(?:nn\.Module: |<built-in |.*\.py\(\d+\): )")


def is_python_frame_name(name: str) -> bool:
    """Whether a name is a Python frame's: a code location, a builtin, a module range."""
    return _FRAME_NAME.match(name) is not None


def python_frame_mask(trace: Trace) -> BoolArray:
    """Events that are Python frames, by category, else by name."""
    by_name = np.fromiter(
        map(is_python_frame_name, trace.names), dtype=bool, count=len(trace.names)
    )
    named = by_name[trace.name_id] if trace.name_id.size else np.zeros(0, bool)
    frames: BoolArray = (trace.kind == Kind.PYTHON) | named
    return frames
