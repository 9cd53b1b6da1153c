"""`steptrace summary`: steps, zones, device busy and gaps of a capture."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tui.core.base.units import duration_text, ms, us
from tui.core.base.vocab import StepPhase
from tui.core.figures.analysis import Analysis, ZoneFigure
from tui.core.figures.breakdown.idle import GpuIdle
from tui.core.figures.kept import kept_figure
from tui.core.figures.step_split import StepBreakdown
from tui.core.figures.zones import ZoneShare, ZoneSummary, zone_group
from tui.core.model.description import CaptureDescription
from tui.core.model.observed import gpu_missing_reason
from tui.core.model.steps import StepStats, step_name_ids
from tui.core.results.gpu_idle import gpu_idle_json, gpu_idle_missing_reason
from tui.core.results.step_split import step_breakdown_json


def step_stats_json(stats: StepStats | None) -> dict[str, Any] | None:
    """The window's step statistics in JSON (`summary` and `report`), in ms."""
    if stats is None:
        return None
    return {
        "count": stats.count,
        "median_ms": ms(stats.median_ns),
        "min_ms": ms(stats.min_ns),
        "max_ms": ms(stats.max_ns),
    }


def capture_warnings(analysis: Analysis) -> list[str]:
    """What reading the capture warns of (a cut-off file, device events tied to
    no operator): the lines `summary` prints and the explorer lists."""
    trace = analysis.trace
    warnings = [cut_off_coverage(analysis)] if trace.cut_off else []
    warnings += [*trace.warnings, *analysis.integrity_warnings]
    if trace.gpu_observed and analysis.unlinked_device_events:
        warnings.append(
            f"{analysis.unlinked_device_events} device events could not be tied "
            "to a CPU operator"
        )
    return warnings


def cut_off_coverage(analysis: Analysis) -> str:
    """What the figures of a cut-off capture cover: the steps that end before
    the cut and how far the kept events reach.

    A writer flushes host events and device events apart, so each kind may stop
    at its own time: the device's events were cut where steps kept begin after
    its last one (their host side is there, their device work is not), and a
    step is whole only where both reach past its end.
    """
    trace = analysis.trace
    ends = trace.end_ns
    # A step's own range is written whole at its start: its end says nothing
    # of what was written inside it.
    step_ranges = np.isin(trace.name_id, step_name_ids(trace))
    host_end = int(ends[~trace.device_work_mask & ~step_ranges].max(initial=0))
    device_end = int(ends[trace.device_work_mask].max(initial=0))
    steps = analysis.steps
    device_cut = trace.gpu_observed and any(
        step.start_ns >= device_end for step in steps
    )
    reached = min(host_end, device_end) if device_cut else host_end
    reach = f"events reach {duration_text(host_end)} into the capture"
    if device_cut:
        reach += f", device work only {duration_text(device_end)}"
    said = (
        "the file ends mid-event (cut off, or still being written): the figures cover"
    )
    if not steps:
        return f"{said} no ProfilerStep#N range; {reach}"
    whole = [step for step in steps if step.end_ns <= reached]
    if not whole:
        return f"{said} none of the {len(steps)} steps found whole; {reach}"
    numbers = (
        f"#{whole[0].number}"
        if len(whole) == 1
        else f"#{whole[0].number}–#{whole[-1].number}"
    )
    held = f"{numbers}, {duration_text(sum(step.duration_ns for step in whole))}"
    missing = len(steps) - len(whole)
    if not missing:
        # Every step kept is whole: how many the file would have held is unknown.
        count = "the step" if len(whole) == 1 else f"the {len(whole)} steps"
        return (
            f"{said} {count} written before the cut ({held}), and no later step; "
            f"{reach}"
        )
    # A step whose events stop near its end may have been whole: "may".
    others = "the other" if missing == 1 else f"the other {missing}"
    return (
        f"{said} {len(whole)} of the {len(steps)} steps found whole ({held}), "
        f"{others} may lack what came after the cut; {reach}"
    )


@dataclass(frozen=True)
class StepRow:
    """One step's figures."""

    number: int
    phase: StepPhase
    start_ns: int
    duration_ns: int
    samples_per_s: float | None
    zones: tuple[ZoneShare, ...]
    """The data zone in this step: each chosen name found there, with its time."""
    device_busy_ns: int | None
    zone_ns: int
    gap_ns: int | None
    annotations: list[ZoneFigure] = field(default_factory=list)
    """The other annotations starting in the step, apart from the data zone."""


