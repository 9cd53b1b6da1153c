"""Zero-code capture, child side: `python -m collector.zerocode OPTIONS -- train.py ARGS`.

Runs an unmodified training script under the profiler. A step ends at every
optimizer step (torch's global optimizer step hooks); DataLoader reads are
wrapped in the data zone. The script's output and exit status pass through.
Started by `collector.launch` (the CLI or the app), not by hand; under
torchrun, `--run-dir DIR` makes each worker write `DIR/rank-N.pt.trace.json`
(its rank from torchrun's `RANK`).

Where a step ends: the global post hook fires inside torch's
`Optimizer.step#…` range, so advancing the profiler there would cut that range
across two steps. The hook only marks the step done; the profiler advances
right after the optimizer's step returns (torch's step wrapper is extended for
that), or failing that at the next DataLoader read, or when the script ends.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import runpy
import sys
import time
import traceback
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from collector import TORCH_MISSING, distributed
from collector.errors import CaptureIncompleteError, CollectorError
from collector.launch import DEFAULT_QUESTION, NO_TRACE_STATUS
from collector.schema import DATA_ZONE, Scenario, Window

if TYPE_CHECKING:
    import torch

    from collector.capture_api import Capture

INFERENCE_HINT = (
    "for an inference loop (or any loop without an optimizer), use the API: "
    "`with collector.capture(PATH, question=...) as cap:` and call `cap.step()` at the end of every step"
)


def _say(message: str) -> None:
    print(f"steptrace: {message}", file=sys.stderr, flush=True)


def _rank_prefix(run_dir: str | None) -> str:
    """`rank N: ` for a worker's messages under torchrun, where every rank speaks."""
    if run_dir is None:
        return ""
    rank = distributed.process_environment().get("RANK")
    return f"rank {rank}: " if rank is not None else ""


