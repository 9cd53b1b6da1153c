"""Peak memory of a command and its processes: the one sampler of every benchmark.

A process's memory is its proportional set size (PSS: a page shared by
several processes, as forked workers share theirs, counts once, split
between them), or its resident size where the kernel gives no PSS. A
sampler thread adds it up over a set of processes (a process tree, or a
process group) every 20 ms and keeps the peak.

Run as ``python -m benchmarks.rss SPEC``, it measures one command in a fresh
process, so that ``getrusage(RUSAGE_CHILDREN)`` counts that command only:
SPEC is the JSON list ``[command, cwd, timeout_s, environment changes]``
(a change to None removes the variable); it prints one JSON line with the
exit status, wall and CPU seconds, the peak bytes (the larger of the sampled
tree peak and the biggest single process's exact ``ru_maxrss``) and the tails
of the command's output.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any

SAMPLE_S = 0.02


def process_bytes(pid: int) -> int:
    """PSS of one process (its RSS where there is no PSS); 0 once it is gone."""
    for name, field in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            with open(f"/proc/{pid}/{name}", encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(field):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
    return 0


def tree_pids(root: int) -> list[int]:
    """`root` and its live descendants."""
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children", encoding="utf-8") as handle:
                todo += [int(child) for child in handle.read().split()]
        except OSError:
            pass
    return pids


def group_pids(group: int) -> list[int]:
    """The live processes of a process group (orphaned grandchildren included)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group:
            found.append(int(entry))
    return found


class PeakSampler:
    """In a `with` block, the peak of the memory summed over `pids()`, sampled in a thread."""

    def __init__(
        self, pids: Callable[[], Iterable[int]], interval_s: float = SAMPLE_S
    ) -> None:
        self.pids = pids
        self.interval_s = interval_s
        self.peak_bytes = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            total = sum(process_bytes(pid) for pid in self.pids())
            self.peak_bytes = max(self.peak_bytes, total)
            if self._done.wait(self.interval_s):
                return

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()


def measure(
    command: Sequence[str],
    cwd: str,
    timeout_s: float,
    changes: dict[str, str | None],
) -> dict[str, Any]:
    """Run `command` once: exit status, wall, CPU, peak memory of its tree, output tails."""
    environment = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    began = time.perf_counter()
    child = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    rc: int | str
    with PeakSampler(lambda: tree_pids(child.pid)) as sampler:
        try:
            out, err = child.communicate(timeout=timeout_s)
            rc = child.returncode
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
            rc = "timeout"
        wall = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes vs KiB
    return {
        "rc": rc,
        "wall_s": wall,
        "peak_bytes": max(sampler.peak_bytes, usage.ru_maxrss * scale),
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "stdout_tail": out[-4000:].decode("utf-8", "replace"),
        "stderr_tail": err[-4000:].decode("utf-8", "replace"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the command of the JSON spec in `argv` and print its figures as JSON."""
    parser = argparse.ArgumentParser(
        description="Measure one command: wall, CPU and peak memory of its tree."
    )
    parser.add_argument(
        "spec", help="JSON: [command, cwd, timeout_s, {variable: value or null}]"
    )
    command, cwd, timeout_s, changes = json.loads(parser.parse_args(argv).spec)
    print(json.dumps(measure(command, cwd, timeout_s, changes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
