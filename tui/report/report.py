"""`steptrace report`: one document in the method's order, from the core's typed results.

`ReportResult` gathers the summary, the time split, the findings and the
notes, with the figures its sections share and its JSON; its Markdown is
`report_markdown`'s, its terminal text `report_text`'s. It lives on the
words floor because it carries notes and the findings' words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tui.core.base.units import NOT_OBSERVED, ms, us
from tui.core.base.vocab import GapKind
from tui.core.figures.analysis import Analysis
from tui.core.figures.queue import LaunchQueue
from tui.core.figures.time_split import TimeSplit
from tui.core.findings.finding import Finding
from tui.core.findings.weights import DEFAULT_MIN_SHARE
from tui.core.model.description import CaptureDescription
from tui.core.results.findings import FindingsResult, set_aside_data
from tui.core.results.queue import stream_summary_json
from tui.core.results.step_split import step_breakdown_json
from tui.core.results.summary import SummaryResult, step_stats_json
from tui.notes.model import Note
from tui.report.findings import findings_json
from tui.report.text import UNTRACED_MEANS
from tui.report.zone_choice import proposed_zone_line

UNIT_RULE = (
    "Step times are elapsed time. A sum of events is not elapsed time: nested "
    "or concurrent activity counts once (a union of intervals), never added up."
)
SPLIT_RULE = (
    "Three figures, kept apart and never added: the CPU launches work the GPU "
    "runs later, and waiting is time in the data zone with nothing to run. "
    "Each is a union of intervals inside the window's steps."
)
FINDINGS_RULE = (
    "Possible observations, not proven causes: no speed-up is claimed from a "
    "trace; the useful conclusion is the next check."
)
CANNOT_SAY = (
    "A trace from one machine does not rank other machines or rented offers.",
    "It does not prove a rented server's host CPU or network.",
    "Comparing GPUs needs comparable load, conditions and results on the target "
    "resource.",
)
SIMPLIFIED_CANNOT_SAY = (
    "With simplified inputs it does not show the full load, even on this machine."
)
CPU_LABEL = "CPU busy: threads' operators (union)"
GPU_LABEL = "GPU busy (kernels, copies, sets)"
OPTION_COSTS = (
    ("record_shapes", "Shapes", "adds cost; recording shapes can keep tensors alive"),
    ("with_stack", "Stacks", "adds cost; stacks carry code paths, which leak"),
    ("profile_memory", "Memory", "adds cost"),
)


def share_text(value: float | None) -> str:
    """A share as a whole percentage; – when there is none."""
    return "–" if value is None else f"{value:.0%}"


def _on_off(value: bool | None) -> str:
    return "not recorded" if value is None else "on" if value else "off"


@dataclass(frozen=True)
class SplitRow:
    """One row of the CPU / GPU / waiting table: per-step median, window total, share."""

    label: str
    median_ns: float | None
    total_ns: int | None
    share: float | None
    missing: str = NOT_OBSERVED


@dataclass(frozen=True)
class ReportResult:
    """Everything the report says about a capture, from the core's typed results."""

    summary: SummaryResult
    split: TimeSplit
    weighed: FindingsResult
    notes: tuple[Note, ...]
    queue: LaunchQueue | None = None

    @classmethod
    def of(
        cls,
        analysis: Analysis,
        notes: Sequence[Note] = (),
        min_share: float = DEFAULT_MIN_SHARE,
    ) -> ReportResult:
        """The report of an analysed capture and its notes (tombstones left out)."""
        return cls(
            SummaryResult.of(analysis),
            TimeSplit.of(analysis),
            FindingsResult.of(analysis, min_share),
            tuple(note for note in notes if not note.deleted),
            analysis.launch_queue if analysis.trace.gpu_observed else None,
        )

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings, costliest first."""
        return self.weighed.findings

    @property
    def capture(self) -> CaptureDescription:
        """The capture description."""
        return self.summary.capture

    # -- shared figures ------------------------------------------------------------

    def untraced_note(self) -> str | None:
        """What untraced time is, under the split, when the data zone's gaps are that."""
        zone = self.summary.zone
        if zone.total_gap_ns is None or zone.kind is not GapKind.UNTRACED:
            return None
        return f"untraced time: {UNTRACED_MEANS} (no GPU events)."

    def cpu_note(self) -> str:
        """What the CPU figure counts, and why TensorBoard's CPU Exec differs."""
        said = (
            "CPU busy: time when at least one thread runs an operator or a runtime "
            "call, counted once however many threads do; user annotations "
            "(record_function), Python and waits are not operators"
        )
        if self.summary.step_breakdown is None:
            return said + "."
        return (
            f"{said}. TensorBoard's CPU Exec (the step split below) counts user "
            "annotations and Python ranges too, in what the parts before it leave: "
            "an annotation around a read or a wait is CPU Exec there, not CPU busy "
            "here."
        )

    def split_rows(self) -> list[SplitRow]:
        """Step time, CPU time, GPU work, data zone and waiting, each apart."""
        split = self.split
        zone = self.summary.zone
        names = ", ".join(zone.names) or "none"
        zone_ns = split.zone_ns if split.wait_ns is not None else None
        wait_label = (
            "waiting: GPU idle in the data zone"
            if split.wait_kind is GapKind.GPU_IDLE
            else "untraced time in the data zone"
        )
        if split.step_ns.size == 0:
            return [
                SplitRow(label, None, None, None, "no step in the window")
                for label in (
                    "step time",
                    CPU_LABEL,
                    GPU_LABEL,
                    f"data zone ({names})",
                    wait_label,
                )
            ]
        return [
            SplitRow("step time", split.median(split.step_ns), split.window_ns, 1.0),
            SplitRow(
                CPU_LABEL,
                split.median(split.cpu_ns),
                split.total(split.cpu_ns),
                split.share(split.cpu_ns),
            ),
            SplitRow(
                GPU_LABEL,
                split.median(split.gpu_ns),
                split.total(split.gpu_ns),
                split.share(split.gpu_ns),
            ),
            SplitRow(
                f"data zone ({names})",
                split.median(zone_ns),
                split.total(zone_ns),
                split.share(zone_ns),
                "no data zone",
            ),
            SplitRow(
                wait_label,
                split.median(split.wait_ns),
                split.total(split.wait_ns),
                split.share(split.wait_ns),
                "no data zone",
            ),
        ]

    def resources_says(self) -> list[str]:
        """What this capture says about resources, as sentences."""
        split = self.split
        if split.window_ns <= 0:
            return ["No step in the window: no share of the step can be given."]
        device = split.share(split.gpu_ns)
        lines = [
            f"The device was busy {share_text(device)} of the window's step time "
            "(union of kernels, copies and sets on every device)."
            if device is not None
            else "Device busy: not observed — "
            f"{self.summary.gpu_missing_reason or 'no GPU events'}.",
        ]
        zone = split.share(split.zone_ns)
        proposed = proposed_zone_line(self.summary.zone.names, self.summary.zone.source)
        if proposed is not None:
            lines.append(proposed[0].upper() + proposed[1:] + ".")
        if self.summary.zone.total_gap_ns is None:
            lines.append("Data zone: none in this capture (name one with --zone).")
        else:
            lines.append(
                f"The data zone took {share_text(zone)} of the window's step time."
            )
        lines.append(
            f"Host CPU: some thread ran an operator or runtime call "
            f"{share_text(split.share(split.cpu_ns))} of the window's step time — a "
            "share of elapsed time, not a utilisation of the host's cores."
        )
        return lines

    def cannot_say(self) -> list[str]:
        """What no single capture can say about resources."""
        lines = list(CANNOT_SAY)
        if self.capture.scenario.inputs_simplified:
            lines.append(SIMPLIFIED_CANNOT_SAY)
        return lines

    def instrumentation(self) -> list[tuple[str, str]]:
        """Each option used, and its cost; what the profiler was asked for and got."""
        capture = self.capture
        if not capture.present:
            return []
        options = capture.options
        lines = [
            (label, f"{_on_off(getattr(options, field))} ({cost})")
            for field, label, cost in OPTION_COSTS
        ]
        activities = capture.activities
        if activities.requested is not None or activities.observed is not None:
            lines.append(
                (
                    "Activities",
                    f"asked for {', '.join(activities.requested or ()) or 'unknown'}; "
                    f"recorded {', '.join(activities.observed or ()) or 'unknown'}",
                )
            )
        return lines

    # -- JSON ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """What `steptrace report --json` prints (documented in docs/commands.md)."""
        summary = self.summary
        capture = self.capture
        split = self.split
        return {
            "trace": summary.trace_path,
            "question": capture.question,
            "scenario": _scenario_json(capture),
            "unit": {
                "name": capture.unit_name,
                "samples_per_step": capture.samples_per_step,
            },
            "window": _window_json(capture, summary),
            "time": _time_json(split, summary),
            "gpu_observed": summary.gpu_observed,
            "gpu_missing_reason": summary.gpu_missing_reason,
            "step_breakdown": step_breakdown_json(summary.step_breakdown),
            "launch_queue": None
            if self.queue is None
            else [stream_summary_json(stream) for stream in self.queue.streams],
            "findings": findings_json(self.weighed)["findings"],
            "findings_median_step_us": us(self.weighed.median_step_ns),
            "findings_set_aside_steps": set_aside_data(self.weighed.set_aside),
            "notes": [note.to_dict() for note in self.notes],
            "instrumentation": _instrumentation_json(capture),
            "resources": {
                "device_busy_share": split.share(split.gpu_ns),
                "data_zone_share": split.share(split.zone_ns),
                "host_cpu_share": split.share(split.cpu_ns),
                "says": self.resources_says(),
                "cannot_say": self.cannot_say(),
            },
            "warnings": list(summary.warnings),
        }


