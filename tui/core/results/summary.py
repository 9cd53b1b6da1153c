"""`steptrace summary`: steps, zones, device busy and gaps of a capture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.textsafe import printable
from tui.core.base.units import duration_text, ms, us
from tui.core.base.vocab import GapKind, StepPhase, ZoneSource
from tui.core.figures.analysis import Analysis, ZoneFigure
from tui.core.figures.zones import DATALOADER_GROUP, DEFAULT_DATA_ZONE
from tui.core.model.description import CaptureDescription
from tui.core.model.steps import StepStats
from tui.core.results.observed import gpu_missing_reason
from tui.core.results.text import TEXT_WIDTH, cut_end, fill


@dataclass(frozen=True)
class StepRow:
    """One step's figures."""

    number: int
    phase: StepPhase
    start_ns: int
    duration_ns: int
    samples_per_s: float | None
    zones: list[ZoneFigure]
    device_busy_ns: int | None
    zone_ns: int
    gap_ns: int | None


@dataclass(frozen=True)
class ZoneSummary:
    """The data zone in use and its totals; gap None when the capture holds no data zone."""

    kind: GapKind
    names: tuple[str, ...]
    source: ZoneSource
    total_zone_ns: int
    total_gap_ns: int | None


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

    @classmethod
    def of(cls, analysis: Analysis) -> SummaryResult:
        """Compute the summary of an analysed trace."""
        trace = analysis.trace
        capture = trace.capture
        samples = capture.samples_per_step
        reading = analysis.zone_reading
        rows = []
        for step, zones, busy in zip(
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
                    zones,
                    busy,
                    figure.zone_ns if figure else 0,
                    figure.gap_ns if figure else None,
                )
            )
        warnings = list(trace.warnings)
        if trace.gpu_observed and analysis.unlinked_device_events:
            warnings.append(
                f"{analysis.unlinked_device_events} device events could not be tied "
                "to a CPU operator"
            )
        return cls(
            trace_path=str(trace.path),
            capture=capture,
            gpu_observed=trace.gpu_observed,
            gpu_missing_reason=gpu_missing_reason(trace),
            events=trace.event_count,
            span_ns=trace.span_ns,
            steps=rows,
            stats=analysis.step_stats(),
            device_busy_ns=analysis.device_busy_ns(),
            zone=ZoneSummary(
                reading.kind,
                reading.choice.names,
                reading.choice.source,
                reading.total_zone_ns,
                reading.total_gap_ns if reading.found else None,
            ),
            warnings=warnings,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON `steptrace summary --json` prints (documented in the README)."""
        stats = self.stats
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
                    "device_busy_us": None
                    if row.device_busy_ns is None
                    else us(row.device_busy_ns),
                    "zone_us": us(row.zone_ns),
                    "gap_us": None if row.gap_ns is None else us(row.gap_ns),
                }
                for row in self.steps
            ],
            "step_stats": None
            if stats is None
            else {
                "count": stats.count,
                "median_ms": ms(stats.median_ns),
                "min_ms": ms(stats.min_ns),
                "max_ms": ms(stats.max_ns),
            },
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
            "warnings": list(self.warnings),
        }

    def to_text(self) -> str:
        """`steptrace summary` for people, at most 80 columns."""
        lines: list[str] = []
        lines += fill(printable(self.trace_path), "trace     ")
        if self.capture.question:
            lines += fill(printable(self.capture.question), "question  ")
        gpu = (
            "observed"
            if self.gpu_observed
            else f"not observed — {printable(str(self.gpu_missing_reason))}"
        )
        lines += fill(gpu, "GPU       ")
        lines.append(f"events    {self.events:,}   span {duration_text(self.span_ns)}")
        stats = self.stats
        if stats:
            lines += fill(
                f"{stats.count} in the window: median {duration_text(stats.median_ns)}, "
                f"min {duration_text(stats.min_ns)}, max {duration_text(stats.max_ns)} "
                "per step",
                "steps     ",
            )
            if stats.count < 10:
                lines.append(
                    "          (few steps show the mechanism, not a distribution)"
                )
        else:
            lines.append("steps     none found (no ProfilerStep#N ranges)")
        if self.device_busy_ns is not None:
            lines += fill(
                f"device busy {duration_text(self.device_busy_ns)} "
                "(union of kernels, copies, sets)",
                "busy      ",
            )
        lines += zone_lines(self.zone)
        if self.steps:
            lines.append("")
            lines.append(
                f"{'step':>8} {'phase':<8} {'duration':>11} {'gap':>11}  zones"
            )
            for row in self.steps:
                zones = ", ".join(
                    f"{printable(zone.name)} {duration_text(zone.duration_ns)}"
                    for zone in row.zones[:3]
                )
                if len(row.zones) > 3:
                    zones += f", +{len(row.zones) - 3}"
                gap = "–" if row.gap_ns is None else duration_text(row.gap_ns)
                line = (
                    f"{row.number:>8} {row.phase.value:<8} "
                    f"{duration_text(row.duration_ns):>11} {gap:>11}  "
                )
                lines.append(line + cut_end(zones, TEXT_WIDTH - len(line)))
        if self.warnings:
            lines.append("")
            lines.append("warnings")
            for warning in self.warnings:
                lines += fill(printable(warning), "  - ", "    ")
        return "\n".join(lines)


def zone_lines(zone: ZoneSummary) -> list[str]:
    """The data zone's line: its gap against its time, or that there is none."""
    if zone.total_gap_ns is None:
        looked_for = ", ".join(
            printable(name)
            for name in zone.names or (DEFAULT_DATA_ZONE, DATALOADER_GROUP)
        )
        return fill(
            f"no data zone in this capture (looked for {looked_for}); "
            "name yours with --zone NAME",
            "gaps      ",
        )
    label = (
        "GPU idle in the data zone"
        if zone.kind is GapKind.GPU_IDLE
        else "CPU wait in the data zone (no GPU events)"
    )
    names = ", ".join(printable(name) for name in zone.names)
    return fill(
        f"{label}: {duration_text(zone.total_gap_ns)} of "
        f"{duration_text(zone.total_zone_ns)} ({names}; {zone.source.label})",
        "gaps      ",
    )
