"""Starting a zero-code capture: `steptrace capture -o PATH -- python train.py ARGS`.

Torch-free: this runs in the parent (the CLI or the app). The script itself
runs in a child interpreter, `python -m collector.zerocode … -- train.py ARGS`,
so it gets a clean interpreter and the sys.argv it expects; its output and
exit status pass through. The child prints `steptrace: step 3/4 (active)`
lines on stderr for a parent that shows progress.

Under torchrun (`-- torchrun ARGS` or `-- python -m torch.distributed.run
ARGS`) the child is `python -m collector.torchrun … -- ARGS`: torchrun itself,
told to start every worker as `python -m collector.zerocode --run-dir DIR …
-- train.py ARGS`, so each rank writes `DIR/rank-N.pt.trace.json`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from collector import distributed, paths
from collector.errors import InvalidSettingError
from collector.schema import DATA_ZONE, Scenario, Window

DEFAULT_QUESTION = "where does the time of one training step go?"
# Exit status when the script succeeded but no trace could be written
# (no optimizer step, or fewer steps than the window needs).
NO_TRACE_STATUS = 3
_PYTHON_NAME = re.compile(r"^python[0-9.]*(\.exe)?$", re.IGNORECASE)
_FLAGS_WITHOUT_VALUE = frozenset(
    {"-u", "-O", "-OO", "-B", "-E", "-s", "-S", "-I", "-P", "-b", "-bb", "-q", "-v"}
)
_FLAGS_WITH_VALUE = frozenset({"-W", "-X"})
_USAGE = "steptrace capture -o trace.json -- python train.py ARGS"
TORCHRUN = "torchrun"
TORCHRUN_MODULE = "torch.distributed.run"
# pip's console-script form for long interpreter paths: '''exec' "/path/python" "$0" "$@"
_SH_EXEC = re.compile(r"^'''exec' \"([^\"]+)\"")


@dataclass
class ScriptCommand:
    """The user's command, split into interpreter, interpreter flags and target."""

    interpreter: str
    interpreter_flags: list[str]
    target: list[str]  # ["train.py", ARGS…] or ["-m", "package.module", ARGS…]
    original: list[str] = field(default_factory=list)
    # "torchrun" when the target is torchrun's own arguments (its options, then the script).
    launcher: str | None = None
    # The interpreter the command named, when steptrace's own runs the script instead.
    replaced: str | None = None


def _shebang_interpreter(script: Path) -> str | None:
    """The interpreter a console script such as torchrun runs with, from its first lines."""
    try:
        with open(script, encoding="utf-8", errors="replace") as stream:
            first, second = stream.readline(), stream.readline()
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if not words:
        return None
    program = os.path.basename(words[0])
    if program == "env":
        names = [word for word in words[1:] if not word.startswith("-")]
        return shutil.which(names[0]) if names else None
    if program == "sh":
        match = _SH_EXEC.match(second)
        return match.group(1) if match else None
    return words[0]


def _torchrun_command(words: list[str]) -> ScriptCommand:
    """`torchrun ARGS`: torchrun's module, run by the interpreter its console script names."""
    if len(words) < 2:
        raise InvalidSettingError(
            "torchrun needs its options and a script: -- torchrun --nproc-per-node 2 train.py ARGS"
        )
    found = shutil.which(words[0])
    if found is None:
        sibling = Path(sys.executable).parent / os.path.basename(words[0])
        found = str(sibling) if sibling.is_file() else None
    if found is None:
        raise InvalidSettingError(
            f"{words[0]} not found; give its path, or use -- python -m {TORCHRUN_MODULE} ARGS"
        )
    interpreter = _shebang_interpreter(Path(found)) or sys.executable
    return ScriptCommand(interpreter, [], words[1:], words, TORCHRUN)


