"""`steptrace compiled`: torch.compile's regions, compilations and graph breaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.base.units import us
from tui.core.figures.analysis import Analysis
from tui.core.figures.compiled import CompiledFigures, CompiledRegion, NamedTime

NOT_COMPILED = (
    "no torch.compile region or compilation in this capture (no "
    "'Torch-Compiled Region' range, no Dynamo compile range)"
)


@dataclass(frozen=True)
class CompiledResult:
    """The compiled figures, with the window's step count for means per step."""

    figures: CompiledFigures
    steps: int

    @classmethod
    def of(cls, analysis: Analysis) -> CompiledResult:
        """The figures of the window's steps."""
        return cls(CompiledFigures.of(analysis), len(analysis.window_steps))

    def per_step(self, value: int) -> float:
        """A sum over the window as a mean per step (the sum without steps)."""
        return value / self.steps if self.steps else float(value)

    def compiled_in(self, compile_id: str) -> int | None:
        """The step a compile id was compiled in, if the capture holds it."""
        for item in self.figures.compilations:
            if item.compile_id == compile_id:
                return item.step
        return None

    def _named(self, rows: tuple[NamedTime, ...]) -> list[dict[str, Any]]:
        return [
            {
                "name": row.name,
                "calls_per_step": self.per_step(row.calls),
                "time_us_per_step": us(round(self.per_step(row.time_ns))),
            }
            for row in rows
        ]

    def _region(self, region: CompiledRegion) -> dict[str, Any]:
        return {
            "compile_id": region.compile_id,
            "frame": region.frame,
            "attempt": region.attempt,
            "recompile": region.recompiled,
            "compiled_in_step": self.compiled_in(region.compile_id),
            "calls_per_step": self.per_step(region.calls),
            "time_us_per_step": us(round(self.per_step(region.time_ns))),
            "steps": list(region.steps),
            "graphs": self._named(region.graphs),
            "kernels": None if region.kernels is None else self._named(region.kernels),
        }

    def to_json(self) -> dict[str, Any]:
        """What `steptrace compiled --json` prints."""
        figures = self.figures
        window_compile = sum(
            item.duration_ns for item in figures.compilations if item.in_window
        )
        return {
            "compiled": figures.present,
            "message": None if figures.present else NOT_COMPILED,
            "steps": self.steps,
            "gpu_observed": figures.gpu_observed,
            "compile_us_per_step": us(round(self.per_step(window_compile))),
            "regions": [self._region(region) for region in figures.regions],
            "compilations": [
                {
                    "compile_id": item.compile_id,
                    "recompile": item.recompile,
                    "step": item.step,
                    "in_window": item.in_window,
                    "start_us": us(item.start_ns),
                    "time_us": us(item.duration_ns),
                    "backend_us": us(item.backend_ns),
                }
                for item in figures.compilations
            ],
            "per_step": [
                {
                    "step": step.step,
                    "compile_ids": list(step.compile_ids),
                    "frames": step.frames,
                    "graph_breaks": max(step.frames - 1, 0),
                    "between_frames_us": us(step.between_ns),
                    "compile_us": us(step.compile_ns),
                }
                for step in figures.steps
            ],
        }