class StepTracker:
    """Turns optimizer steps into profiler steps and DataLoader reads into data zones.

    The capture starts at the first DataLoader read or the first optimizer
    step, whichever comes first: the time before is start-up. Only the first
    optimizer that steps counts steps, so a loop with two optimizers still
    counts one step per iteration.
    """

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self.optimizer_steps = 0
        self.failure: str | None = None
        self._primary: weakref.ReferenceType[Any] | None = None
        self._other_optimizers = False
        self._pending = False
        self._started = False
        self._undo: list[Callable[[], None]] = []

    # -- installing ------------------------------------------------------

    def install(self) -> None:
        """Register the global optimizer hook and wrap DataLoader reads and optimizer steps."""
        import torch
        from torch.optim.optimizer import register_optimizer_step_post_hook
        from torch.utils.data.dataloader import _BaseDataLoaderIter

        handle = register_optimizer_step_post_hook(self._after_optimizer_step)
        self._undo.append(handle.remove)

        tracker = self
        original_factory = torch.optim.Optimizer.profile_hook_step

        def profile_hook_step(func: Callable[..., Any]) -> Callable[..., Any]:
            hooked = original_factory(func)

            @functools.wraps(hooked)
            def step_then_advance(*args: Any, **kwargs: Any) -> Any:
                try:
                    return hooked(*args, **kwargs)
                finally:
                    tracker.advance_if_pending()

            return step_then_advance

        torch.optim.Optimizer.profile_hook_step = staticmethod(profile_hook_step)  # type: ignore[method-assign]
        self._undo.append(
            lambda: setattr(
                torch.optim.Optimizer,
                "profile_hook_step",
                staticmethod(original_factory),
            )
        )

        original_next = _BaseDataLoaderIter.__next__

        def next_in_data_zone(iterator: Any) -> Any:
            tracker.before_data_read()
            with tracker.data_zone():
                return original_next(iterator)

        _BaseDataLoaderIter.__next__ = next_in_data_zone  # type: ignore[method-assign,assignment]
        self._undo.append(
            lambda: setattr(_BaseDataLoaderIter, "__next__", original_next)
        )

    def uninstall(self) -> None:
        """Put torch back as it was."""
        while self._undo:
            self._undo.pop()()

    # -- events from the script -----------------------------------------

    def _after_optimizer_step(self, optimizer: Any, _args: Any, _kwargs: Any) -> None:
        if self._primary is None:
            self._primary = weakref.ref(optimizer)
        elif self._primary() is not optimizer:
            self._other_optimizers = True
            return
        if self.optimizer_steps == 0:
            self._check_device(optimizer)
        self.optimizer_steps += 1
        self._pending = True

    def _check_device(self, optimizer: Any) -> None:
        """Say so when the parameters are not where the capture looks for work."""
        try:
            device_types = {
                p.device.type
                for group in optimizer.param_groups
                for p in group["params"]
            }
        except (AttributeError, KeyError, TypeError):
            return
        expected = self.capture.device.type
        if device_types and expected not in device_types:
            found = ", ".join(sorted(device_types))
            self.capture.add_warning(
                f"the optimizer's parameters are on {found} but the capture was set for {expected}; "
                "pass --device to match"
            )

    def _guarded(self, action: Callable[[], None]) -> None:
        """Run a capture action; a failure stops the capture, never the script."""
        if self.failure is not None:
            return
        try:
            action()
        except Exception as error:
            self.failure = f"{type(error).__name__}: {error}"
            self.capture.say(
                f"the capture stopped ({self.failure}); the script goes on without it"
            )
            with contextlib.suppress(Exception):
                self.capture.close(error)

    def _start(self) -> None:
        self._started = True
        self.capture.start()

    def advance_if_pending(self) -> None:
        """End the current step if an optimizer step completed it."""
        if not self._pending:
            return
        self._pending = False

        def advance() -> None:
            if not self._started:
                self._start()
            else:
                self.capture.step()

        self._guarded(advance)

    def before_data_read(self) -> None:
        """A DataLoader read begins: close a pending step, and start the capture at the first read."""
        self.advance_if_pending()
        if not self._started:
            self._guarded(self._start)

    def data_zone(self) -> contextlib.AbstractContextManager[Any]:
        """The data zone around a read while the window is still to be recorded."""
        capture = self.capture
        if (
            self.failure is None
            and self._started
            and capture.phase != "after"
            and not capture.finished
        ):
            return capture.zone(capture.data_zone)
        return contextlib.nullcontext()

    # -- the end ---------------------------------------------------------

    def finish(self, script_status: int) -> int:
        """Close the capture after the script; the exit status the user sees."""
        self.advance_if_pending()
        if self._other_optimizers:
            self.capture.say(
                "note: more than one optimizer stepped; steps follow the first one that did"
            )
        if self.failure is not None:
            return script_status or NO_TRACE_STATUS
        if self.optimizer_steps == 0:
            if self._started:
                with contextlib.suppress(CollectorError):
                    self.capture.close()
            self.capture.say(
                "the script made no optimizer step, so no step was counted and no trace was written. "
                f"Zero-code capture ends a step at every optimizer.step(); {INFERENCE_HINT}"
            )
            return script_status or NO_TRACE_STATUS
        try:
            self.capture.close()
        except CaptureIncompleteError:
            window = self.capture.window
            self.capture.say(
                f"the script made {self.optimizer_steps} optimizer step(s); the window ({window}) needs "
                f"{window.total_steps} steps after the first read or optimizer step, so no trace was written. "
                "Run more steps, or ask for a smaller window with --window (e.g. 0,1,1)"
            )
            return script_status or NO_TRACE_STATUS
        return script_status


def _exit_status(code: object) -> int:
    """The status Python itself would exit with for SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_script_error(error: BaseException) -> None:
    """The script's traceback, without the frames of this runner."""
    trace: TracebackType | None = error.__traceback__
    own_files = {os.path.abspath(__file__), os.path.abspath(runpy.__file__ or "")}

    def is_runner(filename: str) -> bool:
        return (
            filename.startswith("<frozen runpy")
            or os.path.abspath(filename) in own_files
        )

    while trace is not None and is_runner(trace.tb_frame.f_code.co_filename):
        trace = trace.tb_next
    traceback.print_exception(type(error), error, trace)


