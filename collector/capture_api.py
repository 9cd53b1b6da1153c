"""The capture API: one bounded window of steps, written to a fresh file with its description.

    with collector.capture("trace-step.json", question="is the GPU waiting for data?") as cap:
        for batch in loader:
            with cap.zone("lecture_batch_cpu"):
                ...
            cap.step()

Everything that can be refused (an existing output path, GPU collection this
build cannot do, bad settings) is refused when the capture is made, before
anything runs. The description goes into the trace file itself under the
top-level key `steptrace`; after export it is rewritten with what the file
really holds (activities observed, steps recorded).
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import orjson
import torch
from torch.autograd.profiler import record_function

from collector import distributed, paths
from collector.capture_options import CaptureOptions, check_zone_name
from collector.capture_setup import (
    GPU_NOT_OBSERVED,
    GPU_NOT_REQUESTED,
    OPTION_COSTS,
    SIMPLIFIED_INPUTS,
    _run_folder,
    requested_activities,
    resolve_device,
)
from collector.environment import current_command, describe_environment
from collector.errors import CaptureIncompleteError, CollectorError
from collector.labels import label_problems
from collector.native_log import NativeLog
from collector.schema import (
    DATA_ZONE,
    METADATA_KEY,
    SCHEMA_VERSION,
    Phase,
    Scenario,
    Window,
    default_step_contents,
    scenario_or_default,
    zones_in_order,
)
from collector.tracefile import (
    dump_trace,
    load_trace,
    observed_activities,
    recorded_steps,
    trace_events,
)


def utc_now() -> str:
    """UTC time to the second, as the description records it."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Capture:
    """One profiled run: a window of steps exported to a fresh trace file with its description.

    Use as a context manager (or call `start()` and `close()`); mark parts of a
    step with `zone(name)` and end every step with `step()`. With `repeat` > 1
    each cycle is its own file: `NAME.json`, `NAME.cycle2.json`, …
    """

    def __init__(
        self,
        output: str | os.PathLike[str] | None = paths.AUTO,
        *,
        question: str,
        window: Window | None = None,
        scenario: Scenario | None = None,
        kind: str = "train",
        step_contents: Sequence[str] | None = None,
        device: str | torch.device | None = None,
        model: torch.nn.Module | None = None,
        data_zone: str = DATA_ZONE,
        zones: Sequence[str] = (),
        unit: str = "ms/step",
        samples_per_step: int | None = None,
        record_shapes: bool = False,
        with_stack: bool = False,
        profile_memory: bool = False,
        include_host_name: bool = False,
        startup_began: float | None = None,
        command: Sequence[str] | None = None,
        progress: bool = False,
        stream: TextIO | None = None,
        rank: int | None = None,
        launcher: str | None = None,
    ) -> None:
        """Check every setting and the machine now, so a refusal comes before anything runs.

        The keywords are those of `CaptureOptions`, which checks them.
        """
        options = CaptureOptions(
            question=question,
            window=window,
            scenario=scenario,
            kind=kind,
            step_contents=step_contents,
            device=device,
            model=model,
            data_zone=data_zone,
            zones=zones,
            unit=unit,
            samples_per_step=samples_per_step,
            record_shapes=record_shapes,
            with_stack=with_stack,
            profile_memory=profile_memory,
            include_host_name=include_host_name,
            startup_began=startup_began,
            command=command,
            progress=progress,
            stream=stream,
            rank=rank,
            launcher=launcher,
        )
        self._take_settings(options)
        self._check_machine(options)
        self._choose_output(output)
        self._start_records(options)
        self._warn_of_settings(options)
        self._make_ready()

    def _take_settings(self, options: CaptureOptions) -> None:
        """The checked settings, with their defaults filled in."""
        self.window = options.window if options.window is not None else Window()
        self.scenario = scenario_or_default(options.scenario)
        self.question = options.question.strip()
        self.kind = options.kind
        self.step_contents = (
            list(options.step_contents)
            if options.step_contents is not None
            else default_step_contents(options.kind)
        )
        self.data_zone = options.data_zone
        self.unit = options.unit
        self.samples_per_step = options.step_samples()
        self.options = options.profiler_options()
        self.include_host_name = options.include_host_name
        self.command = (
            list(options.command) if options.command is not None else current_command()
        )
        self.progress = options.progress
        self._stream = options.stream
        self._startup_began = options.startup_began

    def _check_machine(self, options: CaptureOptions) -> None:
        """Refusals that depend on the machine: the device, its tracer, the process group."""
        self.device = resolve_device(options.device, options.model)
        self._activities = requested_activities(self.device)
        self._group = distributed.process_group_info()
        rank = options.rank
        if rank is None and self._group is not None:
            rank = self._group["rank"]
        self.rank = rank
        self.launcher = (
            options.launcher
            if options.launcher is not None
            else distributed.launcher_from_environment()
        )

    def _choose_output(self, output: str | os.PathLike[str] | None) -> None:
        """The trace file (and, for a rank, its run folder), refused if already there."""
        self.run_folder: Path | None = None
        if self.rank is None:
            self.output = paths.resolve_output(
                output, "trace", cycles=self.window.repeat
            )
        else:
            self.run_folder = _run_folder(output)
            self.output = distributed.rank_file(self.run_folder, self.rank)

    def _start_records(self, options: CaptureOptions) -> None:
        """Nothing written, warned or labelled yet; the zones declared so far."""
        self.warnings: list[str] = []
        self.outputs: list[Path] = []
        self.description: dict[str, Any] | None = None
        self._declared = list(options.zones)
        self._zones_used: dict[str, None] = {}
        self._labels_checked: set[str] = set()

    def _warn_of_settings(self, options: CaptureOptions) -> None:
        """Warn now of zone names that leak, costly options, simplified inputs, no warmup."""
        for name in (options.data_zone, *options.zones):
            self._check_label(name)
        for option, enabled in self.options.items():
            if enabled:
                self._warn(OPTION_COSTS[option])
        if self.scenario.inputs_simplified:
            self._warn(SIMPLIFIED_INPUTS)
        if self.window.warmup == 0:
            self._warn(
                "no warmup step: the first active step carries the profiler's own start-up cost"
            )

    def _make_ready(self) -> None:
        """A capture made and not started: no profiler, no step yet."""
        self._state = "ready"
        self._profiler: torch.profiler.profile | None = None
        self._step_index = 0
        self._step_started = 0.0
        self._completed_steps: set[int] = set()
        self._startup_steps: list[dict[str, Any]] = []
        self._before_first_step_ms: float | None = None
        self._created_utc = utc_now()
        self._environment: dict[str, Any] = {}
        self._ended_by: str | None = None
        # torch's own log lines, kept out of the terminal and written into the trace.
        self._native_log = NativeLog()

    # -- reporting -------------------------------------------------------

    def _print(self, message: str) -> None:
        where = "" if self.rank is None else f"rank {self.rank}: "
        print(
            f"steptrace: {where}{message}", file=self._stream or sys.stderr, flush=True
        )

    def say(self, message: str) -> None:
        """Tell the user something on stderr now (naming the rank in a distributed run)."""
        self._print(message)

    def add_warning(self, warning: str) -> None:
        """Record something the reader of the trace must know, and say it on stderr now."""
        self._warn(warning)

    def _warn(self, recorded: str, shown: str | None = None) -> None:
        """Record a warning in the description and say it on stderr (`shown` may name local details)."""
        if recorded not in self.warnings:
            self.warnings.append(recorded)
        self._print(f"warning: {shown or recorded}")

    def _check_label(self, name: str) -> None:
        if name in self._labels_checked:
            return
        self._labels_checked.add(name)
        for problem in label_problems(name):
            advice = "labels travel with every copy of the trace; prefer a neutral name"
            self._warn(
                f"a zone name {problem}; {advice}",
                f"zone name {name!r} {problem}; {advice}",
            )

    # -- state -----------------------------------------------------------

    @property
    def step_index(self) -> int:
        """The step now running (0-based, as in ProfilerStep#N)."""
        return self._step_index

    @property
    def total_steps(self) -> int:
        """Steps the loop must run for the whole window to be recorded."""
        return self.window.total_steps

    @property
    def phase(self) -> Phase:
        """The schedule phase of the step now running."""
        return self.window.phase_of(self._step_index)

    @property
    def finished(self) -> bool:
        """Whether every cycle of the window has been recorded and written."""
        return len(self.outputs) >= self.window.repeat

    # -- the loop --------------------------------------------------------

    def __enter__(self) -> Capture:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(exc_value)

    def start(self) -> None:
        """Start the profiler: step 0 begins now."""
        if self._state != "ready":
            raise CollectorError(
                "a capture runs once; make a new one for another window"
            )
        window = self.window
        schedule = torch.profiler.schedule(
            wait=window.wait,
            warmup=window.warmup,
            active=window.active,
            repeat=window.repeat,
            skip_first=window.skip_first,
        )
        profiler = torch.profiler.profile(
            activities=self._activities,
            schedule=schedule,
            on_trace_ready=self._on_trace_ready,
            record_shapes=self.options["record_shapes"],
            profile_memory=self.options["profile_memory"],
            with_stack=self.options["with_stack"],
        )
        self._environment = describe_environment(
            str(self.device), self.include_host_name
        )
        self._refresh_group()
        self._created_utc = utc_now()
        if window.first_active_step > 0:
            self._synchronize()
        began = time.perf_counter()
        if self._startup_began is not None:
            self._before_first_step_ms = (began - self._startup_began) * 1000.0
        with self._native_log.catching():
            profiler.__enter__()  # type: ignore[no-untyped-call]
        self._profiler = profiler
        self._state = "running"
        self._step_index = 0
        self._step_started = time.perf_counter()
        self._after_step_began()

    def zone(self, name: str) -> record_function:
        """A `record_function` range for one part of the step; its name is checked for leaks once."""
        check_zone_name(name)
        if name not in self._zones_used:
            self._check_label(name)
            self._zones_used[name] = None
        return record_function(name)

    def step(self) -> None:
        """End the step now running and begin the next one (advances the schedule)."""
        if self._state != "running":
            raise CollectorError(
                "cap.step() belongs inside the `with collector.capture(...) as cap:` block"
            )
        index = self._step_index
        phase = self.window.phase_of(index)
        if index < self.window.first_active_step:
            self._synchronize()
            elapsed_ms = (time.perf_counter() - self._step_started) * 1000.0
            self._startup_steps.append(
                {"step": index, "phase": phase, "ms": elapsed_ms}
            )
        self._completed_steps.add(index)
        if self.progress and index < self.total_steps:
            self._print(f"step {index + 1}/{self.total_steps} ({phase})")
        if self._profiler is not None:
            with self._native_log.catching():
                self._profiler.step()
        self._step_index = index + 1
        self._step_started = time.perf_counter()
        if self._step_index >= self.total_steps:
            self._close_profiler()
        else:
            self._after_step_began()

    def close(self, error: BaseException | None = None) -> None:
        """Stop the profiler; a window cut short is still written, with a warning.

        Raises CaptureIncompleteError when no active step was reached (and no
        exception is already on its way).
        """
        if self._state != "running":
            return
        if error is not None:
            self._ended_by = type(error).__name__
        try:
            self._close_profiler()
        finally:
            self._state = "closed"
        if error is not None:
            return
        if not self.outputs:
            raise CaptureIncompleteError(
                f"the capture ended after {self._step_index} step(s), before its window was recorded: "
                f"it needs {self.total_steps} steps ({self.window}); call cap.step() once at the end of every step"
            )
        if len(self.outputs) < self.window.repeat:
            self._print(
                f"warning: only {len(self.outputs)} of {self.window.repeat} cycles were recorded "
                f"({self._step_index} of {self.total_steps} steps ran)"
            )

    def _synchronize(self) -> None:
        """Wait for the device at a step boundary, so a plain clock times the work the step launched."""
        if self.device.type == "cuda" and torch.cuda.is_available():
            torch.cuda.synchronize(self.device)

    def _refresh_group(self) -> None:
        """Remember the process group while it exists (a script may destroy it before the end)."""
        if self.rank is not None:
            self._group = distributed.process_group_info() or self._group

    def _distributed(self) -> dict[str, Any] | None:
        """The `distributed` object of the description: None for a single-process capture."""
        if self.rank is None:
            return None
        self._refresh_group()
        group = self._group
        return {
            "world_size": group["world_size"]
            if group is not None
            else distributed.environment_world_size(),
            "rank": self.rank,
            "backend": group["backend"] if group is not None else None,
            "launcher": self.launcher,
        }

    def _close_profiler(self) -> None:
        profiler, self._profiler = self._profiler, None
        if profiler is not None:
            with self._native_log.catching():
                profiler.__exit__(None, None, None)  # type: ignore[no-untyped-call]

    def _after_step_began(self) -> None:
        """At the first active step of a cycle, put the description into the trace being recorded."""
        index = self._step_index
        if self._profiler is None or self.window.phase_of(index) != "active":
            return
        cycle = self.window.cycle_of(index)
        if index == self.window.active_steps(cycle)[0]:
            self._profiler.add_metadata_json(
                METADATA_KEY, json.dumps(self._describe(cycle, None))
            )

    # -- export ----------------------------------------------------------

    def _on_trace_ready(self, profiler: torch.profiler.profile) -> None:
        """Export the cycle just recorded to a temporary file, then publish it without clobbering."""
        cycle = self.window.cycle_of(self._step_index)
        if not self._completed_steps.intersection(self.window.active_steps(cycle)):
            return  # not one full active step: nothing worth a file
        final = paths.cycle_path(self.output, cycle)
        export = paths.temporary_sibling(final, "export")
        try:
            profiler.export_chrome_trace(str(export))
            written = self._publish(export, final, cycle)
        finally:
            export.unlink(missing_ok=True)
        self.outputs.append(written)
        if written != final:
            self._print(
                f"warning: {final} appeared while capturing and was left untouched; wrote {written} instead"
            )
        if self.progress:
            self._print(f"wrote {written}")

    def _publish(self, export: Path, final: Path, cycle: int) -> Path:
        """Rewrite only the `steptrace` key with what the file holds, and give the file its name."""
        compress = final.name.endswith(".gz")
        try:
            data = load_trace(export)
        except (orjson.JSONDecodeError, ValueError, OSError) as error:
            # Keep torch's export as it is: its description lacks what was observed.
            self._warn(
                f"the exported trace could not be re-read ({error}); activities observed were not checked"
            )
            raw = export.read_bytes()
            return paths.write_new_file(final, gzip.compress(raw) if compress else raw)
        description = self._describe(cycle, trace_events(data))
        data[METADATA_KEY] = description
        for level, lines in self._native_log.take().items():
            if level not in data:  # what torch's export holds stays as it is
                data[level] = lines
        run = description["distributed"]
        if run is not None and not isinstance(data.get("distributedInfo"), dict):
            # torch writes it only when the process group existed as recording began.
            data["distributedInfo"] = {
                key: run[key] for key in ("backend", "rank", "world_size")
            }
        self.description = description
        return paths.write_new_file(final, dump_trace(data, compress))

    def _describe(
        self, cycle: int, events: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        """The description for one cycle; `events` None means the trace is still being recorded."""
        planned = self.window.active_steps(cycle)
        warnings = list(self.warnings)
        requested = ["cpu", "cuda"] if self.device.type == "cuda" else ["cpu"]
        observed: list[str] = []
        gpu_missing_reason: str | None = None
        active_steps = planned
        if events is not None:
            observed = observed_activities(events)
            present = recorded_steps(events)
            active_steps = [
                step
                for step in present
                if step in planned and step in self._completed_steps
            ]
            for step in present:
                if step in planned and step not in self._completed_steps:
                    warnings.append(
                        f"ProfilerStep#{step} was cut short when the capture ended: it is not a full step"
                    )
            if len(active_steps) < len(planned):
                warnings.append(
                    f"window incomplete: {len(active_steps)} of {len(planned)} active steps recorded"
                )
            if self._ended_by is not None:
                warnings.append(
                    f"the capture ended early with an exception ({self._ended_by})"
                )
            if "cuda" not in observed:
                if "cuda" in requested:
                    gpu_missing_reason = GPU_NOT_OBSERVED
                    warnings.append(GPU_NOT_OBSERVED)
                    self._print(f"warning: {GPU_NOT_OBSERVED}")
                else:
                    gpu_missing_reason = GPU_NOT_REQUESTED
        return {
            "schema": SCHEMA_VERSION,
            "created_utc": self._created_utc,
            "question": self.question,
            "kind": self.kind,
            "step_contents": list(self.step_contents),
            "scenario": self.scenario.to_dict(),
            "window": self.window.to_dict(),
            "active_steps": active_steps,
            "options": dict(self.options),
            "unit": {"name": self.unit, "samples_per_step": self.samples_per_step},
            "zones": {
                "data": self.data_zone,
                "declared": zones_in_order(self._declared, list(self._zones_used)),
            },
            "activities": {
                "requested": requested,
                "observed": observed,
                "gpu_missing_reason": gpu_missing_reason,
            },
            "environment": dict(self._environment),
            "startup": {
                "before_first_step_ms": self._before_first_step_ms,
                "steps": list(self._startup_steps),
            },
            "command": list(self.command),
            "warnings": warnings,
            "distributed": self._distributed(),
        }


# The documented spelling: `with collector.capture(...) as cap:`.
capture = Capture
