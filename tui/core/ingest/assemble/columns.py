"""The collector's batches made into one column per complete event.

Begin/end pairs are joined into complete events first; each event's kind is
read from its category.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tui.core.base.vocab import LoadPhase
from tui.core.ingest.collect.batches import Collector, _concatenate
from tui.core.ingest.collect.interning import _Interner
from tui.core.ingest.collect.tables import _pair_begin_end
from tui.core.model.trace import Kind

# Category (lower-cased) → kind. Both generations: PyTorch ≤ 1.10 and current Kineto.
_CATEGORY_KINDS: dict[str, Kind] = {
    "cpu_op": Kind.CPU_OP,
    "operator": Kind.CPU_OP,
    "user_annotation": Kind.USER_ANNOTATION,
    "python_function": Kind.PYTHON,
    "python": Kind.PYTHON,
    "cuda_runtime": Kind.RUNTIME,
    "runtime": Kind.RUNTIME,
    "cuda_driver": Kind.DRIVER,
    "driver": Kind.DRIVER,
    "kernel": Kind.KERNEL,
    "gpu_memcpy": Kind.MEMCPY,
    "memcpy": Kind.MEMCPY,
    "gpu_memset": Kind.MEMSET,
    "memset": Kind.MEMSET,
    "gpu_user_annotation": Kind.GPU_ANNOTATION,
    "cuda_sync": Kind.SYNC,
    "trace": Kind.TRACE_SPAN,
    "cuda_profiler_range": Kind.DEVICE_RANGE,
}


@dataclass
class _EventColumns:
    """One array per complete event: in reading order, then in display order.

    `start` is absolute until `_sort_events` makes it relative to the origin;
    `track` holds track codes until it makes them display ranks.
    """

    start: np.ndarray[Any, Any]
    duration: np.ndarray[Any, Any]
    name_id: np.ndarray[Any, Any]
    category_id: np.ndarray[Any, Any]
    track: np.ndarray[Any, Any]
    kind: np.ndarray[Any, Any]
    correlation: np.ndarray[Any, Any]
    external_id: np.ndarray[Any, Any]
    stream_arg: np.ndarray[Any, Any]
    args_begin: np.ndarray[Any, Any]
    args_end: np.ndarray[Any, Any]


def _paired_columns(
    collector: Collector,
    counts: Counter[str],
    progress: Callable[[LoadPhase, int, int], None] | None,
) -> tuple[_EventColumns, _Interner, np.ndarray[Any, Any]]:
    """Begin/end events paired into complete ones, then every complete event's columns.

    Also the category table and the code each flow category has in it.
    """
    if progress is not None:
        progress(LoadPhase.PAIRING, 0, 0)
    collector.add_complete(_pair_begin_end(collector.begin_end, counts))
    collector.begin_end = []
    # Flow categories first, then those of complete events (each in first-seen
    # order): the same table whatever the batches were.
    categories = _Interner()
    flow_category_map = categories.codes(list(collector.flow_categories.ids))
    complete_category_map = categories.codes(list(collector.categories.ids))
    columns = _event_columns(collector, complete_category_map, categories.strings())
    return columns, categories, flow_category_map


def _event_columns(
    collector: Collector,
    complete_category_map: np.ndarray[Any, Any],
    category_strings: Sequence[str],
) -> _EventColumns:
    """The collector's batches joined into one column each, kinds read from categories.

    Closes the collector's args blob, so the columns' args ranges index a
    whole JSON array.
    """
    args_begin = _concatenate(collector.args_begin, np.int64)
    external_id = _concatenate(collector.external_id, np.int64)
    # Old traces write "external id": 0 for "none".
    external_id[external_id == 0] = -1
    collector.args_blob += b"]"
    category_id = complete_category_map[_concatenate(collector.category_id, np.int32)]
    kind_of_category = np.array(
        [
            _CATEGORY_KINDS.get(category.lower(), Kind.CPU_OTHER)
            for category in category_strings
        ]
        or [Kind.CPU_OTHER],
        dtype=np.uint8,
    )
    return _EventColumns(
        start=_concatenate(collector.start, np.int64),
        duration=_concatenate(collector.duration, np.int64),
        name_id=_concatenate(collector.name_id, np.int32),
        category_id=category_id,
        track=_concatenate(collector.track, np.int32),
        kind=(
            kind_of_category[category_id]
            if category_id.size
            else np.zeros(0, dtype=np.uint8)
        ),
        correlation=_concatenate(collector.correlation, np.int64),
        external_id=external_id,
        stream_arg=_concatenate(collector.stream_arg, np.int64),
        args_begin=args_begin,
        args_end=args_begin + _concatenate(collector.args_length, np.int64),
    )
