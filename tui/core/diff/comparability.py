"""Whether two captures can be compared: one warning per difference that matters.

Two captures compare only when they ran in the same environment, recorded
the same window with the same instrumentation, asked the same question on
the same batch size and read the same data zone — and when both, or
neither, hold GPU events. The trace's own metadata is read too: a different
device model or count (`deviceProperties`) or world size (`distributedInfo`)
sets one machine against another. Caveats (no description, few steps) are
warned about without making the pair incomparable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tui.core.base.vocab import DiffCheck, ZoneSource
from tui.core.diff.facts import CAPTURE_CHECKS, HARDWARE_CHECKS, checks
from tui.core.diff.side import CaptureSide
from tui.core.diff.steps import FEW_STEPS
from tui.core.model.description import CaptureDescription, Window

# What the environment says, grouped as people compare machines.
ENVIRONMENT_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("torch version", ("torch",)),
    ("device", ("cuda", "hip", "driver", "device_name")),
    ("host kind", ("cpu_model", "cpu_cores", "platform", "python")),
)
SIDES = ("before", "after")


@dataclass(frozen=True)
class DiffWarning:
    """One difference between the two captures, or a caveat on reading them."""

    check: DiffCheck
    message: str

    @property
    def breaks_comparability(self) -> bool:
        """Whether it makes the captures not comparable."""
        return self.check.breaks_comparability


def _shown(value: object) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _pair(before: object, after: object) -> str:
    return f"{_shown(before)} before, {_shown(after)} after"


def _window(window: Window | None) -> tuple[int | None, ...] | None:
    if window is None:
        return None
    return (window.wait, window.warmup, window.active)


def _window_text(window: Window | None) -> str:
    if window is None:
        return "unknown"
    return f"wait {window.wait}, warmup {window.warmup}, active {window.active}"


def _environment(
    before: Mapping[str, object], after: Mapping[str, object]
) -> list[DiffWarning]:
    warnings = []
    for label, keys in ENVIRONMENT_GROUPS:
        differing = [key for key in keys if before.get(key) != after.get(key)]
        if differing:
            details = "; ".join(
                f"{key} {_pair(before.get(key), after.get(key))}" for key in differing
            )
            warnings.append(
                DiffWarning(
                    DiffCheck.ENVIRONMENT,
                    f"environment differs ({label}): {details}; one machine's "
                    "capture does not rank another",
                )
            )
    return warnings


def _descriptions(
    before: CaptureDescription, after: CaptureDescription
) -> list[DiffWarning]:
    """What both descriptions say and must agree on."""
    warnings = _environment(before.environment, after.environment)
    if _window(before.window) != _window(after.window):
        warnings.append(
            DiffWarning(
                DiffCheck.WINDOW,
                f"window differs: {_window_text(before.window)} before, "
                f"{_window_text(after.window)} after",
            )
        )
    options = [
        (name, getattr(before.options, field), getattr(after.options, field))
        for name, field in (
            ("shapes", "record_shapes"),
            ("stack", "with_stack"),
            ("memory", "profile_memory"),
        )
        if getattr(before.options, field) != getattr(after.options, field)
    ]
    if options:
        details = "; ".join(f"{name} {_pair(b, a)}" for name, b, a in options)
        warnings.append(
            DiffWarning(
                DiffCheck.OPTIONS,
                f"instrumentation differs: {details}; their cost differs",
            )
        )
    if before.question != after.question:
        warnings.append(
            DiffWarning(
                DiffCheck.QUESTION,
                f"question differs: {_pair(before.question, after.question)}",
            )
        )
    batch_before = before.scenario.batch_size or before.samples_per_step
    batch_after = after.scenario.batch_size or after.samples_per_step
    if batch_before != batch_after:
        warnings.append(
            DiffWarning(
                DiffCheck.BATCH_SIZE,
                f"batch size differs: {_pair(batch_before, batch_after)}",
            )
        )
    return warnings


def _data_zone(before: CaptureSide, after: CaptureSide) -> list[DiffWarning]:
    """The data zone each capture names (or would read), and a chosen name missing on one side."""

    def own(side: CaptureSide) -> tuple[str, ...]:
        described = side.capture.data_zone
        return (described,) if described else side.zone.default_names

    warnings = []
    own_before, own_after = own(before), own(after)
    if own_before != own_after:
        warnings.append(
            DiffWarning(
                DiffCheck.DATA_ZONE,
                "data zone differs: "
                f"{', '.join(own_before) or 'none'} before, "
                f"{', '.join(own_after) or 'none'} after",
            )
        )
    chosen = before.zone.summary.source is ZoneSource.CHOSEN
    for name in before.zone.summary.names if chosen else ():
        present = [name in side.zone.names_present for side in (before, after)]
        if present.count(True) == 1:
            where = SIDES[present.index(True)]
            warnings.append(
                DiffWarning(
                    DiffCheck.DATA_ZONE,
                    f"data zone {name} occurs {where} only",
                )
            )
    return warnings


def _gpu(before: CaptureSide, after: CaptureSide) -> list[DiffWarning]:
    if before.gpu_observed == after.gpu_observed:
        return []
    seen, missing = (before, after) if before.gpu_observed else (after, before)
    seen_word = "before" if seen is before else "after"
    missing_word = "after" if seen is before else "before"
    reason = f" ({missing.gpu_missing_reason})" if missing.gpu_missing_reason else ""
    return [
        DiffWarning(
            DiffCheck.GPU,
            f"GPU events {seen_word} only: {missing_word}'s GPU figures are null, "
            f"not observed{reason}, never 0",
        )
    ]


def _steps(before: CaptureSide, after: CaptureSide) -> list[DiffWarning]:
    counts = (before.steps.count, after.steps.count)
    warnings = []
    for word, count in zip(SIDES, counts, strict=True):
        if count == 0:
            warnings.append(
                DiffWarning(
                    DiffCheck.NO_STEPS,
                    f"no step in the window {word} (no ProfilerStep#N): no verdict",
                )
            )
    if 0 < min(counts) < FEW_STEPS:
        warnings.append(
            DiffWarning(
                DiffCheck.FEW_STEPS,
                f"{counts[0]} steps before, {counts[1]} after: under {FEW_STEPS} "
                "steps a window shows the mechanism, not a distribution",
            )
        )
    return warnings


def _hardware(before: CaptureSide, after: CaptureSide) -> list[DiffWarning]:
    """Devices and world size as the traces record them (`deviceProperties`, `distributedInfo`)."""
    warnings = []
    for check in checks(before.facts, after.facts):
        if check.check in HARDWARE_CHECKS and check.same is False:
            kind = (
                DiffCheck.WORLD_SIZE
                if check.check == "world size"
                else DiffCheck.DEVICE
            )
            warnings.append(
                DiffWarning(
                    kind,
                    f"{check.check} differs: {_pair(check.before, check.after)}; "
                    "a trace on one machine does not rank another",
                )
            )
    return warnings


VERSION_CHECKS = ("torch version", "CUDA runtime version", "CUDA driver version")
OPTION_CHECKS = ("shapes recorded", "stack recorded", "memory recorded")


def _capture(
    before: CaptureSide, after: CaptureSide, said: list[DiffWarning]
) -> list[DiffWarning]:
    """Window position, window length, instrumentation and versions as the traces
    record them, each named with both values (not said again when the
    descriptions' warnings already say it)."""
    described = before.capture.present and after.capture.present
    options_said = any(warning.check is DiffCheck.OPTIONS for warning in said)
    warnings = []
    for check in checks(before.facts, after.facts):
        if check.check not in CAPTURE_CHECKS or check.same is not False:
            continue
        if (described and check.check in VERSION_CHECKS) or (
            options_said and check.check in OPTION_CHECKS
        ):
            continue
        warnings.append(
            DiffWarning(
                DiffCheck.CAPTURE,
                f"{check.check} differs: {_pair(check.before, check.after)}; "
                f"{CAPTURE_CHECKS[check.check]}",
            )
        )
    return warnings


def comparability(before: CaptureSide, after: CaptureSide) -> list[DiffWarning]:
    """Every difference that makes the two captures not comparable, then the caveats."""
    warnings: list[DiffWarning] = _hardware(before, after)
    described = [side.capture.present for side in (before, after)]
    if all(described):
        warnings += _descriptions(before.capture, after.capture)
    warnings += _data_zone(before, after)
    warnings += _gpu(before, after)
    if not all(described):
        which = (
            "neither capture has a"
            if not any(described)
            else f"the {SIDES[described.index(False)]} capture has no"
        )
        warnings.append(
            DiffWarning(
                DiffCheck.NO_DESCRIPTION,
                f"{which} capture description: environment, window, "
                "instrumentation, question and batch size cannot be checked",
            )
        )
    warnings += _capture(before, after, warnings)
    warnings += _steps(before, after)
    warnings.sort(key=lambda warning: not warning.breaks_comparability)
    return warnings
