"""On the shared MTIA trace every event on the device's tracks is an op: nothing is set aside.

Its device events are all `mtia_ccp_events` (HTA's fixture counts 25,814,
`device_event_categories`), named after ops (`add-dtype_Float`, `fc-…`,
`dma_request`), none a wait or a runtime call: kernels plus DMA copies
are all of them, and no warning says anything was set aside.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import orjson

from tests import shared_traces as shared
from tests.real_traces.test_breakdown_hta import fixture
from tui.cli import main

NAME = "mtia_trace_single_rank-mtia_rank_0.json.gz"


def _json(command: str) -> dict[str, Any]:
    printed = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(printed):
        assert main([command, str(shared.FOLDER / NAME), "--json"]) == 0
    printed.flush()
    data: dict[str, Any] = orjson.loads(printed.buffer.getvalue())
    return data


def test_every_device_event_of_the_mtia_trace_is_device_work() -> None:
    (expected,) = fixture()["traces"][NAME]["device_event_categories"].values()
    kernels = _json("kernels")
    copies = _json("copies")
    assert kernels["set_aside"]["count"] == 0
    kernel_count = sum(row["count"] for row in kernels["kernels"])
    dma = sum(row["count"] for row in copies["directions"])
    assert kernel_count + dma == expected, (kernel_count, dma)
    summary = _json("summary")
    assert not [line for line in summary["warnings"] if "set aside" in line]
