"""Figures as JSON-ready dicts and as plain text for the headless CLI.

The JSON shapes are documented in the README; scripts and CI depend on them.
Times are microseconds (floats, exact to the nanosecond) unless the key says
milliseconds. GPU figures are None (JSON null) when no GPU work was observed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tui.core.analysis import (
    Analysis,
    Gap,
    OpTable,
    Step,
    step_stats,
    union_length,
)
from tui.core.model import Trace
from tui.core.textsafe import printable


def us(nanoseconds: int | float) -> float:
    """Nanoseconds to microseconds."""
    return float(nanoseconds) / 1000.0


def ms(nanoseconds: int | float) -> float:
    """Nanoseconds to milliseconds."""
    return float(nanoseconds) / 1e6


def gpu_missing_reason(trace: Trace) -> str | None:
    """Why GPU figures are not observed, as far as the file tells."""
    if trace.gpu_observed:
        return None
    description = trace.description or {}
    activities = description.get("activities")
    if not isinstance(activities, dict):
        activities = {}
    if isinstance(activities.get("gpu_missing_reason"), str):
        return str(activities["gpu_missing_reason"])
    if any("cuda_profiler_range" in warning for warning in trace.warnings):
        return (
            "the capture holds CUPTI counter ranges only, not a timeline of device work"
        )
    requested = activities.get("requested")
    if isinstance(requested, list) and "cuda" not in requested:
        return "GPU activity was not requested for this capture"
    return (
        "no kernel, copy or set events in the trace: GPU activity was not recorded "
        "(CPU-only capture, or GPU collection unavailable)"
    )


def samples_per_step(trace: Trace) -> int | None:
    """Samples in one step when the capture description says so."""
    description = trace.description or {}
    unit = description.get("unit")
    if (
        isinstance(unit, dict)
        and type(unit.get("samples_per_step")) is int
        and unit["samples_per_step"] > 0
    ):
        return int(unit["samples_per_step"])
    scenario = description.get("scenario")
    if (
        isinstance(scenario, dict)
        and type(scenario.get("batch_size")) is int
        and scenario["batch_size"] > 0
    ):
        return int(scenario["batch_size"])
    return None


def _step_dict(
    analysis: Analysis, step: Step, samples: int | None, step_gaps: list[Gap]
) -> dict[str, Any]:
    busy = analysis.device_busy_ns(step.start_ns, step.end_ns)
    return {
        "step": step.number,
        "phase": step.phase,
        "start_us": us(step.start_ns),
        "duration_ms": ms(step.duration_ns),
        "samples_per_s": (samples / (step.duration_ns / 1e9))
        if samples and step.duration_ns > 0
        else None,
        "zones": [
            {
                "zone": zone.name,
                "count": zone.count,
                "duration_ms": ms(zone.duration_ns),
            }
            for zone in analysis.zones_in(step.start_ns, step.end_ns)
        ],
        "device_busy_us": us(busy) if busy is not None else None,
        "gap_us": us(_gap_total(step_gaps)),
    }


def _gap_total(gaps: list[Any]) -> int:
    if not gaps:
        return 0
    if gaps[0].kind == "cpu_wait":
        return int(sum(gap.duration_ns for gap in gaps))
    starts = np.array([gap.start_ns for gap in gaps], dtype=np.int64)
    ends = starts + np.array([gap.duration_ns for gap in gaps], dtype=np.int64)
    return union_length(starts, ends)


def summary_dict(trace: Trace, analysis: Analysis | None = None) -> dict[str, Any]:
    """Everything `steptrace summary --json` prints."""
    analysis = analysis or Analysis(trace)
    samples = samples_per_step(trace)
    steps = analysis.steps
    active = [step for step in steps if step.phase == "active"]
    stats = step_stats([step.duration_ns for step in active])
    busy = analysis.device_busy_ns()
    gaps_by_step: dict[int | None, list[Gap]] = {}
    for gap in analysis.gaps:
        gaps_by_step.setdefault(gap.step, []).append(gap)
    return {
        "trace": str(trace.path),
        "description": trace.description,
        "gpu_observed": trace.gpu_observed,
        "gpu_missing_reason": gpu_missing_reason(trace),
        "unit": "ms/step",
        "samples_per_step": samples,
        "events": trace.event_count,
        "span_us": us(trace.span_ns),
        "steps": [
            _step_dict(analysis, step, samples, gaps_by_step.get(step.number, []))
            for step in steps
        ],
        "step_stats": None
        if stats is None
        else {
            "count": stats["count"],
            "median_ms": ms(stats["median_ns"]),
            "min_ms": ms(stats["min_ns"]),
            "max_ms": ms(stats["max_ns"]),
        },
        "device_busy_us": us(busy) if busy is not None else None,
        "gaps": {
            "kind": "gpu_idle" if trace.gpu_observed else "cpu_wait",
            "zones": sorted(analysis.data_zone_names()),
            "total_zone_us": us(analysis.total_zone_ns),
            "total_gap_us": us(_gap_total(analysis.gaps)),
        },
        "warnings": list(trace.warnings)
        + (
            [
                f"{analysis.unlinked_device_events} device events could not be tied to a CPU operator"
            ]
            if trace.gpu_observed and analysis.unlinked_device_events
            else []
        ),
    }


def ops_dict(
    trace: Trace, table: OpTable, sort: str, device: str, limit: int | None
) -> dict[str, Any]:
    """What `steptrace ops --json` prints."""
    order = table.order(sort, device)
    if limit is not None:
        order = order[:limit]
    rows = []
    for row in order.tolist():
        rows.append(
            {
                "name": table.names[row],
                "calls": int(table.calls[row]),
                "self_cpu_us": us(table.self_cpu_ns[row]),
                "total_cpu_us": us(table.total_cpu_ns[row]),
                "self_gpu_us": us(table.self_gpu_ns[row])
                if table.self_gpu_ns is not None
                else None,
                "total_gpu_us": us(table.total_gpu_ns[row])
                if table.total_gpu_ns is not None
                else None,
            }
        )
    return {"gpu_observed": trace.gpu_observed, "ops": rows}


def gaps_dict(trace: Trace, analysis: Analysis) -> dict[str, Any]:
    """What `steptrace gaps --json` prints."""
    return {
        "gpu_observed": trace.gpu_observed,
        "zones": sorted(analysis.data_zone_names()),
        "total_zone_us": us(analysis.total_zone_ns),
        "total_gap_us": us(_gap_total(analysis.gaps)),
        "gaps": [
            {
                "zone": gap.zone,
                "step": gap.step,
                "start_us": us(gap.start_ns),
                "duration_us": us(gap.duration_ns),
                "kind": gap.kind,
                "device": gap.device,
            }
            for gap in analysis.gaps
        ],
    }


# -- text ---------------------------------------------------------------------


def format_duration_ns(nanoseconds: float | None) -> str:
    """A duration with a unit that keeps 3-4 significant digits."""
    if nanoseconds is None:
        return "not observed"
    value = float(nanoseconds)
    if abs(value) >= 1e9:
        return f"{value / 1e9:.3f} s"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3f} ms"
    if abs(value) >= 1e3:
        return f"{value / 1e3:.3f} µs"
    return f"{value:.0f} ns"


TEXT_WIDTH = 80
# The name column of `steptrace ops`; longer names end with "…".
OPS_NAME_WIDTH = 30


def _fill(text: str, first: str = "", rest: str = " " * 10) -> list[str]:
    """Wrap `text` at 80 columns after a label; long paths break anywhere."""
    import textwrap

    return textwrap.wrap(
        text,
        width=TEXT_WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def summary_text(summary: dict[str, Any]) -> str:
    """`steptrace summary` for people, at most 80 columns."""
    lines: list[str] = []
    lines += _fill(printable(summary["trace"]), "trace     ")
    description = summary.get("description") or {}
    if description.get("question"):
        lines += _fill(printable(str(description["question"])), "question  ")
    gpu = (
        "observed"
        if summary["gpu_observed"]
        else f"not observed — {printable(str(summary['gpu_missing_reason']))}"
    )
    lines += _fill(gpu, "GPU       ")
    lines.append(
        f"events    {summary['events']:,}   span {format_duration_ns(summary['span_us'] * 1000)}"
    )
    stats = summary["step_stats"]
    if stats:
        lines += _fill(
            f"{stats['count']} in the window: median {stats['median_ms']:.3f} ms, "
            f"min {stats['min_ms']:.3f}, max {stats['max_ms']:.3f} ms/step",
            "steps     ",
        )
        if stats["count"] < 10:
            lines.append("          (few steps show the mechanism, not a distribution)")
    else:
        lines.append("steps     none found (no ProfilerStep#N ranges)")
    if summary["device_busy_us"] is not None:
        lines += _fill(
            f"device busy {format_duration_ns(summary['device_busy_us'] * 1000)} "
            "(union of kernels, copies, sets)",
            "busy      ",
        )
    gaps = summary["gaps"]
    label = (
        "GPU idle in data zones"
        if gaps["kind"] == "gpu_idle"
        else "CPU wait in data zones (no GPU events)"
    )
    if gaps["total_zone_us"] > 0:
        lines += _fill(
            f"{label}: {format_duration_ns(gaps['total_gap_us'] * 1000)} of "
            f"{format_duration_ns(gaps['total_zone_us'] * 1000)}",
            "gaps      ",
        )
    else:
        zones = ", ".join(printable(zone) for zone in gaps["zones"])
        lines += _fill(
            f"no data zone in this capture ({zones}, enumerate(DataLoader)#…); "
            "name yours with --zone NAME",
            "gaps      ",
        )
    if summary["steps"]:
        lines.append("")
        lines.append(f"{'step':>8} {'phase':<8} {'ms':>10} {'gap':>12}  zones")
        for step in summary["steps"]:
            zones = ", ".join(
                f"{printable(z['zone'])} {z['duration_ms']:.2f}"
                for z in step["zones"][:3]
            )
            if len(step["zones"]) > 3:
                zones += f", +{len(step['zones']) - 3}"
            row = (
                f"{step['step']:>8} {step['phase']:<8} {step['duration_ms']:>10.3f} "
                f"{format_duration_ns(step['gap_us'] * 1000):>12}  "
            )
            room = TEXT_WIDTH - len(row)
            if len(zones) > room:
                zones = zones[: room - 1] + "…"
            lines.append(row + zones)
    if summary["warnings"]:
        lines.append("")
        lines.append("warnings")
        for warning in summary["warnings"]:
            lines += _fill(printable(warning), "  - ", "    ")
    return "\n".join(lines)


def ops_text(data: dict[str, Any], sort: str, device: str) -> str:
    """`steptrace ops` as a fixed-width table at 80 columns."""
    name_width = OPS_NAME_WIDTH
    header = f"{'name':<{name_width}} {'calls':>7} {'self CPU':>9} {'total CPU':>9} {'self GPU':>9} {'total GPU':>9}"
    lines = [f"operators by {sort} {device.upper()} time", header, "-" * len(header)]

    def cell(value: float | None) -> str:
        if value is None:
            return "n/o"
        return format_duration_ns(value * 1000).replace(" ", "")

    for row in data["ops"]:
        name = printable(row["name"])
        if len(name) > name_width:
            name = name[: name_width - 1] + "…"
        lines.append(
            f"{name:<{name_width}} {row['calls']:>7} {cell(row['self_cpu_us']):>9} {cell(row['total_cpu_us']):>9} "
            f"{cell(row['self_gpu_us']):>9} {cell(row['total_gpu_us']):>9}"
        )
    if not data["gpu_observed"]:
        lines += _fill(
            "GPU time: not observed (no GPU events in this capture); n/o = not observed",
            "",
            "",
        )
    return "\n".join(lines)


def gaps_text(data: dict[str, Any]) -> str:
    """`steptrace gaps` for people."""
    kind_label = (
        "GPU idle"
        if data["gpu_observed"]
        else "CPU wait (no GPU events: zone self time)"
    )
    lines = _fill(
        f"{', '.join(printable(z) for z in data['zones'])} (+ enumerate(DataLoader)#…)",
        "data zones: ",
        "  ",
    )
    lines += _fill(
        f"{kind_label}: {format_duration_ns(data['total_gap_us'] * 1000)} of "
        f"{format_duration_ns(data['total_zone_us'] * 1000)} in zones",
        "",
        "  ",
    )
    lines += ["", f"{'step':>6} {'start':>14} {'duration':>12}  zone"]
    for gap in data["gaps"]:
        step = "-" if gap["step"] is None else str(gap["step"])
        lines.append(
            f"{step:>6} {format_duration_ns(gap['start_us'] * 1000):>14} {format_duration_ns(gap['duration_us'] * 1000):>12}  {printable(gap['zone'])[:40]}"
        )
    if not data["gaps"]:
        lines.append("  (no data zone in this capture: nothing to measure)")
    return "\n".join(lines)