def run_target(target: Sequence[str]) -> int:
    """Run `SCRIPT ARGS` or `-m MODULE ARGS` as __main__, like the interpreter would; its exit status."""
    try:
        if target[0] == "-m":
            sys.argv = [target[1], *target[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(target[1], run_name="__main__", alter_sys=True)
        else:
            script = os.path.abspath(target[0])
            sys.argv = [target[0], *target[1:]]
            sys.path[0] = os.path.dirname(script)
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_request:
        return _exit_status(exit_request.code)
    except KeyboardInterrupt as interrupt:
        _print_script_error(interrupt)
        return 130
    except BaseException as error:
        _print_script_error(error)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m collector.zerocode",
        description="Run a training script under the profiler (started by `steptrace capture -- python …`).",
    )
    destination = parser.add_mutually_exclusive_group(required=True)
    destination.add_argument("--output")
    destination.add_argument(
        "--run-dir", help="under torchrun: the run folder, one rank-N file per rank"
    )
    parser.add_argument("--launcher", help="what started the ranks (torchrun)")
    parser.add_argument("--window", default="1,1,2")
    parser.add_argument("--question", default=DEFAULT_QUESTION)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--data-zone", default=DATA_ZONE)
    parser.add_argument("--scenario", action="append", default=[])
    parser.add_argument("--command-json")
    parser.add_argument("--record-shapes", action="store_true")
    parser.add_argument("--with-stack", action="store_true")
    parser.add_argument("--profile-memory", action="store_true")
    parser.add_argument("--host-name", action="store_true")
    parser.add_argument("target", nargs="+")
    return parser


def _device(choice: str, torch_module: Any) -> torch.device:
    if choice == "auto":
        choice = "cuda" if torch_module.cuda.is_available() else "cpu"
    result: torch.device = torch_module.device(choice)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the child interpreter; returns the exit status to pass through."""
    startup_began = time.perf_counter()
    args = _parser().parse_args(argv)
    try:
        import torch
    except ImportError as error:
        _say(
            f"torch is not importable in {sys.executable} ({error}): {TORCH_MISSING}, "
            "or name an interpreter that has torch (-- /path/to/venv/bin/python train.py)"
        )
        return 2
    from collector.capture_api import Capture

    target: list[str] = args.target
    where = _rank_prefix(args.run_dir)
    if target[0] != "-m" and not Path(target[0]).is_file():
        _say(f"{where}script {target[0]} not found")
        return 2
    command = (
        json.loads(args.command_json)
        if args.command_json
        else [sys.executable, *target]
    )
    try:
        rank = distributed.environment_rank() if args.run_dir else None
        if args.run_dir and rank is None:
            _say("--run-dir needs the RANK that torchrun gives every worker")
            return 2
        capture = Capture(
            args.run_dir or args.output,
            question=args.question,
            window=Window.parse(args.window),
            scenario=Scenario.from_pairs(args.scenario),
            kind="train",
            device=_device(args.device, torch),
            data_zone=args.data_zone,
            zones=(args.data_zone,),
            record_shapes=args.record_shapes,
            with_stack=args.with_stack,
            profile_memory=args.profile_memory,
            include_host_name=args.host_name,
            startup_began=startup_began,
            command=command,
            progress=True,
            rank=rank,
            launcher=args.launcher,
        )
    except CollectorError as error:
        _say(f"{where}{error}")
        return 2
    tracker = StepTracker(capture)
    tracker.install()
    try:
        status = run_target(target)
    finally:
        tracker.uninstall()
    return tracker.finish(status)


if __name__ == "__main__":
    sys.exit(main())