@dataclass(frozen=True)
class SummaryResult:
    """Everything `steptrace summary` says about a capture."""

    trace_path: str
    capture: CaptureDescription
    gpu_observed: bool
    gpu_missing_reason: str | None
    events: int
    span_ns: int
    steps: list[StepRow]
    stats: StepStats | None
    device_busy_ns: int | None
    zone: ZoneSummary
    warnings: list[str]
    gpu_idle: GpuIdle | None = None
    gpu_idle_missing_reason: str | None = None
    step_breakdown: StepBreakdown | None = None  # TensorBoard's step split

    @classmethod
    def of(cls, analysis: Analysis) -> SummaryResult:
        """Compute the summary of an analysed trace."""
        trace = analysis.trace
        capture = trace.capture
        samples = capture.samples_per_step
        reading = analysis.zone_reading
        rows = []
        chosen = set(reading.choice.names)
        for step, step_annotations, busy in zip(
            analysis.steps,
            analysis.step_zones,
            analysis.step_device_busy_ns(),
            strict=True,
        ):
            figure = reading.step_zone(step.number)
            rows.append(
                StepRow(
                    step.number,
                    step.phase,
                    step.start_ns,
                    step.duration_ns,
                    samples / (step.duration_ns / 1e9)
                    if samples and step.duration_ns > 0
                    else None,
                    figure.shares if figure else (),
                    busy,
                    figure.zone_ns if figure else 0,
                    figure.gap_ns if figure else None,
                    [
                        annotation
                        for annotation in step_annotations
                        if zone_group(annotation.name) not in chosen
                    ],
                )
            )
        warnings = capture_warnings(analysis)
        return cls(
            trace_path=str(trace.path),
            capture=capture,
            gpu_observed=trace.gpu_observed,
            gpu_missing_reason=gpu_missing_reason(trace),
            events=trace.event_count,
            # Kept: else the one figure of a reopened summary that reads every
            # event's start and duration.
            span_ns=kept_figure(
                trace, "span_ns", ("model/trace.py",), int, lambda: trace.span_ns
            ),
            steps=rows,
            stats=analysis.step_stats(),
            device_busy_ns=analysis.device_busy_ns(),
            zone=ZoneSummary.of(reading),
            warnings=warnings,
            gpu_idle=analysis.gpu_idle,
            gpu_idle_missing_reason=gpu_idle_missing_reason(analysis),
            step_breakdown=analysis.step_breakdown,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON `steptrace summary --json` prints (documented in docs/commands.md)."""
        return {
            "trace": self.trace_path,
            "description": dict(self.capture.raw) if self.capture.raw else None,
            "gpu_observed": self.gpu_observed,
            "gpu_missing_reason": self.gpu_missing_reason,
            "unit": self.capture.unit_name,
            "samples_per_step": self.capture.samples_per_step,
            "events": self.events,
            "span_us": us(self.span_ns),
            "steps": [
                {
                    "step": row.number,
                    "phase": row.phase.value,
                    "start_us": us(row.start_ns),
                    "duration_ms": ms(row.duration_ns),
                    "samples_per_s": row.samples_per_s,
                    "zones": [
                        {
                            "zone": zone.name,
                            "count": zone.count,
                            "duration_ms": ms(zone.duration_ns),
                        }
                        for zone in row.zones
                    ],
                    "annotations": [
                        {
                            "name": annotation.name,
                            "count": annotation.count,
                            "duration_ms": ms(annotation.duration_ns),
                        }
                        for annotation in row.annotations
                    ],
                    "device_busy_us": None
                    if row.device_busy_ns is None
                    else us(row.device_busy_ns),
                    "zone_us": us(row.zone_ns),
                    "gap_us": None if row.gap_ns is None else us(row.gap_ns),
                }
                for row in self.steps
            ],
            "step_stats": step_stats_json(self.stats),
            "device_busy_us": None
            if self.device_busy_ns is None
            else us(self.device_busy_ns),
            "gaps": {
                "kind": self.zone.kind.value,
                "zones": list(self.zone.names),
                "source": self.zone.source.value,
                "total_zone_us": us(self.zone.total_zone_ns),
                "total_gap_us": None
                if self.zone.total_gap_ns is None
                else us(self.zone.total_gap_ns),
            },
            "gpu_idle": gpu_idle_json(self.gpu_idle),
            "gpu_idle_missing_reason": self.gpu_idle_missing_reason,
            "step_breakdown": step_breakdown_json(self.step_breakdown),
            "warnings": list(self.warnings),
        }
