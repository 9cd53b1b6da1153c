"""Run benchmark: `steptrace ranks DIR` on a folder of generated ranks, cold and from the column cache.

Generates (once, with tests.support.tracegen.ranks) `--ranks` traces of `--size-mb` MB of JSON
each under `bench-out/ranks/`, then times `python -m tui ranks DIR --json`
in a fresh process:

* **cold**: an empty private column cache, so every rank is read, decoded
  and modelled (and, being over 64 MB, written to the cache);
* **columns**: again with the rank summaries deleted, every rank reopened
  from the column cache and summarised (what a new steptrace version costs);
* **cached**: the same command again, every rank's summary reused.

Peak memory is the largest sum of the proportional set sizes (PSS,
`benchmarks.rss`) of the command's whole process tree (parent and workers),
sampled every 20 ms. Then the
figures are turned into how far one machine goes: ranks of this size read
within a minute, and workers that fit in 24 GiB. Delete the folder with
`--clean` when done (disk is limited).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.rss import PeakSampler, group_pids
from tests.support.tracegen.ranks import generate_run

ROOT = Path(__file__).resolve().parent.parent
MACHINE_BYTES = 24 * 2**30
MINUTE_S = 60.0


def timed(command: list[str], environment: dict[str, str]) -> tuple[float, int, str]:
    """(wall seconds, peak bytes of its process group, stdout) of a command in its own session."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        child = subprocess.Popen(
            command,
            stdout=out,
            stderr=err,
            env=environment,
            start_new_session=True,
            cwd=ROOT,
        )
        with PeakSampler(lambda: group_pids(child.pid)) as tree:
            child.wait()
            wall = time.monotonic() - started
        peak = tree.peak_bytes
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(
                f"{' '.join(command)} failed: {err.read().decode()[-2000:]}"
            )
        return wall, peak, out.read().decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--size-mb", type=float, default=140)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "bench-out" / "ranks"))
    parser.add_argument("--clean", action="store_true", help="delete the run when done")
    args = parser.parse_args()
    out = Path(args.out)
    name = f"run-{args.ranks}x{args.size_mb:g}mb" + ("-gz" if args.gzip else "")
    folder = out / name
    if not any(folder.glob("rank-*")):
        started = time.monotonic()
        generate_run(
            folder,
            args.ranks,
            size_bytes=int(args.size_mb * 1e6),
            gzip_output=args.gzip,
        )
        print(
            f"generated {folder} in {time.monotonic() - started:.0f} s", file=sys.stderr
        )
    cache = out / f"cache-{name}"
    shutil.rmtree(cache, ignore_errors=True)
    environment = {
        **os.environ,
        "STEPTRACE_CACHE_DIR": str(cache),
        "PYTHONPATH": str(ROOT),
    }
    environment.pop("STEPTRACE_NO_CACHE", None)
    command = [sys.executable, "-m", "tui", "ranks", str(folder), "--json"]
    if args.workers is not None:
        command += ["--workers", str(args.workers)]
    rows = []
    for label in ("cold", "columns", "cached"):
        if label == "columns":
            # Column cache only: what a changed steptrace (new figures) costs.
            shutil.rmtree(cache / "rank-summaries", ignore_errors=True)
        wall, peak, stdout = timed(command, environment)
        result = json.loads(stdout)
        rows.append((label, wall, peak, len(result["ranks"]), len(result["steps"])))
    json_mb = sum(path.stat().st_size for path in folder.glob("rank-*")) / 1e6
    cores = len(os.sched_getaffinity(0))
    print(f"\n{args.ranks} ranks, {json_mb:.0f} MB of trace files, {cores} cores")
    print(f"{'':8} {'wall':>8} {'peak PSS':>10} {'ranks':>6} {'steps':>6}")
    for label, wall, peak, ranks, steps in rows:
        print(f"{label:8} {wall:7.1f}s {peak / 2**20:8.0f} MiB {ranks:6} {steps:6}")
    cold, cached = rows[0][1], rows[2][1]
    per_rank_cold = cold / args.ranks
    per_rank_cached = cached / args.ranks
    workers = min(args.workers or cores, args.ranks)
    per_worker = rows[0][2] / max(workers, 1)
    print(
        f"\nthis machine, ranks of {args.size_mb:g} MB: about "
        f"{int(MINUTE_S / per_rank_cold)} ranks a minute cold, "
        f"{int(MINUTE_S / per_rank_cached)} from the cache; "
        f"memory stays that of {workers} ranks in flight "
        f"(~{per_worker / 2**20:.0f} MiB each): {int(0.8 * MACHINE_BYTES // per_worker)} "
        "workers would fit in 24 GiB"
    )
    if args.clean:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