def _scenario_json(capture: CaptureDescription) -> dict[str, Any] | None:
    """The report's `scenario`: what the step ran on; None without a description."""
    if not capture.present:
        return None
    scenario = capture.scenario
    return {
        "shapes": scenario.shapes,
        "batch_size": scenario.batch_size,
        "precision": scenario.precision,
        "mode": scenario.mode,
        "compiled": scenario.compiled,
        "data_source": scenario.data_source,
        "inputs_simplified": scenario.inputs_simplified,
        "simplified_note": scenario.simplified_note,
        "step_contents": list(capture.step_contents),
    }


def _window_json(capture: CaptureDescription, summary: SummaryResult) -> dict[str, Any]:
    """The report's `window`: the schedule, each step's time, their statistics, start-up."""
    window = capture.window
    startup = capture.startup
    return {
        "schedule": None
        if window is None
        else {"wait": window.wait, "warmup": window.warmup, "active": window.active},
        "steps": [
            {
                "step": row.number,
                "phase": row.phase.value,
                "duration_ms": ms(row.duration_ns),
            }
            for row in summary.steps
        ],
        "step_stats": step_stats_json(summary.stats),
        "startup": {
            "before_first_step_ms": startup.before_first_step_ms,
            "steps": [
                {"step": entry.step, "phase": entry.phase, "ms": entry.ms}
                for entry in startup.steps
            ],
        },
    }


def _time_json(split: TimeSplit, summary: SummaryResult) -> dict[str, Any]:
    """The report's `time`: per step, CPU time, GPU work, zone and waiting, in µs."""

    def column(values: Any) -> list[float] | None:
        return None if values is None else [us(int(v)) for v in values.tolist()]

    return {
        "steps": list(split.step_numbers),
        "step_us": column(split.step_ns),
        "cpu_us": column(split.cpu_ns),
        "gpu_us": column(split.gpu_ns),
        "zone_us": column(split.zone_ns),
        "wait_us": column(split.wait_ns),
        "wait_kind": split.wait_kind.value,
        "zones": list(summary.zone.names),
    }


def _instrumentation_json(capture: CaptureDescription) -> dict[str, Any] | None:
    """The report's `instrumentation`: options used and activities; None without a description."""
    if not capture.present:
        return None
    activities = capture.activities
    return {
        "record_shapes": capture.options.record_shapes,
        "with_stack": capture.options.with_stack,
        "profile_memory": capture.options.profile_memory,
        "activities_requested": None
        if activities.requested is None
        else list(activities.requested),
        "activities_observed": None
        if activities.observed is None
        else list(activities.observed),
    }
