"""Comparing two bench results: raw values, medians and ranges side by side.

Torch-free on purpose: `steptrace compare` only reads JSON and must work where
torch is not installed. When the ranges of run medians overlap the answer is
"inconclusive"; a change in loss is flagged, since a local gain can cost
quality; results from different environments are flagged, since one
machine's result does not rank another.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from collector.environment import COMPARED_KEYS
from collector.errors import ResultFormatError
from collector.schema import BENCH_FORMAT, BENCH_FORMAT_KEY
from collector.stats import Spread, ranges_overlap, spread_of

Verdict = Literal["inconclusive", "after lower", "after higher"]
# Below this relative difference a loss change is at the level of floating-point reordering.
NUMERICAL_NOISE = 1e-5
COMPARED_SETTINGS = ("warmup", "steps", "samples_per_step")


@dataclass
class Side:
    """One bench result, reduced to what the comparison needs (raw values kept)."""

    label: str
    data: dict[str, Any]
    wall_run_medians: list[float]
    wall: Spread
    gpu_run_medians: list[float] | None
    gpu: Spread | None
    final_losses: list[float | None]
    losses_identical: bool

    @property
    def name(self) -> str:
        """The workload's name, as the bench recorded it."""
        return str(self.data.get("name") or "")

    @property
    def config(self) -> dict[str, Any]:
        """The bench settings."""
        config = self.data.get("config")
        return config if isinstance(config, dict) else {}

    @property
    def environment(self) -> dict[str, Any]:
        """Where it ran."""
        environment = self.data.get("environment")
        return environment if isinstance(environment, dict) else {}


@dataclass
class FigureComparison:
    """One figure (wall or GPU time) compared across the two sides."""

    title: str
    before: Spread
    after: Spread
    verdict: Verdict
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return {
            "title": self.title,
            "before": dict(self.before),
            "after": dict(self.after),
            "verdict": self.verdict,
            "sentence": self.sentence,
        }


