"""Why GPU figures read "not observed", as far as the capture tells."""

from __future__ import annotations

from tui.core.model.trace import Trace


def gpu_missing_reason(trace: Trace) -> str | None:
    """The reason no GPU work is in the trace, or None when GPU work was observed."""
    if trace.gpu_observed:
        return None
    activities = trace.capture.activities
    if activities.gpu_missing_reason:
        return activities.gpu_missing_reason
    if any("cuda_profiler_range" in warning for warning in trace.warnings):
        return (
            "the capture holds CUPTI counter ranges only, not a timeline of device work"
        )
    if activities.requested is not None and "cuda" not in activities.requested:
        return "GPU activity was not requested for this capture"
    return (
        "no kernel, copy or set events in the trace: GPU activity was not recorded "
        "(CPU-only capture, or GPU collection unavailable)"
    )