def split_script_command(command: Sequence[str]) -> ScriptCommand:
    """Read `python [FLAGS] SCRIPT ARGS`, `python [FLAGS] -m MODULE ARGS` or `SCRIPT.py ARGS`."""
    words = list(command)
    if not words:
        raise InvalidSettingError(f"no command to run: {_USAGE}")
    first = words[0]
    if first.endswith(".py"):
        return ScriptCommand(sys.executable, [], words, words)
    if os.path.basename(first) == TORCHRUN:
        return _torchrun_command(words)
    if not _PYTHON_NAME.match(os.path.basename(first)):
        raise InvalidSettingError(
            f"the command must start with a Python interpreter or torchrun ({first!r} does not): {_USAGE}"
        )
    interpreter = shutil.which(first) or first
    flags: list[str] = []
    index = 1
    while index < len(words) and words[index].startswith("-") and words[index] != "-m":
        word = words[index]
        if word in _FLAGS_WITHOUT_VALUE:
            flags.append(word)
            index += 1
        elif word in _FLAGS_WITH_VALUE and index + 1 < len(words):
            flags += [word, words[index + 1]]
            index += 2
        elif word[:2] in _FLAGS_WITH_VALUE and len(word) > 2:
            flags.append(word)
            index += 1
        else:
            raise InvalidSettingError(
                f"python option {word!r} is not supported under steptrace capture; run a script or -m MODULE"
            )
    target = words[index:]
    if not target:
        raise InvalidSettingError(f"no script to run after {first!r}: {_USAGE}")
    if target[0] == "-m" and len(target) < 2:
        raise InvalidSettingError("-m needs a module name")
    if target[:2] == ["-m", TORCHRUN_MODULE]:
        if len(target) < 3:
            raise InvalidSettingError(
                f"{TORCHRUN_MODULE} needs its options and a script: -m {TORCHRUN_MODULE} --nproc-per-node 2 train.py"
            )
        return ScriptCommand(interpreter, flags, target[2:], words, TORCHRUN)
    if target[:2] == ["-m", "torch.distributed.launch"]:
        raise InvalidSettingError(
            "torch.distributed.launch is deprecated and not supported here; use torchrun (same options)"
        )
    if target[0] != "-m" and not Path(target[0]).is_file():
        raise InvalidSettingError(f"script {target[0]} not found")
    if _own_interpreter_instead(first, interpreter):
        return ScriptCommand(sys.executable, flags, target, words, replaced=interpreter)
    return ScriptCommand(interpreter, flags, target, words)


def _own_interpreter_instead(named: str, interpreter: str) -> bool:
    """Whether a bare `python`/`python3` (found on PATH) should be run by steptrace's
    own interpreter: the one on PATH cannot import torch and this one can, as when
    steptrace is run from a virtualenv that is not activated."""
    bare = os.sep not in named and (os.altsep is None or os.altsep not in named)
    # Paths, not files, are compared: a virtualenv's python is a link to the
    # system's, yet another interpreter with other packages.
    if not bare or os.path.abspath(interpreter) == os.path.abspath(sys.executable):
        return False
    import importlib.util

    return importlib.util.find_spec("torch") is not None and not _imports_torch(
        interpreter
    )


_FINDS_TORCH = (
    "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"
)


