"""Cluster benchmark: `steptrace ranks DIR` through the local pool and through a local Dask cluster.

Generates (once, with tests.support.tracegen.ranks) `--ranks` traces of `--size-mb` MB of JSON
each under `bench-out/cluster/`, starts a Dask cluster of `--workers`
single-threaded worker processes on 127.0.0.1 (the scheduler in this
process, as a cluster's would be on another node), then times, each in a
fresh process and with no cache (STEPTRACE_NO_CACHE=1, every rank read),
`--repeat` times each, alternated, the fastest kept:

* **local**: `python -m tui ranks DIR --json --workers N`, the process pool;
* **cluster**: `python -m tui ranks DIR --json --cluster ADDRESS`.

For each: the wall time, the peak memory (PSS, `benchmarks.rss`) of the steptrace process
tree (the pool's workers are in it; the cluster's are not) and of the Dask
workers (sampled every 20 ms), and whether both JSON results are identical.
Then the cost per rank, in worker-seconds, and what a 1,024-rank run of
this size would take on nodes of `--node-workers` workers. Needs the
cluster extra; delete the run with `--clean` when done (disk is limited).

    .venv/bin/python -m benchmarks.bench_cluster --ranks 64 --size-mb 40
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
from collections.abc import Callable
from pathlib import Path

from benchmarks.rss import PeakSampler, group_pids
from tests.support.tracegen.ranks import generate_run

ROOT = Path(__file__).resolve().parent.parent
RUN_RANKS = 1024


def timed(
    command: list[str], environment: dict[str, str], others: Callable[[], list[int]]
) -> tuple[float, int, int, str]:
    """(wall s, peak memory of the command's group, peak summed over `others`, stdout)."""
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
        with (
            PeakSampler(lambda: group_pids(child.pid)) as tree,
            PeakSampler(others) as workers,
        ):
            child.wait()
            wall = time.monotonic() - started
        peak, peak_others = tree.peak_bytes, workers.peak_bytes
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(
                f"{' '.join(command)} failed: {err.read().decode()[-2000:]}"
            )
        return wall, peak, peak_others, out.read().decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--size-mb", type=float, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--node-workers",
        type=int,
        default=32,
        help="worker processes per node in the 1,024-rank estimate",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each way, alternated"
    )
    parser.add_argument("--out", default=str(ROOT / "bench-out" / "cluster"))
    parser.add_argument("--clean", action="store_true", help="delete the run when done")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    folder = Path(args.out) / f"run-{args.ranks}x{args.size_mb:g}mb"
    if not any(folder.glob("rank-*")):
        started = time.monotonic()
        generate_run(folder, args.ranks, size_bytes=int(args.size_mb * 1e6), quiet=True)
        print(
            f"generated {folder} in {time.monotonic() - started:.0f} s", file=sys.stderr
        )
    environment = {**os.environ, "STEPTRACE_NO_CACHE": "1", "PYTHONPATH": str(ROOT)}
    environment.pop("STEPTRACE_CLUSTER", None)
    os.environ.update(STEPTRACE_NO_CACHE="1")  # the workers inherit it
    command = [sys.executable, "-m", "tui", "ranks", str(folder), "--json"]
    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
    )
    try:
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            worker_pids = list(client.run(os.getpid).values())
        ways = {
            "local": ["--workers", str(args.workers)],
            "cluster": ["--cluster", cluster.scheduler_address],
        }
        rows: dict[str, tuple[float, int, int, str]] = {}
        walls: dict[str, list[float]] = {label: [] for label in ways}
        # Alternated (local, cluster, cluster, local, …): other work on the
        # machine weighs on both alike; the fastest of each is kept.
        for turn in range(args.repeat):
            order = list(ways) if turn % 2 == 0 else list(reversed(ways))
            for label in order:
                row = timed(command + ways[label], environment, lambda: worker_pids)
                walls[label].append(row[0])
                if label not in rows or row[0] < rows[label][0]:
                    rows[label] = row
    finally:
        cluster.close(timeout=30)
    results = {label: json.loads(row[3]) for label, row in rows.items()}
    json_mb = sum(path.stat().st_size for path in folder.glob("rank-*")) / 1e6
    cores = len(os.sched_getaffinity(0))
    print(
        f"\n{args.ranks} ranks, {json_mb:.0f} MB of trace files, {cores} cores, "
        f"{args.workers} workers each way"
    )
    print(f"{'':8} {'wall':>8} {'steptrace':>12} {'dask workers':>14} {'ranks':>6}")
    for label, (wall, peak, peak_workers, _) in rows.items():
        workers = f"{peak_workers / 2**20:9.0f} MiB" if label == "cluster" else "–"
        print(
            f"{label:8} {wall:7.1f}s {peak / 2**20:8.0f} MiB {workers:>14} "
            f"{len(results[label]['ranks']):6}"
        )
    if args.repeat > 1:
        for label, seconds in walls.items():
            print(f"{label} walls: " + ", ".join(f"{value:.1f}s" for value in seconds))
    identical = results["local"] == results["cluster"]
    print(f"identical JSON: {'yes' if identical else 'NO'}")
    per_rank = rows["cluster"][0] * args.workers / args.ranks
    print(
        f"\ncost per rank of {args.size_mb:g} MB on the cluster: "
        f"{per_rank:.2f} worker-seconds; a {RUN_RANKS}-rank run on nodes of "
        f"{args.node_workers} workers:"
    )
    for nodes in (1, 4, 16, 64):
        slots = nodes * args.node_workers
        print(f"  {nodes:3} node(s): {RUN_RANKS * per_rank / slots:7.0f} s")
    if args.clean:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
