"""Small trace documents of many alike events, for cutting into ranges in the parallel decoding tests."""

from __future__ import annotations

import json
from typing import Any


def event(**fields: Any) -> str:
    """One event as JSON text."""
    return json.dumps(fields)


def document(events: list[str], *, head: str = "", tail: str = "") -> bytes:
    """A trace document around events given as JSON texts (`head`, `tail`: more keys)."""
    return (
        '{"schemaVersion": 1,'
        + head
        + '\n"traceEvents": [\n'
        + ",\n".join(events)
        + "\n]"
        + tail
        + "}\n"
    ).encode()


def op_kernel_events(count: int) -> list[str]:
    """CPU ops, runtime calls, kernels and flows on string and int thread ids."""
    events = []
    for index in range(count):
        tid: Any = "7" if index % 3 else 7
        events.append(
            event(
                ph="X",
                cat="cpu_op" if index % 5 else "Operator",
                name=f"aten::op{index % 11}",
                pid=1,
                tid=tid,
                ts=1000.5 + index * 10,
                dur=4,
                args={"External id": index, "Input Dims": [[index, 2]]},
            )
        )
        events.append(
            event(ph="s", id=index, pid=1, tid=7, ts=1001 + index * 10, cat="ac2g")
        )
        events.append(
            event(
                ph="X",
                cat="kernel",
                name="k",
                pid=0,
                tid=7,
                ts=1003 + index * 10,
                dur=2,
                args={"correlation": index, "External id": index},
            )
        )
        events.append(
            event(
                ph="f", id=index, pid=0, tid=7, ts=1003 + index * 10, cat="ac2g", bp="e"
            )
        )
    return events