def _imports_torch(interpreter: str) -> bool:
    """Whether `interpreter` finds torch (looked up, not imported: quick)."""
    try:
        completed = subprocess.run(
            [interpreter, "-c", _FINDS_TORCH],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return completed.returncode == 0


def _same_interpreter(interpreter: str) -> bool:
    try:
        return os.path.samefile(interpreter, sys.executable)
    except OSError:
        return False


@dataclass
class ZeroCodeSettings:
    """What the child needs besides the script; mirrors the capture API's settings."""

    output: Path
    window: Window = field(default_factory=Window)
    question: str = DEFAULT_QUESTION
    device: str = "auto"
    data_zone: str = DATA_ZONE
    scenario_pairs: list[str] = field(default_factory=list)
    record_shapes: bool = False
    with_stack: bool = False
    profile_memory: bool = False
    include_host_name: bool = False
    # Under torchrun `output` is the run folder, and every rank writes rank-N.pt.trace.json in it.
    per_rank: bool = False


def prepare(
    command: Sequence[str],
    output: str | os.PathLike[str] | None,
    *,
    window: Window | None = None,
    question: str | None = None,
    device: str = "auto",
    data_zone: str = DATA_ZONE,
    scenario_pairs: Sequence[str] = (),
    record_shapes: bool = False,
    with_stack: bool = False,
    profile_memory: bool = False,
    include_host_name: bool = False,
) -> tuple[ScriptCommand, ZeroCodeSettings]:
    """Check everything the parent can check before anything runs; nothing is created yet.

    Under torchrun the output names the run folder: it is refused when it
    already holds a rank trace, since no rank may overwrite one.
    """
    window = window if window is not None else Window()
    if device not in ("auto", "cpu", "cuda"):
        raise InvalidSettingError(f"device must be auto, cpu or cuda, got {device!r}")
    Scenario.from_pairs(scenario_pairs)
    if question is not None and not question.strip():
        raise InvalidSettingError(
            "the question is empty: say what the capture should answer"
        )
    script = split_script_command(command)
    per_rank = script.launcher == TORCHRUN
    if per_rank:
        path = distributed.check_run_folder(output).resolve()
    else:
        path = paths.resolve_output(output, "trace", cycles=window.repeat).resolve()
    settings = ZeroCodeSettings(
        output=path,
        window=window,
        question=question or DEFAULT_QUESTION,
        device=device,
        data_zone=data_zone,
        scenario_pairs=list(scenario_pairs),
        record_shapes=record_shapes,
        with_stack=with_stack,
        profile_memory=profile_memory,
        include_host_name=include_host_name,
        per_rank=per_rank,
    )
    return script, settings


def zero_code_options(script: ScriptCommand, settings: ZeroCodeSettings) -> list[str]:
    """The options of `python -m collector.zerocode`, before its `-- TARGET`."""
    window = settings.window
    argv = [
        "--run-dir" if settings.per_rank else "--output",
        str(settings.output),
        "--window",
        f"{window.wait},{window.warmup},{window.active},{window.repeat},{window.skip_first}",
        "--question",
        settings.question,
        "--device",
        settings.device,
        "--data-zone",
        settings.data_zone,
        "--command-json",
        json.dumps(script.original),
    ]
    for pair in settings.scenario_pairs:
        argv += ["--scenario", pair]
    for flag, enabled in (
        ("--record-shapes", settings.record_shapes),
        ("--with-stack", settings.with_stack),
        ("--profile-memory", settings.profile_memory),
        ("--host-name", settings.include_host_name),
    ):
        if enabled:
            argv.append(flag)
    if script.launcher is not None:
        argv += ["--launcher", script.launcher]
    return argv


def child_argv(script: ScriptCommand, settings: ZeroCodeSettings) -> list[str]:
    """The child's command line: `python -m collector.zerocode OPTIONS -- TARGET`.

    Under torchrun, `python -m collector.torchrun ZEROCODE_OPTIONS -- TORCHRUN_ARGS`.
    """
    module = (
        "collector.torchrun" if script.launcher == TORCHRUN else "collector.zerocode"
    )
    return [
        script.interpreter,
        *script.interpreter_flags,
        "-m",
        module,
        *zero_code_options(script, settings),
        "--",
        *script.target,
    ]


def child_environment(
    script: ScriptCommand, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: another interpreter is told where `collector` lives."""
    environment = dict(distributed.process_environment() if base is None else base)
    if not _same_interpreter(script.interpreter):
        source_root = str(Path(__file__).resolve().parent.parent)
        existing = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = source_root + (
            os.pathsep + existing if existing else ""
        )
    return environment


def run_zero_code(script: ScriptCommand, settings: ZeroCodeSettings) -> int:
    """Run the script under the profiler in a child interpreter; returns its exit status.

    Under torchrun the run folder is made by the ranks, so a job refused
    before its workers start leaves nothing behind.
    """
    completed = subprocess.run(
        child_argv(script, settings), env=child_environment(script), check=False
    )
    return completed.returncode


def written_output(settings: ZeroCodeSettings) -> Path | None:
    """What the capture left to open: the trace, or the run folder once it holds a rank trace."""
    if settings.per_rank:
        return (
            settings.output
            if distributed.existing_rank_files(settings.output)
            else None
        )
    return settings.output if settings.output.exists() else None
