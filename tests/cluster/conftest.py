"""A real Dask cluster on the loopback address for the module that asks: one
scheduler in this process and two worker processes, on free ports, closed at
the module's end (a test elsewhere in the same process counts its children).
Skipped without the cluster extra, except in CI (CI=true), which installs
it: there a missing Dask fails."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """A LocalCluster of 2 single-threaded worker processes on 127.0.0.1."""
    if not os.environ.get("CI"):
        pytest.importorskip("distributed", reason="needs the cluster extra")
    from distributed import LocalCluster

    # Dask's constructor is untyped.
    start: Callable[..., Any] = LocalCluster
    cluster = start(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        scheduler_port=0,
        dashboard_address=None,
        # A worker that dies once reruns its task elsewhere (docs/ranks.md
        # asks the same of a scheduler started by hand).
        # Its HTTP server (health, metrics) on a free port too.
        scheduler_kwargs={"allowed_failures": 1, "dashboard_address": ":0"},
    )
    try:
        yield cluster
    finally:
        cluster.close(timeout=20)
        # The nannies' worker processes are this process's children: none may
        # outlive the module (later tests count the children left).
        for child in multiprocessing.active_children():
            if child.name.startswith("Dask"):
                child.join(timeout=10)
                if child.is_alive():
                    child.kill()
                    child.join(timeout=10)
