"""Zero-code capture under torchrun: `python -m collector.torchrun ZEROCODE_OPTIONS -- TORCHRUN_ARGS`.

Runs torchrun itself (`torch.distributed.run`) with the user's arguments,
parsed by torchrun's own parser, except that every worker starts as
`python -u -m collector.zerocode ZEROCODE_OPTIONS -- SCRIPT ARGS` instead of
`python -u SCRIPT ARGS`: each rank then counts steps by its optimizer steps
and writes its own `rank-N.pt.trace.json`. torchrun's output, errors and exit
status are its own. Started by `collector.launch`, not by hand.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collector import TORCH_MISSING

_REFUSED_MODES = (
    ("no_python", "--no-python"),
    ("run_path", "--run-path"),
)


def _say(message: str) -> None:
    print(f"steptrace: {message}", file=sys.stderr, flush=True)


def split_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """ZEROCODE_OPTIONS and TORCHRUN_ARGS, split at the first `--`."""
    words = list(argv)
    if "--" not in words:
        raise ValueError("expected ZEROCODE_OPTIONS -- TORCHRUN_ARGS")
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]


def worker_arguments(parsed: Any, zero_code_options: Sequence[str]) -> str | None:
    """Make torchrun start each worker under collector.zerocode; the reason when it cannot.

    `parsed` is torchrun's argparse namespace; it is changed in place.
    """
    for attribute, flag in _REFUSED_MODES:
        if getattr(parsed, attribute, False):
            return (
                f"torchrun {flag} does not start a Python interpreter per worker, so the capture "
                f"cannot enter it; run the script without {flag}"
            )
    if not parsed.module and not Path(parsed.training_script).is_file():
        return f"script {parsed.training_script} not found"
    script = (
        ["-m", parsed.training_script] if parsed.module else [parsed.training_script]
    )
    parsed.module = True
    parsed.training_script = "collector.zerocode"
    parsed.training_script_args = [
        *zero_code_options,
        "--",
        *script,
        *parsed.training_script_args,
    ]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Parse torchrun's arguments, point its workers at the zero-code capture, and run it."""
    options, torchrun_args = split_arguments(sys.argv[1:] if argv is None else argv)
    try:
        from torch.distributed import run as torchrun
    except ImportError as error:
        _say(
            f"torch.distributed.run is not importable in {sys.executable} ({error}): {TORCH_MISSING}"
        )
        return 2
    parsed = torchrun.parse_args(torchrun_args)  # type: ignore[no-untyped-call]
    problem = worker_arguments(parsed, options)
    if problem is not None:
        _say(problem)
        return 2
    launch(torchrun, parsed)
    return 0


def launch(torchrun: Any, parsed: Any) -> None:
    """torchrun's `main`, after its parsing: a failed worker raises as it does under torchrun."""
    from torch.distributed.elastic.multiprocessing.errors import record

    record(torchrun.run)(parsed)


if __name__ == "__main__":
    sys.exit(main())