@dataclass
class Comparison:
    """The whole answer to `steptrace compare BEFORE AFTER`."""

    before: Side
    after: Side
    wall: FigureComparison
    gpu: FigureComparison | None
    loss_note: str
    loss_flagged: bool
    environment_differences: list[tuple[str, Any, Any]] = field(default_factory=list)
    setting_differences: list[tuple[str, Any, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The comparison as JSON, for scripts."""
        return {
            "before": {
                "path": self.before.label,
                "name": self.before.name,
                "run_medians_ms": self.before.wall_run_medians,
            },
            "after": {
                "path": self.after.label,
                "name": self.after.name,
                "run_medians_ms": self.after.wall_run_medians,
            },
            "wall_ms": self.wall.to_dict(),
            "gpu_ms": self.gpu.to_dict() if self.gpu is not None else None,
            "loss": {
                "note": self.loss_note,
                "flagged": self.loss_flagged,
                "before_final": self.before.final_losses,
                "after_final": self.after.final_losses,
            },
            "environment_differences": [
                {"key": key, "before": before, "after": after}
                for key, before, after in self.environment_differences
            ],
            "setting_differences": [
                {"key": key, "before": before, "after": after}
                for key, before, after in self.setting_differences
            ],
            "warnings": list(self.warnings),
        }


def _number_list(value: Any) -> list[float] | None:
    if not isinstance(value, list) or not value:
        return None
    if not all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value
    ):
        return None
    return [float(item) for item in value]


def side_from_data(data: Any, label: str) -> Side:
    """Read a bench result object; ResultFormatError (one line) if it is not one."""
    if not isinstance(data, dict) or BENCH_FORMAT_KEY not in data:
        raise ResultFormatError(
            f"{label} is not a steptrace bench result (no {BENCH_FORMAT_KEY!r} key)"
        )
    if data[BENCH_FORMAT_KEY] != BENCH_FORMAT:
        raise ResultFormatError(
            f"{label} is bench format {data[BENCH_FORMAT_KEY]!r}; this steptrace reads format {BENCH_FORMAT}"
        )
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        raise ResultFormatError(f"{label} holds no runs")
    wall_medians: list[float] = []
    gpu_medians: list[float] = []
    gpu_everywhere = True
    final_losses: list[float | None] = []
    loss_lists: list[list[Any]] = []
    for index, run in enumerate(runs, start=1):
        wall = _number_list(run.get("wall_ms") if isinstance(run, dict) else None)
        if wall is None:
            raise ResultFormatError(f"{label}: run {index} has no wall_ms values")
        wall_medians.append(statistics.median(wall))
        gpu = _number_list(run.get("gpu_ms"))
        if gpu is None:
            gpu_everywhere = False
        else:
            gpu_medians.append(statistics.median(gpu))
        losses = run.get("loss")
        losses = losses if isinstance(losses, list) else []
        loss_lists.append(losses)
        last = losses[-1] if losses else None
        final_losses.append(
            float(last)
            if isinstance(last, (int, float)) and not isinstance(last, bool)
            else None
        )
    identical = all(losses == loss_lists[0] for losses in loss_lists)
    return Side(
        label=label,
        data=data,
        wall_run_medians=wall_medians,
        wall=spread_of(wall_medians),
        gpu_run_medians=gpu_medians if gpu_everywhere else None,
        gpu=spread_of(gpu_medians) if gpu_everywhere else None,
        final_losses=final_losses,
        losses_identical=identical,
    )


def load_side(path: str | Path) -> Side:
    """Read a RESULT.json file; ResultFormatError for anything that is not a readable bench result."""
    file_path = Path(path)
    try:
        raw = file_path.read_bytes()
    except OSError as error:
        raise ResultFormatError(
            f"cannot read {file_path}: {error.strerror or error}"
        ) from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ResultFormatError(f"{file_path} is not JSON ({error})") from None
    return side_from_data(data, str(file_path))


def _percent_change(before: float, after: float) -> str:
    if before == 0:
        return "n/a"
    return f"{(after - before) / before * 100.0:+.1f}%"


def compare_figure(
    title: str, unit: str, before: Spread, after: Spread
) -> FigureComparison:
    """Order two ranges of run medians, or say that they overlap."""
    change = (
        f"median {format_value(before['median'])} → {format_value(after['median'])} {unit} "
        + (f"({_percent_change(before['median'], after['median'])})")
    )
    if ranges_overlap(before, after):
        verdict: Verdict = "inconclusive"
        sentence = (
            f"inconclusive: the ranges overlap (before {format_value(before['min'])}–{format_value(before['max'])}, "
            f"after {format_value(after['min'])}–{format_value(after['max'])} {unit}); {change}"
        )
    elif after["max"] < before["min"]:
        verdict = "after lower"
        sentence = f"after lower on this machine: {change}; the ranges do not overlap"
    else:
        verdict = "after higher"
        sentence = f"after higher on this machine: {change}; the ranges do not overlap"
    return FigureComparison(title, before, after, verdict, sentence)


def _loss_comparison(before: Side, after: Side) -> tuple[str, bool]:
    """Whether the quality signal moved: any change in final loss is flagged, with its size."""
    before_loss = before.final_losses[0] if before.final_losses else None
    after_loss = after.final_losses[0] if after.final_losses else None
    if before_loss is None or after_loss is None:
        return "loss not recorded on both sides: no quality signal to compare", False
    if before_loss == after_loss:
        return (
            f"same final loss ({before_loss:.6g}): the quality signal did not move",
            False,
        )
    if math.isnan(before_loss) or math.isnan(after_loss):
        return (
            f"final loss {before_loss:.6g} → {after_loss:.6g}: not a number on one side",
            True,
        )
    relative = abs(after_loss - before_loss) / max(abs(before_loss), 1e-12)
    size = (
        "slightly, at the level of numerical noise"
        if relative < NUMERICAL_NOISE
        else "beyond numerical noise"
    )
    return (
        f"loss differs {size}: final loss {before_loss:.6g} → {after_loss:.6g} "
        f"({_percent_change(before_loss, after_loss)}); check the change does not cost quality",
        True,
    )


def environment_differences(before: Side, after: Side) -> list[tuple[str, Any, Any]]:
    """Device, versions and CPU that differ; host names only when both were recorded."""
    differences: list[tuple[str, Any, Any]] = []
    device_before, device_after = (
        before.config.get("device"),
        after.config.get("device"),
    )
    if device_before != device_after:
        differences.append(("device", device_before, device_after))
    for key in COMPARED_KEYS:
        value_before, value_after = (
            before.environment.get(key),
            after.environment.get(key),
        )
        if value_before != value_after:
            differences.append((key, value_before, value_after))
    host_before, host_after = (
        before.environment.get("host_name"),
        after.environment.get("host_name"),
    )
    if host_before and host_after and host_before != host_after:
        differences.append(("host_name", host_before, host_after))
    return differences


def compare_sides(before: Side, after: Side) -> Comparison:
    """Compare two bench results: wall time, GPU time (separately), loss, environment, settings."""
    wall = compare_figure(
        "wall time, ms/step (median of each run's steps)",
        "ms/step",
        before.wall,
        after.wall,
    )
    gpu = None
    warnings: list[str] = []
    if before.gpu is not None and after.gpu is not None:
        gpu = compare_figure(
            "GPU time, ms/step (CUDA events; separate from wall time)",
            "ms/step",
            before.gpu,
            after.gpu,
        )
    elif (before.gpu is None) != (after.gpu is None):
        warnings.append("GPU time was recorded on one side only: not compared")
    loss_note, loss_flagged = _loss_comparison(before, after)
    for side, word in ((before, "before"), (after, "after")):
        if not side.losses_identical:
            warnings.append(
                f"{word}: losses differ between its runs, so its runs did not all start from the same state"
            )
        if len(side.wall_run_medians) < 3:
            warnings.append(
                f"{word}: only {len(side.wall_run_medians)} run(s); the range says little"
            )
    for side, word in ((before, "before"), (after, "after")):
        recorded = side.data.get("warnings")
        if isinstance(recorded, list):
            warnings += [
                f"{word}: {warning}" for warning in recorded if isinstance(warning, str)
            ]
    env_differences = environment_differences(before, after)
    if env_differences:
        listed = "; ".join(
            f"{key}: {value_before} vs {value_after}"
            for key, value_before, value_after in env_differences
        )
        warnings.append(
            f"different environments ({listed}): one machine's result does not rank another; "
            "compare runs made on the target machine"
        )
    setting_differences = [
        (key, before.config.get(key), after.config.get(key))
        for key in COMPARED_SETTINGS
        if before.config.get(key) != after.config.get(key)
    ]
    if setting_differences:
        listed = "; ".join(
            f"{key}: {value_before} vs {value_after}"
            for key, value_before, value_after in setting_differences
        )
        warnings.append(
            f"different bench settings ({listed}): the two results may not measure the same thing"
        )
    return Comparison(
        before=before,
        after=after,
        wall=wall,
        gpu=gpu,
        loss_note=loss_note,
        loss_flagged=loss_flagged,
        environment_differences=env_differences,
        setting_differences=setting_differences,
        warnings=warnings,
    )


def compare_files(before: str | Path, after: str | Path) -> Comparison:
    """Read and compare two RESULT.json files."""
    return compare_sides(load_side(before), load_side(after))


def format_value(value: float) -> str:
    """Milliseconds with about four significant digits."""
    if abs(value) >= 100:
        return f"{value:.1f}"
    if abs(value) >= 10:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _figure_lines(
    figure: FigureComparison, before: list[float], after: list[float]
) -> list[str]:
    rows = [
        (
            "runs",
            " ".join(format_value(v) for v in before),
            " ".join(format_value(v) for v in after),
        ),
        (
            "median",
            format_value(figure.before["median"]),
            format_value(figure.after["median"]),
        ),
        ("range", _range_text(figure.before), _range_text(figure.after)),
    ]
    left = max(len("before"), *(len(row[1]) for row in rows))
    lines = [figure.title, f"  {'':<7} {'before':<{left}}  after"]
    lines += [f"  {name:<7} {first:<{left}}  {second}" for name, first, second in rows]
    lines.append(f"  {figure.sentence}")
    return lines


def _range_text(spread: Spread) -> str:
    percent = (
        f", {spread['spread_pct']:.1f}%" if spread["spread_pct"] is not None else ""
    )
    return f"{format_value(spread['min'])}–{format_value(spread['max'])} (spread {format_value(spread['spread'])}{percent})"


def _describe_side(side: Side) -> str:
    config = side.config
    return (
        f"{side.label} ({side.name or 'unnamed'}; {config.get('runs', '?')} runs × {config.get('steps', '?')} steps "
        f"after {config.get('warmup', '?')} warm-up; {config.get('device', '?')})"
    )


def format_comparison(comparison: Comparison) -> str:
    """The comparison as text for a terminal."""
    lines = [
        f"before: {_describe_side(comparison.before)}",
        f"after:  {_describe_side(comparison.after)}",
        "",
    ]
    lines += _figure_lines(
        comparison.wall,
        comparison.before.wall_run_medians,
        comparison.after.wall_run_medians,
    )
    if comparison.gpu is not None:
        lines.append("")
        lines += _figure_lines(
            comparison.gpu,
            comparison.before.gpu_run_medians or [],
            comparison.after.gpu_run_medians or [],
        )
    lines += ["", f"loss (quality signal): {comparison.loss_note}"]
    lines += [f"warning: {warning}" for warning in comparison.warnings]
    return "\n".join(lines)
